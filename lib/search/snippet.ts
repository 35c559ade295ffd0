/**
 * Snippets around matches, in bytes, never cutting a UTF-8 character.
 *
 * @example
 * ```ts
 * import { bytesView } from "./subject.ts";
 * const content = bytesView(new TextEncoder().encode("héllo wörld"));
 * snippetRange(content, 7, 8, 5); // [3, 13]: "llo wörld" (byte 2 is inside "é", so the snippet starts after it)
 * ```
 */
import type { Utf8View } from "./subject.ts";

/** The part of a long match a snippet shows; the rest is left to show-buffer. */
export const SNIPPET_MATCH_MAX = 4096;

/**
 * `[context_start, context_end)` for the match `[start, end)` of `content`:
 * up to `context` bytes on each side, shrunk to whole characters.
 * A match longer than {@linkcode SNIPPET_MATCH_MAX} shows only its first
 * part and no context after it.
 */
export function snippetRange(content: Utf8View, start: number, end: number, context: number): [number, number] {
  const lo = content.charStartAtOrAfter(Math.max(0, start - context));
  const hi = end - start > SNIPPET_MATCH_MAX ? start + SNIPPET_MATCH_MAX : Math.min(content.size, end + context);
  return [lo, content.charStartAtOrBefore(hi)];
}
