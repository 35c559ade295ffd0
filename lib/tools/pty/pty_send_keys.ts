import { z } from "zod";
import { ptyEchoKey } from "../../exec/typed.ts";
import { defineTool } from "../declared.ts";
import { UserError } from "../../errors.ts";
import { keyNamesToBytes } from "../../terminal/keys.ts";
import { formerName, ptyId } from "./schemas.ts";
import { refuseHiddenSessionRead, sessionKeysWarning } from "../../exec/keys_warning.ts";

const encoder = new TextEncoder();

export default defineTool({
  name: "pty-send-keys",
  replaces: formerName("pty-send-keys"),
  title: "Type into a session",
  description: "Sends keys as is (\\n Enter, \\u0003 Ctrl-C), then key_names (Enter, Up, C-c, M-x, F1…).",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true, openWorldHint: true },
  input: z.object({
    pty_id: ptyId,
    keys: z.string().max(100_000, "keys is longer than 100000 characters: send it in parts").optional(),
    key_names: z.array(z.string().min(1).max(32, "a key name is at most 32 characters"))
      .max(256, "at most 256 key names per call").optional(),
  }),
  output: z.object({ pty_id: z.string(), bytes_sent: z.number().int() }),
  secrets: ["keys", "key_names"],
  async handler({ pty_id, keys, key_names }, ctx) {
    const named = key_names?.length
      // The internal backend's programs run on an xterm (TERM=xterm-256color), the tmux backend's in tmux.
      ? await keyNamesToBytes(key_names, () => ctx.terminal.applicationCursor(pty_id), ctx.terminal.name === "pty")
      : new Uint8Array(0);
    const text = encoder.encode(keys ?? "");
    if (text.length + named.length === 0) {
      throw new UserError("nothing to send: give `keys` (text) and/or `key_names`");
    }
    if (keys) await refuseHiddenSessionRead(ctx.terminal, pty_id, keys);
    const bytes = new Uint8Array(text.length + named.length);
    bytes.set(text);
    bytes.set(named, text.length);
    await ctx.terminal.send(pty_id, bytes);
    // Control characters aside (\u0003 is Ctrl-C, not text), what was typed echoes on the line (lib/exec/typed.ts).
    if (keys) ctx.exec.typed.note(ptyEchoKey(pty_id), [...keys].filter((c) => !isControl(c)).join(""));
    // A prompt the keys left waiting, or one the line they ended brought up: say which call hands it over.
    const last = bytes.at(-1);
    const warning = await sessionKeysWarning(ctx.terminal, pty_id, last === 0x0d || last === 0x0a, ctx.signal);
    const structured = { pty_id, bytes_sent: bytes.length };
    if (!warning) return { structured };
    // In the text only: the listing of this small tool stays as it was (pty-get-screen has it structured).
    const blocks = [JSON.stringify(structured), warning.message].map((t) => ({ type: "text" as const, text: t }));
    return { structured, content: blocks };
  },
});

/** A control character other than a line end (which ends a typed line, and stays). */
function isControl(c: string): boolean {
  const code = c.charCodeAt(0);
  return (code < 0x20 && c !== "\n" && c !== "\r") || code === 0x7f;
}
