/**
 * Facts about sessions, windows and panes, each kind fetched with ONE tmux
 * call and parsed into typed rows (see `rows.ts`: any byte in a name, title
 * or path is safe).
 *
 * {@linkcode getPane} resolves a target (or the default pane: the active pane
 * of the most recently used session) and returns the pane's facts in the same
 * call; it can chain one more command on that pane (`capture-pane`) so a
 * snapshot costs one tmux process.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof getPane>[0]; // the engine
 * const { pane, defaulted, output } = await getPane(tmux, "main:0.1", {
 *   then: (t) => ["capture-pane", "-p", "-t", t],
 * });
 * pane.pane_id; // "%3"
 * pane.cursor_y; // 12
 * new TextDecoder().decode(output); // the screen
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxArg, TmuxError, type TmuxExecutor } from "./executor.ts";
import { parseRows, type Row, rowFormat, RowParseError, type RowSpec } from "./rows.ts";
import { UserError } from "../errors.ts";
import { pickSession, sessionNamePart } from "../policy/scope.ts";
import { type ScopedSession, type SessionsInView, unknownTarget, windowSessions } from "./scope.ts";

/** Session facts. Times are unix seconds. */
export const SESSION_SPEC = {
  session_id: ["session_id", "id"],
  session_name: ["session_name", "str"],
  window_count: ["session_windows", "int"],
  attached_clients: ["session_attached", "int"],
  created: ["session_created", "int"],
  activity: ["session_activity", "int"],
} as const satisfies RowSpec;

/** Window facts; `layout` is tmux's layout string (usable with select-layout). */
export const WINDOW_SPEC = {
  session_id: ["session_id", "id"],
  session_name: ["session_name", "str"],
  window_id: ["window_id", "id"],
  window_index: ["window_index", "int"],
  window_name: ["window_name", "str"],
  active: ["window_active", "bool"],
  width: ["window_width", "int"],
  height: ["window_height", "int"],
  layout: ["window_layout", "str"],
  pane_count: ["window_panes", "int"],
  zoomed: ["window_zoomed_flag", "bool"],
} as const satisfies RowSpec;

/** Pane facts. `active` is the pane's flag within its window; `mode` (copy-mode, view-mode…) is null outside modes. */
export const PANE_SPEC = {
  session_id: ["session_id", "id"],
  session_name: ["session_name", "str"],
  window_id: ["window_id", "id"],
  window_index: ["window_index", "int"],
  window_name: ["window_name", "str"],
  window_active: ["window_active", "bool"],
  pane_id: ["pane_id", "id"],
  pane_index: ["pane_index", "int"],
  active: ["pane_active", "bool"],
  width: ["pane_width", "int"],
  height: ["pane_height", "int"],
  left: ["pane_left", "int"],
  top: ["pane_top", "int"],
  current_command: ["pane_current_command", "str"],
  current_path: ["pane_current_path", "str"],
  pid: ["pane_pid", "int?"],
  title: ["pane_title", "str"],
  tty: ["pane_tty", "str"],
  dead: ["pane_dead", "bool"],
  dead_status: ["pane_dead_status", "int?"],
  in_mode: ["pane_in_mode", "bool"],
  mode: ["pane_mode", "str?"],
  alternate_on: ["alternate_on", "bool"],
  cursor_x: ["cursor_x", "int"],
  cursor_y: ["cursor_y", "int"],
  history_size: ["history_size", "int"],
  history_limit: ["history_limit", "int"],
} as const satisfies RowSpec;

/** Server facts; `start_time` is unix seconds. */
export const SERVER_SPEC = {
  version: ["version", "str"],
  pid: ["pid", "int"],
  start_time: ["start_time", "int"],
  socket_path: ["socket_path", "str"],
} as const satisfies RowSpec;

export type ServerInfo = Row<typeof SERVER_SPEC> & { session_count: number };
export type SessionInfo = Row<typeof SESSION_SPEC>;
export type WindowInfo = Row<typeof WINDOW_SPEC>;
export type PaneInfo = Row<typeof PANE_SPEC>;

/** Which panes to list: the whole server, one session (all its windows) or one window. */
export type PaneScope = { all: true } | { session: string } | { window: string };
/** Which windows to list: the whole server or one session. */
export type WindowScope = { all: true } | { session: string };

const decoder = new TextDecoder();
/**
 * What tmux is asked for a session: the attached clients come as their names,
 * so clients without a terminal — control-mode clients over pipes, this
 * server's own among them, which tmux names `client-PID` — are not counted.
 */
const SESSION_QUERY_SPEC = {
  ...SESSION_SPEC,
  attached_clients: ["session_attached_list", "str"],
} as const satisfies RowSpec;
export const SESSION_FORMAT = rowFormat(SESSION_QUERY_SPEC);

