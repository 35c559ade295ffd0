/**
 * run-command's handshakes through a FIFO (lib/exec/shell.ts): the shell
 * waits in its own `read`, with no tmux client started, and a server that
 * dies however it dies (SIGKILL: no exit hook) while a shell waits for it
 * leaves that shell free, because the FIFO's last writer is gone with it.
 */
import { SHELLS, withShell } from "./exec_fixtures.ts";
import { tmuxFormat, waitForPane, waitUntil } from "./pane_helpers.ts";

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
      // Typed now, read by the shell only once it is back at its prompt.
      await fx.tmux("send-keys", "-t", fx.pane, "-l", `echo RE""ADY`);
      await fx.tmux("send-keys", "-t", fx.pane, "Enter");
      await waitForPane(fx, fx.pane, /^READY$/m, 60_000);
    }, { serverEnv: { TMPDIR: tmp } }).finally(() => Deno.remove(tmp, { recursive: true }));
  });
}
