/**
 * What a command costs when the engine's control connection has gone idle
 * and must start again (a new `tmux -C` client: spawn, attach, then the
 * command), against one on the warm connection (issue #11). An agent's calls
 * come a model turn apart; the connection's idle time (lib/tmux/connection.ts,
 * 10 minutes) decides which of the two such a call pays.
 *
 * Run: `deno run -A tests/bench/reconnect_bench.ts [--n 15]`
 */
import { startTmux } from "../helpers.ts";
import { createTmuxEngine } from "../../lib/tmux/engine.ts";

const i = Deno.args.indexOf("--n");
const N = i >= 0 ? Number(Deno.args[i + 1]) : 15;
const IDLE_MS = 200;

const fx = await startTmux("reconnect");
const engine = createTmuxEngine({
  bin: "tmux",
  socketName: fx.socketName,
  maxConcurrency: 4,
  controlMode: true,
  idleMs: IDLE_MS,
});
const timed = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
const cold: number[] = [];
const warm: number[] = [];
const spawn: number[] = [];
try {
  for (let k = 0; k < N; k++) {
    cold.push(await timed(() => engine.run(["list-sessions"])));
    warm.push(await timed(() => engine.run(["list-sessions"])));
    spawn.push(await timed(() => fx.tmux("display-message", "-p", "x")));
    // Past the idle time, so the next command finds the connection gone.
    await new Promise((r) => setTimeout(r, IDLE_MS * 2));
  }
} finally {
  await engine.close();
  await fx.kill();
}
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(2);
console.log(
  `p50 of ${N}, load average ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}: ` +
    `list-sessions after the connection went idle ${p50(cold)} ms, on the warm connection ${p50(warm)} ms; ` +
    `one raw tmux display-message spawn ${p50(spawn)} ms`,
);
