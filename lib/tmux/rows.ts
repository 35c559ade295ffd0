/**
 * Typed rows out of tmux `-F` formats, robust against any byte in any value.
 *
 * A text field is printed as `#{n:var} #{var}`: its length in bytes, a space,
 * then the value. Names, titles and paths may hold tabs, newlines or `|` (a
 * directory can be called anything); a length prefix cannot be fooled by
 * them, where a separator could. A field that tmux prints as digits or as an
 * id (`$3`, `@2`, `%5`), or as a word (a pane's current command), cannot hold
 * a space: it is printed as `#{var} `, the value then a space, because each
 * `#{n:}` costs tmux a second expansion (a pane's 10 facts: about 55 µs of
 * tmux's time per call; the current command is read from /proc each time,
 * about 16 µs a pane). Rows end with a newline.
 *
 * @example
 * ```ts
 * const SPEC = { id: ["session_id", "str"], windows: ["session_windows", "int"] } as const;
 * const rows = parseRows(SPEC, await tmux.run(["list-sessions", "-F", rowFormat(SPEC)])).rows;
 * rows[0].windows; // 1
 * ```
 */

/**
 * How a field's text becomes a value: string, integer, 0/1 flag, a tmux id (`$3`, `@2`, `%5`: a string), a
 * word (a string tmux never prints with a space: `pane_current_command`, which tmux cuts at the program name's
 * first space; it may hold tabs and newlines); `?` kinds are null when empty.
 */
export type FieldKind = "str" | "int" | "bool" | "int?" | "str?" | "id" | "word";

/** Kinds whose text never holds a space: printed without a length (see the module doc). */
const UNSPACED: ReadonlySet<FieldKind> = new Set(["int", "bool", "int?", "id", "word"]);

/** Result key → [tmux format variable, kind]. */
export type RowSpec = Readonly<Record<string, readonly [string, FieldKind]>>;

type ValueOf<K extends FieldKind> = K extends "int" ? number
  : K extends "bool" ? boolean
  : K extends "int?" ? number | null
  : string;

/** The typed row a {@linkcode RowSpec} describes. */
export type Row<S extends RowSpec> = { -readonly [K in keyof S]: ValueOf<S[K][1]> };

/** A row that did not parse: tmux output changed between the length and the value, or a bug. */
export class RowParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RowParseError";
  }
}

/** The `-F` format for a spec (one row, without the trailing newline tmux adds). */
export function rowFormat(spec: RowSpec): string {
  return Object.values(spec).map(([v, kind]) => UNSPACED.has(kind) ? `#{${v}} ` : `#{n:${v}} #{${v}}`).join("");
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
  if (kind === "str" || kind === "word") return text;
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
      if (UNSPACED.has(kind)) {
        const end = out.indexOf(0x20, i);
        if (end < 0) throw new RowParseError(`unexpected tmux output at byte ${i} (field ${key})`);
        row[key] = convert(kind, text(out, i, end), key);
        i = end + 1;
        continue;
      }
      let len = 0;
      const start = i;
      while (i < out.length && out[i] >= 0x30 && out[i] <= 0x39) len = len * 10 + (out[i++] - 0x30);
      if (i === start || out[i] !== 0x20 || i + 1 + len > out.length) {
        throw new RowParseError(`unexpected tmux output at byte ${i} (field ${key})`);
      }
      i++;
      row[key] = convert(kind, text(out, i, i + len), key);
      i += len;
    }
    if (out[i] !== 0x0a) throw new RowParseError(`unexpected tmux output at byte ${i} (end of row)`);
    i++;
    rows.push(row as Row<S>);
  }
  return { rows, end: i };
}
