/**
 * Resolving a model's `target` (tmux target syntax: `name`, `$3`, `@7`, `%12`,
 * `session:window.pane`) to stable ids, with one tmux call.
 *
 * A missing target means the active pane of the most recently used session;
 * the result says so (`defaulted: true`) so the agent learns which pane it
 * got. Unknown or ambiguous targets become errors that name the listing tool
 * to call. tmux's `=name` (exact session name) works everywhere; destructive
 * tools add {@linkcode exactTarget}, which refuses prefixes and globs.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof resolveTarget>[0]; // the engine
 * const t = await resolveTarget(tmux, "main:0.1");
 * t.pane_id; // "%3"
 * ```
 */
import { z } from "zod";
import type { TmuxExecutor } from "./executor.ts";
import { getPane, listSessions, listWindows, noWindowIndex, type ShellPane } from "./panes.ts";

export { normalizeTarget } from "./panes.ts";
import { UserError } from "../errors.ts";
import { fnmatch } from "../text/fnmatch.ts";

export { targetError } from "./panes.ts";

export interface ResolvedTarget {
  session_id: string;
  window_id: string;
  pane_id: string;
  /** True when no target was given and the default pane was chosen. */
  defaulted: boolean;
  /**
   * The pane's facts and the output of the commands a tool asked to run in the same tmux call as the
   * resolution (its declared `targetRead`); absent otherwise.
   */
  read?: { pane: ShellPane; output: Uint8Array };
}

