/**
 * run-command's handshakes through a FIFO (lib/exec/shell.ts): the shell
 * waits in its own `read`, with no tmux client started, and a server that
 * dies however it dies (SIGKILL: no exit hook) leaves no shell blocked,
 * because the FIFO's last writer is gone with it.
 */
import { assert } from "./assert.ts";
import { SHELLS, withShell } from "./exec_fixtures.ts";
import { waitForPane } from "./pane_helpers.ts";

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: a server killed mid-run leaves the shell free at its next handshake`, async () => {
    await withShell(shell, async (fx) => {
      const pid = fx.mcp.pid;
      const call = fx.mcp.call("run-command", {
        target: fx.pane,
        command: "echo SLEEPING; sleep 4",
        timeout_ms: 60_000,
      })
        .catch(() => undefined);
      // The typed line names only the script: this is the command's output.
      await waitForPane(fx, fx.pane, /^SLEEPING$/m, 30_000);
      // No exit hook runs: the run stays armed, so after `sleep` the shell enters the end handshake.
      Deno.kill(pid, "SIGKILL");
      await call;
      try {
        // Typed now, read by the shell only once it is back at its prompt.
        await fx.tmux("send-keys", "-t", fx.pane, "-l", `echo RE""ADY`);
        await fx.tmux("send-keys", "-t", fx.pane, "Enter");
        const text = await waitForPane(fx, fx.pane, /^READY$/m, 60_000);
        assert(text.includes("READY"));
      } finally {
        // The killed server's run directory (its exit hook never ran).
        const parent = Deno.env.get("TMPDIR") || "/tmp";
        for await (const e of Deno.readDir(parent)) {
          if (e.name.startsWith(`tmux-mcp-${pid}-`)) await Deno.remove(`${parent}/${e.name}`, { recursive: true });
        }
      }
    });
  });
}
