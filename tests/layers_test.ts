/**
 * The floors of the code: every import runs down, never up, and no folders
 * import each other in a circle. A module may import any module in its own
 * part (a row's folder or file below) and any part on a lower floor.
 *
 * | floor | part                                     | holds                                                                |
 * | ----- | ---------------------------------------- | -------------------------------------------------------------------- |
 * | 9     | main.ts                                  | the command: flags, start, doctor                                    |
 * | 8     | lib/server/, lib/doctor/                 | MCP server, pipeline, budget stage, audit, sweeps; the doctor        |
 * | 7     | lib/tools/                               | tool entries (defineTool, declared target), their context, the table |
 * | 6     | lib/exec/, lib/budget/                   | pane runs and waits; response budget pieces                          |
 * | 5     | lib/buffers/, lib/search/, lib/terminal/ | paste buffers; regex and search; pty sessions                        |
 * | 4     | lib/config.ts                            | the flags (checks an ssh destination as tmux/ssh.ts does)            |
 * | 3     | lib/tmux/                                | every connection to tmux, local or over ssh                          |
 * | 2     | lib/host/, lib/policy/                   | this process and machine (temp names, uid, locks); the pure guards   |
 * | 1     | lib/text/                                | text helpers: lines, UTF-8, hashes                                   |
 * | 0     | lib/*.ts                                 | errors, log, SDK types, settling, byte reading, version              |
 *
 * Types count: an `import type` that climbs ties the lower floor to the
 * upper one as much as a code import does. The graph is `deno info`'s, from
 * main.ts and from every module under lib/ that main.ts does not reach.
 */
import { assert } from "./assert.ts";
import { ROOT } from "./helpers.ts";
import { type ModuleEdges, moduleGraph } from "./module_graph.ts";

/** Each floor's parts, bottom first: `dir/` (with its sub-folders), `dir/*.ts` (its files only) or one file. */
export const FLOORS: readonly (readonly string[])[] = [
  ["lib/*.ts"],
  ["lib/text/"],
  ["lib/host/", "lib/policy/"],
  ["lib/tmux/"],
  ["lib/config.ts"],
  ["lib/buffers/", "lib/search/", "lib/terminal/"],
  ["lib/exec/", "lib/budget/"],
  ["lib/tools/"],
  ["lib/server/", "lib/doctor/"],
  ["main.ts"],
];

/** The part a project path belongs to (the most specific row that names it), or undefined. */
export function partOf(path: string): string | undefined {
  let best: string | undefined;
  for (const part of FLOORS.flat()) {
    const fits = part.endsWith("/*.ts")
      ? path.startsWith(part.slice(0, -4)) && !path.slice(part.length - 4).includes("/")
      : part.endsWith("/")
      ? path.startsWith(part)
      : path === part;
    if (fits && (best === undefined || part.length > best.length)) best = part;
  }
  return best;
}

const floorOf = (part: string) => FLOORS.findIndex((f) => f.includes(part));

/** An import between two project files, as paths relative to the project. */
export interface Arrow {
  from: string;
  to: string;
}

/** Every import between project files (code and types) from main.ts and every lib/ module it does not reach. */
async function projectArrows(): Promise<Arrow[]> {
  const prefix = `file://${ROOT}`;
  const graph = new Map<string, ModuleEdges>();
  const merge = (g: Map<string, ModuleEdges>) => g.forEach((e, m) => graph.set(m, e));
  merge(await moduleGraph("main.ts"));
  for (const file of libFiles("lib")) {
    if (!graph.has(prefix + file)) merge(await moduleGraph(file));
  }
  const arrows: Arrow[] = [];
  for (const [m, e] of graph) {
    if (!m.startsWith(prefix)) continue;
    for (const to of new Set([...e.static, ...e.dynamic, ...e.types])) {
      if (to.startsWith(prefix)) arrows.push({ from: m.slice(prefix.length), to: to.slice(prefix.length) });
    }
  }
  return arrows;
}

function libFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(ROOT + dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...libFiles(path));
    else if (/\.tsx?$/.test(e.name)) out.push(path);
  }
  return out.sort();
}

/** The arrows that climb: to a part on the same floor or higher. */
export function climbing(arrows: readonly Arrow[]): Arrow[] {
  return arrows.filter(({ from, to }) => {
    const a = partOf(from)!, b = partOf(to)!;
    return a !== b && floorOf(b) >= floorOf(a);
  });
}

/** Groups of parts that import each other in a circle, each with the arrows that make it. */
export function circles(arrows: readonly Arrow[]): { parts: string[]; arrows: Arrow[] }[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of arrows) {
    const a = partOf(from)!, b = partOf(to)!;
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Set());
    next.get(a)!.add(b);
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      for (let w = stack.pop()!;; w = stack.pop()!) {
        onStack.delete(w);
        group.push(w);
        if (w === v) break;
      }
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found.map((parts) => ({
    parts,
    arrows: arrows.filter(({ from, to }) => {
      const a = partOf(from)!, b = partOf(to)!;
      return a !== b && parts.includes(a) && parts.includes(b);
    }),
  }));
}

const show = (arrows: readonly Arrow[]) => arrows.map(({ from, to }) => `  ${from} -> ${to}`).join("\n");

Deno.test("every project module has a floor", async () => {
  const homeless = new Set((await projectArrows()).flatMap((a) => [a.from, a.to]).filter((p) => !partOf(p)));
  assert(homeless.size === 0, `no floor in tests/layers_test.ts for:\n  ${[...homeless].sort().join("\n  ")}`);
});

Deno.test("imports run down the floors, and no folders import each other in a circle", async () => {
  const arrows = (await projectArrows()).filter((a) => partOf(a.from) && partOf(a.to));
  const up = climbing(arrows);
  const loops = circles(arrows);
  const report = [
    up.length ? `${up.length} imports climb a floor (or go sideways on one):\n${show(up)}` : "",
    ...loops.map((c) => `circle between ${c.parts.join(", ")}; its climbing imports:\n${show(climbing(c.arrows))}`),
  ].filter(Boolean).join("\n");
  assert(up.length === 0 && loops.length === 0, report);
});

Deno.test("the floor checks see a climbing import and a circle", () => {
  const arrows = [{ from: "lib/tmux/ssh.ts", to: "lib/tools/tool.ts" }, {
    from: "lib/tools/tool.ts",
    to: "lib/tmux/x.ts",
  }];
  assert(climbing(arrows).length === 1 && climbing(arrows)[0].from === "lib/tmux/ssh.ts");
  assert(circles(arrows).length === 1 && circles(arrows)[0].parts.join() === "lib/tmux/,lib/tools/");
  assert(partOf("lib/errors.ts") === "lib/*.ts" && partOf("lib/terminal/pty/ffi.ts") === "lib/terminal/");
  assert(partOf("lib/config.ts") === "lib/config.ts" && partOf("tests/x.ts") === undefined);
});
