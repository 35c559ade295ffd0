/**
 * Round trips and cold start of the MCP server, as a user's client sees them,
 * interleaved in one run (issue #11).
 *
 * Run: `deno run -A tests/bench/roundtrip.ts [--n 200] [--block 20] [--cold 15] [--before DIR] [--no-node]`
 *
 * Columns (each a server of its own on one private tmux server):
 * - "Deno SDK": the SDK Client running in Deno, control mode on;
 * - "Node SDK": the same SDK (1.32.2, the version the project pins) running in
 *   Node, as the clients users run are Node apps (Claude Code, Claude Desktop,
 *   Cursor). The bench installs it with npm into
 *   `${TMPDIR:-/tmp}/tmux-mcp-bench-node-sdk-1.32.2/` (reused when present),
 *   never into the project. Left out with `--no-node` or when `node`/`npm` are
 *   missing;
 * - "no SDK client": JSON-RPC lines written and read by this process: the
 *   server and the pipes alone, under the same interleaving (sequential only);
 * - "reference relay": the Deno SDK client on tests/bench/relay_server.ts,
 *   which does per call only what no server can skip — read the request, send
 *   our server's tmux command line on a `tmux -C` client, write a result
 *   recorded from our server. The floor of this client, Deno and tmux: what
 *   the ≤ 0.2× target leaves for everything a server does besides;
 * - "Deno SDK, off": control mode off (every command a spawned tmux);
 * - with `--before DIR` (a checkout of an earlier version, e.g. a `git archive`
 *   of main), the same Deno, Node and raw clients on that version, for before/after
 *   figures from one run.
 *
 * Both clients call tools/list first and then `callTool` alone, as a user's
 * client does (the SDK checks each result against the listed output schema);
 * the server's stderr (its audit lines) is piped and read, as clients do.
 *
 * Sequential calls are measured two ways, each `n` calls per kind and column:
 * - spaced: per round, one raw `tmux display-message` spawn from Deno, then in
 *   every column a call refused before any tmux work (an unknown tool: the
 *   floor), a list-sessions and a capture-pane tools/call. Each process sleeps
 *   10–15 ms between two of its calls, so a call pays the wake-up of four
 *   processes (client, server, `tmux -C` client, tmux server);
 * - back to back: per round, a block of `block` raw spawns, then in every
 *   column a block of `block` floor calls, one of list-sessions calls and one
 *   of capture-pane calls, each call sent as soon as the previous one is
 *   answered (as an agent's 200 sequential calls would be without model turns
 *   between them). Rounds repeat until each figure has `n` calls, so load
 *   changes still hit all columns alike; each round starts one column later
 *   than the one before (no column always runs first after the spawns).
 * Each mode's ratios are to the raw spawn measured in that mode. Then 200
 * concurrent calls per tool and column (per-call time = wall time / 200), and
 * cold starts (spawn → initialize answered, and → the tools/list sent right
 * after it answered; raw JSON-RPC on the pipe, tests/bench/cold_start.ts). Prints
 * the tables with the load average beside them: figures on a busy machine are
 * upper bounds.
 */
import { connect, type Era, type McpFixture, ROOT, startTmux } from "../helpers.ts";
import { prepareRelay, RELAY_CALLS } from "./relay.ts";
import { fillPane } from "./pane_text.ts";
import { type ColdStart, coldStart, p50, rawSpawn as rawSpawnOn, serverArgv } from "./cold_start.ts";

