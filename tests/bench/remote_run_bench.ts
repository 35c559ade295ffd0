/**
 * run-command `true` on a pane of a "remote" tmux (`--ssh`, a real sshd on 127.0.0.1: tests/ssh_fixture.ts), p50
 * per shell (bash, zsh, fish without rc files), each call 40 ms after the previous one. With `--before DIR` (an
 * earlier version, e.g. a `git archive` of main) the same calls run on it too, interleaved, for before/after
 * figures. The remote shell starts a tmux client of its own to read the script and for each handshake (it cannot
 * reach our FIFO), so a remote run costs more than a local one even on this machine; over a real network each
 * round trip of ours adds the network's.
 *
 *   deno run -A tests/bench/remote_run_bench.ts [--n 30] [--before DIR] [--shells bash,zsh,fish]
 */
import { connect, type McpFixture } from "../helpers.ts";
import { quietHome } from "../pane_helpers.ts";
import { cleanShellPane, startSshd } from "../ssh_fixture.ts";
import { serverArgv } from "./cold_start.ts";
import { flag } from "./args.ts";

const SETTLE_MS = 40;
const SHELL_ARGV: Record<string, string> = {
  bash: "bash --norc --noprofile",
  zsh: "zsh -f",
  fish: "fish --no-config",
};

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

const n = Number(flag("--n") ?? 30);
const before = flag("--before");
const shells = (flag("--shells") ?? "bash,zsh,fish").split(",");

const fx = await startSshd();
const servers: McpFixture[] = [];
try {
  await fx.startTmux();
  const ssh = ["--ssh", fx.alias, "--ssh-config", fx.configPath];
  const ours = await connect({ args: [...ssh, "--socket-name", fx.socketName], era: "legacy" });
  servers.push(ours);
  const earlier = before
    ? await connect({ spawn: [...serverArgv(before.replace(/\/?$/, "/"), fx.socketName), ...ssh], era: "legacy" })
    : undefined;
  if (earlier) servers.push(earlier);
  const run = async (mcp: McpFixture, pane: string) => {
    const t0 = performance.now();
    const r = await mcp.ok<{ exit_code: number }>("run-command", { target: pane, command: "true", timeout_ms: 60_000 });
    if (r.exit_code !== 0) throw new Error(`exit ${r.exit_code}`);
    return performance.now() - t0;
  };
  const startLoad = load();
  const rows: string[] = [];
  for (const sh of shells) {
    const home = `${fx.dir}/home-${sh}`;
    await quietHome(home);
    const pane = await cleanShellPane(fx, sh, SHELL_ARGV[sh], home);
    const times = { ours: [] as number[], before: [] as number[] };
    await run(ours, pane);
    if (earlier) await run(earlier, pane);
    for (let i = 0; i < n; i++) {
      const order = [
        async () => times.ours.push(await run(ours, pane)),
        async () => earlier && times.before.push(await run(earlier, pane)),
      ];
      for (let k = 0; k < order.length; k++) {
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        await order[(i + k) % order.length]();
      }
    }
    const o = p50(times.ours);
    rows.push(
      earlier
        ? `| ${sh} | ${o.toFixed(1)} ms | ${p50(times.before).toFixed(1)} ms | ${(o / p50(times.before)).toFixed(2)}× |`
        : `| ${sh} | ${o.toFixed(1)} ms |`,
    );
  }
  console.log(`remote run-command \`true\` (--ssh to 127.0.0.1), p50 of ${n}; load ${startLoad} → ${load()}\n`);
  console.log(
    earlier
      ? "| shell | ours | before | ours ÷ before |\n| --- | --- | --- | --- |"
      : "| shell | ours |\n| --- | --- |",
  );
  for (const r of rows) console.log(r);
} finally {
  for (const s of servers) await s.close();
  await fx.cleanup();
}
