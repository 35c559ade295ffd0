/**
 * Per-call cost per host: one server with two ssh hosts (real sshd on 127.0.0.1, tests/ssh_fixture.ts) against a
 * server with one of them and a local one, sequential calls, medians.
 *
 * Run: `deno run -A tests/bench/fleet.ts [--n 200]`
 */
import { connect, type McpFixture, startTmux } from "../helpers.ts";
import { startSshd } from "../ssh_fixture.ts";
import { uniqueSocketName } from "../helpers.ts";

const n = Number(Deno.args[Deno.args.indexOf("--n") + 1]) || 200;

async function median(mcp: McpFixture, name: string, args: Record<string, unknown>): Promise<number> {
  for (let i = 0; i < 10; i++) await mcp.ok(name, args);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await mcp.ok(name, args);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const socketName = uniqueSocketName("fleetbench");
const alpha = await startSshd({ alias: "tmcp-alpha", socketName });
const beta = await startSshd({ alias: "tmcp-beta", socketName });
const local = await startTmux("fleetbench-local");
const servers: McpFixture[] = [];
try {
  await alpha.startTmux();
  await beta.startTmux();
  const config = `${alpha.dir}/fleet_ssh_config`;
  await Deno.writeTextFile(
    config,
    (await Deno.readTextFile(alpha.configPath)) + await Deno.readTextFile(beta.configPath),
  );
  const ssh = (...hosts: string[]) =>
    connect({
      args: [...hosts.flatMap((h) => ["--ssh", h]), "--ssh-config", config, "--socket-name", socketName],
    });
  const one = await ssh("alpha=tmcp-alpha");
  const two = await ssh("alpha=tmcp-alpha", "beta=tmcp-beta");
  const here = await connect({ socketName: local.socketName });
  servers.push(one, two, here);
  const rows: [string, number][] = [];
  const capture = { what: "sessions" };
  rows.push(["local server: list sessions", await median(here, "list", capture)]);
  rows.push(["local server: capture-pane", await median(here, "capture-pane", { target: "%0" })]);
  rows.push(["--ssh alpha: list sessions", await median(one, "list", capture)]);
  rows.push(["--ssh alpha: capture-pane %0", await median(one, "capture-pane", { target: "%0" })]);
  rows.push(["alpha+beta: capture-pane alpha::%0", await median(two, "capture-pane", { target: "alpha::%0" })]);
  rows.push(["alpha+beta: capture-pane beta::%0", await median(two, "capture-pane", { target: "beta::%0" })]);
  rows.push(["alpha+beta: list sessions (both hosts)", await median(two, "list", capture)]);
  rows.push(["--ssh alpha: list server", await median(one, "list", { what: "server" })]);
  rows.push(["alpha+beta: list server (both hosts)", await median(two, "list", { what: "server" })]);
  const search = { query: "no-such-text" };
  rows.push(["--ssh alpha: search-panes", await median(one, "search-panes", search)]);
  rows.push(["alpha+beta: search-panes (both hosts)", await median(two, "search-panes", search)]);
  await one.ok("set-buffer", { name: "b", content: "x".repeat(1000) });
  await two.ok("set-buffer", { name: "beta::b", content: "x".repeat(1000) });
  rows.push(["--ssh alpha: show-buffer b", await median(one, "show-buffer", { name: "b" })]);
  rows.push(["alpha+beta: show-buffer beta::b", await median(two, "show-buffer", { name: "beta::b" })]);
  rows.push(["alpha+beta: list-buffers (both hosts)", await median(two, "list-buffers", {})]);
  const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ").slice(0, 3).join(" ");
  console.log(`| call (n=${n}, load ${load}) | median ms |\n|---|---|`);
  for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(2)} |`);
} finally {
  for (const s of servers) await s.close();
  await local.kill();
  await alpha.cleanup();
  await beta.cleanup();
}
