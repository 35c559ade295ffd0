/**
 * Where one sequential tools/call's time goes, layer by layer, without any
 * SDK client (issue #11; tests/bench/roundtrip.ts measures with the clients).
 *
 * Run: `deno run -A tests/bench/roundtrip_layers.ts [--n 2000] [--before DIR] [--panes 10]`
 *
 * Interleaved in one run, p50 of `n` each:
 * - a pipe echo: a Deno process that writes back each line it reads (two pipe
 *   hops and two process wake-ups, no JSON, no MCP);
 * - one command on a raw `tmux -C` control client (write a line, read to its
 *   `%end`): what the engine's round trip to tmux costs at best;
 * - raw JSON-RPC lines to the server (write a line, read a line): `ping`
 *   (transport and SDK dispatch only), a call refused before any tmux work
 *   (an unknown tool), `list` sessions, `list` panes (`--panes`: that many,
 *   one window each; default 10) and `capture-pane`; with `--before DIR` the
 *   same on the server of another checkout (before/after from one run);
 * - one raw `tmux display-message` spawn, for scale (measured just before the
 *   calls, not between them);
 * - the server's CPU time per call (all its threads, from /proc), which load
 *   distorts less than wall time.
 */
import { ROOT, START_PERMISSIONS, startTmux } from "../helpers.ts";
import { fillPane } from "./pane_text.ts";

const argv = Deno.args;
const N = (() => {
  const i = argv.indexOf("--n");
  return i >= 0 ? Number(argv[i + 1]) : 2000;
})();
const PANES = (() => {
  const i = argv.indexOf("--panes");
  return i >= 0 ? Number(argv[i + 1]) : 10;
})();
const BEFORE = (() => {
  const i = argv.indexOf("--before");
  return i >= 0 ? argv[i + 1].replace(/\/?$/, "/") : undefined;
})();
const enc = new TextEncoder();
const dec = new TextDecoder();

/** A child process spoken to in lines: write one, read up to the line that `done` accepts. */
function lineChild(command: string, args: string[], env: Record<string, string> = {}) {
  const child = new Deno.Command(command, { args, env, stdin: "piped", stdout: "piped", stderr: "null" }).spawn();
  const w = child.stdin.getWriter();
  const r = child.stdout.getReader();
  let buf = "";
  return {
    pid: child.pid,
    /** Writes `line` (unless undefined), then reads lines until `done` accepts one. */
    async ask(line: string | undefined, done: (l: string) => boolean): Promise<string> {
      if (line !== undefined) await w.write(enc.encode(line + "\n"));
      for (;;) {
        const nl = buf.indexOf("\n");
        if (nl >= 0) {
          const l = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (done(l)) return l;
          continue;
        }
        const { value, done: end } = await r.read();
        if (end) throw new Error(`${command} ended`);
        buf += dec.decode(value);
      }
    },
    async close() {
      await w.close().catch(() => {});
      await r.cancel().catch(() => {});
      await child.status;
    },
  };
}

/** CPU time (user + system, all threads) of a process so far, in ms. */
function cpuMs(pid: number): number {
  const f = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 1000 / 100; // clock ticks of 10 ms
}

const fx = await startTmux("bench-layers");
await fillPane(fx);
for (let i = 1; i < PANES; i++) await fx.tmux("new-window", "-d", "-t", "main");

const echo = lineChild(Deno.execPath(), [
  "eval",
  "const b = new Uint8Array(65536); for (let n; (n = await Deno.stdin.read(b)) !== null;) " +
  "{ let o = 0; while (o < n) o += await Deno.stdout.write(b.subarray(o, n)); }",
]);
const control = lineChild("tmux", [
  "-L",
  fx.socketName,
  "-C",
  "attach-session",
  "-f",
  "read-only,ignore-size,no-output",
]);
// The attach's own %begin/%end block first (an empty line would detach the client).
await control.ask(undefined, (l) => /^%end \d+ \d+ 0$/.test(l));
const listLine = "list-sessions -F '#{session_id} #{session_name} #{session_windows} #{session_attached}'";

