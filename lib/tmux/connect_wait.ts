/**
 * The one bound on getting a connection to tmux started (`--connect-timeout-ms`), and how its waits speak.
 *
 * Starting is where a slow machine or a slow login shows first: `tmux -V` on a loaded host, an ssh login whose
 * rc files run pyenv, conda or nvm, the first attach of a control client. Each of those waits is bounded by this
 * one setting, says every {@linkcode NOTICE_EVERY_MS} on stderr that it is still waiting, and when it gives up
 * says what was slow and which setting to raise — never that tmux is not tmux.
 *
 * @example
 * ```ts
 * declare const started: Promise<void>; // e.g. a login's end
 * const quiet = waitingNotice('ssh host "devbox" to start tmux', 60_000);
 * try {
 *   await started;
 * } finally {
 *   quiet();
 * }
 * ```
 */
import { log } from "../log.ts";

/** Default of `--connect-timeout-ms`: long enough for an rc file that runs a version manager on a busy host. */
export const CONNECT_TIMEOUT_MS = 60_000;

/** How often a wait for a start says it is still waiting. */
export const NOTICE_EVERY_MS = 10_000;

const seconds = (ms: number) => ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;

/**
 * Logs "still waiting for WHAT (20 s of 60 s)" every {@linkcode NOTICE_EVERY_MS} (a third of a shorter limit, so
 * that a short one is heard from too) until the returned function is called.
 */
export function waitingNotice(
  what: string,
  limitMs: number,
  everyMs = Math.min(NOTICE_EVERY_MS, Math.max(1000, Math.round(limitMs / 3))),
): () => void {
  const started = performance.now();
  const timer = setInterval(() => {
    const waited = Math.round((performance.now() - started) / 1000) * 1000;
    log("info", `still waiting for ${what} (${seconds(waited)} of ${seconds(limitMs)})`);
  }, everyMs);
  // A notice never keeps the process alive on its own.
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}

/**
 * The one line for a start that took longer than `--connect-timeout-ms`: "WHAT within 60 s: the machine or the
 * login is slow; raise --connect-timeout-ms (now 60000)". `cause`: "login" for a remote login, "tmux" where only
 * the machine or tmux itself can be slow.
 */
export function slowLine(what: string, limitMs: number, cause: "login" | "tmux"): string {
  const slow = cause === "login" ? "the machine or the login is slow" : "the machine is slow or tmux is stuck";
  return `${what} within ${seconds(limitMs)}: ${slow}; raise --connect-timeout-ms (now ${limitMs})`;
}
