/**
 * What an agent should know before it types into a pane or trusts its
 * screen: a full-screen program, copy mode, a pager, a prompt waiting for an
 * answer, a program that is not a shell. Each warning says what to do.
 * Shared by the exec tools and the screen tools (capture-pane, snapshot-pane).
 *
 * @example
 * ```ts
 * declare const pane: WarningFacts; // from getPane
 * const warnings = paneWarnings(pane, ["file.txt lines 1-40", "(END)"]);
 * // [{ kind: "pager", message: "pane %3 shows a pager (less) ...: send q to leave it ..." }]
 * ```
 */
import { takeColumns } from "../text/columns.ts";
import { UserError } from "../errors.ts";
import { z } from "zod";
import type { PaneInfo } from "../tmux/panes.ts";
import { shellFlavor } from "./shell.ts";
import { CONFIRM_PROMPTS, pinentryField, readsKeyByKey, type ScreenFacts, SECRET_PROMPT } from "../text/prompt_kind.ts";

export const WARNING_KINDS = [
  "alternate_screen",
  "copy_mode",
  "pager",
  "input_prompt",
  "not_a_shell",
  "pane_dead",
  "lines_missed",
  "interrupted",
  "not_started",
  "no_exit_code",
  "left_mode",
  "exited",
] as const;
export type WarningKind = (typeof WARNING_KINDS)[number];

export interface Warning {
  kind: WarningKind;
  /** One sentence: what is going on and what to do. */
  message: string;
}

/**
 * The output-schema piece for a `warnings` field. `kind` is one of
 * WARNING_KINDS, advertised as a plain string: every pane tool's listing
 * repeats this piece, and the message says what to do.
 */
export const warningsSchema = z.array(z.object({
  kind: z.string(),
  message: z.string(),
})).describe("things to know before typing into this pane, each with what to do (empty when all is normal)");

/** The pane facts the warnings look at. */
export type WarningFacts = Pick<
  PaneInfo,
  "pane_id" | "current_command" | "alternate_on" | "in_mode" | "mode" | "dead"
>;

const PAGERS = new Set(["less", "more", "most", "man", "pg", "w3m"]);
const PAGER_SCREEN =
  /^(\(END\)|--More--.*|:|Manual page .*|lines \d+-\d+.*|byte \d+.*|.*\(press h for help or q to quit\))$/;

/** How to leave well-known programs, for messages. */
const LEAVE: Record<string, string> = {
  python: "send exit() and Enter, or C-d",
  python3: "send exit() and Enter, or C-d",
  ipython: "send exit and Enter, or C-d twice",
  node: "send .exit and Enter, or C-d",
  deno: "send close() and Enter, or C-d",
  irb: "send exit and Enter",
  psql: "send \\q and Enter",
  mysql: "send exit and Enter",
  sqlite3: "send .quit and Enter",
  ghci: "send :quit and Enter",
  R: "send q() and Enter",
  ssh: "send exit and Enter to leave the remote shell",
  vim: "send Escape, then :q! and Enter (or :wq to save)",
  nvim: "send Escape, then :q! and Enter (or :wq to save)",
  vi: "send Escape, then :q! and Enter",
  nano: "send C-x (answer the save question)",
  emacs: "send C-x C-c",
  htop: "send q",
  top: "send q",
  less: "send q",
  more: "send q",
  man: "send q",
  tmux: "wait a moment and retry",
  sleep: "wait, or send C-c to interrupt it",
};

// Prompts that wait for an answer. Anchored at the end of the line: the
// cursor sits right after them.
const INPUT_PROMPTS: RegExp[] = [
  SECRET_PROMPT,
  ...CONFIRM_PROMPTS,
  /press (any key|enter|return)/i,
  /(continue|proceed|overwrite|replace|remove|delete)\b[^\n]{0,60}\?\s*$/i,
];

function leaveHint(command: string): string {
  return LEAVE[command] ?? LEAVE[command.replace(/[\d.]+$/, "")] ?? "send C-c (or the program's quit key)";
}

