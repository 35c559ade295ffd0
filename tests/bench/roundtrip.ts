/**
 * Round trips and cold start of the MCP server, as a user's client sees them,
 * interleaved in one run (issue #11).
 *
 * Run: `deno run -A tests/bench/roundtrip.ts [--n 200] [--cold 15] [--before DIR] [--no-node]`
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
 * - "Deno SDK, off": control mode off (every command a spawned tmux);
 * - with `--before DIR` (a checkout of an earlier version, e.g. a `git archive`
 *   of main), the same Deno, Node and raw clients on that version, for before/after
 *   figures from one run.
 *
 * Both clients call tools/list first and then `callTool` alone, as a user's
 * client does (the SDK checks each result against the listed output schema);
 * the server's stderr (its audit lines) is piped and read, as clients do.
 *
 * Per round, in turn: one raw `tmux display-message` spawn from Deno, then in
 * every column a call refused before any tmux work (an unknown tool: the floor),
 * a list-sessions and a capture-pane tools/call. Then 200 concurrent calls per
 * tool and column (per-call time = wall time / 200), and cold starts (spawn →
 * initialize answered, raw JSON-RPC on the pipe). Prints one table with the
 * load average beside it: figures on a busy machine are upper bounds.
 */
import { connect, type McpFixture, ROOT, START_PERMISSIONS, startTmux } from "../helpers.ts";

