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
