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
 * match scores 0. Cost: one pass over the match's bytes plus two decodes of
 * at most 4 × WIDEN_MAX bytes.
 *
 * @example
 * ```ts
 * similarity(1, 0); // 1
 * wordCoverage(new TextEncoder().encode("errors"), 0, 5); // 5/6
 * ```
 */
import { clipToCharBoundary, utf8SequenceLength } from "../buffers/utf8.ts";
import { decodeUtf8, isContinuation } from "./text.ts";

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

/** |m| / |w| for the match `bytes[start, end)` of valid UTF-8 (see the module doc); 0 for an empty match. */
export function wordCoverage(bytes: Uint8Array, start: number, end: number): number {
  if (end <= start) return 0;
  let chars = 0;
  for (let i = start; i < end; i++) if (!isContinuation(bytes[i])) chars++;
  // The text before the match, up to and including its first character.
  let lo = Math.max(0, start - WINDOW);
  while (lo < start && isContinuation(bytes[lo])) lo++;
  const left = Array.from(decodeUtf8(bytes.subarray(lo, start + utf8SequenceLength(bytes[start]))));
  // The text from the match's last character on.
  let last = end - 1;
  while (last > start && isContinuation(bytes[last])) last--;
  const right = Array.from(decodeUtf8(bytes.subarray(last, clipToCharBoundary(bytes, end, end + WINDOW))));
  let extra = 0;
  if (WORD.test(left[left.length - 1])) extra += wordRun(left, left.length - 2, -1);
  if (WORD.test(right[0])) extra += wordRun(right, 1, 1);
  return chars / (chars + extra);
}

/** The score from a coverage and a case distance (see the module doc). */
export function similarity(coverage: number, caseDistance: number): number {
  return coverage * (1 - caseDistance / 2);
}