function sessionRow(r: Row<typeof SESSION_QUERY_SPEC>): SessionInfo {
  const atTerminal = r.attached_clients.split(",").filter((n) => n !== "" && !/^client-\d+$/.test(n));
  return { ...r, attached_clients: atTerminal.length };
}
const WINDOW_FORMAT = rowFormat(WINDOW_SPEC);
const PANE_FORMAT = rowFormat(PANE_SPEC);
const ACTIVITY_SPEC = { session_activity: ["session_activity", "int"] } as const satisfies RowSpec;

/**
 * Which pane facts {@linkcode getPane} asks tmux for: PANE_SPEC or a part of
 * it, with its formats built once. tmux expands every field of the format on
 * each call (a pane's command and path are read from /proc each time), so a
 * tool that reports a few facts asks for those alone.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof getPane>[0]; // the engine
 * const FACTS = paneFacts(["pane_id", "height"]);
 * (await getPane(tmux, "%3", { facts: FACTS })).pane.height; // 40
 * ```
 */
export interface PaneFactsQuery<S extends PaneSpecPart> {
  spec: S;
  format: string;
  /** The spec and format with `session_activity`, to find the default pane (the most recently used session's). */
  withActivity: S & typeof ACTIVITY_SPEC;
  withActivityFormat: string;
}

/** Part of PANE_SPEC, always with the pane's id. */
export type PaneSpecPart = Partial<typeof PANE_SPEC> & Pick<typeof PANE_SPEC, "pane_id">;

/** The query for `pane_id` and the PANE_SPEC fields named by `keys` (all of them by default). */
export function paneFacts<K extends keyof typeof PANE_SPEC>(
  keys?: readonly K[],
): PaneFactsQuery<Pick<typeof PANE_SPEC, K | "pane_id">> {
  const spec = Object.fromEntries(
    Object.entries(PANE_SPEC).filter(([k]) => !keys || k === "pane_id" || (keys as readonly string[]).includes(k)),
  ) as Pick<typeof PANE_SPEC, K | "pane_id">;
  const withActivity = { ...spec, ...ACTIVITY_SPEC };
  return { spec, format: rowFormat(spec), withActivity, withActivityFormat: rowFormat(withActivity) };
}

const ALL_FACTS: PaneFactsQuery<typeof PANE_SPEC> = paneFacts();

/**
 * What a tool that types into a pane reads of it with its target: where it is, its program and terminal, and
 * its modes. Not its geometry, names, title or path: run-command reads the pane twice before its command
 * starts, and tmux answers a short format sooner.
 */
export const SHELL_FACTS = paneFacts([
  "session_id",
  "window_id",
  "current_command",
  "pid",
  "tty",
  "dead",
  "in_mode",
  "mode",
  "alternate_on",
]);

/** A pane's {@linkcode SHELL_FACTS}. */
export type ShellPane = Row<typeof SHELL_FACTS.spec>;

/**
 * tmux finds `=name` (exact session name) only in a session-shaped target:
 * as a pane target it reports "can't find pane". `=name` alone becomes
 * `=name:` (that session's active window and pane).
 *
 * @example
 * ```ts
 * normalizeTarget("=prod-db"); // "=prod-db:"
 * ```
 */
export function normalizeTarget(target: string): string {
  return target.startsWith("=") && !target.includes(":") ? `${target}:` : target;
}

/**
 * A target as the model means it: a plain word is a session name (`name:`), as tmux reads a session command's
 * `-t`, for every kind of target. As a pane or window target tmux tries a window of that name, or a pane or window
 * of that index, in its current session first, a session the model cannot see: `dev` would name session `x`'s
 * window `dev` although session `dev` exists (send-keys would type into it), and `1` would name a pane of the
 * current window although session `1` (tmux's default names) exists. A window by name is `session:window`. Ids,
 * tokens and targets with `:` or `.` pass unchanged.
 *
 * @example
 * ```ts
 * sessionTarget("dev"); // "dev:"
 * sessionTarget("1");   // "1:"
 * sessionTarget("%3");  // "%3"
 * ```
 */
export function sessionTarget(target: string): string {
  return PLAIN_WORD.test(target) ? `${target}:` : target;
}

/** A target that is one plain word: no id, `=`, token or relative prefix, no `:` or `.`. */
const PLAIN_WORD = /^[^$@%={}!~^+:.-][^:.]*$/;

/**
 * Maps tmux's "can't find …"/"ambiguous" errors for `target` to a message
 * that says what to call; other errors pass through unchanged.
 */
