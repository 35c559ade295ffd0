import { z } from "zod";
import { defineTool } from "../declared.ts";
import { formerName, ptyId } from "./schemas.ts";

export default defineTool({
  name: "pty-get-cursor-position",
  replaces: formerName("pty-get-cursor-position"),
  title: "Where the cursor is",
  description: "The cursor's 0-based row and column in a pty session.",
  toolset: "pty",
  tier: "readonly",
  smallResult: true,
  input: z.object({ pty_id: ptyId }),
  output: z.object({ pty_id: z.string(), row: z.number().int(), col: z.number().int() }),
  secrets: [],
  async handler({ pty_id }, ctx) {
    const { row, col } = await ctx.terminal.cursor(pty_id);
    return { structured: { pty_id, row, col } };
  },
});
