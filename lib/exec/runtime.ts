/**
 * Long-lived state of the exec tools, one per server (keyed by its tmux
 * executor, created on first use): the control-mode hub, the private
 * directory for run scripts, the tmux binary the panes' shells run, one run
 * at a time per pane, and the runs in flight or given up on (timeout,
 * cancellation) whose command may still run.
 *
 * Everything is released by the server's exit hook: the script directory
 * removed (which disarms every run: no shell will wait for this server any
 * more), shells waiting in a handshake released, control clients closed.
 *
 * @example
 * ```ts
 * const rt = execRuntime(ctx);
 * const { release } = await rt.lockPane("%3", ctx.signal, 30_000);
 * try {
 *   // ... type into %3
 * } finally {
 *   release();
 * }
 * ```
 */
import { type ControlHub, createControlHub } from "../tmux/control.ts";
import type { TmuxExecutor } from "../tmux/executor.ts";
import type { Services } from "../tools/tool.ts";
import { UserError } from "../errors.ts";
import { log } from "../log.ts";

/** A run-command in flight or given up on, as the runtime sees it. */
export interface TrackedRun {
  paneId: string;
  /** Channels the pane's shell waits on right now (to release them on exit). */
  blocked(): string[];
  /** True once the call gave the run up (timeout, cancellation) while its command may still run. */
  abandoned(): boolean;
  /** Whether the command started. */
  started(): boolean;
  /** Resolves when the run is over for good: ended, interrupted, or its pane gone. */
  settled: Promise<void>;
}

export interface ExecRuntime {
  hub: ControlHub;
  tmux: TmuxExecutor;
  /** The absolute path of tmux for the panes' shells to run (the binary the server uses). */
  tmuxPath: string;
  /** A private (0700) directory for run scripts, created on first use. */
  scriptDir(): Promise<string>;
  /**
   * Waits until no other run uses the pane, then returns the release
   * function. Rejects with a UserError after `timeoutMs` or when `signal` fires.
   */
  lockPane(paneId: string, signal: AbortSignal, timeoutMs: number): Promise<{ release: () => void; waited: boolean }>;
  /** Runs in flight, and runs given up on whose command may still run. */
  runs: Set<TrackedRun>;
  /** Releases everything (the server's exit hook). */
  close(): Promise<void>;
}

const runtimes = new WeakMap<TmuxExecutor, ExecRuntime>();

/** The exec runtime of a server; created (and its exit hook registered) on first use. */
export function execRuntime(services: Services): ExecRuntime {
  const existing = runtimes.get(services.tmux);
  if (existing) return existing;
  const rt = createRuntime(services);
  runtimes.set(services.tmux, rt);
  services.atExit(() => rt.close());
  return rt;
}

/** Finds `bin` on PATH the way a shell would (a name with a slash is taken as is). */
export function resolveBinary(bin: string, path = Deno.env.get("PATH") ?? ""): string {
  if (bin.includes("/")) return bin.startsWith("/") ? bin : `${Deno.cwd()}/${bin}`;
  for (const dir of path.split(":")) {
    if (!dir) continue;
    const candidate = `${dir.replace(/\/$/, "")}/${bin}`;
    try {
      const st = Deno.statSync(candidate);
      if (st.isFile && ((st.mode ?? 0o111) & 0o111) !== 0) return candidate;
    } catch {
      // not here
    }
  }
  return bin;
}

function createRuntime(services: Services): ExecRuntime {
  const { tmux, config } = services;
  let dir: Promise<string> | undefined;
  const tails = new Map<string, Promise<void>>();
  const runs = new Set<TrackedRun>();
  const hub = createControlHub({ bin: config.tmuxBin, socketArgs: tmux.socketArgs });
  return {
    hub,
    tmux,
    tmuxPath: resolveBinary(config.tmuxBin),
    scriptDir() {
      dir ??= Deno.makeTempDir({ prefix: "tmux-mcp-" }).then(async (d) => {
        await Deno.chmod(d, 0o700);
        return d;
      });
      return dir;
    },
    async lockPane(paneId, signal, timeoutMs) {
      const prev = tails.get(paneId);
      let release!: () => void;
      const mine = new Promise<void>((r) => release = r);
      const tail = prev ? prev.then(() => mine) : mine;
      tails.set(paneId, tail);
      const done = () => {
        release();
        if (tails.get(paneId) === tail) tails.delete(paneId);
      };
      if (prev === undefined) return { release: done, waited: false };
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      try {
        await Promise.race([
          prev,
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () =>
                reject(
                  new UserError(
                    `pane ${paneId} is still busy with an earlier run-command after ${timeoutMs} ms: wait for it ` +
                      `(wait, what: quiet), or send C-c to stop it, then retry`,
                  ),
                ),
              timeoutMs,
            );
            onAbort = () => reject(new UserError("run-command cancelled while waiting for the pane"));
            if (signal.aborted) onAbort();
            else signal.addEventListener("abort", onAbort, { once: true });
          }),
        ]);
      } catch (e) {
        // Keep the queue intact: our turn still comes, and passes at once.
        void prev.then(done);
        throw e;
      } finally {
        clearTimeout(timer);
        if (onAbort) signal.removeEventListener("abort", onAbort);
      }
      return { release: done, waited: true };
    },
    runs,
    async close() {
      // Removing the directory disarms every run (no shell waits any more);
      // a shell already waiting is released.
      const d = await dir?.catch(() => undefined);
      if (d) await Deno.remove(d, { recursive: true }).catch(() => {});
      for (const ch of [...runs].flatMap((r) => r.blocked())) {
        await tmux.run(["wait-for", "-S", ch], { timeoutMs: 2000 }).catch((e) =>
          log("warn", `could not release wait-for channel ${ch}: ${e instanceof Error ? e.message : String(e)}`)
        );
      }
      await hub.close();
    },
  };
}
