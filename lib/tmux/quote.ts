/**
 * Quoting for the places where tmux hands a string to something that
 * interprets it: its own format expansion (`#{…}`, `#(…)` runs a shell
 * command) and, for `pipe-pane`, strftime and then `sh -c`.
 *
 * @example
 * ```ts
 * escapeFormat("a#{b}");                     // "a##{b}"
 * shQuote("a'b");                             // "'a'\\''b'"
 * appendCommand("/tmp/50% #1");              // "exec cat >> '/tmp/50%% ##1'"
 * ```
 */

/** Escapes `#` so tmux's format expansion leaves the text as it is. */
export function escapeFormat(text: string): string {
  return text.replaceAll("#", "##");
}

/** Quotes one word for a POSIX shell: single quotes, with `'` written as `'\''`. */
export function shQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Words a person can paste into any common shell (sh, bash, zsh, fish): quoted unless plainly safe. */
export function shellLine(words: readonly string[]): string {
  // A leading "=" or "~" means something to zsh or sh; both are quoted.
  return words.map((w) => /^[A-Za-z0-9_./:@%+,-]+$/.test(w) ? w : shQuote(w)).join(" ");
}

/**
 * The `pipe-pane` command that appends pane output to `path`: tmux expands
 * strftime (`%`) and formats (`#`) in it before `sh -c` runs it, so the path
 * is shell-quoted and then `%` and `#` are doubled.
 */
export function appendCommand(path: string): string {
  return escapeFormat(`exec cat >> ${shQuote(path)}`.replaceAll("%", "%%"));
}
