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

// The code points tmux draws two columns wide: tmux 3.3a asks the C library's wcwidth(), and these are the
// ranges glibc 2.36 gives width 2 (East Asian Wide and Fullwidth, and the emoji drawn as emoji: ✅ ⚡ 🚀),
// as first/last pairs in order. A row's columns must be counted as tmux counts them, or a cursor's column
// (capture-since, a run's start) cuts the row at the wrong character.
// deno-fmt-ignore
const WIDE = new Uint32Array([
  0x1100, 0x115f, 0x231a, 0x231b, 0x2329, 0x232a, 0x23e9, 0x23ec, 0x23f0, 0x23f0, 0x23f3, 0x23f3, 0x25fd, 0x25fe,
  0x2614, 0x2615, 0x2648, 0x2653, 0x267f, 0x267f, 0x2693, 0x2693, 0x26a1, 0x26a1, 0x26aa, 0x26ab, 0x26bd, 0x26be,
  0x26c4, 0x26c5, 0x26ce, 0x26ce, 0x26d4, 0x26d4, 0x26ea, 0x26ea, 0x26f2, 0x26f3, 0x26f5, 0x26f5, 0x26fa, 0x26fa,
  0x26fd, 0x26fd, 0x2705, 0x2705, 0x270a, 0x270b, 0x2728, 0x2728, 0x274c, 0x274c, 0x274e, 0x274e, 0x2753, 0x2755,
  0x2757, 0x2757, 0x2795, 0x2797, 0x27b0, 0x27b0, 0x27bf, 0x27bf, 0x2b1b, 0x2b1c, 0x2b50, 0x2b50, 0x2b55, 0x2b55,
  0x2e80, 0x2e99, 0x2e9b, 0x2ef3, 0x2f00, 0x2fd5, 0x2ff0, 0x2ffb, 0x3000, 0x3029, 0x302e, 0x303e, 0x3041, 0x3096,
  0x309b, 0x30ff, 0x3105, 0x312f, 0x3131, 0x318e, 0x3190, 0x31e3, 0x31f0, 0x321e, 0x3220, 0xa48c, 0xa490, 0xa4c6,
  0xa960, 0xa97c, 0xac00, 0xd7a3, 0xf900, 0xfa6d, 0xfa70, 0xfad9, 0xfe10, 0xfe19, 0xfe30, 0xfe52, 0xfe54, 0xfe66,
  0xfe68, 0xfe6b, 0xff01, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x16fe3, 0x16ff0, 0x16ff1, 0x17000, 0x187f7,
  0x18800, 0x18cd5, 0x18d00, 0x18d08, 0x1aff0, 0x1aff3, 0x1aff5, 0x1affb, 0x1affd, 0x1affe, 0x1b000, 0x1b122,
  0x1b150, 0x1b152, 0x1b164, 0x1b167, 0x1b170, 0x1b2fb, 0x1f004, 0x1f004, 0x1f0cf, 0x1f0cf, 0x1f18e, 0x1f18e,
  0x1f191, 0x1f19a, 0x1f200, 0x1f202, 0x1f210, 0x1f23b, 0x1f240, 0x1f248, 0x1f250, 0x1f251, 0x1f260, 0x1f265,
  0x1f300, 0x1f320, 0x1f32d, 0x1f335, 0x1f337, 0x1f37c, 0x1f37e, 0x1f393, 0x1f3a0, 0x1f3ca, 0x1f3cf, 0x1f3d3,
  0x1f3e0, 0x1f3f0, 0x1f3f4, 0x1f3f4, 0x1f3f8, 0x1f43e, 0x1f440, 0x1f440, 0x1f442, 0x1f4fc, 0x1f4ff, 0x1f53d,
  0x1f54b, 0x1f54e, 0x1f550, 0x1f567, 0x1f57a, 0x1f57a, 0x1f595, 0x1f596, 0x1f5a4, 0x1f5a4, 0x1f5fb, 0x1f64f,
  0x1f680, 0x1f6c5, 0x1f6cc, 0x1f6cc, 0x1f6d0, 0x1f6d2, 0x1f6d5, 0x1f6d7, 0x1f6dd, 0x1f6df, 0x1f6eb, 0x1f6ec,
  0x1f6f4, 0x1f6fc, 0x1f7e0, 0x1f7eb, 0x1f7f0, 0x1f7f0, 0x1f90c, 0x1f93a, 0x1f93c, 0x1f945, 0x1f947, 0x1f9ff,
  0x1fa70, 0x1fa74, 0x1fa78, 0x1fa7c, 0x1fa80, 0x1fa86, 0x1fa90, 0x1faac, 0x1fab0, 0x1faba, 0x1fac0, 0x1fac5,
  0x1fad0, 0x1fad9, 0x1fae0, 0x1fae7, 0x1faf0, 0x1faf6, 0x20000, 0x2a6df, 0x2a700, 0x2b738, 0x2b740, 0x2b81d,
  0x2b820, 0x2cea1, 0x2ceb0, 0x2ebe0, 0x2f800, 0x2fa1d, 0x30000, 0x3134a,
]);

/** Display width of one code point: 0 for combining marks, 2 for wide characters, else 1. */
export function charWidth(cp: number): number {
  if (cp === 0x200d || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (cp < 0x1100) return 1;
  // The last range that starts at or before cp.
  let lo = 0;
  let hi = WIDE.length / 2 - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (WIDE[2 * mid] <= cp) lo = mid;
    else hi = mid - 1;
  }
  return WIDE[2 * lo] <= cp && cp <= WIDE[2 * lo + 1] ? 2 : 1;
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
