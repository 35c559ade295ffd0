/**
 * The lines this server typed into each pane (send-keys' and paste-text's
 * text), so that a wait does not take their echo for output. A shell echoes
 * a typed command on its prompt line: `sleep 5; echo DONE` typed, a wait for
 * `DONE` over the screen would match `~/src$ sleep 5; echo DONE` at once,
 * five seconds before the command printed it. A screen line is such an echo
 * when it ends with a line typed there (at least {@linkcode MIN_ECHO}
 * characters, so a `y` typed at a prompt does not hide every line ending in
 * `y`) and something (the prompt) stands before it. Only digests are kept: the
 * text may be a secret.
 *
 * @example
 * ```ts
 * const typed = new TypedLines();
 * typed.note("%3", "sleep 5; echo DONE\n");
 * typed.isEcho("%3", "~/src$ sleep 5; echo DONE"); // true
 * typed.isEcho("%3", "DONE"); // false: the command's own output
 * ```
 */
import { sha256Hex } from "../text/hash.ts";

/** Typed lines shorter than this (trimmed) are not looked for: their echo cannot be told from output. */
export const MIN_ECHO = 6;
/** Typed lines remembered per pane, and panes remembered; the oldest are forgotten. */
const PER_PANE = 16;
const PANES = 256;

/** The key a pty session's typed lines are kept under (pane ids start with `%`, so the two never meet). */
export function ptyEchoKey(ptyId: string): string {
  return `pty:${ptyId}`;
}

interface Digest {
  length: number;
  hash: string;
}

export class TypedLines {
  #byPane = new Map<string, Digest[]>();

  /** Notes the text typed into `pane` (each of its lines). */
  note(pane: string, text: string): void {
    const lines = text.split(/\r\n|[\r\n]/).map((l) => l.trim()).filter((l) => l.length >= MIN_ECHO);
    if (lines.length === 0) return;
    const kept = this.#byPane.get(pane) ?? [];
    this.#byPane.delete(pane);
    for (const l of lines) kept.push({ length: l.length, hash: sha256Hex(l) });
    this.#byPane.set(pane, kept.slice(-PER_PANE));
    if (this.#byPane.size > PANES) this.#byPane.delete(this.#byPane.keys().next().value!);
  }

  /** Whether `line` (a screen line of `pane`) is the echo of a line typed there: it ends with one, after a prompt. */
  isEcho(pane: string, line: string): boolean {
    const typed = this.#byPane.get(pane);
    if (!typed) return false;
    const shown = line.trimEnd();
    return typed.some((d) => shown.length > d.length && sha256Hex(shown.slice(-d.length)) === d.hash);
  }

  /** `lines` without the echoes of lines typed into `pane`. */
  withoutEchoes(pane: string, lines: string[]): string[] {
    return this.#byPane.has(pane) ? lines.filter((l) => !this.isEcho(pane, l)) : lines;
  }
}
