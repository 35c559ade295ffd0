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

import { processExists } from "../host/process.ts";

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
 *
 * `leaderGone`: the session's first process has exited and was reaped (its
 * program ended before the kill). Its background jobs may live on, and while
 * they do the kernel keeps the session's id from being handed out again; so
 * a process that has the old leader's pid now belongs to someone else (the
 * pid came round again once the old session was empty), and nothing is
 * signalled.
 */
export async function hangUpSession(sid: number, { leaderGone = false }: { leaderGone?: boolean } = {}): Promise<void> {
  // 0 would name pgrep's own session (and -0 our process group), 1 is init: no terminal's session.
  if (!Number.isSafeInteger(sid) || sid <= 1) return;
  // Without a process list, the leader's process group is the best there is.
  const targets = async () => leaderGone && processExists(sid) ? [] : await sessionMembers(sid) ?? [-sid];
  for (const pid of await targets()) signal(pid, "SIGHUP");
  const timer = setTimeout(async () => {
    for (const pid of await targets()) signal(pid, "SIGKILL");
  }, GRACE_MS);
  Deno.unrefTimer(timer);
}

/**
 * The same hang-up as {@linkcode hangUpSession} as a shell command, for the host whose pid `sid` is: a tmux
 * server on another host runs it (`run-shell -b`), since a pid of that host names nothing here. Empty for an
 * id that is no terminal's session.
 *
 * @example
 * ```ts
 * hangUpCommand(4321, false); // "{ pkill -HUP -s 4321 … ; sleep 1; pkill -KILL -s 4321 … ; }"
 * ```
 */
export function hangUpCommand(sid: number, leaderGone: boolean): string {
  if (!Number.isSafeInteger(sid) || sid <= 1) return "";
  const send = (sig: string) => `pkill -${sig} -s ${sid} 2>/dev/null || kill -${sig} -- -${sid} 2>/dev/null`;
  return `${leaderGone ? `kill -0 ${sid} 2>/dev/null || ` : ""}{ ${send("HUP")}; sleep 1; ${send("KILL")}; }`;
}
