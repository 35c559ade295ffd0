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

import { log } from "../log.ts";
import { parseProcStat, processExists } from "../host/process.ts";
import { libc } from "./pty/ffi.ts";

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

/** When process `pid` started (seconds since boot), where the kernel tells it through the C library (Linux). */
function startOf(pid: number): number | undefined {
  try {
    return parseProcStat(libc().procStat(pid))?.start;
  } catch {
    return undefined; // no FFI here: no /proc to read (Deno refuses it to the server without --allow-all)
  }
}

/**
 * SIGHUP to every process in session `sid` now, SIGKILL to the survivors
 * after a second (`graceMs`), in the background: the returned promise
 * resolves once the hang-up is sent, its `killed` with the pids the SIGKILL
 * pass signalled (a negative one: the leader's process group).
 *
 * While any process of the session lives, the kernel keeps its id from being
 * handed out again; once the session is empty the id can come round again,
 * and a process that has the old leader's pid then belongs to someone else.
 * So nothing is signalled when a process has that pid and is not the leader:
 * with `leaderGone` (the session's first process has exited and was reaped:
 * its program ended before the kill), and at the SIGKILL pass when it started
 * at another time than the leader did at the hang-up (the leader died of the
 * SIGHUP and its pid came round within the second; where the start time
 * cannot be read, the pass goes ahead as before).
 */
export async function hangUpSession(
  sid: number,
  { leaderGone = false, graceMs = GRACE_MS }: { leaderGone?: boolean; graceMs?: number } = {},
): Promise<{ killed: Promise<number[]> }> {
  const none = { killed: Promise.resolve([]) };
  // 0 would name pgrep's own session (and -0 our process group), 1 is init: no terminal's session.
  if (!Number.isSafeInteger(sid) || sid <= 1) return none;
  const leaderStart = leaderGone ? undefined : startOf(sid);
  /** Whether pid `sid` now names another process than the session's leader. */
  const taken = () => {
    if (!processExists(sid)) return false;
    if (leaderGone) return true;
    const now = startOf(sid);
    return leaderStart !== undefined && now !== undefined && now !== leaderStart;
  };
  if (taken()) return none;
  // Without a process list, the leader's process group is the best there is.
  const targets = async () => await sessionMembers(sid) ?? [-sid];
  for (const pid of await targets()) signal(pid, "SIGHUP");
  const killed = Promise.withResolvers<number[]>();
  const timer = setTimeout(async () => {
    if (taken()) {
      log("info", `hang-up of terminal session ${sid}: its pid belongs to another process now, no SIGKILL sent`);
      return killed.resolve([]);
    }
    const pids = await targets();
    for (const pid of pids) signal(pid, "SIGKILL");
    killed.resolve(pids);
  }, graceMs);
  Deno.unrefTimer(timer);
  return { killed: killed.promise };
}

/**
 * The same hang-up as {@linkcode hangUpSession} as a shell command, for the host whose pid `sid` is: a tmux
 * server on another host runs it (`run-shell -b`), since a pid of that host names nothing here. Empty for an
 * id that is no terminal's session. The SIGKILL pass is skipped when a process with pid `sid` started at
 * another time than the leader had at the hang-up (`ps -o lstart`, which counts seconds; where `ps` cannot
 * tell, the pass goes ahead).
 *
 * @example
 * ```ts
 * hangUpCommand(4321, false); // "{ __l=$(ps -o lstart= -p 4321 …); pkill -HUP -s 4321 …; sleep 1; … }"
 * ```
 */
export function hangUpCommand(sid: number, leaderGone: boolean): string {
  if (!Number.isSafeInteger(sid) || sid <= 1) return "";
  const send = (sig: string) => `pkill -${sig} -s ${sid} 2>/dev/null || kill -${sig} -- -${sid} 2>/dev/null`;
  const started = `ps -o lstart= -p ${sid} 2>/dev/null`;
  // A leader gone before the hang-up has no start to keep: any process of its pid at the pass is another's.
  const leader = leaderGone ? "gone" : `$(${started})`;
  return `${leaderGone ? `kill -0 ${sid} 2>/dev/null || ` : ""}{ __l=${leader}; ${send("HUP")}; sleep 1; ` +
    `__n=$(${started}); if [ -z "$__l" ] || [ -z "$__n" ] || [ "$__n" = "$__l" ]; then ${send("KILL")}; fi; }`;
}
