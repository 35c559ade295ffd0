/**
 * Session scope on one tmux server (one host): which sessions are in view
 * now, asked of tmux with one `list-sessions` per call, by the rule of
 * lib/policy/scope.ts plus the sessions this server created. The engine of a
 * scoped host carries it (`TmuxExecutor.scope`); lib/tmux/panes.ts filters
 * every listing by it and checks every target against it, so no tool sees
 * an out-of-scope session.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<SessionScope["sessions"]>[0]; // the host's engine
 * const scope = createSessionScope({ patterns: [{ glob: "work-*" }], tagged: false }, "local");
 * const inView = await scope.sessions(tmux); // Map of "$3" → { session_id: "$3", session_name: "work-api" }
 * scope.adopt("$7"); // a session this server just created
 * ```
 */
import type { TmuxExecutor } from "./executor.ts";
import { TmuxError } from "./executor.ts";
import { parseRow, parseRows, type Row, rowFormat } from "./rows.ts";
import { SCOPE_TAG, type ScopeRule, sessionInScope } from "../policy/scope.ts";
import { RefusedError, UserError } from "../errors.ts";

/** A session in view: its id and name. */
export interface ScopedSession {
  session_id: string;
  session_name: string;
}

/**
 * The sessions in view, by id, and the names of the others (`hidden`): a target naming one of those exactly names
 * that session, never a session in view that its name is the start of.
 */
export type SessionsInView = ReadonlyMap<string, ScopedSession> & { readonly hidden: ReadonlySet<string> };

/** The scope of one host's tmux server. */
export interface SessionScope {
  /** The sessions in scope now, by id (empty when the server has none or is not running). */
  sessions(tmux: Pick<TmuxExecutor, "run">, signal?: AbortSignal): Promise<SessionsInView>;
  /**
   * Puts a session this server created in scope for as long as that tmux server lives: `serverPid` is the pid of
   * the tmux server that made it (without it, the server of the next look is taken for that one).
   */
  adopt(sessionId: string, serverPid?: number): void;
  /**
   * Whether a session as tmux lists it (`pid`: its tmux server's) is in scope, without asking tmux: for a
   * control client leaving, which may switch only to a session in view (lib/tmux/control_client.ts `stepOff`).
   */
  includes(session: Row<typeof SCOPE_ROW>): boolean;
}

/** What a scope judges a session by, as `list-sessions -F` rows (the step-off's query lists the same). */
export const SCOPE_ROW = {
  pid: ["pid", "int"],
  session_id: ["session_id", "id"],
  session_name: ["session_name", "str"],
  tag: [SCOPE_TAG, "str"],
} as const;
const FORMAT = rowFormat(SCOPE_ROW);

/**
 * The one refusal for a target that is out of scope or does not exist: the
 * same words for both, so a refusal never tells that a name exists.
 */
export function unknownTarget(target: string): UserError {
  return new UserError(
    `unknown target ${JSON.stringify(target)}: call list (what: sessions or panes) and use an id such as ` +
      "%3, @2 or $1",
  );
}

/** The scope of `rule` on host `host` (its name as `--ssh NAME=DEST` gives it, `local` for this machine). */
export function createSessionScope(rule: ScopeRule, host: string): SessionScope {
  /** Created sessions by id, with the pid of the tmux server they were made on (ids restart with a server). */
  const created = new Map<string, number | undefined>();
  /** Whether this server created the session (the first look after its creation fills in the tmux server's pid). */
  const ours = (id: string, pid: number) => created.has(id) && [undefined, pid].includes(created.get(id));
  return {
    adopt(id, serverPid) {
      created.set(id, serverPid);
    },
    includes: (s) => ours(s.session_id, s.pid) || sessionInScope(rule, host, { name: s.session_name, tag: s.tag }),
    async sessions(tmux, signal) {
      let out: Uint8Array;
      try {
        out = await tmux.run(["list-sessions", "-F", FORMAT], { signal });
      } catch (e) {
        // No server yet: no sessions, in scope or not.
        if (e instanceof TmuxError && e.kind === "no-server") {
          return Object.assign(new Map(), { hidden: new Set<string>() });
        }
        throw e;
      }
      const inView = new Map<string, ScopedSession>();
      const hidden = new Set<string>();
      for (const row of parseRows(SCOPE_ROW, out).rows) {
        if (created.has(row.session_id) && created.get(row.session_id) === undefined) {
          created.set(row.session_id, row.pid);
        }
        const ours = created.get(row.session_id) === row.pid;
        if (ours || sessionInScope(rule, host, { name: row.session_name, tag: row.tag })) {
          inView.set(row.session_id, { session_id: row.session_id, session_name: row.session_name });
        } else hidden.add(row.session_name);
      }
      return Object.assign(inView, { hidden });
    },
  };
}

