/**
 * Ending a terminal session the way closing a terminal window does, but
 * thoroughly: every process of the terminal's session gets SIGHUP, and what
 * still runs a second later gets SIGKILL.
 *
 * Signalling only the first program's process group is not enough: an
 * interactive shell moves itself and each job into process groups of their
 * own, and a shell started by `sh -c` is not the session leader, so neither
 * the kernel's hang-up nor a group signal would reach a background job. The
 * session id (the pid of the terminal's first process) covers them all; only
 * a program that started a session of its own (a daemon) leaves it.
 *
 * @example
 * ```ts
 * const child = new Deno.Command("setsid", { args: ["sleep", "60"] }).spawn();
 * await hangUpSession(child.pid); // a session's id is its leader's pid
 * ```
 */

const GRACE_MS = 1000;

/**
 * Pids whose session id is `sid`, from `pgrep -s` (procps on Linux, base
 * system on macOS; Deno refuses /proc to a server without --allow-all), or
 * undefined when they cannot be listed.
 */
export async function sessionMembers(sid: number): Promise<number[] | undefined> {
  try {
    const r = await new Deno.Command("pgrep", { args: ["-s", String(sid)], stdout: "piped", stderr: "null" }).output();
    // Exit code 1 means no process matched.
    if (r.code > 1) return undefined;
    return new TextDecoder().decode(r.stdout).split("\n").filter((l) => /^\d+$/.test(l)).map(Number);
  } catch {
    return undefined;
  }
}

function signal(pid: number, sig: Deno.Signal): void {
  try {
    Deno.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * SIGHUP to every process in session `sid` now, SIGKILL to the survivors
 * after a second (in the background; the returned promise resolves once the
 * hang-up is sent).
 */
export async function hangUpSession(sid: number): Promise<void> {
  // Without a process list, the leader's process group is the best there is.
  for (const pid of await sessionMembers(sid) ?? [-sid]) signal(pid, "SIGHUP");
  const timer = setTimeout(async () => {
    for (const pid of await sessionMembers(sid) ?? [-sid]) signal(pid, "SIGKILL");
  }, GRACE_MS);
  Deno.unrefTimer(timer);
}
