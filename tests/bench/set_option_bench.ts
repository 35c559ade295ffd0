/**
 * What reading option names as tmux does costs a `set {what: option}` call:
 * the first call of a server (which lists the option table of the connected
 * tmux) and later calls (the table cached), beside the same calls on an
 * earlier version, interleaved on one private tmux server; and in process,
 * the table listing (five show commands on the control connection) beside
 * one `show-options` round trip.
 *
 * Run: `deno run -A tests/bench/set_option_bench.ts [--n 300] [--cold 10] [--before DIR]`
 * (DIR: e.g. `git archive a9c542a | tar -x -C DIR`).
 */
import { connect, type McpFixture, ROOT, START_PERMISSIONS, startTmux } from "../helpers.ts";
import { createTmuxEngine } from "../../lib/tmux/engine.ts";
import { optionTable } from "../../lib/tmux/option_names.ts";

const argv = Deno.args;
const flag = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? dflt : argv[i + 1];
};
const n = Number(flag("n", "300"));
const cold = Number(flag("cold", "10"));
const before = flag("before", "");

const tmux = await startTmux("setbench");
const versions: [string, string][] = [
  ["now", ROOT],
  ...(before
    ? [["before", before.replace(/\/?$/, "/")]] as [
      string,
      string,
    ][]
    : []),
];

function start(root: string): Promise<McpFixture> {
  return connect({
    spawn: [
      Deno.execPath(),
      "run",
      ...START_PERMISSIONS,
      root + "main.ts",
      "--socket-name",
      tmux.socketName,
      "--safety",
      "mutating",
    ],
  });
}

const setCall = (i: number) => ({
  what: "option",
  scope: "session",
  target: "main",
  name: "status-left-length",
  value: String(10 + (i % 50)),
});

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2);
  return `median ${q(0.5)} ms, p90 ${q(0.9)} ms (n=${s.length})`;
};

try {
  // First call after start (a list call first, so the control connection is up in both).
  const first = new Map(versions.map(([v]) => [v, [] as number[]]));
  for (let r = 0; r < cold; r++) {
    for (const [v, root] of versions) {
      const mcp = await start(root);
      await mcp.ok("list", { what: "sessions" });
      first.get(v)!.push(await timed(() => mcp.ok("set", setCall(r))));
      await mcp.close();
    }
  }
  // Later calls, interleaved.
  const servers = await Promise.all(versions.map(([, root]) => start(root)));
  for (const s of servers) await s.ok("set", setCall(0));
  const later = versions.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < servers.length; k++) later[k].push(await timed(() => servers[k].ok("set", setCall(i))));
  }
  for (const s of servers) await s.close();
  // In process: one engine, a fresh listing each time (a new engine per listing would measure its attach).
  const engine = createTmuxEngine({ bin: "tmux", socketName: tmux.socketName, maxConcurrency: 8, controlMode: true });
  const one: number[] = [];
  const listing: number[] = [];
  await engine.text(["show-options", "-g", "-v", "status"]);
  for (let i = 0; i < n; i++) {
    one.push(await timed(() => engine.text(["show-options", "-g", "-v", "status"])));
    // A wrapper object is a new cache key: the table is listed again.
    listing.push(await timed(() => optionTable({ ...engine, text: engine.text, run: engine.run })));
  }
  await engine.close();
  console.log(`in process: one show-options round trip ${stats(one)}`);
  console.log(`in process: the option table listing   ${stats(listing)}`);
  console.log(`load: ${Deno.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  versions.forEach(([v], k) => {
    console.log(`${v.padEnd(6)} first set after start: ${stats(first.get(v)!)}`);
    console.log(`${v.padEnd(6)} later set calls:       ${stats(later[k])}`);
  });
} finally {
  await tmux.kill();
}