/** The last line that has any text (the cursor is usually on or after it). */
function lastLine(lines: readonly string[]): string {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].trim() !== "") return lines[i].trimEnd();
  return "";
}

/**
 * Warnings for a pane, from its facts and its visible screen lines (or the
 * last lines of it). Empty when the pane looks like a normal shell or program.
 */
export function paneWarnings(pane: WarningFacts, screen: readonly string[]): Warning[] {
  const out: Warning[] = [];
  const id = pane.pane_id;
  const cmd = pane.current_command;
  if (pane.dead) {
    out.push({
      kind: "pane_dead",
      message: `pane ${id} is dead (its program exited; remain-on-exit keeps it): respawn-pane to restart it, ` +
        `or kill (what: pane)`,
    });
    return out;
  }
  if (pane.in_mode) {
    out.push({
      kind: "copy_mode",
      // tmux's capture-pane reads the pane's own screen, not the mode's view (a copy mode scrolled back, a tree).
      message: `pane ${id} is in ${pane.mode || "copy mode"}: a watching user sees the mode, not this live text; ` +
        `send-keys, paste-text and run-command leave the mode before typing, so input reaches the program`,
    });
  }
  const last = lastLine(screen);
  const pager = PAGERS.has(cmd) || PAGER_SCREEN.test(last.trim());
  if (pager) {
    out.push({
      kind: "pager",
      message:
        `pane ${id} shows a pager (${PAGERS.has(cmd) ? cmd : "less-like, bottom line " + JSON.stringify(last)}) ` +
        `that waits for keys: send q to leave it, Space for the next page; to avoid pagers run commands with ` +
        `PAGER=cat or --no-pager`,
    });
  } else if (pane.alternate_on && !pinentryField(screen, { command: cmd, alternate: pane.alternate_on })) {
    out.push({
      kind: "alternate_screen",
      message: `pane ${id} runs a full-screen program (${cmd}, alternate screen): it redraws the screen instead ` +
        `of printing lines, so use snapshot-pane/capture-pane to read it and send-keys to drive it; to leave ` +
        `it ${leaveHint(cmd)}`,
    });
  }
  const prompt = pager
    ? undefined
    : promptWarning(screen, { name: `pane ${id}`, arg: `target: "${id}"`, command: cmd });
  if (prompt) out.push(prompt);
  if (!pane.alternate_on && !pager && shellFlavor(cmd) === undefined && !pane.in_mode) {
    out.push({
      kind: "not_a_shell",
      message: `pane ${id} runs ${cmd || "a program"}, not a shell prompt: run-command cannot be used here; drive ` +
        `it with send-keys and wait, or leave it (${leaveHint(cmd)})`,
    });
  }
  return out;
}

/** What a model is told to do at a secret prompt: `arg` names the pane or session (`target: "%3"`, `pty_id: "s1"`). */
export function secretPromptAdvice(arg: string): string {
  return `call request-input {${arg}} so the user types it (you never see it), or send C-c to abort; never guess a ` +
    "password";
}

/**
 * The secret-prompt warnings {@linkcode promptWarning} made from a screen alone, with what names the terminal and
 * what its prompt line reads: {@linkcode echoedSecretPrompts} rewrites them once the terminal is known to echo.
 */
const SCREEN_SECRETS = new WeakMap<Warning, { name: string; look: string; line: string }>();

/**
 * `warnings` with each password-prompt warning made from the screen alone replaced by what fits a terminal that
 * echoes what is typed: no program reads a secret there (a real prompt turns echo off), a secret typed there would
 * show on the screen, and request-input refuses to ask for one; the rest as they are.
 *
 * @example
 * ```ts
 * const w = promptWarning(["Password:"], { name: "pane %3", arg: 'target: "%3"' })!;
 * echoedSecretPrompts([w])[0].message; // 'pane %3 shows a password prompt ("Password:") but its terminal echoes …'
 * ```
 */