export function targetError(target: string, e: unknown): unknown {
  if (e instanceof TmuxError && e.kind === "failed" && /no marked target/.test(e.message)) {
    return new UserError(
      `target ${JSON.stringify(target)} means tmux's marked pane, and no pane is marked: call list (what: panes) ` +
        `and use an id such as %3`,
    );
  }
  // `{mouse}` (or `=`) is the pane a mouse event happened over: only a key binding run by one has it.
  if (e instanceof TmuxError && e.kind === "failed" && /no mouse target/.test(e.message)) {
    return new UserError(
      `target ${JSON.stringify(target)} means the pane under the mouse, which only a mouse key binding has: ` +
        `call list (what: panes) and use an id such as %3`,
    );
  }
  // tmux reads `{last}` as `!` and names that in its error; the model gave `{last}` or `!`.
  const last = e instanceof TmuxError && e.kind === "failed" && /^can't find (window|pane): !$/.exec(e.message);
  if (last) {
    return new UserError(
      `target ${JSON.stringify(target)} means the last ${last[1]}, and there is none: tmux remembers one only ` +
        `once another ${last[1]} was made current there; call list (what: ${last[1]}s) and use an id such as ` +
        `${last[1] === "pane" ? "%3" : "@2"}`,
    );
  }
  if (e instanceof TmuxError && e.kind === "failed" && /can't find|ambiguous|not found|no such/i.test(e.message)) {
    const what = /ambiguous/i.test(e.message) ? "ambiguous" : "unknown";
    // A plain word was asked for as a session ({@linkcode sessionTarget}): a window is named session:window.
    const plain = PLAIN_WORD.test(target) ? " (a plain name is a session; a window is session:window)" : "";
    return new UserError(
      `${what} target ${JSON.stringify(target)}${plain} (tmux: ${e.message}): call list (what: sessions or panes) ` +
        `and use an id such as %3, @2 or $1`,
    );
  }
  return e;
}

/**
 * tmux 3.3 reports a name prefix or glob that fits several sessions or windows
 * as "can't find"; on that error path only, one listing tells the model which
 * names it could mean.
 */
