/**
 * Making a string reach its destination byte-exact when tmux rewrites it
 * before use. tmux (3.3a) treats some arguments as templates:
 *
 * | argument                                                  | `#` formats | `%` strftime | run by a shell           |
 * | --------------------------------------------------------- | ----------- | ------------ | ------------------------ |
 * | `new-session -s`, `new-window -n`, `rename-*` names       | yes         | no           | no                       |
 * | `-c` start directory                                      | yes         | no           | no                       |
 * | `load-buffer`/`save-buffer` paths                         | yes         | no           | no                       |
 * | `pipe-pane` command                                       | yes         | **yes**      | `/bin/sh -c`             |
 * | new-session/new-window/split-window/respawn-pane command  | no          | no           | default-shell `-c`       |
 *
 * (measured against tmux 3.3a; `tests/quote_test.ts` keeps it honest).
 * So a literal name or directory needs {@linkcode formatLiteral}; a file
 * path inside a `pipe-pane` command needs {@linkcode shQuote} for the shell
 * and then {@linkcode strftimeFormatLiteral} for tmux — or simply
 * {@linkcode pipeToFileCommand}.
 *
 * @example
 * ```ts
 * formatLiteral("a#{pane_id}");            // "a##{pane_id}"  → tmux makes it "a#{pane_id}"
 * shQuote("it's");                         // "'it'\\''s'"
 * pipeToFileCommand("/tmp/100%#(x).log");  // "exec cat >> '/tmp/100%%##(x).log'"
 * ```
 */

/**
 * Escapes `#` so tmux's format expansion yields the string unchanged
 * (`#{…}`, `#(…)`, `#[…]` and `##` all become literal). Use for arguments
 * tmux expands with formats but not strftime: session and window names,
 * start directories, load/save-buffer paths.
 */
export function formatLiteral(s: string): string {
  return s.replaceAll("#", "##");
}

/**
 * Escapes `#` and `%` for arguments tmux expands with formats AND strftime
 * (`pipe-pane`'s command: `100%done` would otherwise become `10022one`).
 */
export function strftimeFormatLiteral(s: string): string {
  return s.replaceAll("#", "##").replaceAll("%", "%%");
}

/**
 * Quotes one word for a shell — THE shell quoter of the server (pipe-pane's
 * `/bin/sh -c`, lines shown to humans, the command line an ssh server hands
 * to the remote login shell). Runs of other characters go in single quotes;
 * `'` and `\` are written OUTSIDE the quotes as `\'` and `\\`, which sh,
 * bash, zsh (with or without RC_QUOTES) and fish all read the same way (fish,
 * unlike sh, gives `\\` and `\'` a meaning inside single quotes). Every byte
 * other than NUL survives unchanged, including newlines, `$`, backquotes,
 * globs and `~`. Throws on NUL, which no shell word can carry.
 *
 * @example
 * ```ts
 * shQuote("it's");  // "'it'\\''s'"
 * shQuote("a\\b");  // "'a'\\\\'b'"
 * shQuote("");      // "''"
 * ```
 */
export function shQuote(word: string): string {
  if (word.includes("\0")) throw new Error("a shell word cannot contain NUL");
  if (word === "") return "''";
  return word.replace(/[^'\\]+|['\\]/g, (m) => m === "'" ? "\\'" : m === "\\" ? "\\\\" : `'${m}'`);
}

/**
 * A program path as a word of a remote host's shell line, quoted by `quote` but for a leading `~/`, left for that
 * shell to expand to its own home (`--tmux-bin ~/bin/tmux`; sh, bash, zsh and fish alike).
 *
 * @example
 * ```ts
 * homeWord("~/bin/tmux"); // "~/'bin/tmux'"
 * homeWord("/usr/bin/tmux"); // "'/usr/bin/tmux'"
 * ```
 */
export function homeWord(path: string, quote: (word: string) => string = shQuote): string {
  return path.startsWith("~/") && path.length > 2 ? "~/" + quote(path.slice(2)) : quote(path);
}

