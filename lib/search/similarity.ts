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
 * match scores 0. Cost: one pass over the match plus two texts of at most
 * 4 × WIDEN_MAX bytes.
 *
 * @example
 * ```ts
 * import { bytesView } from "./subject.ts";
 * similarity(1, 0); // 1
 * wordCoverage(bytesView(new TextEncoder().encode("errors")), 0, 5); // 5/6
 * ```
 */
import type { Utf8View } from "./subject.ts";

/** Most characters a match is widened by on each side. */
export const WIDEN_MAX = 64;
/** Bytes that hold WIDEN_MAX characters. */
const WINDOW = 4 * WIDEN_MAX;

const WORD = /^[\p{L}\p{M}\p{N}_]$/u;

/** Word characters of `chars` walked from index `from` by `step`, before a non-word one (at most WIDEN_MAX). */
function wordRun(chars: string[], from: number, step: 1 | -1): number {
  let n = 0;
  for (let i = from; i >= 0 && i < chars.length && n < WIDEN_MAX && WORD.test(chars[i]); i += step) n++;
  return n;
}

/** |m| / |w| for the match `[start, end)` of `content` (see the module doc); 0 for an empty match. */
export function wordCoverage(content: Utf8View, start: number, end: number): number {
  if (end <= start) return 0;
  const chars = content.countChars(start, end);
  // The text before the match, up to and including its first character.
  const lo = content.charStartAtOrAfter(Math.max(0, start - WINDOW));
  const left = Array.from(content.textOf(lo, content.charStartAtOrAfter(start + 1)));
  // The text from the match's last character on.
  const hi = content.charStartAtOrBefore(Math.min(content.size, end + WINDOW));
  const right = Array.from(content.textOf(content.charStartAtOrBefore(end - 1), hi));
  let extra = 0;
  if (WORD.test(left[left.length - 1])) extra += wordRun(left, left.length - 2, -1);
  if (WORD.test(right[0])) extra += wordRun(right, 1, 1);
  return chars / (chars + extra);
}

/** The score from a coverage and a case distance (see the module doc). */
export function similarity(coverage: number, caseDistance: number): number {
  return coverage * (1 - caseDistance / 2);
}
