/**
 * run-command's handshakes through a FIFO (lib/exec/shell.ts): the shell
 * waits in its own `read`, with no tmux client started, and a server that
 * dies however it dies (SIGKILL: no exit hook) while a shell waits for it
 * leaves that shell free, because the FIFO's last writer is gone with it.
 * A run's files are made ahead, once the run before it is over.
 */
import { SHELLS, withShell } from "./exec_fixtures.ts";
import { tmuxFormat, waitForPane, waitUntil } from "./pane_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import type { RunResult } from "../lib/exec/run.ts";

/**
 * Whether process `pid` has a file open whose path holds `part`, or any process runs `tmux -S …socket… wait-for
 * tmux-mcp-…` on the tmux server named `socket`.
 */
function waits(pid: number, part: string, socket: string): boolean {
  for (const e of Deno.readDirSync(`/proc/${pid}/fd`)) {
    try {
      if (Deno.readLinkSync(`/proc/${pid}/fd/${e.name}`).includes(part)) return true;
    } catch {
      // closed meanwhile
    }
  }
  for (const e of Deno.readDirSync("/proc")) {
    try {
      if (!/^\d+$/.test(e.name)) continue;
      const argv = Deno.readTextFileSync(`/proc/${e.name}/cmdline`);
      if (argv.includes(socket) && argv.includes("\0wait-for\0tmux-mcp-")) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: a server killed while the shell waits in a handshake frees it`, async () => {
    // Its own temp directory: another server's sweep of a dead server's run files would disarm the run.
    const tmp = await Deno.makeTempDir({ prefix: "tmcp-fifo-" });
    await withShell(shell, async (fx) => {
      const pid = fx.mcp.pid;
      const shellPid = Number(await tmuxFormat(fx, fx.pane, "#{pane_pid}"));
      // A shell that ends leaves its pane (and so the server) in place, to say how it ended.
      await fx.tmux("set-option", "-w", "-t", fx.pane, "remain-on-exit", "on");
      const call = fx.mcp.call("run-command", {
        target: fx.pane,
        command: "echo SLEEPING; sleep 1",
        timeout_ms: 60_000,
      })
        .catch(() => undefined);
      // The typed line names only the script: this is the command's output.
      await waitForPane(fx, fx.pane, /^SLEEPING$/m, 30_000);
      // Stopped, the server cannot release the shell from the end handshake, where it then waits: reading the
      // run's FIFO (or, before FIFOs, in a `tmux wait-for` child).
      Deno.kill(pid, "SIGSTOP");
      try {
        await waitUntil(
          "the shell to wait in the end handshake",
          () => Promise.resolve(waits(shellPid, "/f-", fx.socketName)),
          30_000,
        );
      } finally {
        Deno.kill(pid, "SIGKILL");
      }
      await call;
      // Freed is not ended: once its server is gone the shell is still there, back at its prompt.
      const alive = await fx.tmux(
        "display-message",
        "-p",
        "-t",
        fx.pane,
        "#{pane_dead} #{pane_dead_status} #{pane_dead_signal}",
      )
        .catch((e) => `the test's tmux server is gone: ${e instanceof Error ? e.message : e}`);
      assertEquals(
        alive.trim().split(" ")[0],
        "0",
        `${shell} after its server was killed (dead, status, signal): ${alive}`,
      );
      // Typed now, read by the shell only once it is back at its prompt.
      await fx.tmux("send-keys", "-t", fx.pane, "-l", `echo RE""ADY`);
      await fx.tmux("send-keys", "-t", fx.pane, "Enter");
      await waitForPane(fx, fx.pane, /^READY$/m, 60_000);
    }, { serverEnv: { TMPDIR: tmp } }).finally(() => Deno.remove(tmp, { recursive: true }));
  });
}

Deno.test("run-command: a finished run leaves only the next run's files, made ahead, which that run then types", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "tmcp-spare-" });
  await withShell("bash", async (fx) => {
    // The id of the only run whose files are there, when its script, armed flag and FIFO are all there.
    const onlyRun = () => {
      const names = [...Deno.readDirSync(tmp)].filter((e) => e.isDirectory && e.name.includes("-run-"))
        .flatMap((d) => [...Deno.readDirSync(`${tmp}/${d.name}`)].map((e) => e.name));
      const ids = new Set(names.map((n) => n.slice(2)));
      const id = [...ids][0];
      return Promise.resolve(
        ids.size === 1 && ["a", "f", "r"].every((k) => names.includes(`${k}-${id}`)) ? id : undefined,
      );
    };
    const run = (command: string) =>
      fx.mcp.ok<RunResult>("run-command", { target: fx.pane, command, timeout_ms: 30_000 });
    assertEquals((await run("echo one")).output, "one");
    const spare = await waitUntil("the first run's files gone and the next run's made", onlyRun, 30_000);
    assert(!(await fx.tmux("capture-pane", "-p", "-t", fx.pane)).includes(`r-${spare}`), "the spare is new");
    assertEquals((await run("echo two")).output, "two");
    // The second run typed the script made ahead; once it is over, another one waits for the third.
    assert((await fx.tmux("capture-pane", "-p", "-t", fx.pane)).includes(`r-${spare}'`), "the spare was typed");
    const next = await waitUntil(
      "the second run's files gone and the third's made",
      async () => (await onlyRun()) === spare ? undefined : await onlyRun(),
      30_000,
    );
    assert(next !== spare);
    assertEquals((await run("echo three")).output, "three");
  }, { serverEnv: { TMPDIR: tmp } }).finally(() => Deno.remove(tmp, { recursive: true }));
});
