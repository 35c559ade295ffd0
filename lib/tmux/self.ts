/**
 * The self-kill guard: finds the pane, window, session and server that this
 * tmux-mcp process runs inside (when it runs inside the configured tmux
 * server at all), so the kill tools can refuse to end the agent that drives
 * them, and the typing tools can refuse keys that would signal it
 * ({@linkcode refuseSelfInput}). This is the half that asks the server;
 * what is refused, given where we run, is judged in lib/policy/self.ts.
 *
 * Two independent kinds of evidence, either one suffices:
 * - the environment tmux gives every pane process: `TMUX=socket_path,server_pid,…`
 *   and `TMUX_PANE=%N`, trusted only when socket (same file) and server pid
 *   match the configured server — a restarted server reuses socket paths;
 * - the process tree (from `ps`): a pane whose process is an ancestor of
 *   this process, or the tmux server's own pid among the ancestors. This
 *   still works when a client starts the MCP server with a scrubbed
 *   environment.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof refuseSelfKill>[0]; // the engine
 * await refuseSelfKill(tmux, "window", { window_id: "@2" }); // throws RefusedError if @2 holds our pane
 * ```
 */
import type { TmuxExecutor } from "./executor.ts";
import { RefusedError } from "../errors.ts";
import { keySequence } from "./keys.ts";
import { parseRows, rowFormat, type RowSpec } from "./rows.ts";
import {
  endingInput,
  type SelfKillIds,
  type SelfKillKind,
  selfKillRefusal,
  type SelfLocation,
  type TypedInput,
} from "../policy/self.ts";

export interface LocateOptions {
  /** The process environment; default `Deno.env.toObject()`. */
  env?: Record<string, string | undefined>;
  /** Pids of this process and its ancestors; default {@linkcode ancestorPids}. */
  ancestors?: ReadonlySet<number>;
  signal?: AbortSignal;
}

const ROW = {
  pid: ["pid", "int"],
  socket_path: ["socket_path", "str"],
  session_id: ["session_id", "id"],
  window_id: ["window_id", "id"],
  pane_id: ["pane_id", "id"],
  pane_pid: ["pane_pid", "int"],
} as const satisfies RowSpec;

/** Parses `TMUX=path,pid,index`; the path itself may contain commas. */
export function parseTmuxEnv(value: string | undefined): { socketPath: string; pid: number } | undefined {
  if (!value) return undefined;
  const parts = value.split(",");
  if (parts.length < 3) return undefined;
  const pid = Number(parts[parts.length - 2]);
  const socketPath = parts.slice(0, -2).join(",");
  if (!Number.isInteger(pid) || pid <= 0 || !socketPath) return undefined;
  return { socketPath, pid };
}

/**
 * This process and its ancestors' pids, from one `ps -A -o pid=,ppid=` (Linux and macOS; Deno grants
 * `/proc` reads only with --allow-all). Without `ps`: this pid and the parent's only.
 */
export async function ancestorPids(): Promise<Set<number>> {
  const pids = new Set<number>([Deno.pid, Deno.ppid]);
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("ps", {
      args: ["-A", "-o", "pid=,ppid="],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(5000),
    }).output();
  } catch {
    return pids;
  }
  if (!out.success) return pids;
  const parent = new Map<number, number>();
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid > 0 && ppid >= 0) parent.set(pid, ppid);
  }
  for (let pid = Deno.ppid, depth = 0; pid > 1 && depth < 64; depth++) {
    const up = parent.get(pid);
    if (up === undefined) break;
    pids.add(up);
    pid = up;
  }
  return pids;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  try {
    const [x, y] = await Promise.all([Deno.stat(a), Deno.stat(b)]);
    return x.dev === y.dev && x.ino !== null && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** Finds where this process runs on the configured server (one tmux call). */
export async function locateSelf(tmux: TmuxExecutor, opts: LocateOptions = {}): Promise<SelfLocation> {
  // A server on another host (--ssh): we never run inside it, and its pids and socket paths are not ours to compare.
  if (tmux.remote !== undefined) {
    return { inServer: false, pane_ids: [], window_ids: [], session_ids: [], evidence: [] };
  }
  const { rows } = parseRows(ROW, await tmux.run(["list-panes", "-a", "-F", rowFormat(ROW)], { signal: opts.signal }));
  const loc: SelfLocation = {
    socket_path: rows[0]?.socket_path,
    inServer: false,
    pane_ids: [],
    window_ids: [],
    session_ids: [],
    evidence: [],
  };
  if (rows.length === 0) return loc; // no panes: nothing of ours can be killed here

  const panes = new Set<string>();
  const env = opts.env ?? Deno.env.toObject();
  const fromEnv = parseTmuxEnv(env.TMUX);
  if (fromEnv && fromEnv.pid === rows[0].pid && await sameFile(fromEnv.socketPath, rows[0].socket_path)) {
    loc.inServer = true;
    loc.evidence.push("TMUX");
    const envPane = env.TMUX_PANE;
    if (envPane && rows.some((r) => r.pane_id === envPane)) {
      panes.add(envPane);
      loc.evidence[loc.evidence.length - 1] = "TMUX_PANE";
    }
  }
  const ancestors = opts.ancestors ?? await ancestorPids();
  if (ancestors.has(rows[0].pid)) {
    loc.inServer = true;
    loc.evidence.push("process tree");
    for (const r of rows) if (ancestors.has(r.pane_pid)) panes.add(r.pane_id);
  }
  // A window linked into several sessions is listed once per session.
  const mine = rows.filter((r) => panes.has(r.pane_id));
  loc.pane_ids = [...panes];
  loc.window_ids = [...new Set(mine.map((r) => r.window_id))];
  loc.session_ids = [...new Set(mine.map((r) => r.session_id))];
  return loc;
}

/**
 * Throws {@linkcode RefusedError} when killing this object would kill the
 * tmux-mcp process itself. `ids` are the resolved ids of the object to kill
 * (pane_id for "pane", window_id for "window", session_id for "session").
 * Returns the location so callers can reuse the socket path.
 */
export async function refuseSelfKill(
  tmux: TmuxExecutor,
  kind: SelfKillKind,
  ids: SelfKillIds,
  opts: LocateOptions & { action?: string } = {},
): Promise<SelfLocation> {
  const loc = await locateSelf(tmux, opts);
  const why = selfKillRefusal(loc, kind, ids, opts.action);
  if (why) throw new RefusedError(why);
  return loc;
}

/**
 * Throws {@linkcode RefusedError} when `input` would signal or end a process
 * and `paneId` is the pane this tmux-mcp process runs in. Costs nothing for
 * ordinary input: the server is asked where we run only when the input
 * could end a process.
 */
export async function refuseSelfInput(
  tmux: TmuxExecutor,
  paneId: string,
  input: TypedInput,
  opts: LocateOptions = {},
): Promise<void> {
  const why = endingInput(input, keySequence);
  if (!why) return;
  const loc = await locateSelf(tmux, opts);
  if (!loc.pane_ids.includes(paneId)) return;
  throw new RefusedError(
    `refusing to type into pane ${paneId}: ${why}, and the tmux-mcp server itself runs in this pane (found by ` +
      `${loc.evidence.join(" and ")}), so it would end the MCP connection; type into another pane`,
  );
}
