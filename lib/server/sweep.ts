/**
 * Nothing left behind, even by a server killed with SIGKILL: a server sweeps
 * (once it has answered `initialize`, and again when it first stores a
 * result buffer) what belongs to servers that are gone — temp files and
 * directories named after their pid (lib/host/process.ts), result buffers on
 * the tmux server (lib/budget/registry.ts) — and releases a shell left
 * waiting in a run's handshake (`lib/exec/shell.ts`).
 *
 * @example
 * ```ts
 * declare const services: Parameters<typeof sweepLeftovers>[0]; // the server's
 * await sweepLeftovers(services); // removes /tmp/tmux-mcp-977-… and mcp-result-977-… when 977 is gone
 * ```
 */
import { log } from "../log.ts";
import { channels } from "../exec/shell.ts";
import type { Services } from "../tools/tool.ts";
import { sweepTempFiles } from "../host/process.ts";
import { sweepResultBuffers } from "../budget/registry.ts";

/**
 * Both sweeps, in the background of a starting server: never throws (no tmux
 * server yet is normal), logs what it removed.
 */
export async function sweepLeftovers(services: Pick<Services, "buffers" | "tmux">): Promise<void> {
  const [{ removed: files, armed }, buffers] = await Promise.all([
    sweepTempFiles().catch(() => ({ removed: [], armed: [] })),
    // A remote tmux (--ssh) may serve servers on other machines, whose pids ours cannot check.
    services.tmux.remote === undefined ? sweepResultBuffers(services.buffers.unscoped).catch(() => []) : [],
  ]);
  // A shell may wait in a run's handshake for the killed server: release it (its run is disarmed now that its
  // directory is gone; the channel it does not reach stays signalled, a few bytes in tmux).
  for (const nonce of armed) {
    for (const ch of Object.values(channels(nonce))) {
      await services.tmux.run(["wait-for", "-S", ch], { timeoutMs: 5000 }).catch(() => {});
    }
  }
  if (files.length + buffers.length > 0) {
    log("info", `removed what exited servers left: ${[...files, ...buffers.map((b) => `buffer ${b}`)].join(", ")}`);
  }
}
