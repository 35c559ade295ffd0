/**
 * How closely a match resembles the query, in [0, 1]:
 *
 *   similarity = (|m| / |w|) × (1 − d / 2)
 *
 * `m` is the matched text and `w` is `m` widened to the whole word(s) it
 * cuts into (word characters: letters, marks, digits, `_`; at most
 * {@linkcode WIDEN_MAX} characters on each side); lengths count code points.
 * `d` is the matcher's case distance: 0 for an exact-case hit, for a literal
 * the fraction of characters whose case differs from the query, for a regex 1
 * when it only matches with ignore_case. An exact whole-word same-case hit is
 * 1; a hit inside a longer word or in another case scores lower; an empty
 * match scores 0. Cost: the match length plus at most 2 × WIDEN_MAX.
 *
 * @example
 * ```ts
 * similarity(1, 0);    // 1
 * wordCoverage("errors", { start: 0, end: 5 }); // 5/6
 * ```
 */
import type { Span } from "./matcher.ts";
import { nextCodePoint } from "./matcher.ts";

/** Most characters a match is widened by on each side. */
export const WIDEN_MAX = 64;

const WORD = /^[\p{L}\p{M}\p{N}_]$/u;

function isWordAt(text: string, i: number): boolean {
  const cp = text.codePointAt(i);
  return cp !== undefined && WORD.test(String.fromCodePoint(cp));
}

/** Start index of the code point that ends at `i` (exclusive). */
function prevCodePoint(text: string, i: number): number {
  const c = text.charCodeAt(i - 1);
  if (c >= 0xdc00 && c <= 0xdfff && i >= 2) {
    const h = text.charCodeAt(i - 2);
    if (h >= 0xd800 && h <= 0xdbff) return i - 2;
  }
  return i - 1;
}

function codePoints(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i = nextCodePoint(text, i)) n++;
  return n;
}

/** |m| / |w| for the match `span` of `text` (see the module doc); 0 for an empty match. */
export function wordCoverage(text: string, span: Span): number {
  const { start, end } = span;
  if (end <= start) return 0;
  let extra = 0;
  if (isWordAt(text, start)) {
    for (let i = start, k = 0; i > 0 && k < WIDEN_MAX; k++) {
      i = prevCodePoint(text, i);
      if (!isWordAt(text, i)) break;
      extra++;
    }
  }
  if (isWordAt(text, prevCodePoint(text, end))) {
    for (let i = end, k = 0; i < text.length && k < WIDEN_MAX; k++) {
      if (!isWordAt(text, i)) break;
      extra++;
      i = nextCodePoint(text, i);
    }
  }
  const chars = codePoints(text, start, end);
  return chars / (chars + extra);
}

/** The score from a coverage and a case distance (see the module doc). */
export function similarity(coverage: number, caseDistance: number): number {
  return coverage * (1 - caseDistance / 2);
}
