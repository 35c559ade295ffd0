/**
 * This process on this machine: its user id, which processes are still
 * running, and the names of the temp files and directories it creates.
 * Everything a server leaves outside itself carries its process id in its
 * name (`${TMPDIR or /tmp}/tmux-mcp-<pid>-<what>-…`, {@linkcode tempPrefix};
 * result buffers `mcp-result-<pid>-…`, lib/budget/registry.ts), so a later
 * server can sweep what one killed with SIGKILL left ({@linkcode
 * sweepTempFiles}; lib/server/sweep.ts runs the sweeps).
 *
 * A sweep counts a pid as alive when `ps -p` lists it (one `ps` for all the
 * owners; Deno refuses /proc to a server without --allow-all); a reused pid
 * only delays a sweep. {@linkcode processExists} checks one pid with signal 0.
 * Only entries owned by this user are touched, and never this server's own.
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir({ prefix: tempPrefix("run") }); // /tmp/tmux-mcp-4242-run-a1B2c3
 * await sweepTempFiles(); // removes /tmp/tmux-mcp-977-… when 977 is gone
 * ```
 */
/** True when this process is the `deno` CLI running sources, not a `deno compile` binary. */
export function runFromSource(): boolean {
  const exe = Deno.execPath().split("/").pop() ?? "";
  return /^deno(\.exe)?$/.test(exe);
}

/**
 * Moves this process into the folder its starter was in when a checkout's `deno task` started it: deno runs a task in
 * its deno.json's folder and names the starter's in `INIT_CWD`, where a compiled binary (npx, Homebrew, a release)
 * stays in the folder its MCP client starts it in, usually the user's project. Relative flag values, new sessions and
 * pty sessions then mean the same on every install route. A folder that is gone or unreadable changes nothing.
 */
export function enterStartFolder(): void {
  const from = runFromSource() ? Deno.env.get("INIT_CWD") : undefined;
  if (!from) return;
  try {
    Deno.chdir(from);
  } catch {
    // stays in the task's folder, as before
  }
}

/** The start of every temp file or directory name of this process. */
const TEMP_PREFIX = `tmux-mcp-${Deno.pid}-`;
const TEMP_NAME = /^tmux-mcp-(\d+)-/;

/** The `prefix` for `Deno.makeTempDir`/`makeTempFile`: `tmux-mcp-<pid>-<what>-`. */
export function tempPrefix(what: string): string {
  return `${TEMP_PREFIX}${what}-`;
}

/** Where `Deno.makeTempDir` puts things without a `dir`: $TMPDIR, else /tmp. */
export function tempParent(): string {
  return Deno.env.get("TMPDIR") || "/tmp";
}

/** True when a process with this pid exists, one of ours or not (signal 0 only checks; EPERM: someone else's). */
export function processExists(pid: number): boolean {
  try {
    Deno.kill(pid, 0 as unknown as Deno.Signal);
    return true;
  } catch (e) {
    return !(e instanceof Deno.errors.NotFound);
  }
}

/** One process's facts; `start` in seconds on a clock shared by the processes compared (since boot, from /proc). */
export interface Proc {
  pid: number;
  ppid: number;
  /** Its terminal's foreground process group. */
  tpgid: number;
  comm: string;
  start: number;
}

/** /proc's clock ticks per second (USER_HZ: 100 on every Linux architecture). */
const USER_HZ = 100;

/**
 * A process from the text of `/proc/<pid>/stat`. The command name sits in
 * parentheses and may itself hold spaces and parentheses: the fields are
 * counted from the last `)`.
 *
 * @example
 * ```ts
 * parseProcStat("42 (my (odd) cmd) S 7 42 42 34816 42 0 0 0 0 0 0 0 0 0 20 0 1 0 1234 ..."); // comm "my (odd) cmd"
 * ```
 */
export function parseProcStat(text: string | undefined): Proc | undefined {
  if (!text) return undefined;
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  // After the name: state(3) ppid(4) pgrp(5) session(6) tty_nr(7) tpgid(8) … starttime(22).
  const f = text.slice(close + 2).split(" ");
  const proc = {
    pid: Number(text.slice(0, open)),
    ppid: Number(f[1]),
    tpgid: Number(f[5]),
    comm: text.slice(open + 1, close),
    start: Number(f[19]) / USER_HZ,
  };
  return [proc.pid, proc.ppid, proc.tpgid, proc.start].every(Number.isFinite) ? proc : undefined;
}

