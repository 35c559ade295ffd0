/**
 * The waiting part shared by every exec tool: race an event against the
 * call's deadline and the client's cancellation, send a progress
 * notification when the wait is armed and then every second (when the client
 * asked for progress), and run a
 * periodic check (is the pane still there?). Waiting is a promise, never a
 * blocked tmux command, so it holds no executor slot and other calls proceed.
 *
 * @example
 * ```ts
 * declare const ctx: WaitOptions["ctx"]; // the tool call's
 * const matched = Promise.withResolvers<string>();
 * const end = await waitFor(matched.promise, { ctx, started: performance.now(), timeoutMs: 30_000, what: "text in %3" });
 * if (end.kind === "timeout") console.log("no match within 30 s");
 * ```
 */
import type { CallControl } from "./context.ts";
import { UserError } from "../errors.ts";

export type WaitEnd<T> = { kind: "done"; value: T } | { kind: "timeout" } | { kind: "cancelled" };

export interface WaitOptions {
  ctx: CallControl;
  /** performance.now() when the call started; elapsed and the deadline count from here. */
  started: number;
  timeoutMs: number;
  /** What is awaited, for progress messages ("exit of `make` in %3"). */
  what: string;
  /** Runs about every second while waiting (liveness checks). Errors are ignored. */
  tick?: () => Promise<void> | void;
}

/** Progress and tick period: the spec asks for at least one notification every 2 s. */
export const TICK_MS = 1000;

/** The last progress value sent per call context (several waits of one call send one increasing series). */
const reported = new WeakMap<object, number>();

/** Waits for `event`, the deadline or cancellation, whichever comes first. */
export async function waitFor<T>(event: Promise<T>, opts: WaitOptions): Promise<WaitEnd<T>> {
  const { ctx, started, timeoutMs } = opts;
  if (ctx.signal.aborted) return { kind: "cancelled" };
  const left = timeoutMs - (performance.now() - started);
  if (left <= 0) return { kind: "timeout" };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race<WaitEnd<T>>([
      event.then((value) => ({ kind: "done", value })),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve({ kind: "timeout" }), left);
        onAbort = () => resolve({ kind: "cancelled" });
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        const report = () => {
          const elapsed = performance.now() - started;
          // MCP wants progress to increase; two waits of one call can be armed within a millisecond.
          const value = Math.max(Math.round(elapsed), (reported.get(ctx) ?? -1) + 1);
          reported.set(ctx, value);
          void ctx.progress(
            value,
            timeoutMs,
            `waiting for ${opts.what}: ${(elapsed / 1000).toFixed(1)} s elapsed, ` +
              `${(Math.max(0, timeoutMs - elapsed) / 1000).toFixed(1)} s left`,
          );
        };
        // One notification as soon as the wait is armed: the client knows the
        // call got this far (the event can no longer be missed), then one a second.
        report();
        ticker = setInterval(() => {
          report();
          if (opts.tick) void Promise.resolve().then(opts.tick).catch(() => {});
        }, TICK_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    clearInterval(ticker);
    if (onAbort) ctx.signal.removeEventListener("abort", onAbort);
  }
}

/** Checks a timeout_ms argument against the server's --max-wait-ms. */
export function checkTimeout(timeoutMs: number, maxWaitMs: number): void {
  if (timeoutMs > maxWaitMs) {
    throw new UserError(
      `timeout_ms ${timeoutMs} is above this server's limit of ${maxWaitMs} ms (--max-wait-ms): pass at most ` +
        `${maxWaitMs}, and call again if you need to wait longer`,
    );
  }
}

/** A random hex string (8 bytes) that the command being run cannot guess. */
export function nonce(): string {
  const b = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