const argv = Deno.args;
const opt = (name: string, dflt: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const N = opt("n", 200);
const BLOCK = opt("block", 20);
const COLD = opt("cold", 15);
const BEFORE = (() => {
  const i = argv.indexOf("--before");
  return i >= 0 ? argv[i + 1].replace(/\/?$/, "/") : undefined;
})();
const SDK_VERSION = "1.32.2";
const enc = new TextEncoder();
const dec = new TextDecoder();

const ms = (x: number) => x.toFixed(x < 1 ? 3 : 2);

/** What one column does: a call of each kind, timed by the client itself. */
interface Column {
  label: string;
  floor(): Promise<number>;
  list(): Promise<number>;
  capture(): Promise<number>;
  /** Wall time of n calls at once (absent: this client sends one at a time). */
  concurrent?(tool: "list" | "capture", n: number): Promise<number>;
  close(): Promise<void>;
}
type Kind = "list" | "capture";

const CALLS = { floor: { name: "no-such-tool", arguments: {} }, ...RELAY_CALLS };

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

/** A column driven by the SDK Client in this (Deno) process. */
async function denoColumn(
  label: string,
  root: string,
  socketName: string,
  mode: "on" | "off",
  era: Era = "legacy",
): Promise<Column> {
  return await sdkColumn(label, serverArgv(root, socketName), mode, era);
}

/** A column driven by the SDK Client in this (Deno) process, on the server `argv` starts. */
async function sdkColumn(label: string, argv: string[], mode: "on" | "off", era: Era = "legacy"): Promise<Column> {
  const m: McpFixture = await connect({ spawn: argv, env: { TMUX_MCP_CONTROL_MODE: mode }, era });
  await m.client.listTools(); // the SDK now checks results against the listed output schemas
  const call = async (c: { name: string; arguments: Record<string, unknown> }, ok: boolean) => {
    const r = await m.client.callTool(c);
    if (Boolean(r.isError) === ok) {
      const said = (r.content as { text?: string }[]).map((b) => b.text ?? "").join(" ");
      throw new Error(`${label}: ${c.name} ${ok ? "failed" : "succeeded"}: ${said}`);
    }
  };
  return {
    label,
    floor: () => timed(() => call(CALLS.floor, false)),
    list: () => timed(() => call(CALLS.list, true)),
    capture: () => timed(() => call(CALLS.capture, true)),
    concurrent: (tool, n) => timed(() => Promise.all(Array.from({ length: n }, () => call(CALLS[tool], true)))),
    close: () => m.close(),
  };
}

/**
 * A column without any SDK client: JSON-RPC lines written and read in this
 * process (initialize, tools/list, then the calls), stderr read and dropped.
 * What the server and the pipes cost alone, under the same interleaving.
 */
async function rawColumn(label: string, root: string, socketName: string, era: Era = "legacy"): Promise<Column> {
  const [command, ...args] = serverArgv(root, socketName);
  const child = new Deno.Command(command, {
    args,
    env: { TMUX_MCP_CONTROL_MODE: "on" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  void child.stderr.pipeTo(new WritableStream());
  const w = child.stdin.getWriter();
  const r = child.stdout.getReader();
  let buf = "";
  let id = 0;
  const rpc = async (method: string, params?: unknown): Promise<{ result?: { isError?: boolean } }> => {
    const my = ++id;
    await w.write(enc.encode(JSON.stringify({ jsonrpc: "2.0", id: my, method, params }) + "\n"));
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const m = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (m.id === my) return m;
        continue;
      }
      const { value, done } = await r.read();
      if (done) throw new Error(`${label}: the server ended`);
      buf += dec.decode(value);
    }
  };
  // The 2026 era: no handshake, the envelope on every request.
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  if (era === "legacy") {
    await rpc("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "tmux-mcp-bench", version: "0" },
    });
    await w.write(enc.encode(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"));
  }
  await rpc("tools/list", era === "modern" ? { _meta } : undefined);
  const call = async (c: { name: string; arguments: Record<string, unknown> }, ok: boolean) => {
    const m = await rpc("tools/call", era === "modern" ? { ...c, _meta } : c);
    if (Boolean(m.result?.isError) === ok) throw new Error(`${label}: ${c.name} ${ok ? "failed" : "succeeded"}`);
  };
  return {
    label,
    floor: () => timed(() => call(CALLS.floor, false)),
    list: () => timed(() => call(CALLS.list, true)),
    capture: () => timed(() => call(CALLS.capture, true)),
    async close() {
      await w.close().catch(() => {});
      await r.cancel().catch(() => {});
      await child.status;
    },
  };
}

/**
 * The reference column: the SDK Client in Deno on tests/bench/relay_server.ts, which sends the command
 * lines our server sends for these calls (built by the same functions) and answers with results
 * recorded from our server.
 */
async function relayColumn(label: string, socketName: string): Promise<Column> {
  const relay = await prepareRelay(socketName);
  const column = await sdkColumn(label, relay.argv, "on");
  return { ...column, close: () => column.close().finally(relay.close) };
}

/** The Node driver: the SDK Client over stdio, timing calls on request ("list" → one line with ms). */
const DRIVER = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createInterface } from "node:readline";
const [command, ...args] = JSON.parse(process.argv[2]);
const CALLS = ${JSON.stringify(CALLS)};
const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "pipe" });
transport.stderr.on("data", () => {}); // read and dropped, as a client that logs it elsewhere
const client = new Client({ name: "tmux-mcp-bench", version: "0" });
await client.connect(transport);
await client.listTools();
const call = async (kind, ok) => {
  const r = await client.callTool(CALLS[kind]);
  if (Boolean(r.isError) === ok) throw new Error(kind + (ok ? " failed" : " succeeded"));
};
const out = (x) => process.stdout.write(x + "\\n");
out("ready");
for await (const line of createInterface({ input: process.stdin })) {
  const [what, n] = line.split(" ");
  const t = performance.now();
  if (what === "close") break;
  if (n) await Promise.all(Array.from({ length: Number(n) }, () => call(what, true)));
  else await call(what, what !== "floor");
  out(String(performance.now() - t));
}
await client.close();
process.exit(0);
`;

/** Installs the pinned SDK for Node into a temp dir of its own (once); undefined when node or npm is missing. */
async function nodeSdkDir(): Promise<string | undefined> {
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/tmux-mcp-bench-node-sdk-${SDK_VERSION}`;
  const pkg = `${dir}/node_modules/@modelcontextprotocol/sdk/package.json`;
  try {
    if (JSON.parse(await Deno.readTextFile(pkg)).version === SDK_VERSION) return dir;
  } catch {
    // not installed yet
  }
  try {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(`${dir}/package.json`, '{"private":true,"type":"module"}\n');
    const out = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--ignore-scripts", `@modelcontextprotocol/sdk@${SDK_VERSION}`],
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(dec.decode(out.stderr).trim().split("\n").at(-1));
    return dir;
  } catch (e) {
    console.error(`Node column left out: cannot install the SDK for Node (${e instanceof Error ? e.message : e})`);
    return undefined;
  }
}

