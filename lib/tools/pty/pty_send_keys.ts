import { z } from "zod";
import { defineTool } from "../declared.ts";
import { UserError } from "../../errors.ts";
import { keyNamesToBytes } from "../../terminal/keys.ts";
import { formerName, ptyId } from "./schemas.ts";
import { noEchoWarning, promptWarning, type Warning } from "../../exec/warnings.ts";
import type { TerminalBackend } from "../../terminal/backend.ts";

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
      ? await keyNamesToBytes(key_names, () => ctx.terminal.applicationCursor(pty_id))
      : new Uint8Array(0);
    const text = encoder.encode(keys ?? "");
    if (text.length + named.length === 0) {
      throw new UserError("nothing to send: give `keys` (text) and/or `key_names`");
    }
    const bytes = new Uint8Array(text.length + named.length);
    bytes.set(text);
    bytes.set(named, text.length);
    await ctx.terminal.send(pty_id, bytes);
    // Keys that end without Enter leave a prompt waiting (a line ended answered it): say which call hands it over.
    const last = bytes.at(-1);
    const warning = last === 0x0d || last === 0x0a ? undefined : await waiting(ctx.terminal, pty_id);
    const structured = { pty_id, bytes_sent: bytes.length };
    if (!warning) return { structured };
    // In the text only: the listing of this small tool stays as it was (pty-get-screen has it structured).
    const blocks = [JSON.stringify(structured), warning.message].map((t) => ({ type: "text" as const, text: t }));
    return { structured, content: blocks };
  },
});

/** The warning for a session that waits at a password or yes/no prompt (its screen, or a no-echo line read). */
async function waiting(terminal: TerminalBackend, id: string): Promise<Warning | undefined> {
  const [{ lines }, state] = await Promise.all([terminal.screen(id, false), terminal.inputState(id)]);
  const who = { name: `pty session ${id}`, arg: `pty_id: "${id}"` };
  return promptWarning(lines, { ...who, keys: "pty-send-keys" }) ??
    (state.hiddenInput ? noEchoWarning(who) : undefined);
}
