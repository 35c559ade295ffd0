/**
 * A cheap token estimate for response budgets: one pass over the UTF-16
 * code units, no tokenizer, no allocation.
 *
 * Method. BPE tokenizers of current models first split text into
 * pre-tokens (letter runs, digit groups of at most 3, punctuation runs,
 * whitespace), then merge bytes inside each. The estimate mirrors the split
 * and charges each piece what it typically costs:
 *
 * - an ASCII letter run: 1 token per started 5 letters, restarted at every
 *   lower→upper change (camelCase, random identifiers split there);
 * - a digit run: 1 token per started 3 digits;
 * - a punctuation run: 1 token per started 2 characters;
 * - whitespace: a run holding a newline, or longer than one character, is 1
 *   token per started 16 characters; a single space is free (it joins the
 *   next word) unless a digit follows;
 * - U+0080–U+07FF (accented Latin, Greek, Cyrillic, Hebrew, Arabic): 0.45 each;
 * - other BMP characters (CJK, kana, Hangul, box drawing, symbols): 1.2 each;
 * - characters outside the BMP (emoji): 3 each.
 *
 * Error bound, checked against real tokenizers (cl100k_base and o200k_base
 * from npm `gpt-tokenizer`) in `tests/budget_estimate_test.ts`: on English
 * prose, source code, JSON and CJK text the estimate lies between 0.8× and
 * 1.8× of the real count. It leans towards overcounting (a budget is a guard
 * rail: a result slightly under the limit may get a preview it did not need).
 * Known outliers: random base64 is undercounted (about 0.7×), Cyrillic is
 * overcounted for o200k (about 2×).
 *
 * @example
 * ```ts
 * estimateTokens("hello world"); // 2
 * ```
 */

const SPACE = 32, TAB = 9, LF = 10, CR = 13;

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isSpace(c: number): boolean {
  return c === SPACE || c === LF || c === TAB || c === CR;
}

/** Estimated token count of `text` (see the module doc for the method and its error bound). */
export function estimateTokens(text: string): number {
  const n = text.length;
  let tokens = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isLetter(c)) {
      let seg = 1;
      let prevLower = c >= 97;
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d >= 97 && d <= 122) {
          prevLower = true;
        } else if (d >= 65 && d <= 90) {
          if (prevLower) {
            tokens += Math.ceil(seg / 5);
            seg = 0;
          }
          prevLower = false;
        } else {
          break;
        }
        seg++;
      }
      tokens += Math.ceil(seg / 5);
      i = j;
    } else if (isDigit(c)) {
      let j = i + 1;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      tokens += Math.ceil((j - i) / 3);
      i = j;
    } else if (isSpace(c)) {
      let newline = c === LF;
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (!isSpace(d)) break;
        if (d === LF) newline = true;
      }
      if (newline || j - i > 1 || (j < n && isDigit(text.charCodeAt(j)))) tokens += Math.ceil((j - i) / 16);
      i = j;
    } else if (c < 0x80) {
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d >= 0x80 || isLetter(d) || isDigit(d) || isSpace(d)) break;
      }
      tokens += Math.ceil((j - i) / 2);
      i = j;
    } else if (c < 0x800) {
      tokens += 0.45;
      i++;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      tokens += 3;
      i += 2;
    } else {
      tokens += 1.2;
      i++;
    }
  }
  return Math.ceil(tokens);
}

/**
 * The most UTF-16 code units one estimated token can stand for (a run of
 * whitespace), so text of `n` tokens is at most `n * MAX_UNITS_PER_TOKEN` long.
 */
export const MAX_UNITS_PER_TOKEN = 16;
