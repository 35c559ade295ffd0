/**
 * What a test can tell about a process of this machine from `/proc`: whether it has ended, and whether a hang-up
 * or kill is on its way to it (sent, not acted on yet).
 *
 * @example
 * ```ts
 * import { processGone, signalledOrGone } from "./process_helpers.ts";
 * processGone(Deno.pid); // false
 * signalledOrGone(Deno.pid); // false
 * ```
 */

/** True once `pid` has exited (gone, or a zombie not reaped yet). */
export function processGone(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** True when `pid` has exited or has a SIGHUP or SIGKILL pending: a signal sent to it a moment ago shows. */
export function signalledOrGone(pid: number): boolean {
  if (processGone(pid)) return true;
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  // Bits of signals 1 (HUP) and 9 (KILL), in the thread's and the process's pending sets.
  return [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some((m) =>
    (BigInt(`0x${m[1]}`) & 0x101n) !== 0n
  );
}
