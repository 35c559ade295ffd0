import { z } from "zod";
import { defineTool } from "../tool.ts";
import { targetSchema } from "../../tmux/target.ts";
import { pasteBytes } from "../../buffers/paste.ts";
import { resolve, resolvedShape } from "./common.ts";

export default defineTool({
  name: "paste-text",
  title: "Paste text into a pane",
  description: "Pastes text into a pane the way a terminal paste does: newlines arrive as Enter (CR), and " +
    "with bracketed (default) a program that asked for bracketed paste (shells, editors) receives it as one " +
    "paste instead of typed lines. Best for multi-line input and code. Goes through a temporary paste " +
    "buffer that is always deleted. Does not press Enter after the last line: send-keys with enter for that.",
  toolset: "workspace",
  tier: "mutating",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: z.object({
    target: targetSchema.optional(),
    text: z.string().min(1, "text must not be empty").max(1_048_576, "text is longer than 1 MiB"),
    bracketed: z.boolean().default(true).describe("wrap in bracketed-paste markers if the program enabled them"),
  }),
  output: z.object({ ...resolvedShape, bytes: z.number().int().describe("UTF-8 bytes pasted") }),
  secrets: ["text"],
  async handler({ target, text, bracketed }, ctx) {
    const t = await resolve(ctx, target);
    const bytes = new TextEncoder().encode(text);
    await pasteBytes(ctx.tmux, bytes, t.pane_id, { bracketed, signal: ctx.signal });
    return { structured: { ...t, bytes: bytes.length } };
  },
});
