/**
 * Round-trip latency of one tmux command to a "remote" tmux over a real
 * sshd on 127.0.0.1 (tests/ssh_fixture.ts), interleaved, p50 of N each:
 *
 * - `ssh host tmux display-message -p x` with a new SSH handshake per call;
 * - the same spawn riding the shared master connection (`ControlMaster=no`);
 * - one `display-message -p x` over a persistent `tmux -C` through ssh;
 * - beside them, the same two local routes: a spawned `tmux` and `tmux -C`;
 * - through the MCP server (SDK client over stdio, the whole pipeline): the
 *   list-sessions tool with `--ssh` to that host, and on the local
 *   control-mode path (same tmux server, reached directly).
 *
 *   deno run -A tests/bench/ssh_latency.ts [N=100]
 *
 * Figures on a loaded machine are upper bounds.
 */
import { startSshd } from "../ssh_fixture.ts";
import { createSshLauncher, makeControlDir, remoteTmuxLine, sshArgv, type SshTarget } from "../../lib/tmux/ssh.ts";
import { type ControlClient, launchControl } from "../ssh_control.ts";
import { connect, type McpFixture } from "../helpers.ts";

const N = Number(Deno.args[0] ?? 100);
const fx = await startSshd();
const dec = new TextDecoder();

async function spawnOnce(child: Deno.ChildProcess): Promise<void> {
  const out = await child.output();
  if (!out.success || dec.decode(out.stdout) !== "x\n") throw new Error(`spawn failed: ${dec.decode(out.stderr)}`);
}

const piped = { stdout: "piped", stderr: "piped" } as const;

async function controlOnce(c: ControlClient): Promise<void> {
  const r = await c.command("display-message -p x");
  if (!r.ok || r.lines[0] !== "x") throw new Error(`control reply: ${JSON.stringify(r)}`);
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  await fx.startTmux();
  const socket = { socketName: fx.socketName };
  const args = ["display-message", "-p", "x"];
  const target: SshTarget = {
    destination: fx.alias,
    configFile: fx.configPath,
    controlDir: await makeControlDir(Deno.pid, fx.dir),
  };
  const launcher = createSshLauncher(target, "tmux", socket);
  await launcher.ready();
  // A control directory no master lives in: every spawn makes its own connection.
  const lone = sshArgv(
    { ...target, controlDir: `${fx.dir}/no-master` },
    "shared",
    remoteTmuxLine("tmux", socket, args),
  );
  const local = (a: string[], stdin: "piped" | "null") =>
    new Deno.Command("tmux", { args: ["-u", "-L", fx.socketName, ...a], env: fx.remoteEnv, stdin, ...piped }).spawn();
  const master = await launchControl(launcher.spawn(["-C", "attach-session", "-t", "main"], { stdin: "piped" }));
  // The local client reaches the fixture's tmux through the same TMUX_TMPDIR as sshd's sessions.
  const localCtl = await launchControl(local(["-C", "attach-session", "-t", "main"], "piped"));
  for (const c of [master, localCtl]) if (!c.attach.ok) throw new Error(`attach failed: ${c.attach.lines.join(" ")}`);
  const viaSsh = await connect({
    args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
  });
  const viaLocal = await connect({ socketName: fx.socketName, env: { TMUX_TMPDIR: fx.remoteEnv.TMUX_TMPDIR } });
  const listSessions = async (mcp: McpFixture) => {
    const r = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
    if (r.sessions[0]?.session_name !== "main") throw new Error(`list-sessions: ${JSON.stringify(r)}`);
  };
  // Warm both: the first call starts the connections.
  await listSessions(viaSsh);
  await listSessions(viaLocal);
  const routes: [string, () => Promise<void>][] = [
    ["ssh spawn, new handshake", () => spawnOnce(new Deno.Command("ssh", { args: lone, ...piped }).spawn())],
    ["ssh spawn over the shared connection", () => spawnOnce(launcher.spawn(args, { stdin: "null" }))],
    ["tmux -C over ssh (persistent)", () => controlOnce(master)],
    ["local tmux spawn", () => spawnOnce(local(args, "null"))],
    ["local tmux -C (persistent)", () => controlOnce(localCtl)],
    ["MCP list-sessions, --ssh (one connection)", () => listSessions(viaSsh)],
    ["MCP list-sessions, local control mode", () => listSessions(viaLocal)],
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
  await viaSsh.close();
  await viaLocal.close();
  await master.close();
  await localCtl.close();
  await launcher.close();
} finally {
  await fx.cleanup();
}
