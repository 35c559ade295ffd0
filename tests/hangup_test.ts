/**
 * Ending a terminal's session (lib/terminal/hangup.ts) on real processes: a session whose leader has exited is
 * still hung up through its members, and a process that has the old leader's pid now is someone else's, left
 * alone. tests/pty_suite.ts drives the same through pty-kill-session.
 */
import { hangUpCommand, hangUpSession } from "../lib/terminal/hangup.ts";
import { assert, assertEquals } from "./assert.ts";
import { waitUntil } from "./pane_helpers.ts";
import { canPickPid, processGone as gone, signalledOrGone as signalled, spawnWithPid } from "./process_helpers.ts";

/** A `sleep` leading a session of its own (setsid execs it: its pid is the session's id). */
function sessionLeader(): Deno.ChildProcess {
  return new Deno.Command("setsid", { args: ["sleep", "300"], stdout: "null", stderr: "null" }).spawn();
}

Deno.test("hangUpSession: a leader that exited leaves its session's id to its jobs; a live process of its pid is another's", async () => {
  // The leader (sh) exits at once and is reaped; its background sleep stays in the session the leader's pid names.
  const sh = await new Deno.Command("setsid", {
    args: ["sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $$ $!"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const [leader, job] = new TextDecoder().decode(sh.stdout).trim().split(" ").map(Number);
  assert(gone(leader) && !gone(job), `leader ${leader} gone, job ${job} running`);
  await hangUpSession(leader, { leaderGone: true });
  await waitUntil("the job of the exited leader to be hung up", () => Promise.resolve(gone(job) || undefined), 10_000);

  // A session led by a live process whose pid is the one we were told is gone: the pid came round again.
  const other = sessionLeader();
  try {
    await hangUpSession(other.pid, { leaderGone: true });
    assert(!signalled(other.pid), "a process that only has the old leader's pid is left alone");
    // The same session, its leader alive: hung up.
    await hangUpSession(other.pid);
    assertEquals((await other.status).signal, "SIGHUP");
  } finally {
    try {
      other.kill("SIGKILL");
    } catch {
      // ended
    }
    await other.status;
  }
});

/** Runs a hang-up command with sh, as the tmux server on the pane's host does (`run-shell`). */
function sh(command: string): Deno.ChildProcess {
  return new Deno.Command("sh", { args: ["-c", command], stdout: "null", stderr: "null" }).spawn();
}

/** Waits until process `pid` started more than `ticks` clock ticks (10 ms) ago. */
async function olderThan(pid: number, ticks: number): Promise<void> {
  await waitUntil(
    `${ticks} ticks after ${pid}'s start`,
    () => Promise.resolve(ticksSince(pid) > ticks || undefined),
    10_000,
  );
}

/**
 * Gives `pid` (free now) to a session of another program, waits for `pass` (a hang-up's SIGKILL pass) and checks
 * that program was left alone; returns what the pass gave.
 */
async function reusedBefore<T>(pid: number, pass: Promise<T>): Promise<T> {
  const other = await spawnWithPid(pid, ["setsid", "sleep", "300"]);
  try {
    const result = await pass;
    assert(!signalled(other.pid), "the process that has the old leader's pid now is left alone");
    return result;
  } finally {
    other.kill("SIGKILL");
    await other.status;
  }
}

Deno.test({
  name: "hangUpSession: a leader that died of the hang-up leaves its pid to whoever gets it before the SIGKILL pass",
  // Only where this user may pick the next pid (root: /proc/sys/kernel/ns_last_pid).
  ignore: !canPickPid(),
  fn: async () => {
    const leader = sessionLeader();
    // Start times count in clock ticks (10 ms): the process that gets the pid must start in a later one.
    await olderThan(leader.pid, 1);
    // A wide grace: the pid must come round before the pass, however slow the machine.
    const { killed } = await hangUpSession(leader.pid, { graceMs: 5_000 });
    assertEquals((await leader.status).signal, "SIGHUP"); // died of it, and reaped: its session is empty
    assertEquals(await reusedBefore(leader.pid, killed), [], "the pass finds the pid taken by a later process");
  },
});

Deno.test({
  name: "hangUpCommand: the pass a second later skips a process that got the pid of a leader killed by the hang-up",
  ignore: !canPickPid(),
  fn: async () => {
    const leader = sessionLeader();
    // `ps -o lstart` counts seconds: the process that gets the pid must start in a later one.
    await olderThan(leader.pid, 100);
    const command = sh(hangUpCommand(leader.pid, false));
    assertEquals((await leader.status).signal, "SIGHUP");
    await reusedBefore(leader.pid, command.status);
  },
});

Deno.test({
  name: "hangUpCommand, leader gone before: the pass skips a process that got its pid during the grace second",
  ignore: !canPickPid(),
  fn: async () => {
    const leader = sessionLeader();
    leader.kill("SIGTERM");
    await leader.status; // reaped: its pid is free
    const command = sh(hangUpCommand(leader.pid, true));
    let ended = false;
    void command.status.then(() => ended = true);
    // Past its check that the pid is free: in its grace second (its `sleep 1` runs), or, on a machine too slow to see
    // that second, over (the pass then ran before the pid was taken, and nothing can have been signalled).
    await waitUntil("the command's grace second", async () => {
      const r = await new Deno.Command("pgrep", { args: ["-P", String(command.pid), "-x", "sleep"], stdout: "null" })
        .output();
      return r.success || ended || undefined;
    }, 10_000);
    await reusedBefore(leader.pid, command.status);
  },
});

Deno.test("hangUpSession: a leader that survives the hang-up gets the SIGKILL pass", async () => {
  // sh ignores SIGHUP and waits: the pass finds the same process (its start time unchanged) and kills it.
  const leader = new Deno.Command("setsid", {
    args: ["sh", "-c", "trap '' HUP; while :; do sleep 1; done"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await waitUntil("the trap to be set", () => Promise.resolve(sigIgnored(leader.pid, 1) || undefined), 10_000);
  const { killed } = await hangUpSession(leader.pid, { graceMs: 200 });
  assert((await killed).includes(leader.pid), "the SIGKILL pass names the leader");
  assertEquals((await leader.status).signal, "SIGKILL");
});

/** Clock ticks (10 ms) since process `pid` started, from /proc/uptime and its stat's start time. */
function ticksSince(pid: number): number {
  const uptime = Number(Deno.readTextFileSync("/proc/uptime").split(" ")[0]);
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const start = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  return Math.round(uptime * 100) - start;
}

/** Whether process `pid` ignores signal `sig` (its SigIgn mask in /proc). */
function sigIgnored(pid: number, sig: number): boolean {
  const m = /^SigIgn:\s*([0-9a-f]+)$/m.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  return m !== null && (BigInt(`0x${m[1]}`) & (1n << BigInt(sig - 1))) !== 0n;
}

Deno.test("hangUpSession: no signal for 0 (pgrep's own session), 1 or a non-integer", async () => {
  const self = sessionLeader();
  try {
    for (const sid of [0, 1, -self.pid, Number.NaN, 2.5]) await hangUpSession(sid);
    assert(!signalled(self.pid));
    assertEquals([0, 1, -5, 1.5].map((sid) => hangUpCommand(sid, false)), ["", "", "", ""]);
  } finally {
    self.kill("SIGKILL");
    await self.status;
  }
});

Deno.test("hangUpCommand: run by sh on the tmux host, hangs up that host's session, and skips a reused pid", async () => {
  const live = sessionLeader();
  try {
    // The leader said gone, a process of its pid alive: nothing is sent (no second pass either: the command ends).
    await sh(hangUpCommand(live.pid, true)).status;
    assert(!signalled(live.pid), "a reused pid is left alone");
    const ended = sh(hangUpCommand(live.pid, false)).status;
    assertEquals((await live.status).signal, "SIGHUP");
    await ended;
  } finally {
    try {
      live.kill("SIGKILL");
    } catch {
      // ended
    }
  }
});
