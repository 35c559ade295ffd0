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

/** How far past a snippet's edge the token it cuts is followed (lib/text/redact_page.ts's margin). */
const CUT_MAX = 4096;

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

/**
 * The text outside the snippet `[lo, hi)` on each side where its edge cuts a token (empty where the edge falls at
 * a space or the content's end): the rest of the token and a little beyond it, up to {@linkcode CUT_MAX} bytes,
 * so the redactor can judge a secret the edge cuts whole (the snippet alone shows only a piece of it).
 *
 * @example
 * ```ts
 * import { bytesView } from "./subject.ts";
 * const content = bytesView(new TextEncoder().encode("key=ABCDEFGH1234 done"));
 * cutTokens(content, 8, 12); // ["key=ABCD", "1234 done"]
 * ```
 */
export function cutTokens(content: Utf8View, lo: number, hi: number): [before: string, after: string] {
  const inside = content.textOf(lo, hi);
  if (inside === "") return ["", ""];
  const before = lo > 0 && /^\S/.test(inside) ? runOutside(content, lo, -1) : "";
  const after = hi < content.size && /\S$/.test(inside) ? runOutside(content, hi, 1) : "";
  return [before, after];
}

/** Text before the token a snippet's edge cuts that rules read with it ("Bearer ", "password: "). */
const LEAD = 128;

/**
 * The non-space run right before (`dir` −1) or after (1) byte `at`, with up to {@linkcode LEAD} characters
 * beyond it, at most {@linkcode CUT_MAX} bytes in all.
 */
function runOutside(content: Utf8View, at: number, dir: -1 | 1): string {
  for (let width = 256;; width *= 8) {
    const far = Math.min(width, CUT_MAX);
    const text = dir < 0
      ? content.textOf(content.charStartAtOrAfter(Math.max(0, at - far)), at)
      : content.textOf(at, content.charStartAtOrBefore(Math.min(content.size, at + far)));
    const run = (dir < 0 ? /\S*$/.exec(text)! : /^\S*/.exec(text)!)[0].length;
    const whole = dir < 0 ? at - far <= 0 : at + far >= content.size;
    if (run + LEAD <= text.length || whole || far === CUT_MAX) {
      const keep = Math.min(text.length, run + LEAD);
      return dir < 0 ? text.slice(text.length - keep) : text.slice(0, keep);
    }
  }
}