function server(root: string) {
  const s = lineChild(
    Deno.execPath(),
    ["run", ...START_PERMISSIONS, root + "main.ts", "--socket-name", fx.socketName],
    { TMUX_MCP_CONTROL_MODE: "on" },
  );
  let id = 0;
  const rpc = (method: string, params?: unknown) => {
    const my = ++id;
    return s.ask(JSON.stringify({ jsonrpc: "2.0", id: my, method, params }), (l) => l.includes(`"id":${my}`));
  };
  return { ...s, rpc };
}
const servers = [{ label: "now", s: server(ROOT) }];
if (BEFORE) servers.push({ label: "before", s: server(BEFORE) });
for (const { s } of servers) {
  await s.rpc("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "b", version: "0" },
  });
  await s.rpc("tools/list");
}

type Step = [string, (s: ReturnType<typeof server>) => Promise<unknown>];
/** A tool call that must succeed: a server answering with an error would be timed as fast. */
const call = async (s: ReturnType<typeof server>, name: string, args: Record<string, unknown>) => {
  const line = await s.rpc("tools/call", { name, arguments: args });
  if (/"isError":true|"error":\{/.test(line)) throw new Error(`${name} failed: ${line.slice(0, 300)}`);
  return line;
};
const steps: Step[] = [
  ["ping", (s) => s.rpc("ping")],
  ["refused call (unknown tool)", (s) => s.rpc("tools/call", { name: "no-such-tool", arguments: {} })],
  ["`list` sessions", (s) => call(s, "list", { what: "sessions" })],
  [`\`list\` panes (${PANES})`, (s) => call(s, "list", { what: "panes" })],
  ["`capture-pane` 50 lines", (s) => call(s, "capture-pane", { target: "main", max_lines: 50 })],
];

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

const times = new Map<string, number[]>();
const cpu = new Map<string, number>();
const add = (k: string, x: number) => times.set(k, [...(times.get(k) ?? []), x]);
// Warm-up, then each step call by call on every server in turn, so load changes hit all alike.
for (let i = 0; i < 200; i++) {
  await echo.ask("ping", () => true);
  await control.ask(listLine, (l) => /^%end \d+ \d+ 1$/.test(l));
  for (const { s } of servers) for (const [, f] of steps) await f(s);
}
// The spawns on their own (a process created and ended disturbs the calls right after it).
for (let i = 0; i < Math.max(50, N / 4); i++) add("spawn", await timed(() => fx.tmux("display-message", "-p", "x")));
for (const [name, f] of steps) {
  const before = servers.map(({ s }) => cpuMs(s.pid));
  for (let i = 0; i < N; i++) {
    for (const { label, s } of servers) add(`${label} ${name}`, await timed(() => f(s)));
    if (name === steps[0][0]) {
      add("echo", await timed(() => echo.ask("ping", () => true)));
      add("control", await timed(() => control.ask(listLine, (l) => /^%end \d+ \d+ 1$/.test(l))));
    }
  }
  servers.forEach(({ label, s }, k) => cpu.set(`${label} ${name}`, (cpuMs(s.pid) - before[k]) / N));
}
const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
for (const { s } of servers) await s.close();
await echo.close();
await control.close();
await fx.kill();

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (x: number) => `${(x * 1000).toFixed(0)} µs`;
const rows = [
  `load average ${load}; p50 of ${N}; CPU = the server process's CPU time per call (all threads)`,
  "",
  `| layer | ${servers.map((s) => s.label).join(" | ")} |`,
  `|---|${servers.map(() => "---").join("|")}|`,
  `| pipe echo (Deno process, two pipe hops) | ${us(p50(times.get("echo")!))} |${
    servers.slice(1).map(() => " |").join("")
  }`,
  `| one raw \`tmux display-message\` spawn, for scale | ${us(p50(times.get("spawn")!))} |${
    servers.slice(1).map(() => " |").join("")
  }`,
  `| one command on a raw \`tmux -C\` client | ${us(p50(times.get("control")!))} |${
    servers.slice(1).map(() => " |").join("")
  }`,
];
for (const [name] of steps) {
  rows.push(
    `| ${name}: round trip / server CPU | ${
      servers.map(({ label }) => `${us(p50(times.get(`${label} ${name}`)!))} / ${us(cpu.get(`${label} ${name}`)!)}`)
        .join(" | ")
    } |`,
  );
}
console.log(rows.join("\n"));
