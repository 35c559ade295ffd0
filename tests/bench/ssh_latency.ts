/**
 * Round-trip latency of one tmux command to a "remote" tmux over a real
 * sshd on 127.0.0.1 (tests/ssh_fixture.ts), interleaved, p50 of N each:
 *
 * - `ssh host tmux display-message -p x` with a new SSH handshake per call;
 * - the same spawn riding the shared master connection (`ControlMaster=no`);
 * - one `display-message -p x` over a persistent `tmux -C` through ssh;
 * - beside them, the same two local routes: a spawned `tmux` and `tmux -C`.
 *
 *   deno run -A tests/bench/ssh_latency.ts [N=100]
 *
 * Figures on a loaded machine are upper bounds.
 */
import { startSshd } from "../ssh_fixture.ts";
import { localLaunch, makeControlDir, sshLaunch, type SshTarget } from "../../lib/tmux/ssh.ts";
import { type ControlClient, launchControl } from "../ssh_control.ts";
import type { ClientLaunch } from "../../lib/tmux/ssh.ts";

const N = Number(Deno.args[0] ?? 100);
const fx = await startSshd();

async function spawnOnce(l: ClientLaunch, env?: Record<string, string>): Promise<void> {
  const out = await new Deno.Command(l.command, { args: l.args, env, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success || new TextDecoder().decode(out.stdout) !== "x\n") {
    throw new Error(`${l.command} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function controlOnce(c: ControlClient): Promise<void> {
  const r = await c.command("display-message -p x");
  if (!r.ok || r.lines[0] !== "x") throw new Error(`control reply: ${JSON.stringify(r)}`);
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  await fx.startTmux();
  const socket = { socketName: fx.socketName };
  const args = ["display-message", "-p", "x"];
  const shared: SshTarget = {
    destination: fx.alias,
    configFile: fx.configPath,
    controlDir: await makeControlDir(Deno.pid, fx.dir),
  };
  // A control directory no master lives in: every spawn makes its own connection.
  const lone: SshTarget = { ...shared, controlDir: `${fx.dir}/no-master` };
  const master = await launchControl(
    sshLaunch(shared, "master", "tmux", socket, ["-C", "attach-session", "-t", "main"]),
  );
  const local = await launchControl(localLaunch("tmux", socket, ["-C", "attach-session", "-t", "main"]), fx.remoteEnv);
  for (const c of [master, local]) if (!c.attach.ok) throw new Error(`attach failed: ${c.attach.lines.join(" ")}`);
  // The local client reaches the fixture's tmux through the same TMUX_TMPDIR as sshd's sessions.
  const routes: [string, () => Promise<void>][] = [
    ["ssh spawn, new handshake", () => spawnOnce(sshLaunch(lone, "shared", "tmux", socket, args))],
    ["ssh spawn over the shared master", () => spawnOnce(sshLaunch(shared, "shared", "tmux", socket, args))],
    ["tmux -C over ssh (persistent)", () => controlOnce(master)],
    ["local tmux spawn", () => spawnOnce(localLaunch("tmux", socket, args), fx.remoteEnv)],
    ["local tmux -C (persistent)", () => controlOnce(local)],
  ];
  const times = routes.map(() => [] as number[]);
  const loginsBefore = await fx.loginCount();
  for (let i = 0; i < N; i++) {
    for (const [k, [, run]] of routes.entries()) {
      const t0 = performance.now();
      await run();
      times[k].push(performance.now() - t0);
    }
  }
  const logins = await fx.loginCount() - loginsBefore;
  console.log(`| route (N=${N}, interleaved) | p50 ms |`);
  console.log("| --- | ---: |");
  for (const [k, [label]] of routes.entries()) console.log(`| ${label} | ${p50(times[k]).toFixed(2)} |`);
  console.log(
    `\nssh logins during the run: ${logins} (= the ${N} new-handshake spawns; shared spawns and -C add none)`,
  );
  await master.close();
  await local.close();
} finally {
  await fx.cleanup();
}
