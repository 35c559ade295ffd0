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
import { charWidth } from "./widths.ts";

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
