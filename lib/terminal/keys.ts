/**
 * `key_names` of pty-send-keys → bytes, the same on both backends.
 *
 * The byte table is `lib/tmux/keys.ts`. Two refinements mirror a real
 * terminal. While the program has switched the cursor keys to application
 * mode (DECCKM, as full-screen programs and some line editors do), the
 * unmodified arrow keys are sent as `ESC O A`… instead of `ESC [ A`… (as
 * tmux's own `send-keys Up` does). And where the program's terminal is an
 * xterm (the internal backend's TERM), Home and End are xterm's: `ESC [ H`,
 * `ESC [ F`, or `ESC O H`, `ESC O F` in application mode; tmux's `ESC [ 1 ~`,
 * `ESC [ 4 ~` mean other keys there, or none (a curses program read four
 * keys). The mode is asked of the backend only when such a key is named, and
 * the raw `keys` string is never rewritten.
 *
 * @example
 * ```ts
 * declare const backend: { applicationCursor(id: string): Promise<boolean> }; // a TerminalBackend
 * const bytes = await keyNamesToBytes(["Up", "Enter"], () => backend.applicationCursor("s1"), false);
 * ```
 */
import { UserError } from "../errors.ts";
import { KEY_NAME_HELP, keySequence } from "../tmux/keys.ts";

/** An unmodified cursor key in normal mode: the arrows, and xterm's Home and End. */
// deno-lint-ignore no-control-regex
const CURSOR_KEY = /^\x1b\[([ABCDHF])$/;
/** tmux's Home and End, and xterm's letters for them. */
const HOME_END: Record<string, string> = { "\x1b[1~": "H", "\x1b[4~": "F" };

/**
 * The bytes for `names`, for a program on an xterm (`xterm`) or in tmux; throws a {@linkcode UserError} naming the
 * first unknown key.
 */
export async function keyNamesToBytes(
  names: readonly string[],
  applicationCursor: () => Promise<boolean>,
  xterm: boolean,
): Promise<Uint8Array> {
  const seqs = names.map((name) => {
    const seq = keySequence(name);
    if (seq === undefined) throw new UserError(`unknown key name ${JSON.stringify(name)}: use ${KEY_NAME_HELP}`);
    return xterm && HOME_END[seq] ? `\x1b[${HOME_END[seq]}` : seq;
  });
  const appMode = seqs.some((s) => CURSOR_KEY.test(s)) && await applicationCursor();
  const text = seqs.map((s) => appMode ? s.replace(CURSOR_KEY, "\x1bO$1") : s).join("");
  return new TextEncoder().encode(text);
}
