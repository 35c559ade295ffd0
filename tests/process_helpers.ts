/**
 * What a test can tell about a process of this machine from `/proc`: whether it has ended, and whether a hang-up
 * or kill is on its way to it (sent, not acted on yet); and, where this user may (root), a process started with a
 * pid of the test's choosing, as after the pid counter came round.
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

/** Whether this user may set the pid the kernel hands out next (a probe that writes back the current value). */
export function canPickPid(): boolean {
  try {
    Deno.writeTextFileSync("/proc/sys/kernel/ns_last_pid", Deno.readTextFileSync("/proc/sys/kernel/ns_last_pid"));
    return true;
  } catch {
    return false;
  }
}

/** Starts `argv` as process `pid` (free now): sets the last pid handed out to the one before, until it lands. */
export async function spawnWithPid(pid: number, argv: string[]): Promise<Deno.ChildProcess> {
  for (let i = 0; i < 500; i++) {
    Deno.writeTextFileSync("/proc/sys/kernel/ns_last_pid", String(pid - 1));
    const child = new Deno.Command(argv[0], { args: argv.slice(1), stdout: "null", stderr: "null" }).spawn();
    if (child.pid === pid) return child;
    child.kill("SIGKILL");
    await child.status;
  }
  throw new Error(`pid ${pid} was taken by other processes 500 times in a row`);
}
