/**
 * Which tmux options and environment variables make tmux (or the shells it
 * starts) run commands, change what commands mean or end the server — and so
 * need the `destructive` tier, since at a lower tier they would be a way
 * around it (a hook running `kill-server` on the next harmless call). The
 * lists come from tmux 3.3a's manual (OPTIONS, HOOKS, FORMATS):
 *
 * - hooks (`after-<command>`, `alert-*`, `client-*`, `pane-*`, `session-*`,
 *   `window-*` events, {@linkcode HOOKS}): their value is a command list;
 * - `command-alias`: makes a harmless command name run another command;
 *   `default-client-command` (newer tmux): a command list run on attach;
 * - `default-command`, `default-shell`, `copy-command`, `lock-command`,
 *   `editor`: shell commands tmux runs;
 * - `exit-empty`, `exit-unattached`, `destroy-unattached`: end the server or
 *   sessions on their own;
 * - `history-file`: a path tmux writes;
 * - any value holding `#(…)` (a shell command, in format options such as
 *   status-left/right, set-titles-string, pane-border-format, or in a user
 *   option a theme expands) or `E:`/`T:` re-expansion;
 * - environment variables that make a shell, an interpreter or the dynamic
 *   loader run code at start ({@linkcode RISKY_ENV}), or that a common tool
 *   runs as a command (a pager, an editor, an askpass helper: see envRisk).
 *
 * Every option value is also checked as a format at every tier (padding,
 * regexes, loops: formats.ts), since tmux evaluates format options over
 * and over. At the destructive tier, when tmux-mcp runs inside that server,
 * the self-kill guard refuses shell-running values outright and command
 * lists that name a command that could end or hijack our pane
 * ({@linkcode SELF_DANGEROUS}).
 *
 * Names are judged as tmux reads them: callers resolve a model's name first
 * (lib/tmux/option_names.ts: unique prefix, `[index]`, old spellings), so
 * `default-comm` is judged as `default-command`.
 *
 * @example
 * ```ts
 * optionRisk({ base: "after-select-window", hook: true }, "kill-server")?.kind; // "commands"
 * optionRisk({ base: "mouse", hook: false }, "on"); // undefined
 * ```
 */
import { checkFormat } from "./formats.ts";

/** Hook names from tmux 3.3a's HOOKS section (and command-error, from 3.5), besides `after-<command>`. */
export const HOOKS: ReadonlySet<string> = new Set([
  "alert-activity",
  "alert-bell",
  "alert-silence",
  "client-active",
  "client-attached",
  "client-detached",
  "client-focus-in",
  "client-focus-out",
  "client-resized",
  "client-session-changed",
  "command-error",
  "pane-died",
  "pane-exited",
  "pane-focus-in",
  "pane-focus-out",
  "pane-mode-changed",
  "pane-set-clipboard",
  "pane-title-changed",
  "session-closed",
  "session-created",
  "session-renamed",
  "session-window-changed",
  "window-layout-changed",
  "window-linked",
  "window-pane-changed",
  "window-renamed",
  "window-resized",
  "window-unlinked",
]);

const SHELL_OPTIONS = new Set(["default-command", "default-shell", "copy-command", "lock-command", "editor"]);
const LIFE_OPTIONS = new Set(["exit-empty", "exit-unattached", "destroy-unattached"]);
const FILE_OPTIONS = new Set(["history-file"]);

/**
 * Environment variables that make a shell, an interpreter or the loader run code when a pane starts, or a common
 * tool run a command of the variable's choosing when it starts (git's `GIT_CONFIG_*` can set `core.fsmonitor`,
 * which `git status` runs; less runs `LESSOPEN`; the JVM loads agents from its `*_OPTIONS`).
 */
export const RISKY_ENV =
  /^(?:LD_\w*|DYLD_\w*|BASH_ENV|ENV|PROMPT_COMMAND|PS[0-4]|ZDOTDIR|PERL5OPT|PYTHONSTARTUP|NODE_OPTIONS|RUBYOPT|GIT_SSH_COMMAND|GIT_CONFIG\w*|LESSOPEN|LESSCLOSE|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS)$/;

/** Why a setting needs the destructive tier, and what its value is. */
export interface Risk {
  /** One clause for messages: "after-select-window is a hook (tmux runs its value as commands)". */
  what: string;
  /** commands: a tmux command list; shell: shell commands; life: ends the server/sessions; file: a path tmux writes. */
  kind: "commands" | "shell" | "life" | "file";
}

