/**
 * Snippets around matches, in bytes, never cutting a UTF-8 character.
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode("héllo wörld");
 * snippetRange(bytes, 7, 8, 5); // [3, 13]: "llo wörld" (byte 2 is inside "é", so the snippet starts after it)
 * ```
 */
import { clipToCharBoundary } from "../buffers/utf8.ts";
import { isContinuation } from "./text.ts";

/** The part of a long match a snippet shows; the rest is left to show-buffer. */
export const SNIPPET_MATCH_MAX = 4096;

/**
 * `[context_start, context_end)` for the match `[start, end)` of valid UTF-8
 * `bytes`: up to `context` bytes on each side, shrunk to whole characters.
 * A match longer than {@linkcode SNIPPET_MATCH_MAX} shows only its first
 * part and no context after it.
 */
export function snippetRange(bytes: Uint8Array, start: number, end: number, context: number): [number, number] {
  let lo = Math.max(0, start - context);
  while (lo < start && isContinuation(bytes[lo])) lo++;
  const hi = end - start > SNIPPET_MATCH_MAX ? start + SNIPPET_MATCH_MAX : Math.min(bytes.length, end + context);
  return [lo, clipToCharBoundary(bytes, lo, hi)];
}
