import { z } from "zod";
import { defineTool } from "../declared.ts";
import { lastLines } from "../../terminal/backend.ts";
import { SCROLLBACK_LINES } from "../../terminal/emulator.ts";
import { formerName, ptyId } from "./schemas.ts";

export default defineTool({
  name: "pty-get-scrollback",
  replaces: formerName("pty-get-scrollback"),
  title: "Read a session's history",
  description: "A pty session's newest lines, scrollback then screen.",
  toolset: "pty",
  tier: "readonly",
  input: z.object({
    pty_id: ptyId,
    lines: z.number().int().min(1).max(SCROLLBACK_LINES).default(200),
  }),
  output: z.object({ pty_id: z.string(), line_count: z.number().int(), text: z.string() }),
  textField: "text",
  secrets: [],
  async handler({ pty_id, lines }, ctx) {
    const out = lastLines(await ctx.terminal.lines(pty_id, lines), lines);
    const text = out.join("\n");
    return { structured: { pty_id, line_count: out.length, text }, content: [{ type: "text", text }] };
  },
});