/**
 * The risk of setting option `option` to `value`, or undefined for an
 * ordinary option. `option.base` is the canonical name without its index
 * (lib/tmux/option_names.ts); `hook` is what the connected tmux lists as a hook, so a
 * hook this list does not know is still judged as one.
 */
export function optionRisk(option: { base: string; hook: boolean }, value: string): Risk | undefined {
  const base = option.base;
  if (option.hook || base.startsWith("after-") || HOOKS.has(base)) {
    return { what: `${base} is a hook (tmux runs its value as commands)`, kind: "commands" };
  }
  if (base === "command-alias") {
    return { what: "command-alias makes a command name run other commands (also for the user)", kind: "commands" };
  }
  if (base === "default-client-command") {
    return { what: "default-client-command is a command list tmux runs when a client attaches", kind: "commands" };
  }
  if (SHELL_OPTIONS.has(base)) return { what: `${base} is a shell command tmux runs`, kind: "shell" };
  if (LIFE_OPTIONS.has(base)) return { what: `${base} can end the tmux server or its sessions`, kind: "life" };
  if (FILE_OPTIONS.has(base)) return { what: `${base} is a file tmux writes`, kind: "file" };
  const parsed = checkFormat(value, { allowShell: true, allowReexpand: true });
  // A value the parser refuses is refused before this (set-option checks every value as a format).
  const facts = parsed.facts ?? { shell: [value], reexpand: true };
  if (facts.shell.length > 0) {
    return { what: "the value contains #( which tmux runs as a shell command wherever it expands it", kind: "shell" };
  }
  if (facts.reexpand) {
    return { what: "the value uses E:/T: which expand other values again as formats (and their #(…))", kind: "shell" };
  }
  return undefined;
}

/**
 * Variables whose value a common tool runs as a command (through `sh -c` for git, man, sudo and ssh): a pager, an
 * editor, an askpass helper, git's diff, proxy and ssh programs, a browser. Set for a session they fire later, in
 * whatever a human or a script runs there.
 */
const COMMAND_ENV =
  /^(?:PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|GIT_EDITOR|GIT_SEQUENCE_EDITOR|SUDO_EDITOR|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|GIT_SSH|BROWSER)$/;

/**
 * The pager and editor variables that may still be set below the destructive tier (new-session sets them to `cat`
 * and `true`, and its description says `env` overrides them), to a known pager or editor by name: any program
 * would do otherwise, and a shell or an interpreter reads what it is given as a script (`GIT_PAGER=sh` runs the
 * log's text). Pager flags are the display ones without an argument (less's `-k`, `-o` read or write files), an
 * editor's only the wait flags (vim's `-S` sources Session.vim).
 */
const PAGER_ENV = /^(?:PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER)$/;
const EDITOR_ENV = /^(?:EDITOR|VISUAL|GIT_EDITOR|GIT_SEQUENCE_EDITOR)$/;
const PAGERS = new Set(["cat", "less", "more", "most", "bat", "batcat"]);
const EDITORS = new Set(["true", "vi", "vim", "nvim", "nano", "emacs", "micro", "hx", "code", "codium", "subl"]);
const EDITOR_FLAGS = new Set(["-w", "--wait", "-nw"]);

function knownProgram(name: string, value: string): boolean {
  const [program, ...flags] = value.split(" ").filter((w) => w !== "");
  if (PAGER_ENV.test(name)) return PAGERS.has(program) && flags.every((f) => /^-[FRXSKir]+$/.test(f));
  if (EDITOR_ENV.test(name)) return EDITORS.has(program) && flags.every((f) => EDITOR_FLAGS.has(f));
  return false;
}

/** The risk of setting environment variable `name` to `value` for new panes, or undefined. */
export function envRisk(name: string, value: string): Risk | undefined {
  if (RISKY_ENV.test(name)) {
    return { what: `environment variable ${name} makes programs in new panes run code at start`, kind: "shell" };
  }
  if (!COMMAND_ENV.test(name) || knownProgram(name, value)) return undefined;
  const allowed = PAGER_ENV.test(name)
    ? " (a known pager by name, such as less -R, is allowed)"
    : EDITOR_ENV.test(name)
    ? " (a known editor by name, such as vim, is allowed)"
    : "";
  return { what: `environment variable ${name} is a command that tools run later${allowed}`, kind: "shell" };
}

