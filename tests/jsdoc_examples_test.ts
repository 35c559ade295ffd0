/**
 * The results the JSDoc examples of lib/ state are the results: every line
 * `fn(args); // RESULT` of an @example block that runs without tmux, a
 * terminal or the network (no `declare`, `await` or `Deno.` in the block) is
 * run with the block's own declarations, and RESULT — a string (`…` stands
 * for any text), a number or fraction, `true`, `false`, `undefined`, `null`,
 * or an object or array literal — must equal what the call returns. A comment
 * that is no longer true is a defect; `deno check --doc` only type-checks them.
 */
import { assert, assertEquals } from "./assert.ts";

const ROOT = new URL("../", import.meta.url);

/** Examples whose result is an illustration, not a fact: it depends on chance or on a live terminal. */
const ILLUSTRATIONS = new Set(["randomToken", "lineEditorWaits"]);

/** The ```ts blocks of a module's JSDoc, each with the line it starts on, comment stars removed. */
function exampleBlocks(source: string): { line: number; code: string[] }[] {
  const out: { line: number; code: string[] }[] = [];
  const lines = source.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\* ```ts\s*$/.test(lines[i])) continue;
    const code: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*\* ```\s*$/.test(lines[j]); j++) code.push(lines[j].replace(/^\s*\* ?/, ""));
    out.push({ line: i + 2, code });
    i = j;
  }
  return out;
}

/** The literal a result comment starts with (a string, number, fraction, keyword or balanced object/array), or undefined. */
function statedLiteral(comment: string): string | undefined {
  const simple = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?(?:\/\d+)?|true|false|undefined|null)(?![\w.])/
    .exec(comment);
  if (simple) return simple[0];
  if (comment[0] !== "{" && comment[0] !== "[") return undefined;
  let depth = 0;
  let quote = "";
  for (let i = 0; i < comment.length; i++) {
    const c = comment[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (--depth === 0) return comment.slice(0, i + 1);
    }
  }
  return undefined;
}

/** Whether `actual` is what `stated` (a JS literal; `…` in a string: any text) says. */
function matches(actual: unknown, stated: unknown): boolean {
  if (typeof stated === "string" && stated.includes("…") && typeof actual === "string") {
    const parts = stated.split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    return new RegExp(`^${parts.join("[^]*")}$`).test(actual);
  }
  return Object.is(actual, stated) || JSON.stringify(actual) === JSON.stringify(stated);
}

/** A module that runs the checkable lines of `path`'s examples, or undefined when it has none. */
function harness(path: string, source: string): { code: string; count: number } | undefined {
  const module = new URL(path, ROOT).href;
  const values = [...source.matchAll(/^export (?:async )?(?:function\*?|const|let|class) (\w+)/gm)].map((m) => m[1]);
  const types = [...source.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1]);
  const body: string[] = [];
  let count = 0;
  for (const block of exampleBlocks(source)) {
    const text = block.code.join("\n");
    if (/\bdeclare\b|\bawait\b|\bDeno\./.test(text)) continue;
    const lines: string[] = [];
    block.code.forEach((line, k) => {
      const m = /^(\w+\(.*\));\s*\/\/ (.*)$/.exec(line);
      const fn = m && /^\w+/.exec(m[1])![0];
      const stated = fn && values.includes(fn) && !ILLUSTRATIONS.has(fn) ? statedLiteral(m[2]) : undefined;
      if (!m || stated === undefined) {
        // Imports in an example are relative to its module.
        lines.push(line.replace(/from "(\.\.?\/[^"]+)"/, (_, p) => `from "${new URL(p, module).href}"`));
        return;
      }
      count++;
      const at = `${path}:${block.line + k}`;
      lines.push(`check(() => ${m[1]}, ${stated}, ${JSON.stringify(at)}, ${JSON.stringify(m[1])});`);
    });
    body.push("{", ...lines, "}");
  }
  if (count === 0) return undefined;
  const imported = (name: string) => body.some((l) => new RegExp(`^import .*\\b${name}\\b`).test(l));
  const head = [
    `import { ${values.filter((v) => !imported(v)).join(", ")} } from "${module}";`,
    types.length ? `import type { ${types.filter((t) => !imported(t)).join(", ")} } from "${module}";` : "",
  ];
  const imports = [...new Set(body.filter((l) => l.startsWith("import ")))];
  const rest = body.filter((l) => !l.startsWith("import "));
  return {
    code: [...head, ...imports, "export function run(check: Function) {", ...rest, "}"].join("\n"),
    count,
  };
}

Deno.test("the results stated in lib/'s JSDoc examples are what the functions return", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jsdoc-examples-" });
  const wrong: string[] = [];
  let checked = 0;
  try {
    const walk = async (rel: string): Promise<void> => {
      for await (const e of Deno.readDir(new URL(rel, ROOT))) {
        if (e.isDirectory) await walk(`${rel}${e.name}/`);
        else if (e.name.endsWith(".ts")) {
          const path = rel + e.name;
          const h = harness(path, await Deno.readTextFile(new URL(path, ROOT)));
          if (!h) continue;
          const file = `${dir}/${path.replaceAll("/", "_")}`;
          await Deno.writeTextFile(file, h.code);
          const { run } = await import(`file://${file}`);
          run((f: () => unknown, stated: unknown, at: string, call: string) => {
            checked++;
            let actual: unknown;
            try {
              actual = f();
            } catch (e) {
              actual = `throws ${e instanceof Error ? e.message : e}`;
            }
            if (!matches(actual, stated)) {
              wrong.push(`${at}: ${call} is ${JSON.stringify(actual)}, the comment says ${JSON.stringify(stated)}`);
            }
          });
        }
      }
    };
    await walk("lib/");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert(checked >= 30, `only ${checked} example results found: has the example format changed?`);
  assertEquals(wrong, [], "JSDoc examples state results their functions no longer give");
});

Deno.test("statedLiteral takes the literal a result comment starts with", () => {
  assertEquals(statedLiteral(`"a: b" and more`), `"a: b"`);
  assertEquals(statedLiteral("1: the cut would split"), "1");
  assertEquals(statedLiteral("5/6"), "5/6");
  assertEquals(statedLiteral("undefined: allowed"), "undefined");
  assertEquals(statedLiteral(`{ name: "w}", exact: false } then`), `{ name: "w}", exact: false }`);
  assertEquals(statedLiteral("Uint8Array [1, 2, 3]"), undefined);
  assertEquals(statedLiteral('comm "x"'), undefined);
  assert(matches("padding #{p5:…} is wider than 500 columns", "padding … wider than 500 …"));
  assert(!matches("which makes tmux run a shell command", "…runs a shell command…"));
});