/** Picks the resolved ids out of a pane's facts. */
export function resolvedOf(pane: { session_id: string; window_id: string; pane_id: string }, defaulted: boolean) {
  return { session_id: pane.session_id, window_id: pane.window_id, pane_id: pane.pane_id, defaulted };
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * The `target` parameter shared by every tool that addresses a tmux object. Long enough for session:window.pane
 * of the longest names the tools give (128 characters each).
 */
export const targetSchema = z.string()
  .min(1, "target must not be empty")
  .max(512, "target is longer than 512 characters: use an id such as %3, @2 or $1 (list shows them)")
  .refine((s) => !s.startsWith("-"), "target must not start with '-' (use an id such as %3, @2 or $1)")
  .refine((s) => !CONTROL.test(s), "target must not contain control characters")
  .describe("tmux target: %pane_id, @window_id, $session_id, session name or session:window.pane");

/**
 * Resolves `target` (or the default pane when undefined) to session, window
 * and pane ids. For a session or window target, the ids are those of its
 * active window and pane. Use {@linkcode getPane} when you also need the
 * pane's facts: it is the same single tmux call.
 */
export async function resolveTarget(
  tmux: TmuxExecutor,
  target: string | undefined,
  signal?: AbortSignal,
  shown?: string,
): Promise<ResolvedTarget> {
  const { pane, defaulted } = await getPane(tmux, target, { signal, shown });
  return { session_id: pane.session_id, window_id: pane.window_id, pane_id: pane.pane_id, defaulted };
}

/**
 * The kind of tmux object a target names (tmux's `cmd_entry` target flags):
 * what a tool declares it addresses, and what an exact target names in
 * messages.
 */
export type TargetKind = "session" | "window" | "pane";

const ID = /^[$@%]\d+$/;

/** tmux's window tokens (`{last}` is `!`, `{start}` `^`, `{end}` `$`, `{next}` `+`, an offset `+2`). */
const WINDOW_TOKEN = /^(\{(start|end|last|next|previous)\}|[!^$]|\+\d*)$/;

/**
 * A model's target as tmux reads it for a tool of `kind`. Targets are resolved as a pane's ({@linkcode getPane}),
 * where a bare token is a pane's (`{next}`: the next pane of the current window); for a window tool tmux reads it
 * as a window's (`select-window -t {next}` is the next window), so there it is given as one (`:{next}`). A session
 * tool's target has no such tokens (tmux looks for a session of that name): refused, where resolving it as a
 * pane's would act on the current session.
 *
 * @example
 * ```ts
 * asKind("window", "{next}"); // ":{next}"
 * asKind("pane", "{next}");   // "{next}"
 * asKind("window", "main");   // "main"
 * ```
 */
export function asKind(kind: TargetKind, target: string): string {
  if (kind === "pane" || !WINDOW_TOKEN.test(target)) return target;
  if (kind === "window") return `:${target}`;
  throw new UserError(
    `target ${JSON.stringify(target)} is a window token, and this tool's target is a session: pass a session ` +
      `name or an id such as $1`,
  );
}

/** The first character of tmux's relative tokens: `{last}`, `{marked}`, `!`, `~`, `^`, `+1`, `-1`. */
const TOKEN_START = /^[{}!~^+-]/;

const RANK: Record<TargetKind, number> = { session: 0, window: 1, pane: 2 };

/**
 * A destructive tool's target, refused when it names a larger object than the tool acts on: `main` or `$1` for a
 * pane or a window, `main:0` or `@2` for a pane, `main:` or `main:.1` (the session's current window) for either.
 * tmux would take that object's active pane or current window, one the model did not name. A smaller object
 * (`%3` for a window: the pane's window) names its window and session exactly.
 *
 * @example
 * ```ts
 * exactKind("pane", "main:0.1"); // "main:0.1"
 * // exactKind("pane", "main:0") throws: it names a window
 * exactKind("window", "%3");     // "%3"
 * ```
 */
export function exactKind(kind: TargetKind, target: string): string {
  const colon = target.indexOf(":");
  // A token ({marked}, !) or no colon but a dot: exactTarget refuses it with its own words.
  if (TOKEN_START.test(target) || (colon < 0 && target.includes(".") && !ID.test(target))) return target;
  const rest = colon < 0 ? "" : target.slice(colon + 1);
  const dot = rest.indexOf(".");
  const window = dot < 0 ? rest : rest.slice(0, dot);
  const named: TargetKind = /^%\d+$/.test(target)
    ? "pane"
    : /^@\d+$/.test(target)
    ? "window"
    : colon < 0 || window === ""
    ? "session"
    : dot < 0
    ? "window"
    : "pane";
  if (RANK[named] >= RANK[kind]) return target;
  const give = kind === "pane" ? "session:window.pane or a pane id such as %3" : "session:window or an id such as @2";
  const what = colon >= 0 && window === ""
    ? "leaves out the window (tmux would take the session's current window)"
    : `names a ${named}, not one ${kind} (tmux would take its ${kind === "pane" ? "active pane" : "current window"})`;
  throw new UserError(
    `target ${JSON.stringify(target)} ${what}, and this tool acts only on the ${kind} named: give ${give} ` +
      `(list, what: ${kind}s, shows them)`,
  );
}

const INDEX = /^\d+$/;

/** The refusal of a window name that several windows of the session have exactly. */
function severalNamed(name: string, windows: readonly { window_id: string }[]): UserError {
  return new UserError(
    `several windows are named ${JSON.stringify(name)} (${windows.map((w) => w.window_id).join(", ")}): ` +
      `pass the window id`,
  );
}

function quoteList(names: string[]): string {
  return names.slice(0, 8).map((n) => JSON.stringify(n)).join(", ") + (names.length > 8 ? ", …" : "");
}

/**
 * The refusal for a name that no object has exactly: what tmux would have matched and what to pass instead, or,
 * when nothing would, that the name is unknown (an exact `=name` of nothing is no inexact name).
 */
function notExact(kind: "session" | "window", name: string, candidates: string[]): UserError {
  const matched = candidates.filter((n) => n.startsWith(name) || fnmatch(name, n));
  if (matched.length === 0) {
    return new UserError(
      `no ${kind} is named ${JSON.stringify(name)}: call list (what: ${kind}s) and pass an id ($1, @2, %3) or ` +
        `an exact name`,
    );
  }
  return new UserError(
    `${kind} ${JSON.stringify(name)} is not an exact name (it would match the ${kind}${matched.length > 1 ? "s" : ""} ${
      quoteList(matched)
    }); this tool acts only on an exact target: ` +
      `pass an id ($1, @2, %3) or the exact =name (list with what: sessions or windows shows them)`,
  );
}

/**
 * Rewrites a model's target for a destructive tool into ids, accepting only
 * ids (`$1`, `@2`, `%3`), window and pane indexes, and names that match a
 * session or window exactly (`name` or tmux's `=name`); a unique prefix
 * (`prod` for `prod-db`), a glob (`p*`, `*`), tmux's relative tokens (`{last}`,
 * `+1`, `!`) or an empty session part are refused with the names they would
 * have matched. A bare name is a session name (tmux would try windows of the
 * current session first); name a window as `session:window`.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof exactTarget>[0]; // the engine
 * await exactTarget(tmux, "prod-db:logs.1"); // "$3:@7.1"
 * await exactTarget(tmux, "prod");           // throws: it would match the session "prod-db"
 * ```
 */
export async function exactTarget(tmux: TmuxExecutor, target: string, signal?: AbortSignal): Promise<string> {
  if (ID.test(target)) return target;
  const colon = target.indexOf(":");
  if (colon < 0 && target.includes(".")) {
    throw new UserError(
      `target ${JSON.stringify(target)} is not exact: give session:window.pane, or an id such as %3, @2 or $1`,
    );
  }
  const sessionPart = colon < 0 ? target : target.slice(0, colon);
  const rest = colon < 0 ? undefined : target.slice(colon + 1);
  const dot = rest === undefined ? -1 : rest.indexOf(".");
  const windowPart = rest === undefined ? undefined : dot < 0 ? rest : rest.slice(0, dot);
  const panePart = rest === undefined || dot < 0 ? undefined : rest.slice(dot + 1);

  let session: string;
  if (/^\$\d+$/.test(sessionPart)) session = sessionPart;
  else if (TOKEN_START.test(sessionPart)) {
    throw new UserError(
      `target ${JSON.stringify(target)} is a relative tmux token, not an exact target: pass an id such as %3, @2 ` +
        `or $1 (list shows them), or a session's exact =name`,
    );
  } else if (sessionPart === "" || sessionPart === "=") {
    throw new UserError(
      `target ${JSON.stringify(target)} names no session: this tool acts only on an exact target, so give ` +
        `session:window or an id such as @2`,
    );
  } else {
    const name = sessionPart.startsWith("=") ? sessionPart.slice(1) : sessionPart;
    const sessions = await listSessions(tmux, signal);
    const hit = sessions.find((s) => s.session_name === name);
    if (!hit) throw notExact("session", name, sessions.map((s) => s.session_name));
    session = hit.session_id;
  }
  if (windowPart === undefined) return session;

  let window = "";
  if (windowPart === "" || /^@\d+$/.test(windowPart)) window = windowPart;
  else if (INDEX.test(windowPart)) {
    // tmux reads an index no window has as an exact name, then as a name's prefix: `main:5` would be window
    // "5-prod". The first two are exact.
    const windows = await listWindows(tmux, { session }, signal);
    const hits = windows.filter((w) => w.window_index === Number(windowPart));
    if (hits.length === 0) hits.push(...windows.filter((w) => w.window_name === windowPart));
    if (hits.length === 0) {
      throw noWindowIndex(
        target,
        windowPart,
        windows.map((w) => w.window_index),
        "this tool acts only on an exact target: pass an id such as @2 (list, what: windows)",
      );
    }
    if (hits.length > 1) throw severalNamed(windowPart, hits);
    window = hits[0].window_id;
  } else if (/^[{}!^$~+-]/.test(windowPart)) {
    throw new UserError(
      `window ${JSON.stringify(windowPart)} is a relative tmux token, not an exact target: pass an id (@2) ` +
        `or session:index`,
    );
  } else {
    const name = windowPart.startsWith("=") ? windowPart.slice(1) : windowPart;
    const windows = await listWindows(tmux, { session }, signal);
    const hits = windows.filter((w) => w.window_name === name);
    if (hits.length === 0) throw notExact("window", name, windows.map((w) => w.window_name));
    if (hits.length > 1) throw severalNamed(name, hits);
    window = hits[0].window_id;
  }
  if (panePart === undefined) return `${session}:${window}`;
  if (!INDEX.test(panePart) && !/^%\d+$/.test(panePart)) {
    throw new UserError(
      `pane ${JSON.stringify(panePart)} is not exact: give a pane index (session:window.1) or an id such as %3`,
    );
  }
  return `${session}:${window}.${panePart}`;
}
