/**
 * Typed rows out of tmux `-F` formats, robust against any byte in any value.
 *
 * Every field is printed once, followed by a space; rows end with a newline.
 * A text field is printed as `#{q:var} `: tmux's `q:` puts a backslash before
 * every space, backslash and other shell-special character of the value, so
 * the field ends at its first unescaped space whatever it holds (names,
 * titles and paths may hold spaces, tabs, newlines or `|`: a directory can be
 * called anything). A field that tmux prints as digits or as an id (`$3`,
 * `@2`, `%5`) holds no space and is printed as `#{var} `. Why not a length
 * prefix (`#{n:var} #{var}`): tmux would expand each text field twice for
 * it, and a pane's current command and path are read from /proc on each
 * expansion.
 *
 * @example
 * ```ts
 * const SPEC = { name: ["session_name", "str"], windows: ["session_windows", "int"] } as const;
 * rowFormat(SPEC); // "#{q:session_name} #{session_windows} "
 * import type { TmuxExecutor } from "./executor.ts";
 * declare const tmux: TmuxExecutor;
 * const rows = parseRows(SPEC, await tmux.run(["list-sessions", "-F", rowFormat(SPEC)])).rows;
 * rows[0].windows; // 1
 * ```
 */

/**
 * How a field's text becomes a value: string, integer, 0/1 flag, a tmux id (`$3`, `@2`, `%5`: a string);
 * `?` kinds are null when empty.
 */
export type FieldKind = "str" | "int" | "bool" | "int?" | "str?" | "id";

/** Kinds that may hold any text: printed escaped by tmux's `q:` (see the module doc). */
const TEXT: ReadonlySet<FieldKind> = new Set(["str", "str?"]);

/** Result key → [tmux format variable, kind]. */
export type RowSpec = Readonly<Record<string, readonly [string, FieldKind]>>;

type ValueOf<K extends FieldKind> = K extends "int" ? number
  : K extends "bool" ? boolean
  : K extends "int?" ? number | null
  : K extends "str?" ? string | null
  : string;

/** The typed row a {@linkcode RowSpec} describes. */
export type Row<S extends RowSpec> = { -readonly [K in keyof S]: ValueOf<S[K][1]> };

/** A row that did not parse: tmux printed something other than the row format (a bug, or a tmux that differs). */
export class RowParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RowParseError";
  }
}

/** The `-F` format for a spec (one row, without the trailing newline tmux adds). */
export function rowFormat(spec: RowSpec): string {
  return Object.values(spec).map(([v, kind]) => TEXT.has(kind) ? `#{q:${v}} ` : `#{${v}} `).join("");
}

const decoder = new TextDecoder();

/** Most values are short ASCII (ids, numbers, flags); TextDecoder costs more than the bytes for those. */
function text(out: Uint8Array, start: number, end: number): string {
  if (end - start > 64) return decoder.decode(out.subarray(start, end));
  let s = "";
  for (let i = start; i < end; i++) {
    const b = out[i];
    if (b >= 0x80) return decoder.decode(out.subarray(start, end));
    s += String.fromCharCode(b);
  }
  return s;
}

function convert(kind: FieldKind, text: string, key: string): string | number | boolean | null {
  if (kind === "str") return text;
  if (kind === "id") {
    if (!/^[$@%]\d+$/.test(text)) throw new RowParseError(`field ${key}: expected a tmux id, got "${text}"`);
    return text;
  }
  if ((kind === "int?" || kind === "str?") && text === "") return null;
  if (kind === "str?") return text;
  if (kind === "bool") {
    if (text !== "0" && text !== "1") throw new RowParseError(`field ${key}: expected 0 or 1, got "${text}"`);
    return text === "1";
  }
  const n = Number(text);
  if (text === "" || !Number.isInteger(n)) throw new RowParseError(`field ${key}: expected an integer, got "${text}"`);
  return n;
}

/**
 * A field's bytes `out[start, end)` as tmux printed them with `q:`, the escaping
 * backslashes taken out (each escapes the byte after it).
 */
function unescaped(out: Uint8Array, start: number, end: number): string {
  const bytes = new Uint8Array(end - start);
  let n = 0;
  for (let i = start; i < end; i++) bytes[n++] = out[i] === BACKSLASH ? out[++i] : out[i];
  return text(bytes, 0, n);
}

const SPACE = 0x20;
const BACKSLASH = 0x5c;

/**
 * Parses rows printed with {@linkcode rowFormat}. Reads `limit` rows at most
 * (all by default) and returns where it stopped, so output of a later command
 * in the same tmux call (`display-message ; capture-pane`) can follow.
 */
export function parseRows<S extends RowSpec>(
  spec: S,
  out: Uint8Array,
  limit = Infinity,
): { rows: Row<S>[]; end: number } {
  const entries = Object.entries(spec);
  const rows: Row<S>[] = [];
  let i = 0;
  while (i < out.length && rows.length < limit) {
    const row: Record<string, unknown> = {};
    for (const [key, [, kind]] of entries) {
      // The field runs to its first unescaped space.
      let end = i;
      let escaped = false;
      while (end < out.length && out[end] !== SPACE) {
        if (out[end] === BACKSLASH) {
          escaped = true;
          end++;
        }
        end++;
      }
      if (end >= out.length) throw new RowParseError(`unexpected tmux output at byte ${i} (field ${key})`);
      if (escaped && !TEXT.has(kind)) throw new RowParseError(`field ${key}: unexpected "\\" in tmux output`);
      row[key] = convert(kind, escaped ? unescaped(out, i, end) : text(out, i, end), key);
      i = end + 1;
    }
    if (out[i] !== 0x0a) throw new RowParseError(`unexpected tmux output at byte ${i} (end of row)`);
    i++;
    rows.push(row as Row<S>);
  }
  return { rows, end: i };
}

/**
 * The one row a command printed with {@linkcode rowFormat} (`display-message -p`,
 * `new-window -P -F`); a {@linkcode RowParseError} when it printed none.
 */
export function parseRow<S extends RowSpec>(spec: S, out: Uint8Array): Row<S> {
  const row = parseRows(spec, out, 1).rows[0];
  if (row === undefined) throw new RowParseError("tmux printed no row");
  return row;
}