async function ambiguity(
  tmux: TmuxExecutor,
  target: string,
  e: unknown,
  signal: AbortSignal | undefined,
): Promise<UserError | undefined> {
  if (!(e instanceof TmuxError) || !/can't find/.test(e.message)) return undefined;
  const m = /^([^:.$@%=][^:.]*)(?::([^.$@%=][^.]*))?$/.exec(target);
  if (!m) return undefined;
  try {
    const [session, window] = [m[1], m[2]];
    const names = window === undefined
      ? (await listSessions(tmux, signal)).map((x) => x.session_name)
      : (await listWindows(tmux, { session }, signal)).map((w) => w.window_name);
    // tmux's own order (exact, prefix, glob), for windows as for sessions.
    const hit = pickSession(names.map((n) => ({ session_name: n })), window ?? session, false);
    if (!hit || !("ambiguous" in hit)) return undefined;
    const fits = hit.ambiguous;
    return new UserError(
      `ambiguous target ${JSON.stringify(target)}: it fits the ${window === undefined ? "sessions" : "windows"} ` +
        `${fits.slice(0, 5).map((n) => JSON.stringify(n)).join(", ")}${fits.length > 5 ? ", …" : ""}; ` +
        `call list (what: sessions or panes) and use an id such as %3, @2 or $1`,
    );
  } catch {
    return undefined;
  }
}

/**
 * Runs one tmux call and parses its output; a failed lookup of `target` says
 * which target, or that it is ambiguous.
 */
function query<T>(
  tmux: TmuxExecutor,
  args: readonly TmuxArg[],
  parse: (out: Uint8Array) => T,
  target: string | undefined,
  signal: AbortSignal | undefined,
): Promise<T> {
  return queryWith(() => tmux.run(args, { signal }), parse, tmux, target, signal);
}

/**
 * {@linkcode query} for a call of several commands, parsed from each one's
 * output on its own (cut at fences, lib/tmux/fence.ts: no command's output
 * can pass for another's).
 */
function queryEach<T>(
  tmux: TmuxExecutor,
  args: readonly TmuxArg[],
  parse: (outs: Uint8Array[]) => T,
  target: string | undefined,
  signal: AbortSignal | undefined,
  onAnswer?: () => void,
): Promise<T> {
  return queryWith(() => tmux.runEach(args, { signal }), parse, tmux, target, signal, onAnswer);
}

async function queryWith<O, T>(
  run: () => Promise<O>,
  parse: (out: O) => T,
  tmux: TmuxExecutor,
  target: string | undefined,
  signal: AbortSignal | undefined,
  onAnswer?: () => void,
): Promise<T> {
  let out: O;
  try {
    out = await run();
  } catch (e) {
    if (target === undefined) throw e;
    // Under scope a failed lookup says no more than that the target is unknown: tmux's words could tell
    // that something exists out of scope (an ambiguous prefix, a session found but not its window, a mark).
    if (tmux.scope) throw e instanceof TmuxError && e.kind === "failed" ? unknownTarget(target) : e;
    throw await ambiguity(tmux, target, e, signal) ?? targetError(target, e);
  }
  onAnswer?.();
  return parse(out);
}

/** The sessions in scope, or undefined when the server has no scope. */
function inScope(tmux: TmuxExecutor, signal?: AbortSignal): Promise<SessionsInView> | undefined {
  return tmux.scope?.sessions(tmux, signal);
}

/**
 * A model's target with its session name (a name, `=name`, a prefix or a
 * glob, which tmux would match against every session) resolved among the
 * sessions in scope to an id, so tmux never matches an out-of-scope name;
 * other targets pass as they are, and the caller checks what tmux resolves
 * them to.
 */
function scopedTarget(target: string, sessions: SessionsInView, shown = target): string {
  const part = sessionNamePart(target);
  if (!part) return target;
  // tmux takes a session of exactly that name first: not one in view whose name starts with it (`dev` for `dev2`).
  if (sessions.hidden.has(part.name)) throw unknownTarget(shown);
  const hit = pickSession([...sessions.values()], part.name, part.exact);
  if (hit === undefined) throw unknownTarget(shown);
  if ("ambiguous" in hit) {
    throw new UserError(
      `ambiguous target ${JSON.stringify(shown)}: it fits the sessions ` +
        `${hit.ambiguous.slice(0, 5).map((n) => JSON.stringify(n)).join(", ")}${
          hit.ambiguous.length > 5 ? ", …" : ""
        }; ` +
        `call list (what: sessions or panes) and use an id such as %3, @2 or $1`,
    );
  }
  return hit.session_id + part.rest;
}

/**
 * A window or pane id (`@2`, `%3`) whose window is linked into a session out of view, which tmux resolved it in
 * (its choice among the sessions the window is in): the same object in a session in view that also has the
 * window (`$1:@2`, `$1:@2.%3`), to ask tmux again; undefined when no session in view has it, or for other targets.
 */
async function inViewPlace(
  tmux: TmuxExecutor,
  target: string,
  window: string | undefined,
  sessions: ReadonlyMap<string, ScopedSession>,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  if (!/^[@%]\d+$/.test(target)) return undefined;
  const windowId = window ?? (target.startsWith("@") ? target : undefined) ??
    (await tmux.text(["display-message", "-p", "-t", target, "#{window_id}"], { signal })).trim();
  const session = (await windowSessions(tmux, windowId, signal)).find((id) => sessions.has(id));
  if (session === undefined) return undefined;
  return target.startsWith("@") ? `${session}:${target}` : `${session}:${windowId}.${target}`;
}

/** Rows of a listing in scope: all of them (a whole-server listing), or those of a target that must be in scope. */
function rowsInScope<R extends { session_id: string }>(
  rows: R[],
  sessions: ReadonlyMap<string, ScopedSession>,
  target: string | undefined,
): R[] {
  if (target === undefined) return rows.filter((r) => sessions.has(r.session_id));
  if (rows.some((r) => !sessions.has(r.session_id))) throw unknownTarget(target);
  return rows;
}

/** A spec with `session_id` (to check scope by), and whether it was added. */
function withSessionId<S extends RowSpec>(
  spec: S,
): { spec: S & { session_id: typeof PANE_SPEC.session_id }; added: boolean } {
  const added = !("session_id" in spec);
  return { spec: { ...spec, session_id: PANE_SPEC.session_id }, added };
}

/** Drops `session_id` from rows that carry it for the scope check only. */
function dropSessionId<R>(rows: (R & { session_id: string })[], added: boolean): R[] {
  if (!added) return rows;
  return rows.map(({ session_id: _, ...r }) => r as R);
}

/** One row of `spec` that is the whole of `out`. */
function onlyRow<S extends RowSpec>(spec: S, out: Uint8Array, what: string): Row<S> {
  const { rows, end } = parseRows(spec, out, 1);
  if (!rows[0] || end !== out.length) throw new RowParseError(`unexpected ${what}`);
  return rows[0];
}

/** The outputs as one (a copy only when there are several). */
function joined(outs: readonly Uint8Array[]): Uint8Array {
  if (outs.length === 0) return new Uint8Array();
  if (outs.length === 1) return outs[0];
  const all = new Uint8Array(outs.reduce((n, o) => n + o.length, 0));
  let at = 0;
  for (const o of outs) {
    all.set(o, at);
    at += o.length;
  }
  return all;
}

function scopeArgs(scope: PaneScope | WindowScope): string[] {
  if ("all" in scope) return ["-a"];
  if ("session" in scope) return ["-t", scope.session];
  return ["-t", scope.window];
}

function scopeTarget(scope: PaneScope | WindowScope): string | undefined {
  return "all" in scope ? undefined : "session" in scope ? scope.session : scope.window;
}

// `#{S:.}` prints one dot per session: its length is the session count.
const SERVER_FORMAT = "#{n:#{S:.}} " + rowFormat(SERVER_SPEC);

/** tmux version, pid, start time, socket path and session count of the server, in one call. */
export async function serverInfo(tmux: TmuxExecutor, signal?: AbortSignal): Promise<ServerInfo> {
  const sessions = inScope(tmux, signal);
  const info = await query(
    tmux,
    ["display-message", "-p", "--", SERVER_FORMAT],
    (out) => {
      const space = out.indexOf(0x20);
      const session_count = Number(decoder.decode(out.subarray(0, space)));
      const row = parseRows(SERVER_SPEC, out.subarray(space + 1), 1).rows[0];
      if (space <= 0 || !Number.isInteger(session_count) || !row) throw new RowParseError("unexpected server info");
      return { ...row, session_count };
    },
    undefined,
    signal,
  );
  return sessions ? { ...info, session_count: (await sessions).size } : info;
}

/** Every session on the server, in tmux's order (by name). */
export async function listSessions(tmux: TmuxExecutor, signal?: AbortSignal): Promise<SessionInfo[]> {
  const sessions = inScope(tmux, signal);
  const all = await query(
    tmux,
    ["list-sessions", "-F", SESSION_FORMAT],
    (o) => parseRows(SESSION_QUERY_SPEC, o).rows.map(sessionRow),
    undefined,
    signal,
  );
  return sessions ? rowsInScope(all, await sessions, undefined) : all;
}

/** Windows of one session or of the whole server. */
export async function listWindows(
  tmux: TmuxExecutor,
  scope: WindowScope,
  signal?: AbortSignal,
): Promise<WindowInfo[]> {
  const sessions = tmux.scope ? await inScope(tmux, signal) : undefined;
  const target = scopeTarget(scope);
  const asked = sessions && target !== undefined ? { session: scopedTarget(target, sessions) } : scope;
  const ask = (asked: WindowScope) =>
    query(
      tmux,
      ["list-windows", ...scopeArgs(asked), "-F", WINDOW_FORMAT],
      (o) => parseRows(WINDOW_SPEC, o).rows,
      target,
      signal,
    );
  let rows = await ask(asked);
  if (!sessions) return rows;
  if (target !== undefined && rows[0] && !sessions.has(rows[0].session_id)) {
    // A window linked into a session in view as well: the windows of that session.
    const place = await inViewPlace(tmux, target, undefined, sessions, signal);
    if (place !== undefined) rows = await ask({ session: place });
  }
  return rowsInScope(rows, sessions, target);
}

/** Panes of one window, one session (`-s`) or the whole server (`-a`). */
export function listPanes(tmux: TmuxExecutor, scope: PaneScope, signal?: AbortSignal): Promise<PaneInfo[]> {
  return listPaneFacts(tmux, scope, ALL_FACTS, signal);
}

/**
 * The panes in scope with the facts of `facts` only (tmux expands every field asked for, on every pane:
 * a listing of hundreds costs as many fields as it asks).
 */
export async function listPaneFacts<S extends PaneSpecPart>(
  tmux: TmuxExecutor,
  scope: PaneScope,
  facts: PaneFactsQuery<S>,
  signal?: AbortSignal,
): Promise<Row<S>[]> {
  const target = scopeTarget(scope);
  if (tmux.scope) {
    const sessions = await inScope(tmux, signal)!;
    const asked: PaneScope = target === undefined
      ? scope
      : "session" in scope
      ? { session: scopedTarget(target, sessions) }
      : { window: scopedTarget(target, sessions) };
    const { spec, added } = withSessionId(facts.spec);
    const check = withIndexCheck(spec, "window" in scope ? target : undefined);
    const ask = (asked: PaneScope) =>
      query(
        tmux,
        ["list-panes", ...paneListArgs(asked), "-F", rowFormat(check.spec)],
        (o) => parseRows(check.spec, o).rows,
        target,
        signal,
      );
    let rows = await ask(asked);
    if (target !== undefined && rows[0] && !sessions.has(rows[0].session_id)) {
      // A window linked into a session in view as well is the one listed there (its session, with all: true).
      const byWindow = "window" in asked;
      const window = byWindow ? (rows[0] as unknown as { window_id?: string }).window_id : undefined;
      const place = await inViewPlace(tmux, target, window, sessions, signal);
      if (place !== undefined) rows = await ask(byWindow ? { window: place } : { session: place });
    }
    const inView = await checkIndex(tmux, rowsInScope(rows, sessions, target), check, target ?? "", signal);
    return dropSessionId<Row<S>>(inView, added);
  }
  // A plain word is a session here too (sessionTarget), not a window or index of tmux's current session.
  const asked: PaneScope = target === undefined
    ? scope
    : "session" in scope
    ? { session: normalizeTarget(sessionTarget(target)) }
    : { window: normalizeTarget(sessionTarget(target)) };
  const check = withIndexCheck(facts.spec, "window" in scope ? target : undefined);
  const rows = await query(
    tmux,
    ["list-panes", ...paneListArgs(asked), "-F", check.named ? rowFormat(check.spec) : facts.format],
    (o) => parseRows(check.spec, o).rows,
    target,
    signal,
  );
  return await checkIndex(tmux, rows, check, target ?? "", signal);
}

/**
 * Each pane once, at its first row: tmux lists a window linked into several sessions (or twice into one), and the
 * windows of grouped sessions, once per link.
 */
export function onePerPane<P extends { pane_id: string }>(panes: readonly P[]): P[] {
  const seen = new Set<string>();
  return panes.filter((p) => !seen.has(p.pane_id) && seen.add(p.pane_id));
}

function paneListArgs(scope: PaneScope): string[] {
  return "session" in scope ? ["-s", "-t", scope.session] : scopeArgs(scope);
}

/** A session with all its windows and panes, read in one tmux call. */
export interface SessionTree {
  session: SessionInfo;
  windows: WindowInfo[];
  panes: PaneInfo[];
}

/**
 * One session's facts, windows and panes in a single tmux call (so they are
 * consistent with each other). `session` is a session target: `$3`, or
 * `=name` for an exact name match.
 */
export async function describeSession(
  tmux: TmuxExecutor,
  target: string,
  signal?: AbortSignal,
): Promise<SessionTree> {
  const sessions = tmux.scope ? await inScope(tmux, signal) : undefined;
  const session = sessions ? scopedTarget(target, sessions) : target;
  // display-message falls back to the current pane on a bad target; the
  // strict list-windows after it makes a bad target fail the call.
  const args: TmuxArg[] = [
    ...["display-message", "-p", "-t", `${session}:`, "--", SESSION_FORMAT],
    COMMAND_SEPARATOR,
    ...["list-windows", "-t", session, "-F", WINDOW_FORMAT],
    COMMAND_SEPARATOR,
    ...["list-panes", "-s", "-t", session, "-F", PANE_FORMAT],
  ];
  return queryEach(
    tmux,
    args,
    ([s, w, p]) => {
      const session = sessionRow(onlyRow(SESSION_QUERY_SPEC, s, "session row"));
      if (sessions && !sessions.has(session.session_id)) throw unknownTarget(target);
      return { session, windows: parseRows(WINDOW_SPEC, w).rows, panes: parseRows(PANE_SPEC, p).rows };
    },
    target,
    signal,
  );
}

/** `session:INDEX` or `session:INDEX.pane` with a session part (`:1`, tmux's current session's, aside). */
const INDEXED = /^([^:]+):(\d+)(\.[^]*)?$/;

/**
 * The window index a target names (`main:5`, `main:5.1` → 5, with the digits as written), undefined for any other
 * target. tmux reads digits as an index first, then as a window's exact name (a window named "5"), then as the
 * start of a name: `main:5` would be the window "5-prod".
 */
export function targetIndex(target: string): { session: string; index: number; digits: string } | undefined {
  const m = INDEXED.exec(target);
  return m ? { session: m[1], index: Number(m[2]), digits: m[2] } : undefined;
}

/**
 * The refusal of a target whose window index no window of its session has, nor any window as its exact name, with
 * the indexes there are.
 */
export function noWindowIndex(target: string, digits: string, indexes: readonly number[], then: string): UserError {
  return new UserError(
    `unknown target ${JSON.stringify(target)}: its session has no window ${Number(digits)} (indexes: ` +
      `${indexes.join(", ")}) and no window named ${JSON.stringify(digits)}; ${then}`,
  );
}

const ANY_WINDOW = "call list (what: windows) and use an id such as @2";

/** What a row of a target with a window index is checked by: the window tmux took, its index and its name. */
const WINDOW_CHECK = { window_index: PANE_SPEC.window_index, window_name: PANE_SPEC.window_name } as const;

/**
 * The fields to ask tmux for so a target's window index can be checked against what tmux resolved it to (no
 * second call): `spec` with `window_index` and `window_name` when the target names one, the index it names, and
 * the fields added for the check alone.
 */
function withIndexCheck<S extends RowSpec>(spec: S, target: string | undefined) {
  const named = target === undefined ? undefined : targetIndex(target);
  const added = named ? Object.keys(WINDOW_CHECK).filter((k) => !(k in spec)) : [];
  return { spec: { ...spec, ...(named ? WINDOW_CHECK : {}) } as S, named, added };
}

/**
 * Refuses rows tmux found for a window index by a window that neither has that index nor is named exactly those
 * digits (tmux's next two readings: a window whose name starts with them, or a glob), with the indexes the session
 * has (one listing, on this error path only); drops the fields added for the check.
 */
async function checkIndex<R>(
  tmux: TmuxExecutor,
  rows: R[],
  check: { named?: { session: string; index: number; digits: string }; added: readonly string[] },
  shown: string,
  signal: AbortSignal | undefined,
): Promise<R[]> {
  const { named, added } = check;
  if (!named) return rows;
  const window = (r: R) => r as unknown as Row<typeof WINDOW_CHECK>;
  if (rows.some((r) => window(r).window_index !== named.index && window(r).window_name !== named.digits)) {
    const windows = await listWindows(tmux, { session: named.session }, signal);
    throw noWindowIndex(shown, named.digits, windows.map((w) => w.window_index), ANY_WINDOW);
  }
  if (added.length === 0) return rows;
  return rows.map((r) => Object.fromEntries(Object.entries(r as object).filter(([k]) => !added.includes(k))) as R);
}

/** A pane's facts, whether it was the default pane, and the output of the chained command. */
export interface PaneFacts<P = PaneInfo> {
  pane: P;
  /** True when no target was given and the active pane of the most recently used session was chosen. */
  defaulted: boolean;
  /** stdout of `then` (empty without it). */
  output: Uint8Array;
  /** stdout of each command of `then`, on its own (none without it). */
  outputs: Uint8Array[];
}

export interface GetPaneOptions {
  signal?: AbortSignal;
  /**
   * A command to run on the same pane in the same tmux call, given the
   * target to use (`-t`; already validated); its stdout comes back as `output`.
   */
  then?: (paneTarget: string) => TmuxArg[];
  /**
   * Called once tmux has answered the call that runs `then` (so everything in it has run), before its output
   * is parsed: a caller whose `then` reads a pane held still can let it go a parse earlier.
   */
  onAnswer?: () => void;
  /** The target as the model wrote it, for errors, where the one resolved is a rewrite of it (names made ids). */
  shown?: string;
}

/** {@linkcode GetPaneOptions} with the facts to fetch (default: all of PANE_SPEC). */
export type GetPaneFactsOptions<S extends PaneSpecPart> = GetPaneOptions & { facts?: PaneFactsQuery<S> };

/**
 * Resolves `target` (undefined = the default pane) and returns the pane's
 * facts. With an explicit target the facts and `then` share one tmux call;
 * the default pane needs one listing first, then `then` runs on its id.
 */
export async function getPane<S extends PaneSpecPart = typeof PANE_SPEC>(
  tmux: TmuxExecutor,
  target: string | undefined,
  opts: GetPaneFactsOptions<S> = {},
): Promise<PaneFacts<Row<S>>> {
  const { signal, then, onAnswer } = opts;
  // Without `facts` S is its default, PANE_SPEC (TypeScript cannot tie a default type argument to a default value).
  const facts = opts.facts ?? (ALL_FACTS as unknown as PaneFactsQuery<S>);
  // What tmux is asked for (a plain word is a session, whatever the target's kind); errors name the target as given.
  const asked = target !== undefined ? sessionTarget(target) : target;
  if (tmux.scope) return await getScopedPane(tmux, target, facts, opts, asked);
  if (target === undefined) {
    const pane = await query(
      tmux,
      [
        "list-panes",
        "-a",
        "-f",
        "#{&&:#{window_active},#{pane_active}}",
        "-F",
        facts.withActivityFormat,
      ],
      (o) => mostRecent(parseRows(facts.withActivity, o).rows),
      undefined,
      signal,
    );
    if (!pane) {
      throw new UserError('there is no tmux session on this server: create one with new (what: "session"), then retry');
    }
    const outputs = then ? await queryThen(tmux, pane.pane_id, then(pane.pane_id), signal) : [];
    onAnswer?.();
    return { pane, defaulted: true, output: joined(outputs), outputs };
  }
  const sent = normalizeTarget(asked!);
  const check = withIndexCheck(facts.spec, target);
  const format = check.named ? rowFormat(check.spec) : facts.format;
  const { args, checkRow } = paneQuery(sent, format, then?.(sent));
  const shown = opts.shown ?? target;
  const found = await queryEach(
    tmux,
    args,
    (outs) => {
      const at = checkRow ? 1 : 0;
      const pane = onlyRow(check.spec, outs[at], "pane row");
      const outputs = outs.slice(at + 1);
      return { pane, defaulted: false, output: joined(outputs), outputs };
    },
    shown,
    signal,
    onAnswer,
  );
  const [pane] = await checkIndex(tmux, [found.pane], check, shown, signal);
  return { ...found, pane };
}

/** Where a pane is, and the target that names exactly it in that session. */
const PLACE_SPEC = {
  session_id: PANE_SPEC.session_id,
  window_id: PANE_SPEC.window_id,
  pane_id: PANE_SPEC.pane_id,
} as const satisfies RowSpec;

/**
 * {@linkcode getPane} under a session scope: the target is resolved first
 * (its session name among the sessions in scope; the default pane is the
 * active pane of the most recently used session in scope), what tmux
 * resolved it to is checked, and only then does `then` run, on the pane
 * named by its ids (`$1:@2.%3`), which tmux cannot resolve to anything else.
 */
async function getScopedPane<S extends PaneSpecPart>(
  tmux: TmuxExecutor,
  given: string | undefined,
  facts: PaneFactsQuery<S>,
  opts: GetPaneOptions,
  asked = given,
): Promise<PaneFacts<Row<S>>> {
  const { signal, then } = opts;
  const sessions = await inScope(tmux, signal)!;
  const spec = { ...facts.spec, ...PLACE_SPEC };
  let pane: Row<typeof spec> | undefined;
  if (given === undefined) {
    const withActivity = { ...spec, ...ACTIVITY_SPEC };
    pane = await query(
      tmux,
      ["list-panes", "-a", "-f", "#{&&:#{window_active},#{pane_active}}", "-F", rowFormat(withActivity)],
      (o) => mostRecent(parseRows(withActivity, o).rows.filter((r) => sessions.has(r.session_id))),
      undefined,
      signal,
    );
    if (!pane) {
      throw new UserError(
        "there is no tmux session in this server's scope (--sessions/--scope): create one with new " +
          '(what: "session"), then retry',
      );
    }
  } else {
    const target = normalizeTarget(scopedTarget(asked ?? given, sessions, given));
    const check = withIndexCheck(spec, given);
    const ask = (target: string) =>
      queryEach(
        tmux,
        paneQuery(target, rowFormat(check.spec)).args,
        (outs) => onlyRow(check.spec, outs[1], "pane row"),
        opts.shown ?? given,
        signal,
      );
    pane = await ask(target);
    if (!sessions.has(pane.session_id)) {
      // A window linked into a session in view as well is the one listed there.
      const place = await inViewPlace(tmux, target, pane.window_id, sessions, signal);
      if (place !== undefined) pane = await ask(place);
      if (!sessions.has(pane.session_id)) throw unknownTarget(opts.shown ?? given);
    }
    [pane] = await checkIndex(tmux, [pane], check, opts.shown ?? given, signal);
  }
  const place = `${pane.session_id}:${pane.window_id}.${pane.pane_id}`;
  const outputs = then ? await queryThen(tmux, place, then(place), signal) : [];
  opts.onAnswer?.();
  const row = Object.fromEntries(Object.keys(facts.spec).map((k) => [k, pane[k as keyof typeof pane]]));
  return { pane: row as Row<S>, defaulted: given === undefined, output: joined(outputs), outputs };
}

/**
 * Commands whose `-t` fails on a target that does not exist (tmux resolves
 * it without CMD_FIND_CANFAIL), so they check a target by themselves;
 * display-message and the show-* commands fall back to the current pane.
 */
const STRICT_TARGET: ReadonlySet<string> = new Set(["capture-pane"]);

/**
 * The commands {@linkcode getPane} sends for an explicit target: the pane's
 * facts (`format`), then `next` on the same target. display-message never
 * fails on a bad target: it silently falls back to the current pane
 * ("main:5" without window 5 gives the active pane). A command after it that
 * resolves the same target strictly makes a bad target fail the whole call
 * (as in describeSession); when `next` is not one, capture-pane of one screen
 * row goes first (`checkRow`): the cheapest read-only strict command. The
 * outputs are read one by one ({@linkcode TmuxExecutor.runEach}).
 *
 * @example
 * ```ts
 * const format = "#{pane_id} ";
 * paneQuery("%3", format, ["capture-pane", "-p", "-t", "%3"]).args;
 * // display-message -p -t %3 -- format ; capture-pane -p -t %3
 * ```
 */
export function paneQuery(target: string, format: string, next?: TmuxArg[]): { args: TmuxArg[]; checkRow: boolean } {
  const checkRow = next === undefined || !STRICT_TARGET.has(next[0] as string);
  const args: TmuxArg[] = checkRow ? ["capture-pane", "-p", "-t", target, "-S", "0", "-E", "0", COMMAND_SEPARATOR] : [];
  args.push("display-message", "-p", "-t", target, "--", format);
  if (next) args.push(COMMAND_SEPARATOR, ...next);
  return { args, checkRow };
}

async function queryThen(
  tmux: TmuxExecutor,
  paneId: string,
  args: TmuxArg[],
  signal: AbortSignal | undefined,
): Promise<Uint8Array[]> {
  try {
    return await tmux.runEach(args, { signal });
  } catch (e) {
    throw targetError(paneId, e);
  }
}

function mostRecent<P>(rows: (P & { session_activity: number })[]): P | undefined {
  let best: (P & { session_activity: number }) | undefined;
  for (const r of rows) if (!best || r.session_activity > best.session_activity) best = r;
  if (!best) return undefined;
  const { session_activity: _, ...pane } = best;
  return pane as P;
}