/** A column driven by the SDK Client running in Node. */
async function nodeColumn(label: string, dir: string, root: string, socketName: string): Promise<Column> {
  await Deno.writeTextFile(`${dir}/driver.mjs`, DRIVER);
  const child = new Deno.Command("node", {
    args: [`${dir}/driver.mjs`, JSON.stringify(serverArgv(root, socketName))],
    cwd: dir,
    env: { TMUX_MCP_CONTROL_MODE: "on" },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const w = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const readLine = async () => {
    while (!buf.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`${label}: the Node driver ended`);
      buf += value;
    }
    const line = buf.slice(0, buf.indexOf("\n"));
    buf = buf.slice(line.length + 1);
    return line;
  };
  const ask = async (what: string) => {
    await w.write(enc.encode(what + "\n"));
    return Number(await readLine());
  };
  if (await readLine() !== "ready") throw new Error(`${label}: the Node driver did not start`);
  return {
    label,
    floor: () => ask("floor"),
    list: () => ask("list"),
    capture: () => ask("capture"),
    concurrent: (tool, n) => ask(`${tool} ${n}`),
    async close() {
      await w.write(enc.encode("close\n"));
      await w.close().catch(() => {});
      await lines.cancel().catch(() => {});
      await child.status;
    },
  };
}

const fx = await startTmux("bench-rt");
await fillPane(fx);

/** One raw `tmux display-message` spawn from Deno, in ms. */
const rawSpawn = () => rawSpawnOn(fx.socketName);

const hasNode = !argv.includes("--no-node") &&
  await new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" }).output()
    .then((o) => o.success, () => false);
const sdkDir = hasNode ? await nodeSdkDir() : undefined;

const columns: Column[] = [
  await denoColumn("Deno SDK client (2025 era)", ROOT, fx.socketName, "on"),
  await denoColumn("Deno SDK v2 client (2026 era)", ROOT, fx.socketName, "on", "modern"),
];
if (sdkDir) columns.push(await nodeColumn("Node SDK client", sdkDir, ROOT, fx.socketName));
if (BEFORE) {
  columns.push(await denoColumn("before: Deno SDK client", BEFORE, fx.socketName, "on"));
  columns.push(await denoColumn("before: Deno SDK v2 client (2026 era)", BEFORE, fx.socketName, "on", "modern"));
  if (sdkDir) columns.push(await nodeColumn("before: Node SDK client", sdkDir, BEFORE, fx.socketName));
}
columns.push(await rawColumn("no SDK client (raw JSON-RPC, 2025 era)", ROOT, fx.socketName));
columns.push(await rawColumn("no SDK client (raw JSON-RPC, 2026 era)", ROOT, fx.socketName, "modern"));
columns.push(await relayColumn("reference relay, Deno SDK client", fx.socketName));
if (BEFORE) {
  columns.push(await rawColumn("before: no SDK client", BEFORE, fx.socketName));
  columns.push(await rawColumn("before: no SDK client (2026 era)", BEFORE, fx.socketName, "modern"));
}
columns.push(await denoColumn("Deno SDK client, control mode off", ROOT, fx.socketName, "off"));

// Warm up: every server attaches/starts what it needs, the JIT settles.
for (let i = 0; i < 20; i++) {
  for (const c of columns) {
    await c.floor();
    await c.list();
    await c.capture();
  }
  await rawSpawn();
}

/**
 * The columns in round `round`'s order: each round starts one column later, so no column always runs first
 * after the raw spawns, whose process starts evict caches.
 */
const rotated = (round: number) => columns.map((_, i) => columns[(i + round) % columns.length]);

type Figures = Record<"floor" | Kind, number[]>;
const figures = () => new Map<Column, Figures>(columns.map((c) => [c, { floor: [], list: [], capture: [] }]));

// Spaced: one call of each kind per column per round.
const raw: number[] = [];
const seq = figures();
for (let i = 0; i < N; i++) {
  raw.push(await rawSpawn());
  for (const c of rotated(i)) {
    const s = seq.get(c)!;
    s.floor.push(await c.floor());
    s.list.push(await c.list());
    s.capture.push(await c.capture());
  }
}
const loadAfterSpaced = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");

// Back to back: blocks of BLOCK calls of one kind per column per round.
const rawBlocks: number[] = [];
const blocks = figures();
for (let done = 0; done < N; done += BLOCK) {
  const k = Math.min(BLOCK, N - done);
  for (let j = 0; j < k; j++) rawBlocks.push(await rawSpawn());
  for (const c of rotated(done / BLOCK)) {
    const s = blocks.get(c)!;
    for (const kind of ["floor", "list", "capture"] as const) {
      for (let j = 0; j < k; j++) s[kind].push(await c[kind]());
    }
  }
}
const loadAfterBlocks = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
const conc = new Map<Column, Record<Kind, number>>();
for (const c of columns) {
  if (c.concurrent) {
    conc.set(c, { list: await c.concurrent("list", N) / N, capture: await c.concurrent("capture", N) / N });
  }
}
const loadAfterCalls = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
for (const c of columns) await c.close();

const coldRuns: Array<{ label: string; root: string; mode: "on" | "off"; xs: ColdStart[] }> = [
  { label: "control mode on", root: ROOT, mode: "on", xs: [] },
  { label: "control mode off", root: ROOT, mode: "off", xs: [] },
];
if (BEFORE) coldRuns.push({ label: "before, control mode on", root: BEFORE, mode: "on", xs: [] });
const cold = (root: string, mode: "on" | "off") =>
  coldStart(serverArgv(root, fx.socketName), { TMUX_MCP_CONTROL_MODE: mode });
await cold(ROOT, "on"); // warm the module cache
if (BEFORE) await cold(BEFORE, "on");
for (let i = 0; i < COLD; i++) for (const r of coldRuns) r.xs.push(await cold(r.root, r.mode));
const rawCold: number[] = [];
for (let i = 0; i < COLD; i++) rawCold.push(await rawSpawn());
await fx.kill();

const loadAt = (x: string) => `load average ${x}`;
const ratioTo = (rawP50: number) => (x: number) => `${ms(x)} ms (${(x / rawP50).toFixed(2)}×)`;
const verdictTo = (rawP50: number) => (x: number) => x <= 0.2 * rawP50 ? "met" : "not met";
const blank = columns.slice(1).map(() => " |").join("");
const header = [
  `| figure (p50) | ${columns.map((c) => c.label).join(" | ")} |`,
  `|---|${columns.map(() => "---").join("|")}|`,
];
const kindName = (kind: Kind) => kind === "list" ? "`list` sessions" : "`capture-pane`";

/** The sequential rows of one mode, each with its ratio to that mode's raw spawn. */
function seqRows(rawP50: number, figs: Map<Column, Figures>, how: string): string[] {
  const ratio = ratioTo(rawP50);
  const verdict = verdictTo(rawP50);
  const rows = [
    `| one raw \`tmux display-message\` spawn, ${how} | ${ms(rawP50)} ms |${blank}`,
    `| floor: tools/call refused before any tmux work | ${
      columns.map((c) => ratio(p50(figs.get(c)!.floor))).join(" | ")
    } |`,
  ];
  for (const kind of ["list", "capture"] as const) {
    rows.push(
      `| ${kindName(kind)}, sequential, ${how} | ${
        columns.map((c) => `${ratio(p50(figs.get(c)![kind]))} ${verdict(p50(figs.get(c)![kind]))}`).join(" | ")
      } |`,
    );
  }
  return rows;
}

const rawP50 = p50(raw);
const rawBlocksP50 = p50(rawBlocks);
const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
const rows: string[] = [
  `${N} calls per figure; × = ratio to the raw spawn's p50 measured in the same mode; target ≤ 0.2× raw`,
  "",
  `Spaced (one call per column per round; ${loadAt(loadAfterSpaced)} after these calls):`,
  "",
  ...header,
  ...seqRows(rawP50, seq, "spaced"),
];
for (const kind of ["list", "capture"] as const) {
  const ratio = ratioTo(rawP50);
  const verdict = verdictTo(rawP50);
  rows.push(
    `| ${kindName(kind)}, ${N} concurrent, per call | ${
      columns.map((c) => conc.has(c) ? `${ratio(conc.get(c)![kind])} ${verdict(conc.get(c)![kind])}` : "–")
        .join(" | ")
    } |`,
  );
}
rows.push(
  "",
  `Back to back (blocks of ${BLOCK} calls of one kind per column per round, raw spawns in blocks too; ` +
    `${loadAt(loadAfterBlocks)} after these calls, ${loadAfterCalls} after the concurrent ones):`,
  "",
  ...header,
  ...seqRows(rawBlocksP50, blocks, "back to back"),
);
rows.push("", `cold start (spawn → initialize answered), p50 of ${COLD}; target ≤ 250 ms on a quiet machine:`);
for (const r of coldRuns) {
  rows.push(
    `- ${r.label}: ${ms(p50(r.xs.map((x) => x.initialize)))} ms (tools/list answered: ` +
      `${ms(p50(r.xs.map((x) => x.toolsList)))} ms)`,
  );
}
rows.push(`- raw spawn beside the cold starts: ${ms(p50(rawCold))} ms`, "", `${loadAt(load)} at the end`);
console.log(rows.join("\n"));
