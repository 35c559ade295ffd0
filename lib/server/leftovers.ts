/**
 * Nothing left behind, even by a server killed with SIGKILL: everything this
 * server leaves outside itself carries its process id in its name, and a
 * server sweeps (once it has answered `initialize`, and again when it first
 * stores a result buffer) what belongs to servers that are gone.
 *
 * - temp files and directories: `${TMPDIR or /tmp}/tmux-mcp-<pid>-<what>-…`
 *   ({@linkcode tempPrefix}; run-command scripts, capture links, large
 *   buffer writes, buffer reads through the server's file); a shell left
 *   waiting in a run's handshake (`lib/exec/shell.ts`) is released;
 * - result buffers on the tmux server: `mcp-result-<pid>-<8 hex digits>`
 *   (`lib/budget/registry.ts`).
 *
 * A pid counts as alive when `ps -p` lists it (Deno refuses /proc and signal
 * 0 to a server without --allow-all); a reused pid only delays a sweep. Only
 * entries owned by this user are touched, and never this server's own.
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir({ prefix: tempPrefix("run") }); // /tmp/tmux-mcp-4242-run-a1B2c3
 * declare const services: Parameters<typeof sweepLeftovers>[0]; // the server's
 * await sweepLeftovers(services); // removes /tmp/tmux-mcp-977-… and mcp-result-977-… when 977 is gone
 * ```
 */
import type { BufferStore } from "../buffers/store.ts";
import { log } from "../log.ts";
import { channels } from "../exec/shell.ts";
import type { Services } from "../tools/tool.ts";

/** The start of every temp file or directory name of this process. */
const TEMP_PREFIX = `tmux-mcp-${Deno.pid}-`;
const TEMP_NAME = /^tmux-mcp-(\d+)-/;

/** The start of every result buffer name of this process. */
export const RESULT_PREFIX = `mcp-result-${Deno.pid}-`;
const RESULT_NAME = /^mcp-result-(\d+)-[0-9a-f]{8}$/;

/** The `prefix` for `Deno.makeTempDir`/`makeTempFile`: `tmux-mcp-<pid>-<what>-`. */
export function tempPrefix(what: string): string {
  return `${TEMP_PREFIX}${what}-`;
}

/** Where `Deno.makeTempDir` puts things without a `dir`: $TMPDIR, else /tmp. */
export function tempParent(): string {
  return Deno.env.get("TMPDIR") || "/tmp";
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

/** Owner pids (not ours) of names matching `re`, and which of them are gone. */
async function deadOwners(names: readonly string[], re: RegExp): Promise<Set<number>> {
  const owners = new Set<number>();
  for (const n of names) {
    const pid = Number(re.exec(n)?.[1] ?? NaN);
    if (pid > 0 && pid !== Deno.pid) owners.add(pid);
  }
  const alive = await alivePids([...owners]);
  return new Set([...owners].filter((p) => !alive.has(p)));
}

/** This user's id, or null (Deno.uid needs --allow-sys; then the file system's permissions decide alone). */
function ownUid(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null;
  }
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
  const uid = ownUid();
  const removed: string[] = [], armed: string[] = [];
  for (const name of names) {
    if (!dead.has(Number(TEMP_NAME.exec(name)![1]))) continue;
    const path = `${parent}/${name}`;
    try {
      const st = await Deno.lstat(path);
      if (uid !== null && st.uid !== null && st.uid !== uid) continue;
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

/** Deletes `mcp-result-<pid>-…` buffers whose server is gone; returns their names. */
export async function sweepResultBuffers(buffers: Pick<BufferStore, "list" | "delete">): Promise<string[]> {
  // Spawned: a starting server attaches no control client for its sweep (lib/tmux/attach_gate.ts).
  const names = (await buffers.list({ spawn: true })).map((b) => b.name).filter((n) => RESULT_NAME.test(n));
  const dead = await deadOwners(names, RESULT_NAME);
  const gone = names.filter((n) => dead.has(Number(RESULT_NAME.exec(n)![1])));
  await Promise.all(gone.map((n) => buffers.delete(n).catch(() => {})));
  return gone;
}

/**
 * Both sweeps, in the background of a starting server: never throws (no tmux
 * server yet is normal), logs what it removed.
 */
export async function sweepLeftovers(services: Pick<Services, "buffers" | "tmux">): Promise<void> {
  const [{ removed: files, armed }, buffers] = await Promise.all([
    sweepTempFiles().catch(() => ({ removed: [], armed: [] })),
    // A remote tmux (--ssh) may serve servers on other machines, whose pids ours cannot check.
    services.tmux.remote === undefined ? sweepResultBuffers(services.buffers).catch(() => []) : [],
  ]);
  // A shell may wait in a run's handshake for the killed server: release it (its run is disarmed now that its
  // directory is gone; the channel it does not reach stays signalled, a few bytes in tmux).
  for (const nonce of armed) {
    for (const ch of Object.values(channels(nonce))) {
      await services.tmux.run(["wait-for", "-S", ch], { timeoutMs: 5000 }).catch(() => {});
    }
  }
  if (files.length + buffers.length > 0) {
    log("info", `removed what exited servers left: ${[...files, ...buffers.map((b) => `buffer ${b}`)].join(", ")}`);
  }
}
