/**
 * Small text helpers for terminal rows: display columns (wide characters
 * take two), slicing a row at a column, row fingerprints.
 *
 * @example
 * ```ts
 * dropColumns("$ ls -l", 2); // "ls -l"
 * columns("日本"); // 4
 * ```
 */

// Ranges of East Asian Wide/Fullwidth characters and emoji that terminals
// (and tmux) draw two columns wide. Close enough for prompt prefixes.
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

/** Display width of one code point: 0 for combining marks, 2 for wide characters, else 1. */
export function charWidth(cp: number): number {
  if (cp === 0x200d || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (cp < 0x1100) return 1;
  for (const [lo, hi] of WIDE) if (cp >= lo && cp <= hi) return 2;
  return 1;
}

/** Display width of a string. */
export function columns(s: string): number {
  let n = 0;
  for (const ch of s) n += charWidth(ch.codePointAt(0)!);
  return n;
}

/** The index in `s` where column `cols` starts (s.length if the text is shorter). */
function indexAtColumn(s: string, cols: number): number {
  let col = 0;
  let i = 0;
  for (const ch of s) {
    if (col >= cols) break;
    col += charWidth(ch.codePointAt(0)!);
    i += ch.length;
  }
  return i;
}

/** The text of the first `cols` columns. */
export function takeColumns(s: string, cols: number): string {
  return s.slice(0, indexAtColumn(s, cols));
}

/** The text after the first `cols` columns. */
export function dropColumns(s: string, cols: number): string {
  return s.slice(indexAtColumn(s, cols));
}

/** A short fingerprint of a row's text (FNV-1a, trailing spaces ignored), for finding the row again. */
export function fingerprint(s: string): string {
  let h = 0x811c9dc5;
  const t = s.trimEnd();
  for (let i = 0; i < t.length; i++) {
    h ^= t.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

/**
 * Splits tmux capture output into rows: one per line, the final newline
 * dropped, trailing spaces removed (`-J` keeps them).
 */
export function splitRows(text: string): string[] {
  if (text === "") return [];
  const rows = text.split("\n");
  if (rows[rows.length - 1] === "") rows.pop();
  return rows.map((r) => r.trimEnd());
}

/** Drops trailing empty rows. */
export function trimTrailingBlank(rows: string[]): string[] {
  let end = rows.length;
  while (end > 0 && rows[end - 1] === "") end--;
  return end === rows.length ? rows : rows.slice(0, end);
}

/** Keeps the last `max` rows; says whether any were dropped. */
export function tail(rows: string[], max: number): { rows: string[]; dropped: number } {
  return rows.length <= max
    ? { rows, dropped: 0 }
    : { rows: rows.slice(rows.length - max), dropped: rows.length - max };
}
