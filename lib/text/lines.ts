/**
 * Text as lines the way tmux prints them: one per `\n`, the final newline
 * ending the last line rather than starting an empty one.
 *
 * @example
 * ```ts
 * splitLines("a\nb\n"); // ["a", "b"]
 * splitLines("a\n\n");  // ["a", ""]
 * splitLines("");       // []
 * ```
 */

/** The lines of `text`, without the empty one after a final newline. */
export function splitLines(text: string): string[] {
  const out = text.split("\n");
  if (out.at(-1) === "") out.pop();
  return out;
}