/**
 * A command line for tmux to run with `/bin/sh -c` after format and
 * strftime expansion (`pipe-pane`): each argv element shell-quoted, then escaped for
 * tmux. `argv[0]` is quoted too, so it is looked up as a plain program name.
 *
 * @example
 * ```ts
 * import type { TmuxExecutor } from "./executor.ts";
 * declare const tmux: TmuxExecutor;
 * const path = "/tmp/pane-3.log";
 * await tmux.run(["pipe-pane", "-t", "%3", "--", expandedShellCommand(["tee", "-a", path])]);
 * ```
 */
export function expandedShellCommand(argv: readonly string[]): string {
  return strftimeFormatLiteral(argv.map(shQuote).join(" "));
}

/**
 * The `pipe-pane` command that appends a pane's output to `path`, byte-exact
 * whatever the path contains. (Truncate the file beforehand for a fresh log, or pass
 * `append: false` where this machine cannot reach the file: tmux on another host.)
 * With `id` (the file the server checked and created there), the shell opens the
 * path once and goes on only if what it opened is that file (`stat` of its
 * descriptor, GNU or BSD; where neither runs, unchecked): a directory on the path
 * swapped for a symlink meanwhile gets no output.
 *
 * @example
 * ```ts
 * pipeToFileCommand("/tmp/a.log"); // "exec cat >> '/tmp/a.log'"
 * pipeToFileCommand("/tmp/a.log", true, { dev: 2049, ino: 77 }); // "exec 3>> '/tmp/a.log' || exit 1; …"
 * ```
 */
export function pipeToFileCommand(path: string, append = true, id?: { dev: number; ino: number }): string {
  // exec: the shell becomes cat, so stopping the pipe leaves no shell behind.
  if (id === undefined) return strftimeFormatLiteral(`exec cat ${append ? ">>" : ">"} ${shQuote(path)}`);
  const fd = "/dev/fd/3";
  const found = `$(stat -L -c %d:%i ${fd} 2>/dev/null || stat -L -f %d:%i ${fd} 2>/dev/null)`;
  return strftimeFormatLiteral(
    `exec 3${append ? ">>" : ">"} ${shQuote(path)} || exit 1; __id=${found}; ` +
      `[ -z "$__id" ] || [ "$__id" = ${id.dev}:${id.ino} ] || exit 1; exec cat >&3 3>&-`,
  );
}

/**
 * Words a person can paste into any common shell (sh, bash, zsh, fish),
 * quoted unless plainly safe — for commands shown to the human, such as
 * `tmux -L x attach -t s`.
 */
export function shellLine(words: readonly string[]): string {
  // A leading "=" or "~" means something to zsh or sh; both are quoted.
  return words.map((w) => /^[A-Za-z0-9_./:@%+,-]+$/.test(w) ? w : shQuote(w)).join(" ");
}

/**
 * One argument as a word of a tmux command line (what a control-mode client
 * sends): single-quoted, so `;`, `#`, `$`, `~`, braces, spaces and a
 * trailing `;` are literal, with `'` written as `'"'"'`. A line break cannot
 * stand in a line, and single quotes have no escapes: an argument holding one
 * is double-quoted instead, with `\n`/`\r` for the breaks and `\` before
 * each `\`, `"`, `$` and `~` (tmux 3.3a's parser expands variables and a
 * leading tilde in double quotes, and reads `\` + any other character as that
 * character). Returns undefined for NUL, which no command line can carry: the
 * caller must not send it half-escaped (lib/tmux/engine.ts spawns instead).
 *
 * @example
 * ```ts
 * tmuxCommandWord("it's;"); // "'it'\"'\"'s;'"
 * tmuxCommandWord("a\nb");  // '"a\\nb"'
 * tmuxCommandWord("a\0b");  // undefined
 * ```
 */
export function tmuxCommandWord(arg: string): string | undefined {
  if (arg.includes("\0")) return undefined;
  if (!/[\n\r]/.test(arg)) return "'" + arg.replaceAll("'", `'"'"'`) + "'";
  return '"' + arg.replace(/[\\"$~\n\r]/g, (c) => c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\" + c) + '"';
}
