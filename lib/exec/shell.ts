/**
 * The run-command protocol, per shell: which panes we can type into, the
 * script a run sources, and the one short line typed at the prompt.
 *
 * The command never appears on the command line: it is written, quoted, into
 * a private script file (mode 0600 in a 0700 directory) that the typed line
 * sources — or, when the shell runs on another host (--ssh), into a tmux
 * buffer that the typed line reads with the shell's own tmux — so multi-line commands, heredocs and quotes need no escaping for
 * the line editor and a syntax error cannot leave the shell in a
 * continuation prompt (`eval` reports it and returns 2). The script runs in
 * the interactive shell itself (`.`/`source`, no subshell), so `cd`,
 * `export`, aliases and functions persist, and on the pane's TTY.
 *
 * Around the command the script prints two markers that the terminal ignores
 * (OSC 5379, which tmux drops) carrying a random per-run nonce that is never
 * shown on screen, so output can neither fake them nor confuse two runs:
 *
 *   `ESC ] 5379 ; NONCE ; s ; W BEL`           before the command
 *   `ESC ] 5379 ; NONCE ; e ; STATUS ; W BEL`  after it, with `$?`/`$status`
 *
 * where W is `w` when the shell then waits for the server (below) and `f`
 * when it does not.
 *
 * After each marker the shell blocks until the server has read the cursor
 * position (and, at the end, the output): the grid then cannot move under
 * us, so output boundaries are exact. Locally it blocks in its own `read` of
 * a line from the run's FIFO, which the server holds open and writes a line
 * to (a line written before the shell reads is kept; when the server ends,
 * the shell reads end-of-file): no process is started, where a tmux client
 * per handshake cost most of a run on a loaded machine. With --ssh it blocks
 * in `tmux wait-for CHANNEL` inside a command substitution, which job
 * control leaves in the shell's process group, and the server signals the
 * channel (`wait-for -S` before the shell waits also works: tmux remembers
 * one signal). Either way the pane's foreground process (what
 * `pane_current_command` reports) stays the shell throughout. The shell only waits while the run's "armed"
 * file exists: a run the server gave up on (timeout, cancellation), and
 * every run once the server has exited (its directory is removed), never
 * blocks a shell. A channel is signalled only for a shell that waits, or may
 * still wait, on it: at the server's exit (or a lost connection) one may be
 * left signalled, which tmux keeps until the server ends.
 * With --ssh the flag is a buffer and each check a tmux client started on
 * the remote host, so the start skips it (the script was read from its
 * buffer a moment before, and the server deletes the script with the flag; a
 * run given up on in between is released at its start marker, its watch
 * going on, or at the server's exit), and the end's wait checks it in its own
 * client: `delete-buffer` of the flag, then `wait-for` (tmux stops a client's
 * commands at the first that fails). The shell thus consumes the flag, so
 * when the server gives a run up and deletes the flag itself, whichever
 * deletion came first tells whether the shell waits at its end.
 *
 * The nonce is in the script's text, so no line that carries it may be
 * echoed or traced to the screen, where a program run by the command could
 * read it and print the end marker itself: the script first turns off the
 * POSIX shells' xtrace and verbose options (on another host the typed line
 * does, as xtrace would show the text it evals), and shadows fish's
 * `fish_trace` with an empty local, and gives the command the options as the
 * user had them, reading them again once it has run. For the same reason
 * the script is gone before the shell leaves its start handshake: the
 * server empties and deletes the file (zsh, dash and fish keep a file they
 * source open: the script is one list after its first line, so all of it has
 * been read by then), and a buffer's typed line deletes the buffer as it
 * reads it.
 *
 * The user's functions and aliases named like a builtin the script calls
 * (printf, read, eval, set, unset, test, return) would run instead of it:
 * hang the run, print its nonce, or answer for a command that never ran. So
 * in bash and zsh the script calls each through `\builtin` (quoted: no alias
 * named builtin applies; bash's printf through `\builtin command`, which also
 * finds it in PATH when the builtin is turned off), and fish's through `builtin` (fish refuses
 * functions named like its keywords: read, set, test, eval, return).
 *
 * History: the typed line starts with a space. fish never records such
 * lines; bash skips them with HISTCONTROL=ignorespace/ignoreboth, and
 * otherwise the script deletes its own entry (`history -d`); zsh skips them
 * only with `setopt HIST_IGNORE_SPACE` and offers no way to delete the entry
 * afterwards, so there the short `\builtin . /tmp/…/r-…` line can remain.
 *
 * @example
 * ```ts
 * const flavor = shellFlavor("bash"); // "posix"
 * const script = runScript(flavor!, { command: "make", nonce: "a1b2", runId: "1", tmuxBin: "/usr/bin/tmux",
 *   socketPath: "/tmp/tmux-1000/default", scriptPath: "/tmp/tmux-mcp-x/r-1", armedPath: "/tmp/tmux-mcp-x/a-1" });
 * typedLine(flavor!, "/tmp/tmux-mcp-x/r-1"); // " . '/tmp/tmux-mcp-x/r-1'"
 * typedLine(flavor!, { scriptPath: "/tmp/r-1", tmuxBin: "", socketPath: "", shell: "bash" }); // " \\builtin . '/tmp/r-1'"
 * ```
 */
