/**
 * The pure half of session scope (`--sessions PATTERN`, `--scope tagged`):
 * which sessions of a tmux server this MCP server may see and act on, and
 * what it must refuse so that the rule holds. No tmux call: lib/tmux/scope.ts
 * asks tmux for the sessions and their tags and applies these rules.
 *
 * A session is in scope when its name matches a `--sessions` pattern (for
 * its host), when `--scope tagged` is given and the person tagged it with
 * the tmux user option `@mcp` (`tmux set-option @mcp on`), or when this
 * server created it. Everything else is absent: not listed, not reachable
 * by any target, refused with the same words as a target that does not exist.
 *
 * @example
 * ```ts
 * const rule: ScopeRule = { patterns: [parseSessionPattern("work-*")], tagged: false };
 * sessionInScope(rule, "local", { name: "work-api", tag: "" }); // true
 * sessionInScope(rule, "local", { name: "mail", tag: "on" });   // false: tags count only with --scope tagged
 * ```
 */
import { fnmatch, fnmatchRegExp } from "../text/fnmatch.ts";

/** The tmux user option a person sets on a session to put it in scope under `--scope tagged`. */
export const SCOPE_TAG = "@mcp";

/** One `--sessions` pattern: an fnmatch glob of session names, for one host or (no host) for every host. */
export interface SessionPattern {
  /** The host (`--ssh NAME=DEST`, `local`) the pattern is for; undefined: every host. */
  host?: string;
  glob: string;
}

/** The scope a server runs with; `undefined` in its place means no scope (every session). */
export interface ScopeRule {
  patterns: readonly SessionPattern[];
  /** `--scope tagged`: sessions the person tagged with `@mcp` are in scope too. */
  tagged: boolean;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Reads one `--sessions` value: `GLOB` or `HOST::GLOB`. Throws an Error whose
 * message is one line saying what is wrong.
 */
export function parseSessionPattern(raw: string): SessionPattern {
  const sep = raw.indexOf("::");
  const host = sep < 0 ? undefined : raw.slice(0, sep);
  const glob = sep < 0 ? raw : raw.slice(sep + 2);
  if (host !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(host)) {
    throw new Error(`"${raw}": the host before :: must be a host name as --ssh NAME=DEST gives it`);
  }
  if (glob.length === 0) throw new Error(`"${raw}": give a session name or a glob such as work-*`);
  if (glob.length > 256) throw new Error(`"${raw.slice(0, 40)}…": a pattern is at most 256 characters`);
  if (CONTROL.test(glob)) throw new Error(`"${raw}": a pattern must not contain control characters`);
  if (/[:.]/.test(glob)) {
    throw new Error(`"${raw}": tmux session names never contain ':' or '.', so this pattern would match nothing`);
  }
  if (fnmatchRegExp(glob) === undefined) throw new Error(`"${raw}": not a valid glob (use *, ? and [...])`);
  return host === undefined ? { glob } : { host, glob };
}

/** Whether a value of `@mcp` tags a session: on, yes, true or 1 (any case), as tmux reads a flag. */
export function isTag(value: string): boolean {
  return /^(on|yes|true|1)$/i.test(value.trim());
}

/**
 * Whether a session (its name and its `@mcp` value as tmux expands it) is in
 * scope on `host` by the rule alone; sessions this server created are in
 * scope besides (lib/tmux/scope.ts remembers them).
 */
export function sessionInScope(rule: ScopeRule, host: string, session: { name: string; tag: string }): boolean {
  if (rule.tagged && isTag(session.tag)) return true;
  return rule.patterns.some((p) => (p.host === undefined || p.host === host) && fnmatch(p.glob, session.name));
}

/**
 * The session part of a target that is a session *name* tmux would look up
 * (plain, `=exact`, a prefix or a glob), split from the rest; undefined when
 * the target names its session otherwise (`$3`, `%3`, `@2`, a relative token
 * such as `{last}` or `!`, an index, or no session part), which tmux resolves
 * and the caller checks afterwards.
 *
 * @example
 * ```ts
 * sessionNamePart("work:1.0"); // { name: "work", exact: false, rest: ":1.0" }
 * sessionNamePart("=work");    // { name: "work", exact: true, rest: "" }
 * sessionNamePart("%3");       // undefined
 * ```
 */
export function sessionNamePart(target: string): { name: string; exact: boolean; rest: string } | undefined {
  const colon = target.indexOf(":");
  const head = colon < 0 ? target : target.slice(0, colon);
  const rest = colon < 0 ? "" : target.slice(colon);
  // Without a colon a target may be a pane or window token or index: only a plain word is read as a session.
  if (colon < 0 && (/^\d+$/.test(head) || head.includes("."))) return undefined;
  if (head === "" || /^[$@%{}!~^+-]/.test(head)) return undefined;
  const exact = head.startsWith("=");
  return { name: exact ? head.slice(1) : head, exact, rest };
}

/**
 * The session tmux would pick for a name among `sessions` (tmux's
 * `cmd_find_get_session`: the exact name; unless `exact`, else the one name
 * it is a prefix of, else the one name it matches as a glob), or
 * "ambiguous" with the names that fit, or undefined.
 */
export function pickSession<S extends { session_name: string }>(
  sessions: readonly S[],
  name: string,
  exact: boolean,
): S | { ambiguous: string[] } | undefined {
  const same = sessions.find((s) => s.session_name === name);
  if (same || exact) return same;
  for (const fits of [(n: string) => n.startsWith(name), (n: string) => fnmatch(name, n)]) {
    const hits = sessions.filter((s) => fits(s.session_name));
    if (hits.length === 1) return hits[0];
    if (hits.length > 1) return { ambiguous: hits.map((s) => s.session_name) };
  }
  return undefined;
}

// Format variables that name or count sessions other than the target's (clients, groups, linked windows, the
// sessions in which a linked window is the active one).
const OTHER_SESSIONS = /client_|session_group|linked_sessions|active_sessions|server_sessions/;

/**
 * Why a format may not be expanded under scope (it reads other sessions than
 * the target's), or undefined. The loops over sessions and clients (`S:`,
 * `L:`) are refused by the format parser (`FormatPolicy.scoped`); this
 * refuses the variables, by name wherever they appear in the text.
 */
export function scopedFormatRefusal(format: string): string | undefined {
  const hit = OTHER_SESSIONS.exec(format);
  if (!hit) return undefined;
  return `the format reads other sessions (${hit[0]}…), which this server's --sessions/--scope keep out of view; ` +
    "use variables of the target's own session, window and pane";
}

/**
 * Whether setting tmux option `base` (its canonical name without an index)
 * could change what is in scope: the tag itself, which only the person sets.
 */
export function isScopeOption(base: string): boolean {
  return base === SCOPE_TAG;
}