/** The pids among `pids` that are running processes (all of them when `ps` cannot tell: nothing is swept). */
export async function alivePids(pids: readonly number[]): Promise<Set<number>> {
  if (pids.length === 0) return new Set();
  try {
    const r = await new Deno.Command("ps", {
      args: ["-p", pids.join(","), "-o", "pid="],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    // ps exits 1 when none of the pids exists.
    if (r.code > 1) return new Set(pids);
    return new Set(new TextDecoder().decode(r.stdout).split("\n").map((l) => Number(l.trim())).filter((n) => n > 0));
  } catch {
    return new Set(pids);
  }
}

/** Owner pids (not ours) of names matching `re` (the pid its first group), and which of them are gone. */
export async function deadOwners(names: readonly string[], re: RegExp): Promise<Set<number>> {
  const owners = new Set<number>();
  for (const n of names) {
    const pid = Number(re.exec(n)?.[1] ?? NaN);
    if (pid > 0 && pid !== Deno.pid) owners.add(pid);
  }
  const alive = await alivePids([...owners]);
  return new Set([...owners].filter((p) => !alive.has(p)));
}

let uid: Promise<number | undefined> | undefined;

/**
 * This process's user id without the `sys` permission (Deno.uid) or a look
 * at /proc/self (refused to a process without --allow-all): the owner of a
 * file it creates. A process-wide fact, found once; undefined when no temp
 * file can be made (then the file system's permissions decide alone).
 */
export function ownUid(): Promise<number | undefined> {
  uid ??= (async () => {
    try {
      const probe = await Deno.makeTempFile({ prefix: tempPrefix("uid") });
      try {
        return (await Deno.stat(probe)).uid ?? undefined;
      } finally {
        await Deno.remove(probe).catch(() => {});
      }
    } catch {
      return undefined;
    }
  })();
  return uid;
}

/**
 * Removes `tmux-mcp-<pid>-…` entries of `parent` (owned by this user) whose
 * server is gone; returns their paths, and the nonces of the runs that were
 * still armed in them (their shells may wait in a handshake).
 */
export async function sweepTempFiles(parent = tempParent()): Promise<{ removed: string[]; armed: string[] }> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(parent)) if (TEMP_NAME.test(e.name)) names.push(e.name);
  } catch {
    return { removed: [], armed: [] };
  }
  const dead = await deadOwners(names, TEMP_NAME);
  const uid = await ownUid();
  const removed: string[] = [], armed: string[] = [];
  for (const name of names) {
    if (!dead.has(Number(TEMP_NAME.exec(name)![1]))) continue;
    const path = `${parent}/${name}`;
    try {
      const st = await Deno.lstat(path);
      if (uid !== undefined && st.uid !== null && st.uid !== uid) continue;
      if (st.isDirectory) {
        for await (const e of Deno.readDir(path)) if (/^a-[0-9a-f]+$/.test(e.name)) armed.push(e.name.slice(2));
      }
      await Deno.remove(path, { recursive: true }); // a symlink is removed, not followed
      removed.push(path);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return { removed, armed };
}

/**
 * Removes this process's own temp files and directories (`tmux-mcp-<pid>-…` in `parents`), at once: for an exit
 * whose cleanup was cut off at its bound (a tmux that does not answer), which would otherwise leave them until a
 * later server's sweep. Returns their paths.
 */
export function removeOwnTempFiles(parents: readonly string[] = [tempParent(), "/tmp"]): string[] {
  const removed: string[] = [];
  for (const parent of new Set(parents)) {
    let names: string[];
    try {
      names = [...Deno.readDirSync(parent)].map((e) => e.name).filter((n) => n.startsWith(TEMP_PREFIX));
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        Deno.removeSync(`${parent}/${name}`, { recursive: true }); // a symlink is removed, not followed
        removed.push(`${parent}/${name}`);
      } catch {
        // gone meanwhile
      }
    }
  }
  return removed;
}
