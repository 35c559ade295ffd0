import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { isKeyName, KEY_NAME_HELP, tmuxKeyName } from "../../tmux/keys.ts";
import { chunkText, packCommands } from "../../tmux/batch.ts";
import { UserError } from "../../errors.ts";
import { refuseDeadPane, resolvedShape } from "./common.ts";
import { typingRead, typingRefusal } from "../../tmux/sync.ts";
import { resolve } from "../declared.ts";
import { refuseSelfInput } from "../../tmux/self.ts";
import { warningsSchema } from "../../exec/warnings.ts";
import { keysWarning, paneReadCounts } from "../../exec/keys_warning.ts";
import { refuseHiddenRead } from "../../exec/keys_warning.ts";

/** Keys that end a line, lower-cased (tmux reads key names case-insensitively): after them a program may prompt. */
const LINE_ENDS = new Set(["enter", "c-m", "c-j"]);

const keyName = z.string().max(32, "a key name is at most 32 characters").superRefine((k, ctx) => {
  if (!isKeyName(k)) {
    ctx.addIssue({
      code: "custom",
      message: `unknown key name ${JSON.stringify(k)}: a key is ${KEY_NAME_HELP}; put literal text in "text" instead`,
    });
  }
});

export default defineTool({
  name: "send-keys",
  title: "Type into a pane",
  description: "Types text, then keys, then Enter into a pane; warns at prompts.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true, openWorldHint: true },
  input: z.object({
    target: targetParam("pane").optional(),
    text: z.string().max(100_000, "text is longer than 100000 characters: use paste-text")
      .refine((s) => !s.includes("\0"), "text must not contain NUL (send the key C-@ instead)")
      .optional().describe("typed literally"),
    keys: z.array(keyName).max(200, "at most 200 keys per call").optional()
      .describe("tmux key names, e.g. C-c, Up"),
    enter: z.boolean().default(false),
  }),
  output: z.object({
    ...resolvedShape,
    text_bytes: z.number().int().describe("UTF-8 bytes of text typed"),
    keys: z.number().int().describe("number of keys pressed, Enter included"),
    warnings: warningsSchema.optional().describe("present at a prompt or a mode left"),
  }),
  secrets: ["text", "keys"],
  async handler({ target, text, keys, enter }, ctx) {
    const names = [...(keys ?? []), ...(enter ? ["Enter"] : [])];
    if (!text && names.length === 0) throw new UserError("nothing to send: give text, keys or enter: true");
    const submitted = names.length > 0 ? LINE_ENDS.has(names.at(-1)!.toLowerCase()) : /[\r\n]$/.test(text ?? "");
    // The pane's facts come with the target, in the same call: whether it is dead, for a submitted line (which is
    // watched) its first process, and its window's panes: keys tmux would drop (input off) or type into others
    // too are refused.
    const resolved = await resolve(ctx, target, typingRead);
    refuseDeadPane(resolved);
    const { read, ...t } = resolved;
    const refusal = typingRefusal(t.pane_id, read?.output, "the keys");
    if (refusal) throw refusal;
    await refuseSelfInput(ctx.tmux, t.pane_id, { text, keys, enter }, { signal: ctx.signal });
    await refuseHiddenRead(ctx.tmux, read?.pane, text, ctx.signal);
    const before = submitted ? paneReadCounts(ctx.tmux, read?.pane.pid) : undefined;
    const commands = chunkText(text ?? "").map((chunk) => ["send-keys", "-t", t.pane_id, "-l", "--", chunk]);
    if (names.length > 0) commands.push(["send-keys", "-t", t.pane_id, "--", ...names.map(tmuxKeyName)]);
    // A pane in a mode (copy mode…) reads keys through the mode's key table, whose commands tmux refuses for the
    // read-only control client ("client is read-only"), so keys were lost or the call failed: leave the mode first.
    const mode = read?.pane.in_mode ? read.pane.mode || "copy-mode" : undefined;
    if (mode) commands.unshift(["copy-mode", "-q", "-t", t.pane_id]);
    for (const argv of packCommands(commands)) await ctx.tmux.run(argv, { signal: ctx.signal });
    if (text) ctx.exec.typed.note(t.pane_id, text);
    const warning = await keysWarning(ctx.tmux, t.pane_id, submitted, ctx.signal, before);
    const left = mode && { kind: "left_mode", message: `pane ${t.pane_id} was in ${mode}: left it, then typed` };
    const warnings = [...(left ? [left] : []), ...(warning ? [warning] : [])];
    return {
      structured: {
        ...t,
        text_bytes: new TextEncoder().encode(text ?? "").length,
        keys: names.length,
        ...(warnings.length ? { warnings } : {}),
      },
    };
  },
});
