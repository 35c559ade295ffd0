/**
 * CPU time per run-command `true` (user + system, all threads, from /proc): of the server, the tmux server, the
 * pane's shell and this process (the SDK client), back to back and spaced like an agent's calls a model turn apart.
 * Under load a run's time follows its CPU time rather than its process wake-ups (docs/performance.md, Today's table).
 * Linux only.
 *
 *   deno run -A tests/bench/run_command_cpu.ts [--n 300] [--spaced-ms 40] [--shell bash|zsh|fish]
 */
import { connect, startTmux } from "../helpers.ts";
import { newPane, tmuxFormat, waitUntil } from "../pane_helpers.ts";
import { flag } from "./args.ts";

const N = Number(flag("--n") ?? 300);
const SPACED_MS = Number(flag("--spaced-ms") ?? 40);
const SHELL = flag("--shell") ?? "bash";
const SHELL_ARGV: Record<string, string> = {
  bash: "bash --norc --noprofile",
  zsh: "zsh -f",
  fish: "fish --no-config",
};
if (!SHELL_ARGV[SHELL]) throw new Error(`--shell takes bash, zsh or fish, not ${SHELL}`);

/** CPU time of a process so far, in ms (clock ticks of 10 ms: many runs make it exact enough). */
function cpuMs(pid: number | "self"): number {
  const f = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const tmux = await startTmux("runcpu");
const home = await Deno.makeTempDir({ prefix: "tmcp-runcpu-" });
const pane = await newPane(tmux, `env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=${home} ${SHELL_ARGV[SHELL]}`);
await waitUntil(`${SHELL} to start`, async () => {
  const cmd = await tmuxFormat(tmux, pane, "#{pane_current_command}");
  return cmd === SHELL && (await tmux.tmux("capture-pane", "-p", "-t", pane)).trim().length > 0;
}, 30_000);
const mcp = await connect({ socketName: tmux.socketName, era: "legacy" });
try {
  const pids = {
    server: mcp.pid,
    tmux: Number(await tmuxFormat(tmux, pane, "#{pid}")),
    [SHELL]: Number(await tmuxFormat(tmux, pane, "#{pane_pid}")),
  };
  const run = async () => {
    const r = await mcp.ok<{ exit_code: number }>("run-command", { target: pane, command: "true" });
    if (r.exit_code !== 0) throw new Error(`exit ${r.exit_code}`);
  };
  for (let i = 0; i < 20; i++) await run(); // the JIT and the shell warmed up
  const before = load();
  const rows: string[] = [];
  for (const spaced of [0, SPACED_MS]) {
    const at = [...Object.values(pids).map(cpuMs), cpuMs("self")];
    for (let i = 0; i < N; i++) {
      if (spaced) await new Promise((r) => setTimeout(r, spaced));
      await run();
    }
    const per = [...Object.values(pids).map(cpuMs), cpuMs("self")].map((v, k) => ((v - at[k]) / N).toFixed(2));
    rows.push(`| ${spaced ? `spaced ${spaced} ms` : "back to back"} | ${per.join(" | ")} |`);
  }
  console.log(`run-command \`true\` in ${SHELL}, CPU ms per run over ${N} runs; load ${before} → ${load()}\n`);
  console.log(`| calls | ${[...Object.keys(pids), "client"].join(" | ")} |`);
  console.log(`| --- | ${[...Object.keys(pids), "client"].map(() => "---:").join(" | ")} |`);
  for (const r of rows) console.log(r);
} finally {
  await mcp.close();
  await tmux.kill();
  await Deno.remove(home, { recursive: true });
}
