/**
 * Where one `capture-pane` call's time goes inside the server, layer by layer,
 * in one process (no stdio, no client): what the framing, parsing and the
 * pipeline (validation, redaction, budget, audit) add on top of tmux's answer.
 *
 * Run: `deno run -A tests/bench/capture_layers.ts [--n 3000] [--before DIR]`
 *
 * Interleaved in blocks of 50 calls per layer in turn, p50 of `n` each, with
 * the load average:
 * - one raw `tmux display-message` spawn, for scale;
 * - the same command line on a raw `tmux -C` client, unfenced and fenced as
 *   lib/tmux/connection.ts fences it (the facts' display-message printing the
 *   fence, then the unknown-command fence line): the floor of the engine's
 *   round trip, and what the fence costs tmux;
 * - the engine alone (`runEach` of the capture's commands);
 * - `capturePane` (engine + the pane row's parse + the text's lines);
 * - the whole tool call through the server's pipeline (input check, handler,
 *   output check, redaction, response budget, audit line to a sink);
 * with `--before DIR` (an older checkout with the same module layout: ecea101
 * or later, e.g. `git archive ecea101 | tar -x -C DIR`) the same three rows of
 * that version too; and the CPU time per call of this process for each layer
 * (tmux's own time is not in it).
 */
import { ROOT, startTmux } from "../helpers.ts";
import { fillPane } from "./pane_text.ts";
import { rawControlClient } from "./raw_control.ts";
import { flag } from "./args.ts";

const N = Number(flag("--n") ?? 3000);
const BEFORE = flag("--before")?.replace(/\/?$/, "/");
const ARGS = { target: "main", max_lines: 50 };

const fx = await startTmux("capture-layers");
await fillPane(fx);

/** A version's layers, loaded from its checkout. */
async function layers(root: string, label: string) {
  const { defaultConfig } = await import(`${root}lib/config.ts`);
  const { createServices, loadTools } = await import(`${root}lib/server/server.ts`);
  const { createBudget } = await import(`${root}lib/server/budget.ts`);
  const { createPipeline } = await import(`${root}lib/server/pipeline.ts`);
  const { loadBudgetSettings } = await import(`${root}lib/budget/settings.ts`);
  const { capturePane, captureArgs } = await import(`${root}lib/tmux/capture.ts`);
  const { paneQuery } = await import(`${root}lib/tmux/panes.ts`);
  const { FACTS } = await import(`${root}lib/tools/workspace/capture_pane.ts`);
  const config = { ...defaultConfig(), socketName: fx.socketName, controlMode: true };
  const { services, runExitHooks } = createServices(config);
  const tools = await loadTools();
  const settings = loadBudgetSettings(config, []);
  let served: ReadonlySet<string> = new Set();
  const budget = createBudget({ services, settings, tools, isServed: (n: string) => served.has(n) });
  const auditLines: string[] = [];
  const pipeline = createPipeline({
    tools,
    services,
    audit: (e: unknown) => void auditLines.push(JSON.stringify(e)),
    stages: [budget.stage],
    pageBudget: budget.pageBudget,
    errorText: budget.trimError,
  });
  served = new Set(pipeline.served.map((t: { name: string }) => t.name));
  const extra = { signal: new AbortController().signal, sendNotification: () => Promise.resolve() };
  const query = paneQuery("main", FACTS.format, captureArgs("main", { start: -50, join: true })).args;
  const tmux = services.tmux;
  return {
    label,
    engine: () => tmux.runEach(query),
    capture: () => capturePane(tmux, "main", { start: -50, join: true, maxLines: 50, facts: FACTS }),
    pipeline: async () => {
      const r = await pipeline.call("capture-pane", ARGS, extra);
      if (r.isError) throw new Error(JSON.stringify(r.content));
      if (auditLines.length > 100) auditLines.length = 0;
    },
    close: runExitHooks,
  };
}

/** A raw `tmux -C` client: write a line, read to the `%end` of its `k`-th reply block. */
async function rawControl() {
  const c = rawControlClient(fx.socketName, ["-f", "read-only,ignore-size,no-output"]);
  const until = async (blocks: number) => {
    for (let seen = 0; seen < blocks;) if (/^%(end|error) \d+ \d+ [01]$/.test(await c.line())) seen++;
  };
  await until(1); // the attach's own block
  return {
    async ask(line: string, blocks: number) {
      await c.write(line);
      await until(blocks);
    },
    close: c.close,
  };
}

const { controlLine } = await import(`${ROOT}lib/tmux/engine.ts`);
const { paneQuery } = await import(`${ROOT}lib/tmux/panes.ts`);
const { captureArgs } = await import(`${ROOT}lib/tmux/capture.ts`);
const { FACTS } = await import(`${ROOT}lib/tools/workspace/capture_pane.ts`);
const plain = controlLine(paneQuery("main", FACTS.format, captureArgs("main", { start: -50, join: true })).args)!;
const fence = "0123456789abcdef0123456789abcdef";
const fencedLine = plain.replace(" ; capture-pane", `"\\n${fence}+" ; capture-pane`) + `\n${fence}.\n`;
const raw = await rawControl();

const versions = [await layers(ROOT, "now")];
if (BEFORE) versions.push(await layers(BEFORE, "before"));

const times = new Map<string, number[]>();
const cpu = new Map<string, number>();
const add = (k: string, x: number) => (times.get(k) ?? times.set(k, []).get(k)!).push(x);
function cpuMs(): number {
  const f = Deno.readTextFileSync(`/proc/self/stat`).split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}
async function timed(key: string, f: () => Promise<unknown>) {
  const t = performance.now();
  await f();
  add(key, performance.now() - t);
}

const steps: [string, () => Promise<unknown>][] = [
  ["raw `tmux -C`, unfenced line", () => raw.ask(plain + "\n", 2)],
  ["raw `tmux -C`, fenced line", () => raw.ask(fencedLine, 3)],
  ...versions.flatMap((v) =>
    [
      [`${v.label}: engine runEach`, v.engine],
      [`${v.label}: capturePane`, v.capture],
      [`${v.label}: pipeline call`, v.pipeline],
    ] as [string, () => Promise<unknown>][]
  ),
];
// Warm-up (JIT, the connections' start), then each step in blocks of 50 in turn.
for (let i = 0; i < 300; i++) for (const [, f] of steps) await f();
for (let i = 0; i < Math.max(50, N / 10); i++) {
  await timed("spawn", () => fx.tmux("display-message", "-p", "x"));
}
const BLOCK = 50;
for (let done = 0; done < N; done += BLOCK) {
  for (const [name, f] of steps) {
    const c0 = cpuMs();
    for (let i = 0; i < BLOCK; i++) await timed(name, f);
    cpu.set(name, (cpu.get(name) ?? 0) + cpuMs() - c0);
  }
}
const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
await raw.close();
for (const v of versions) await v.close();
await fx.kill();

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (x: number) => `${(x * 1000).toFixed(0)} µs`;
const spawn = p50(times.get("spawn")!);
console.log(`load average ${load}; p50 of ${N} (blocks of ${BLOCK}); CPU = this process's CPU time per call`);
console.log("");
console.log("| layer | p50 | ÷ spawn | CPU |");
console.log("|---|---|---|---|");
console.log(`| one raw \`tmux display-message\` spawn | ${us(spawn)} | 1 | |`);
for (const [name] of steps) {
  const x = p50(times.get(name)!);
  console.log(`| ${name} | ${us(x)} | ${(x / spawn).toFixed(3)}× | ${us(cpu.get(name)! / N)} |`);
}
Deno.exit(0);
