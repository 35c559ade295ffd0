/**
 * `key_names` of pty-send-keys → bytes, the same on both backends.
 *
 * The byte table is `lib/tmux/keys.ts`. One refinement mirrors a real
 * terminal (and tmux's own `send-keys Up`): while the program has switched
 * the cursor keys to application mode (DECCKM, as full-screen programs and
 * some line editors do), the unmodified arrow keys are sent as `ESC O A`…
 * instead of `ESC [ A`…. The mode is asked of the backend only when an arrow
 * key is named, and the raw `keys` string is never rewritten.
 *
 * @example
 * ```ts
 * declare const backend: { applicationCursor(id: string): Promise<boolean> }; // a TerminalBackend
 * const bytes = await keyNamesToBytes(["Up", "Enter"], () => backend.applicationCursor("s1"));
 * ```
 */
import { UserError } from "../errors.ts";
import { KEY_NAME_HELP, keySequence } from "../tmux/keys.ts";

// deno-lint-ignore no-control-regex
const PLAIN_ARROW = /^\x1b\[([ABCD])$/;

/** The bytes for `names`; throws a {@linkcode UserError} naming the first unknown key. */
export async function keyNamesToBytes(
  names: readonly string[],
  applicationCursor: () => Promise<boolean>,
): Promise<Uint8Array> {
  const seqs = names.map((name) => {
    const seq = keySequence(name);
    if (seq === undefined) throw new UserError(`unknown key name ${JSON.stringify(name)}: use ${KEY_NAME_HELP}`);
    return seq;
  });
  const appMode = seqs.some((s) => PLAIN_ARROW.test(s)) && await applicationCursor();
  const text = seqs.map((s) => appMode ? s.replace(PLAIN_ARROW, "\x1bO$1") : s).join("");
  return new TextEncoder().encode(text);
}
