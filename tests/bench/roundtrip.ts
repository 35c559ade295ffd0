/**
 * Round trips and cold start of the MCP server, as a user's client sees them,
 * with control mode on and off, interleaved in one run (issue #11).
 *
 * Run: `deno run -A tests/bench/roundtrip.ts [--n 200] [--cold 15]`
 *
 * Per round, in turn: one raw `tmux display-message` spawn from Deno, then
 * a list-sessions and a capture-pane tools/call on each server (SDK client
 * over stdio). Then 200 concurrent calls per tool and server (per-call time
 * = wall time / 200), and cold starts (spawn → initialize answered, raw
 * JSON-RPC on the pipe), alternating between the modes. Prints one table
 * with the load average beside it: figures on a busy machine are upper bounds.
 */
import { connect, type McpFixture, ROOT, START_PERMISSIONS, startTmux } from "../helpers.ts";

const argv = Deno.args;
const opt = (name: string, dflt: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const N = opt("n", 200);
const COLD = opt("cold", 15);
const enc = new TextEncoder();

const p50 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const ms = (x: number) => x.toFixed(x < 1 ? 3 : 2);

const fx = await startTmux("bench-rt");
await fx.tmux("send-keys", "-t", "main", "seq 1 60", "Enter");
const servers: Record<"on" | "off", McpFixture> = {
  on: await connect({ socketName: fx.socketName, env: { TMUX_MCP_CONTROL_MODE: "on" } }),
  off: await connect({ socketName: fx.socketName, env: { TMUX_MCP_CONTROL_MODE: "off" } }),
};
const modes = ["on", "off"] as const;

async function rawSpawn(): Promise<number> {
  const t = performance.now();
  const out = await new Deno.Command("tmux", {
    args: ["-L", fx.socketName, "display-message", "-p", "x"],
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!out.success) throw new Error("raw tmux failed");
  return performance.now() - t;
}

const calls = {
  "list-sessions": (m: McpFixture) => m.ok("list", { what: "sessions" }),
  "capture-pane": (m: McpFixture) => m.ok("capture-pane", { target: "main", max_lines: 50 }),
};
type Tool = keyof typeof calls;

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

// Warm up: both servers attach/start what they need, the JIT settles.
for (let i = 0; i < 20; i++) {
  for (const m of modes) for (const tool of Object.keys(calls) as Tool[]) await calls[tool](servers[m]);
  await rawSpawn();
}

const raw: number[] = [];
const floor: number[] = [];
const seq: Record<string, number[]> = {};
for (let i = 0; i < N; i++) {
  raw.push(await rawSpawn());
  // The transport and pipeline alone: a call refused before any tmux work.
  floor.push(await timed(() => servers.on.call("no-such-tool", {})));
  for (const tool of Object.keys(calls) as Tool[]) {
    for (const m of modes) (seq[`${tool} ${m}`] ??= []).push(await timed(() => calls[tool](servers[m])));
  }
}

const conc: Record<string, number> = {};
for (const tool of Object.keys(calls) as Tool[]) {
  for (const m of modes) {
    const wall = await timed(() => Promise.all(Array.from({ length: N }, () => calls[tool](servers[m]))));
    conc[`${tool} ${m}`] = wall / N;
  }
}
await servers.on.close();
await servers.off.close();

/** Spawn → initialize answered, with nothing but the JSON-RPC request written. */
async function coldStart(mode: "on" | "off"): Promise<number> {
  const t = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...START_PERMISSIONS, ROOT + "main.ts", "--socket-name", fx.socketName],
    env: { TMUX_MCP_CONTROL_MODE: mode },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(enc.encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
    }) + "\n",
  ));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let got = "";
  while (!got.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("server ended before answering initialize");
    got += value;
  }
  const took = performance.now() - t;
  await w.close();
  await reader.cancel();
  await child.status;
  return took;
}

const cold: Record<string, number[]> = { on: [], off: [] };
await coldStart("on"); // warm the module cache
for (let i = 0; i < COLD; i++) for (const m of modes) cold[m].push(await coldStart(m));
const rawCold: number[] = [];
for (let i = 0; i < COLD; i++) rawCold.push(await rawSpawn());
await fx.kill();

const rawP50 = p50(raw);
const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
const rows: string[] = [
  `load average ${load}; ${N} calls per figure, tmux ${fx.socketName}`,
  "",
  "| | control mode on | control mode off | target |",
  "|---|---|---|---|",
  `| one raw \`tmux display-message\` spawn, p50 | ${ms(rawP50)} ms | | |`,
  `| floor: tools/call refused before any tmux work, p50 | ${ms(p50(floor))} ms (${
    (p50(floor) / rawP50).toFixed(2)
  }× raw) | | |`,
];
for (const tool of Object.keys(calls) as Tool[]) {
  const on = p50(seq[`${tool} on`]), off = p50(seq[`${tool} off`]);
  rows.push(
    `| ${tool} p50, sequential | ${ms(on)} ms (${(on / rawP50).toFixed(2)}× raw) | ${ms(off)} ms (${
      (off / rawP50).toFixed(2)
    }× raw) | ≤ 0.2× raw: ${on <= 0.2 * rawP50 ? "met" : "not met"} |`,
  );
}
for (const tool of Object.keys(calls) as Tool[]) {
  const on = conc[`${tool} on`], off = conc[`${tool} off`];
  rows.push(
    `| ${tool}, ${N} concurrent, per call | ${ms(on)} ms (${(on / rawP50).toFixed(2)}× raw) | ${ms(off)} ms (${
      (off / rawP50).toFixed(2)
    }× raw) | ≤ 0.2× raw: ${on <= 0.2 * rawP50 ? "met" : "not met"} |`,
  );
}
rows.push(
  `| cold start (spawn → initialize answered), p50 of ${COLD} | ${ms(p50(cold.on))} ms | ${
    ms(p50(cold.off))
  } ms | ≤ 250 ms (quiet machine): ${p50(cold.on) <= 250 ? "met" : "not met"} |`,
  `| raw spawn beside the cold starts, p50 | ${ms(p50(rawCold))} ms | | |`,
);
console.log(rows.join("\n"));