const LINK_ROW = { session_id: ["session_id", "id"], window_id: ["window_id", "id"] } as const;
const LINK_FORMAT = rowFormat(LINK_ROW);

/**
 * Every session window `windowId` is linked into, by id, in or out of view (for refusals that must not name
 * the ones out of view).
 */
export async function windowSessions(
  tmux: Pick<TmuxExecutor, "run">,
  windowId: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const rows = parseRows(LINK_ROW, await tmux.run(["list-windows", "-a", "-F", LINK_FORMAT], { signal })).rows;
  return rows.filter((r) => r.window_id === windowId).map((r) => r.session_id);
}

/**
 * Refuses to kill window `windowId` or one of its panes (`what`) when the user linked that window into a session
 * out of view as well: a killed window closes in every session it is linked into, a killed pane leaves all of
 * them. Which session that is stays untold.
 */
export async function refuseLinkedOutOfView(
  tmux: Pick<TmuxExecutor, "run" | "scope">,
  windowId: string,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  if (!tmux.scope) return;
  const inView = await tmux.scope.sessions(tmux, signal);
  if ((await windowSessions(tmux, windowId, signal)).every((id) => inView.has(id))) return;
  throw new RefusedError(
    `refusing to kill ${what}: window ${windowId} is also linked into a session out of this server's view ` +
      "(--sessions/--scope), which it would change too; nothing was killed: ask the user to unlink it " +
      "(tmux unlink-window) or kill it",
  );
}

const GROUP_ROW = { session_id: ["session_id", "id"], group: ["session_group", "str"] } as const;
const GROUP_FORMAT = rowFormat(GROUP_ROW);

/**
 * Refuses to add a window to session `sessionId` when the user grouped it (`new-session -t`) with a session out of
 * view: the sessions of a group share their windows, so that session would get the window too. Which session that
 * is stays untold.
 */
export async function refuseGroupedOutOfView(
  tmux: Pick<TmuxExecutor, "run" | "scope">,
  sessionId: string,
  signal?: AbortSignal,
): Promise<void> {
  if (!tmux.scope) return;
  const inView = await tmux.scope.sessions(tmux, signal);
  const rows = parseRows(GROUP_ROW, await tmux.run(["list-sessions", "-F", GROUP_FORMAT], { signal })).rows;
  const group = rows.find((r) => r.session_id === sessionId)?.group;
  if (!group || rows.every((r) => r.group !== group || inView.has(r.session_id))) return;
  throw new RefusedError(
    `refusing to add a window to session ${sessionId}: it is grouped with a session out of this server's view ` +
      "(--sessions/--scope), which shares its windows and would get this one too; nothing was created: make " +
      'the window in a session of your own (new, what: "session")',
  );
}

/**
 * Refuses to rename session `sessionId` to `name` when that name would take it out of view (not a name the
 * `--sessions` patterns match, and the session neither tagged nor made by this server): the agent could neither
 * reach the session again nor rename it back.
 */
export async function refuseRenameOutOfView(
  tmux: Pick<TmuxExecutor, "run" | "scope">,
  sessionId: string,
  name: string,
  signal?: AbortSignal,
): Promise<void> {
  if (!tmux.scope) return;
  const row = parseRow(SCOPE_ROW, await tmux.run(["display-message", "-p", "-t", sessionId, FORMAT], { signal }));
  if (tmux.scope.includes({ ...row, session_name: name })) return;
  throw new RefusedError(
    `refusing to rename session ${sessionId} to ${JSON.stringify(name)}: this server sees only some sessions ` +
      "(--sessions/--scope), and under that name the session would leave its view for good (it could not be " +
      "reached or renamed back); choose a name the --sessions patterns match",
  );
}