/** tmux 3.3a commands and aliases that could end, respawn, hijack or re-arm our own pane or server. */
export const SELF_DANGEROUS: ReadonlySet<string> = new Set([
  "kill-server",
  "kill-session",
  "kill-window",
  "killw",
  "kill-pane",
  "killp",
  "unlink-window",
  "unlinkw",
  "respawn-pane",
  "respawnp",
  "respawn-window",
  "respawnw",
  "run-shell",
  "run",
  "if-shell",
  "if",
  "source-file",
  "source",
  "confirm-before",
  "confirm",
  "command-prompt",
  "display-menu",
  "menu",
  "display-popup",
  "popup",
  "pipe-pane",
  "pipep",
  "send-keys",
  "send",
  "send-prefix",
  "detach-client",
  "detach",
  "suspend-client",
  "suspendc",
  "lock-server",
  "lock",
  "lock-session",
  "locks",
  "lock-client",
  "lockc",
  "set-option",
  "set",
  "set-window-option",
  "setw",
  "set-hook",
  "bind-key",
  "bind",
  "new-session",
  "new",
  "new-window",
  "neww",
  "split-window",
  "splitw",
]);

/** Every tmux 3.3a command name (tmux accepts a unique prefix of one). */
const COMMANDS = [
  "attach-session",
  "bind-key",
  "break-pane",
  "capture-pane",
  "choose-buffer",
  "choose-client",
  "choose-tree",
  "clear-history",
  "clear-prompt-history",
  "clock-mode",
  "command-prompt",
  "confirm-before",
  "copy-mode",
  "customize-mode",
  "delete-buffer",
  "detach-client",
  "display-menu",
  "display-message",
  "display-popup",
  "display-panes",
  "find-window",
  "has-session",
  "if-shell",
  "join-pane",
  "kill-pane",
  "kill-server",
  "kill-session",
  "kill-window",
  "last-pane",
  "last-window",
  "link-window",
  "list-buffers",
  "list-clients",
  "list-commands",
  "list-keys",
  "list-panes",
  "list-sessions",
  "list-windows",
  "load-buffer",
  "lock-client",
  "lock-server",
  "lock-session",
  "move-pane",
  "move-window",
  "new-session",
  "new-window",
  "next-layout",
  "next-window",
  "paste-buffer",
  "pipe-pane",
  "previous-layout",
  "previous-window",
  "refresh-client",
  "rename-session",
  "rename-window",
  "resize-pane",
  "resize-window",
  "respawn-pane",
  "respawn-window",
  "rotate-window",
  "run-shell",
  "save-buffer",
  "select-layout",
  "select-pane",
  "select-window",
  "send-keys",
  "send-prefix",
  "server-access",
  "set-buffer",
  "set-environment",
  "set-hook",
  "set-option",
  "set-window-option",
  "show-buffer",
  "show-environment",
  "show-hooks",
  "show-messages",
  "show-options",
  "show-prompt-history",
  "show-window-options",
  "source-file",
  "split-window",
  "start-server",
  "suspend-client",
  "swap-pane",
  "swap-window",
  "switch-client",
  "unbind-key",
  "unlink-window",
  "wait-for",
]; // deno-fmt-ignore

/** The command tmux would run for word `w` (exact name, alias or unique prefix), if it is a dangerous one. */
function dangerousCommand(w: string): string | undefined {
  if (SELF_DANGEROUS.has(w)) return w;
  const fits = COMMANDS.filter((c) => c.startsWith(w));
  return fits.length === 1 && SELF_DANGEROUS.has(fits[0]) ? fits[0] : undefined;
}

/**
 * For a setting at the destructive tier while tmux-mcp runs inside that
 * server: why it is refused under the self-kill guard, or undefined. Shell
 * bodies cannot be analysed (a shell can spell `kill` any way), so they are
 * refused whole; command lists are refused when any word is (or abbreviates)
 * a command in {@linkcode SELF_DANGEROUS}.
 */
export function selfGuardRefusal(risk: Risk, body: string): string | undefined {
  if (risk.kind === "shell" || risk.kind === "life") {
    return `${risk.what}, and tmux-mcp runs inside this tmux server: it could end our own pane or server`;
  }
  if (risk.kind !== "commands") return undefined;
  for (const word of body.split(/[\s;{}'"\\=,]+/)) {
    const cmd = word && dangerousCommand(word);
    if (cmd) {
      return `${risk.what}; its command ${JSON.stringify(word)} (${cmd}) could end or take over our own pane or ` +
        "server, and tmux-mcp runs inside this tmux server";
    }
  }
  return undefined;
}