const argv = Deno.args;
const opt = (name: string, dflt: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const N = opt("n", 200);
const COLD = opt("cold", 15);
const BEFORE = (() => {
  const i = argv.indexOf("--before");
  return i >= 0 ? argv[i + 1].replace(/\/?$/, "/") : undefined;
})();
const SDK_VERSION = "1.32.2";
const enc = new TextEncoder();
const dec = new TextDecoder();

const p50 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
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

const CALLS = {
  floor: { name: "no-such-tool", arguments: {} },
  list: { name: "list", arguments: { what: "sessions" } },
  capture: { name: "capture-pane", arguments: { target: "main", max_lines: 50 } },
};

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

/** The server's argv for a checkout (`root` ends with "/"). */
const serverArgv = (root: string, socketName: string) => [
  Deno.execPath(),
  "run",
  ...START_PERMISSIONS,
  root + "main.ts",
  "--socket-name",
  socketName,
];

/** A column driven by the SDK Client in this (Deno) process. */
async function denoColumn(label: string, root: string, socketName: string, mode: "on" | "off"): Promise<Column> {
  const m: McpFixture = await connect({
    spawn: serverArgv(root, socketName),
    env: { TMUX_MCP_CONTROL_MODE: mode },
  });
  await m.client.listTools(); // the SDK now checks results against the listed output schemas
  const call = async (c: { name: string; arguments: Record<string, unknown> }, ok: boolean) => {
    const r = await m.client.callTool(c);
    if (Boolean(r.isError) === ok) throw new Error(`${label}: ${c.name} ${ok ? "failed" : "succeeded"}`);
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
async function rawColumn(label: string, root: string, socketName: string): Promise<Column> {
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
  await rpc("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "tmux-mcp-bench", version: "0" },
  });
  await w.write(enc.encode(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"));
  await rpc("tools/list");
  const call = async (c: { name: string; arguments: Record<string, unknown> }, ok: boolean) => {
    const m = await rpc("tools/call", c);
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
await fx.tmux("send-keys", "-t", "main", "seq 1 60", "Enter");

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

const hasNode = !argv.includes("--no-node") &&
  await new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" }).output()
    .then((o) => o.success, () => false);
const sdkDir = hasNode ? await nodeSdkDir() : undefined;

const columns: Column[] = [await denoColumn("Deno SDK client", ROOT, fx.socketName, "on")];
if (sdkDir) columns.push(await nodeColumn("Node SDK client", sdkDir, ROOT, fx.socketName));
if (BEFORE) {
  columns.push(await denoColumn("before: Deno SDK client", BEFORE, fx.socketName, "on"));
  if (sdkDir) columns.push(await nodeColumn("before: Node SDK client", sdkDir, BEFORE, fx.socketName));
}
columns.push(await rawColumn("no SDK client (raw JSON-RPC)", ROOT, fx.socketName));
if (BEFORE) columns.push(await rawColumn("before: no SDK client", BEFORE, fx.socketName));
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

const raw: number[] = [];
const seq = new Map<Column, Record<"floor" | Kind, number[]>>(
  columns.map((c) => [c, { floor: [], list: [], capture: [] }]),
);
for (let i = 0; i < N; i++) {
  raw.push(await rawSpawn());
  for (const c of columns) {
    const s = seq.get(c)!;
    s.floor.push(await c.floor());
    s.list.push(await c.list());
    s.capture.push(await c.capture());
  }
}
const conc = new Map<Column, Record<Kind, number>>();
for (const c of columns) {
  if (c.concurrent) {
    conc.set(c, { list: await c.concurrent("list", N) / N, capture: await c.concurrent("capture", N) / N });
  }
}
const loadAfterCalls = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
for (const c of columns) await c.close();

/** Spawn → initialize answered, with nothing but the JSON-RPC request written. */
async function coldStart(root: string, mode: "on" | "off"): Promise<number> {
  const t = performance.now();
  const [command, ...args] = serverArgv(root, fx.socketName);
  const child = new Deno.Command(command, {
    args,
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

const coldRuns: Array<{ label: string; root: string; mode: "on" | "off"; xs: number[] }> = [
  { label: "control mode on", root: ROOT, mode: "on", xs: [] },
  { label: "control mode off", root: ROOT, mode: "off", xs: [] },
];
if (BEFORE) coldRuns.push({ label: "before, control mode on", root: BEFORE, mode: "on", xs: [] });
await coldStart(ROOT, "on"); // warm the module cache
if (BEFORE) await coldStart(BEFORE, "on");
for (let i = 0; i < COLD; i++) for (const r of coldRuns) r.xs.push(await coldStart(r.root, r.mode));
const rawCold: number[] = [];
for (let i = 0; i < COLD; i++) rawCold.push(await rawSpawn());
await fx.kill();

const rawP50 = p50(raw);
const ratio = (x: number) => `${ms(x)} ms (${(x / rawP50).toFixed(2)}×)`;
const verdict = (x: number) => x <= 0.2 * rawP50 ? "met" : "not met";
const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
const rows: string[] = [
  `load average ${loadAfterCalls} after the calls, ${load} at the end; ${N} calls per figure; ` +
  `× = ratio to the raw spawn's p50; target ≤ 0.2× raw`,
  "",
  `| figure (p50) | ${columns.map((c) => c.label).join(" | ")} |`,
  `|---|${columns.map(() => "---").join("|")}|`,
  `| one raw \`tmux display-message\` spawn | ${ms(rawP50)} ms |${columns.slice(1).map(() => " |").join("")}`,
  `| floor: tools/call refused before any tmux work | ${
    columns.map((c) => ratio(p50(seq.get(c)!.floor))).join(" | ")
  } |`,
];
for (const kind of ["list", "capture"] as const) {
  const name = kind === "list" ? "`list` sessions" : "`capture-pane`";
  rows.push(
    `| ${name}, sequential | ${
      columns.map((c) => `${ratio(p50(seq.get(c)![kind]))} ${verdict(p50(seq.get(c)![kind]))}`).join(" | ")
    } |`,
  );
}
for (const kind of ["list", "capture"] as const) {
  const name = kind === "list" ? "`list` sessions" : "`capture-pane`";
  rows.push(
    `| ${name}, ${N} concurrent, per call | ${
      columns.map((c) => conc.has(c) ? `${ratio(conc.get(c)![kind])} ${verdict(conc.get(c)![kind])}` : "–")
        .join(" | ")
    } |`,
  );
}
rows.push("", `cold start (spawn → initialize answered), p50 of ${COLD}; target ≤ 250 ms on a quiet machine:`);
for (const r of coldRuns) rows.push(`- ${r.label}: ${ms(p50(r.xs))} ms`);
rows.push(`- raw spawn beside the cold starts: ${ms(p50(rawCold))} ms`);
console.log(rows.join("\n"));
