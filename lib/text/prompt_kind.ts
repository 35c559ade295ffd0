/**
 * What a terminal's last line asks for, when it is a prompt that waits for
 * an answer: a secret (password, passphrase, PIN) or a yes/no confirmation.
 * The cursor sits right after such a prompt, so each pattern is anchored at
 * the end of the line.
 *
 * @example
 * ```ts
 * promptKind("[sudo] password for ann: "); // "secret"
 * promptKind("Continue? [Y/n] ");          // "confirm"
 * confirmWords("Are you sure (yes/no)? "); // { yes: "yes", no: "no" }
 * pinentryField(["x Passphrase: ____________ x", "x   <OK>      <Cancel>   x"]); // "Passphrase:"
 * ```
 */

/** A prompt for a secret. */
export const SECRET_PROMPT = /(password|passphrase|passcode|\bpin\b)[^:\n]{0,40}:\s*$/i;

/** A yes/no prompt that names its answers; the first group is what it accepts. */
export const CONFIRM_PROMPTS: readonly RegExp[] = [
  /\[(y\/n|yes\/no)\]\s*[?:]?\s*$/i,
  /\((y\/n|yes\/no)(\/\[fingerprint\])?\)\s*[?:]?\s*$/i,
  /\[([yn]\/[yn])\]\s*[?:]?\s*$/i,
];

/** The kind of prompt `line` ends with, or undefined when it is none of these. */
export function promptKind(line: string): "secret" | "confirm" | undefined {
  if (SECRET_PROMPT.test(line)) return "secret";
  if (CONFIRM_PROMPTS.some((re) => re.test(line))) return "confirm";
  return undefined;
}

/** The words a yes/no prompt takes: "yes"/"no" where it spells them out, else "y"/"n". */
export function confirmWords(line: string): { yes: string; no: string } {
  return /yes\/no/i.test(line) ? { yes: "yes", no: "no" } : { yes: "y", no: "n" };
}

// A full-screen pinentry (pinentry-curses, as gpg-agent starts it for a passphrase or PIN) draws a box: its
// entry line (label, then a field of underscores, '*' for what is typed) between borders, and a row with
// <OK> and <Cancel>. Borders are ncurses' box characters: `x` (its ASCII fallback for the vertical line,
// how tmux keeps them without a UTF-8 locale), `|`, or the Unicode lines.
const BORDER = "[x|\u2502\u2503\u2551]";
const PINENTRY_FIELD = new RegExp(
  `^\\s*${BORDER}\\s+((?:passphrase|password|passcode|pin)\\s*:)\\s*\\**_*\\s*${BORDER}\\s*$`,
  "i",
);
const PINENTRY_BUTTONS = new RegExp(`^\\s*${BORDER}\\s+<OK>\\s+<Cancel>\\s+${BORDER}\\s*$`);

/** Programs that show a file's text full-screen: a pinentry's text there is no prompt of theirs. */
const VIEWERS = new Set(["less", "more", "most", "man", "pg", "w3m", "vi", "vim", "nvim", "view", "nano", "emacs"]);

/** What is known of the terminal a screen comes from, where known. */
export interface ScreenFacts {
  /** The program in front (tmux's pane_current_command). */
  command?: string;
  /** Whether the alternate screen is on (tmux's alternate_on). */
  alternate?: boolean;
}

/**
 * The entry label (`"Passphrase:"`, `"PIN:"`) when `lines` (a screen) show a
 * full-screen pinentry asking for a secret, else undefined; always undefined
 * when the program in front is an editor or pager (showing text), or when
 * the alternate screen is known to be off (pinentry-curses draws on it: the
 * box in the normal screen is text printed there, with a shell perhaps
 * reading below it).
 */
export function pinentryField(lines: readonly string[], facts: ScreenFacts = {}): string | undefined {
  if (facts.alternate === false || (facts.command !== undefined && VIEWERS.has(facts.command))) return undefined;
  let label: string | undefined;
  for (const line of lines) {
    const field = PINENTRY_FIELD.exec(line);
    if (field && /[_*]{4,}/.test(line)) label = field[1];
    else if (label !== undefined && PINENTRY_BUTTONS.test(line)) return label;
  }
  return undefined;
}

/**
 * What a screen asks for: a full-screen pinentry (its entry label as the line, `pinentry` set) or the prompt its
 * last line with text ends with; `facts` as for {@linkcode pinentryField}.
 */
export function screenPrompt(
  lines: readonly string[],
  facts: ScreenFacts = {},
): { kind: "secret" | "confirm" | undefined; line: string; pinentry?: true } {
  const field = pinentryField(lines, facts);
  if (field) return { kind: "secret", line: field, pinentry: true };
  let line = "";
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].trim() !== "") {
      line = lines[i];
      break;
    }
  }
  return { kind: promptKind(line), line };
}

/**
 * Whether a terminal in `mode` is read key by key by a program that takes each key as it comes (`read -n1`, a
 * program in cbreak mode): out of line mode with echo on. A line editor is out of line mode too (readline, Node's
 * readline, zle, prompt libraries) but turns echo off and echoes itself; it ends an answer at Enter, so it is not
 * one: out of line mode with echo off cannot be told apart from a curses one-key reader, and gets Enter.
 *
 * @example
 * ```ts
 * readsKeyByKey({ canonical: false, echo: true }); // true
 * readsKeyByKey({ canonical: false, echo: false }); // false
 * ```
 */
export function readsKeyByKey(mode: { canonical?: boolean; echo?: boolean } | undefined): boolean {
  return mode?.canonical === false && mode.echo === true;
}