import { homeWord, shQuote } from "../tmux/quote.ts";

/** How a shell is driven: POSIX-family syntax (bash, zsh, sh, dash, ksh) or fish. */
export type ShellFlavor = "posix" | "fish";

const FLAVORS: Record<string, ShellFlavor> = {
  bash: "posix",
  zsh: "posix",
  sh: "posix",
  dash: "posix",
  ksh: "posix",
  mksh: "posix",
  ash: "posix",
  fish: "fish",
};

/**
 * A program's name as a command names it: without a login shell's leading `-` and without its directory.
 *
 * @example
 * ```ts
 * commandName("-/usr/bin/dash"); // "dash"
 * ```
 */
export function commandName(command: string): string {
  return command.replace(/^-/, "").split("/").pop() ?? "";
}

/** The flavor for a pane's current command (tmux's `pane_current_command`), or undefined if it is no shell. */
export function shellFlavor(currentCommand: string): ShellFlavor | undefined {
  const name = commandName(currentCommand);
  return Object.hasOwn(FLAVORS, name) ? FLAVORS[name] : undefined;
}

/** Quotes a string as one word for fish: single quotes, with `\` and `'` escaped. */
export function quoteFish(s: string): string {
  return "'" + s.replace(/[\\']/g, "\\$&") + "'";
}

/** The OSC number of our markers; tmux ignores unknown OSC sequences. */
export const MARKER_OSC = 5379;

/** The marker prefix for a run: `ESC ] 5379 ; NONCE ;`. */
export function markerPrefix(nonce: string): string {
  return `\x1b]${MARKER_OSC};${nonce};`;
}

/**
 * The wait-for channel names of a run, after its own name (never its nonce: another host's `ps` shows the
 * shell's `tmux wait-for CHANNEL`, and the leftover sweep finds the name in an armed file's).
 */
export function channels(runId: string): { start: string; end: string } {
  return { start: `tmux-mcp-${runId}-s`, end: `tmux-mcp-${runId}-e` };
}

export interface ScriptParts {
  command: string;
  /** The markers' nonce: in the script's text only (see the module documentation). */
  nonce: string;
  /** The run's own name (a `RunFiles` id, as in its files' names), which names its wait-for channels ({@linkcode channels}). */
  runId: string;
  /** Absolute path of the tmux binary, run by the shell. */
  tmuxBin: string;
  /** The tmux server's socket (`#{socket_path}`), so the shell reaches this server whatever $TMUX says. */
  socketPath: string;
  /**
   * The shell's name (`commandName` of the pane's command): in bash and zsh the script calls each builtin it
   * uses through `\builtin`, which no alias or function of the user's named like it (printf, read, eval) takes over.
   */
  shell?: string;
  /** Where the script lives (bash finds its own history entry by it). */
  scriptPath: string;
  /** The shell waits in a handshake only while this file exists. */
  armedPath: string;
  /** A FIFO to wait on with the shell's own `read` (no process started); without it, `tmux wait-for`. */
  fifoPath?: string;
  /**
   * True when the shell runs on another host (--ssh): `scriptPath` and `armedPath` then name tmux
   * buffers, which the shell reads and tests with `tmuxBin -S socketPath` (see {@linkcode typedLine}).
   */
  inBuffers?: boolean;
}

/**
 * A POSIX shell's first words of a run: `$?` and the options kept, then xtrace and verbose off, so that no line
 * carrying the nonce is echoed or traced to the screen (bash traces nothing inside `{ } 2>/dev/null`).
 */
const optionsOff = (shell: string | undefined) =>
  shell === "zsh"
    ? `{ __tmux_mcp_prev=$? __tmux_mcp_o=$- ${ZSH_ALIASES_OFF}; \\builtin \\set +xv; } 2>/dev/null`
    : `{ __tmux_mcp_prev=$? __tmux_mcp_o=$-; ${builtinPrefix(shell)}set +xv; } 2>/dev/null`;

/**
 * zsh: aliases off while the script is parsed, as a global alias (`alias -g read=…`) rewrites any word of it, also
 * one after `\builtin` (hanging the run, printing its nonce); the script's list, parsed whole before it runs, first
 * turns them back on ({@linkcode ZSH_ALIASES_BACK}), so the command's own words are read as typed by hand.
 */
const ZSH_ALIASES_OFF = "__tmux_mcp_a=${options[aliases]-on}; \\builtin \\setopt \\noaliases";
const ZSH_ALIASES_BACK = "case $__tmux_mcp_a in on) \\builtin setopt aliases ;; esac; \\builtin unset __tmux_mcp_a";

/**
 * What a POSIX script puts before each builtin it calls: `\builtin ` in bash and zsh, where a user's function or
 * alias named printf, read, eval, set… would otherwise run instead (hang the run, print its nonce, or answer for a
 * command that never ran); quoted, as `builtin` itself may be an alias. Other shells' `builtin` differs (ksh93's
 * adds builtins): they keep the plain words.
 */
function builtinPrefix(shell: string | undefined): string {
  return shell === "bash" || shell === "zsh" ? "\\builtin " : "";
}

/** The script a run sources, for the pane's shell flavor. */
export function runScript(flavor: ShellFlavor, p: ScriptParts): string {
  const ch = channels(p.runId);
  const osc = `\\033]${MARKER_OSC};${p.nonce};`;
  // Erase below: the output is read from the start marker to the screen's bottom, and rows an earlier command
  // left below the cursor (it moved the cursor up) are not this command's output (zsh erases them at its prompt).
  // First a string terminator (ESC \, in octal for every printf and fish's quotes): a DCS (ESC P) an earlier
  // command left open (`cat` of a binary file) makes tmux swallow everything up to one, so no later output would
  // reach the screen the output is read from. Outside a string tmux ignores it.
  const below = "\\033\\134\\033[J";
  if (flavor === "fish") {
    const q = quoteFish;
    const tmux = `${homeWord(p.tmuxBin, q)} -S ${q(p.socketPath)}`;
    const wait = (channel: string) =>
      p.fifoPath
        ? `test -p ${q(p.fifoPath)}; and read -l __tmux_mcp_w <${q(p.fifoPath)} 2>/dev/null`
        : `builtin true (${tmux} wait-for ${q(channel)} 2>/dev/null)`;
    const armed = `test -e ${q(p.armedPath)}`;
    return [
      // $status of the previous command, restored right before the command.
      `set -l __tmux_mcp_prev $status`,
      // Tracing off for our own lines (an empty local shadows fish_trace): they carry the nonce.
      `set -l fish_trace`,
      p.inBuffers
        ? `builtin printf '${below}${osc}s;w\\007'; ${wait(ch.start)}`
        : `if ${armed}; builtin printf '${below}${osc}s;w\\007'; ${
          wait(ch.start)
        }; else; builtin printf '${below}${osc}s;f\\007'; end`,
      // The command sees the user's fish_trace, and sets or erases it as typed at the prompt would.
      `set -e -l fish_trace`,
      `if test $__tmux_mcp_prev -ne 0; /bin/sh -c "exit $__tmux_mcp_prev"; end`,
      `eval ${q(p.command)}`,
      `set -l __tmux_mcp_status $status`,
      `set -l fish_trace`,
      p.inBuffers
        ? `builtin printf '${osc}e;%d;w\\007' $__tmux_mcp_status; ` +
          `builtin true (${tmux} delete-buffer -b ${q(p.armedPath)} ';' wait-for ${q(ch.end)} 2>/dev/null)`
        : `if ${armed}; builtin printf '${osc}e;%d;w\\007' $__tmux_mcp_status; ${wait(ch.end)}; ` +
          `else; builtin printf '${osc}e;%d;f\\007' $__tmux_mcp_status; end`,
      `return $__tmux_mcp_status 2>/dev/null`,
      "",
    ].join("\n");
  }
  const q = shQuote;
  const b = builtinPrefix(p.shell);
  const tmux = `${homeWord(p.tmuxBin, q)} -S ${q(p.socketPath)}`;
  const wait = (channel: string) =>
    p.fifoPath
      ? `{ ${b}read -r __tmux_mcp_w; } 2>/dev/null <${q(p.fifoPath)}; ${b}unset __tmux_mcp_w`
      : `${b}: "$(${tmux} wait-for ${q(channel)} 2>/dev/null)"`;
  const armed = `${b}test -e ${q(p.armedPath)}`;
  // bash: `command` skips functions as well, and runs printf from PATH where the user turned the builtin off
  // (`enable -n printf`), which `builtin` refuses, so no marker would be printed. zsh's `command` never runs a builtin.
  const printf = p.shell === "bash" ? "\\builtin command printf" : `${b}printf`;
  // Each option is restored as the script found it (`$-` read again after the command, which may change them).
  const restoreOptions =
    `case $__tmux_mcp_o in *v*) ${b}set -v ;; esac; case $__tmux_mcp_o in *x*) ${b}set -x ;; esac; ` +
    `${b}unset __tmux_mcp_o`;
  // bash exempts what eval runs left of `&&` from the ERR trap and errexit, as the left of `&&` itself, only when
  // eval is called by its name or through `command` (which skips functions too), not through `builtin`: through
  // `command`, unless the user has a function named command (it would run instead, printing our words as output).
  const restorePrev = (evalWord: string) => `${evalWord} "${b}unset __tmux_mcp_prev; (exit $__tmux_mcp_prev)" && ${b}:`;
  const prevRestored = p.shell === "bash"
    ? `if ${b}declare -F command >/dev/null; then ${restorePrev("\\eval")}; else ${restorePrev("\\command eval")}; fi`
    : restorePrev(`${b}eval`);
  // bash runs the ERR trap for a failing command inside eval, then again for eval returning its status: negated
  // (`!`), eval's own status fires none, and PIPESTATUS keeps it. What eval runs is judged as typed by hand, errexit
  // included: only an eval called by its name passes the exemption of `!` on to it (as for `&&` above).
  // Before the command: the options as the script found them, then its $? (a subshell's exit sets a non-zero one, a
  // process started; after a zero one, `unset` leaves 0). Left of `&&`, that status fires no ERR trap and no errexit
  // (`set -e`), as it did none when the last command set it. Inside `{ } 2>/dev/null` bash traces nothing; zsh
  // traces it (no nonce in it).
  // zsh with errexit on ends the shell where eval returns a status errexit exempted in it (`false && true`), as
  // it does for a function: what eval runs then ends by keeping its status in __tmux_mcp_st, so eval returns 0.
  // After two newlines: a trailing backslash of the command joins the first only.
  const zsh = p.shell === "zsh";
  const exemptKept = zsh
    ? `${b}unset __tmux_mcp_st; __tmux_mcp_x=; case $__tmux_mcp_o in *e*) __tmux_mcp_x=$'\\n\\n__tmux_mcp_st=$?' ;; esac; `
    : "";
  const before = `{ ${exemptKept}${restoreOptions}; case $__tmux_mcp_prev in 0) ${b}unset __tmux_mcp_prev ;; ` +
    `*) ${prevRestored} ;; esac; } 2>/dev/null`;
  // bash: the first line of what eval runs, so that xtrace, back on, shows the command's own lines, not eval with
  // all of the command's text; and verbose echoes the command's lines as they are read, as typed by hand.
  // zsh: the end runs in an `always` block, so a `return` in the command, or a failure with ERR_RETURN on, which
  // return from the script, still print the end marker with their status (typed by hand they end the line, $? kept).
  const [runCommand, status] = p.shell === "bash"
    ? [`! ${b}eval ${q(`${before}\n${p.command}`)}`, "${PIPESTATUS[0]}"]
    : zsh
    ? [`{ ${before}; ${b}eval ${q(p.command)}"$__tmux_mcp_x"; } always {`, "${__tmux_mcp_st-$?}"]
    : [`${before}; ${b}eval ${q(p.command)}`, "$?"];
  const name = p.scriptPath.split("/").pop()!;
  // Run only where $BASH_VERSION is set (bash, also when named sh): bash's builtins, whatever the shell's name.
  const bash = builtinPrefix("bash");
  // The last history entry, without a subshell where the script is a file: bash has read all of a file it
  // sources before running it, so the file can take the line over its first bytes and `read` gets it back.
  // `1<>` (also with noclobber), not `>|`: truncating a file that holds data makes ext4 start writing it out.
  const lastEntry = p.inBuffers
    ? `__tmux_mcp_h="$(HISTTIMEFORMAT= ${bash}history 1 2>/dev/null)"`
    : `HISTTIMEFORMAT= ${bash}history 1 2>/dev/null 1<>${
      q(p.scriptPath)
    }; IFS= ${bash}read -r __tmux_mcp_h 2>/dev/null <${q(p.scriptPath)}`;
  return [
    // $? of the previous command, restored right before the command; xtrace and verbose off for our own lines,
    // which carry the nonce (on another host the typed line did both: xtrace would show the script it evals).
    ...(p.inBuffers ? [] : [optionsOff(p.shell)]),
    // The rest is one list, parsed (so read to its end) before any of it runs: zsh and dash keep a file they
    // source open, reading it as they go, and the server empties the file at the start marker (the nonce then
    // is in no file a command can open through /proc/PID/fd). Opened after OPTIONS_OFF, as verbose would echo it.
    "{",
    ...(p.shell === "zsh" ? [ZSH_ALIASES_BACK] : []),
    // bash without HISTCONTROL=ignorespace records the typed line: remove
    // exactly that entry (checked by the script's name), nothing else; `builtin`, as `history` is a name users
    // alias or wrap (a pager, a fuzzy finder).
    // With ignorespace (Debian's default ignoreboth) there is nothing to remove, and nothing to look at: on
    // another host looking costs a subshell. Done before the start marker: from then on the server may delete
    // the script.
    `if ${b}test -n "\${BASH_VERSION-}"; then case ":\${HISTCONTROL-}:" in *:ignorespace:* | *:ignoreboth:*) ;; *)`,
    `  __tmux_mcp_h=; ${lastEntry}`,
    `  case "$__tmux_mcp_h" in *${q(name)}*)`,
    `    __tmux_mcp_h="\${__tmux_mcp_h#"\${__tmux_mcp_h%%[! ]*}"}"`,
    `    ${bash}history -d "\${__tmux_mcp_h%%[!0-9]*}" 2>/dev/null ;;`,
    `  esac`,
    `  ${bash}unset __tmux_mcp_h ;;`,
    `esac; fi`,
    p.inBuffers
      ? `${printf} '${below}${osc}s;w\\007'; ${wait(ch.start)}`
      : `if ${armed}; then ${printf} '${below}${osc}s;w\\007'; ${
        wait(ch.start)
      }; else ${printf} '${below}${osc}s;f\\007'; fi`,
    // One line, read before any of it runs: with verbose back on, the shell echoes none of it (eval echoes the
    // command; bash, which turns verbose on inside the eval, each line of it).
    `${runCommand}${zsh ? "\n" : "; "}{ __tmux_mcp_status=${status} __tmux_mcp_o=$-; ${b}set +xv; ${
      zsh ? `${b}unset __tmux_mcp_st __tmux_mcp_x; ` : ""
    }} 2>/dev/null`,
    p.inBuffers
      ? `${printf} '${osc}e;%d;w\\007' "$__tmux_mcp_status"; ` +
        `${b}: "$(${tmux} delete-buffer -b ${q(p.armedPath)} ';' wait-for ${q(ch.end)} 2>/dev/null)"`
      : `if ${armed}; then ${printf} '${osc}e;%d;w\\007' "$__tmux_mcp_status"; ${wait(ch.end)}; ` +
        `else ${printf} '${osc}e;%d;f\\007' "$__tmux_mcp_status"; fi`,
    // Leave $? as the command left it, without leaving our variable behind. Run by `eval` (from a
    // buffer) there is nothing to return from: a subshell's exit sets $? instead. With errexit on, a non-zero
    // status that got here is one errexit exempted (`false && true`): passed on, the typed line would fail, which
    // nothing exempts, and the shell would exit; $? is 0 instead.
    `{ ${restoreOptions}; case $- in *e*) __tmux_mcp_status=0 ;; esac; ` +
    (p.inBuffers
      ? `${b}eval "${b}unset __tmux_mcp_status; (exit $__tmux_mcp_status)"; } 2>/dev/null`
      : `${b}eval "${b}unset __tmux_mcp_status; ${b}return $__tmux_mcp_status"; } 2>/dev/null`),
    ...(zsh ? ["}"] : []),
    "}",
    "",
  ].join("\n");
}

/**
 * The line typed at the prompt: a leading space (history), then source the script — from its file,
 * or (`inBuffers`, --ssh) from its tmux buffer, which the shell reads from its own tmux server:
 * fish sources it through `psub`, POSIX shells `eval` the text (`.` of a pipe would run in a subshell).
 */
export function typedLine(
  flavor: ShellFlavor,
  p: string | Pick<ScriptParts, "scriptPath" | "tmuxBin" | "socketPath" | "inBuffers" | "shell">,
): string {
  const part = typeof p === "string" ? { scriptPath: p, tmuxBin: "", socketPath: "" } : p;
  // Through `builtin`, as the script's own builtins: a function of the user's named source (fish's wrappers that
  // source bash files) or `.` would take the run over.
  const b = typeof p === "string" ? "" : builtinPrefix(p.shell);
  if (typeof p !== "string" && p.inBuffers) {
    const q = flavor === "fish" ? quoteFish : shQuote;
    // The same client deletes the buffer once it has printed it: the script (and its nonce) is gone before it runs.
    const buffer = q(part.scriptPath);
    const read = `${homeWord(part.tmuxBin, q)} -S ${
      q(part.socketPath)
    } show-buffer -b ${buffer} ';' delete-buffer -b ${buffer}`;
    // fish: `source (… | psub)`, not `… | source`: the command's stdin stays the terminal.
    return flavor === "fish" ? ` builtin source (${read} | psub)` : ` ${optionsOff(part.shell)}; ${b}eval "$(${read})"`;
  }
  return flavor === "fish" ? ` builtin source ${quoteFish(part.scriptPath)}` : ` ${b}. ${shQuote(part.scriptPath)}`;
}