export function echoedSecretPrompts(warnings: readonly Warning[]): Warning[] {
  return warnings.map((w) => {
    const s = SCREEN_SECRETS.get(w);
    if (!s) return w;
    return {
      kind: "input_prompt",
      message: `${s.name} shows a password prompt (${JSON.stringify(s.line)}) but its terminal echoes what is typed, ` +
        `so a secret typed there would show on the screen: type none there, not through request-input either; ` +
        `look again with ${s.look} (a program may turn echo off a moment later), or send C-c to abort`,
    };
  });
}

/** The yes/no and other questions {@linkcode promptWarning} made from a screen alone (see {@linkcode keyByKeyPrompts}). */
const SCREEN_QUESTIONS = new WeakMap<Warning, { name: string; keys: string; line: string }>();

/**
 * `warnings` with each question made from the screen alone (a yes/no, "press any key") told as one read key by key,
 * for a terminal that `readsKeyByKey` (lib/text/prompt_kind.ts: `read -n1`): the key goes alone, as request-input
 * types it, since an Enter after it would go to whatever reads next; the rest as they are.
 *
 * @example
 * ```ts
 * const w = promptWarning(["Overwrite? [y/N]"], { name: "pane %3", arg: 'target: "%3"' })!;
 * keyByKeyPrompts([w])[0].message; // 'pane %3 waits for one key ("Overwrite? [y/N]"): answer with send-keys (y alone …'
 * ```
 */
export function keyByKeyPrompts(warnings: readonly Warning[]): Warning[] {
  return warnings.map((w) => {
    const q = SCREEN_QUESTIONS.get(w);
    if (!q) return w;
    return {
      kind: "input_prompt",
      message: `${q.name} waits for one key (${JSON.stringify(q.line)}; its terminal reads key by key): answer ` +
        `with ${q.keys} (e.g. y alone: an Enter after it would go to whatever reads next), request-input to ask the ` +
        "user, or send C-c to abort",
    };
  });
}

/**
 * `warnings` made from a screen alone, told as fits the terminal once its mode is known (`undefined`: not known,
 * they stay as they are): a password prompt on a terminal that echoes ({@linkcode echoedSecretPrompts}), a question
 * read key by key ({@linkcode keyByKeyPrompts}).
 */
export function toldForMode(
  warnings: readonly Warning[],
  mode: { echo?: boolean; canonical?: boolean } | undefined,
): Warning[] {
  const told = mode?.echo ? echoedSecretPrompts(warnings) : [...warnings];
  return readsKeyByKey(mode) ? keyByKeyPrompts(told) : told;
}

/** The warning for a terminal whose program reads a line without echo (a password prompt), named as in promptWarning. */
export function noEchoWarning(who: { name: string; arg: string }): Warning {
  return {
    kind: "input_prompt",
    message: `${who.name} reads input without echo (a password prompt): ${secretPromptAdvice(who.arg)}`,
  };
}

/**
 * The warning for a screen whose last line is a password or other input prompt, or that shows a full-screen
 * pinentry (gpg's passphrase box), naming the calls that answer it: `who.arg` is the argument that names the pane
 * or session for request-input, `who.keys` the tool that types, and what is known of the terminal
 * ({@linkcode ScreenFacts}: an editor or pager showing a pinentry's text is none).
 *
 * @example
 * ```ts
 * promptWarning(["$ sudo true", "[sudo] password for me:"], { name: "pty session s1", arg: 'pty_id: "s1"' });
 * // { kind: "input_prompt", message: 'pty session s1 waits at a password prompt (…): call request-input …' }
 * ```
 */
export function promptWarning(
  screen: readonly string[],
  who: { name: string; arg: string; keys?: string } & ScreenFacts,
): Warning | undefined {
  const look = who.keys === "pty-send-keys" ? "pty-get-screen" : "snapshot-pane";
  const secret = (message: string, line: string): Warning => {
    const w: Warning = { kind: "input_prompt", message };
    SCREEN_SECRETS.set(w, { name: who.name, look, line });
    return w;
  };
  const field = pinentryField(screen, who);
  if (field) {
    return secret(
      `${who.name} shows a passphrase entry (pinentry, ${JSON.stringify(field)}): ${secretPromptAdvice(who.arg)}`,
      field,
    );
  }
  const last = lastLine(screen);
  if (SECRET_PROMPT.test(last)) {
    return secret(
      `${who.name} waits at a password prompt (${JSON.stringify(last.slice(-120))}): ${secretPromptAdvice(who.arg)}`,
      last.trim().slice(-120),
    );
  }
  if (INPUT_PROMPTS.some((re) => re.test(last))) {
    const w: Warning = {
      kind: "input_prompt",
      message: `${who.name} appears to wait for input (${JSON.stringify(last.slice(-120))}): answer with ` +
        `${who.keys ?? "send-keys"} (e.g. y then Enter), request-input to ask the user, or send C-c to abort`,
    };
    SCREEN_QUESTIONS.set(w, { name: who.name, keys: who.keys ?? "send-keys", line: last.trim().slice(-120) });
    return w;
  }
  return undefined;
}

/**
 * The refusal of text typed where a program reads a line without echo (a password prompt): there it would be the
 * answer, not a command. `who.name` names the pane or session, `who.arg` the request-input argument for it.
 *
 * @example
 * ```ts
 * hiddenReadRefusal({ name: "pane %3", arg: 'target: "%3"' }).message;
 * // 'pane %3 reads input without echo (a password prompt), so the text was not typed: there it would be the answer, …'
 * ```
 */
export function hiddenReadRefusal(who: { name: string; arg: string }): UserError {
  return new UserError(
    `${who.name} reads input without echo (a password prompt), so the text was not typed: there it would be the ` +
      `answer, not a command; ${secretPromptAdvice(who.arg)}`,
  );
}

/**
 * Whether a screen whose program reads a line without echo waits at a prompt that takes a secret: the cursor sits
 * after text on its row (`Password: `, `Your word> `; not at the start of an empty row, as under `stty -echo; cat`),
 * and that row asks no question a model may answer (`[y/N]`, `(yes/no)`, "Press any key", "Continue?"). `rows` are
 * the screen's rows as the terminal has them (not joined), `cursor` where the cursor is on them.
 *
 * @example
 * ```ts
 * secretPromptAtCursor(["$ sudo true", "[sudo] password for me: "], { row: 1, col: 24 }); // true
 * secretPromptAtCursor(["Continue? [y/N] "], { row: 0, col: 16 }); // false
 * secretPromptAtCursor(["ready", ""], { row: 1, col: 0 }); // false
 * ```
 */
export function secretPromptAtCursor(rows: readonly string[], cursor: { row: number; col: number }): boolean {
  const before = takeColumns(rows[cursor.row] ?? "", cursor.col);
  if (before.trim() === "") return false;
  return SECRET_PROMPT.test(before.trimEnd()) || !INPUT_PROMPTS.some((re) => re.test(before.trimEnd()));
}

/**
 * Why run-command must not type into this pane, as a one-line error that
 * says what to do; undefined when the pane is at (or looks like) a shell.
 * A mode (copy mode) is no reason: run-command leaves it before typing, as
 * send-keys does, so the pane is judged as it is under the mode.
 */
export function notAtPrompt(pane: WarningFacts, screen: readonly string[]): string | undefined {
  const what = whatRunsThere(pane, screen);
  return what && `run-command needs a bash, zsh or fish prompt, but ${what}`;
}

/**
 * What keeps a pane from a shell prompt (a REPL, an editor, a pager) and how to leave it, as a clause; undefined
 * when the pane is at (or looks like) a shell. A mode (copy mode) is no reason, as for {@linkcode notAtPrompt}.
 */
export function whatRunsThere(pane: WarningFacts, screen: readonly string[]): string | undefined {
  const blocking = paneWarnings({ ...pane, in_mode: false }, screen).filter((w) => w.kind !== "input_prompt");
  return blocking.length === 0 ? undefined : blocking.map((w) => w.message).join("; also ");
}
