import { z } from "zod";
import { defineTool } from "../declared.ts";
import { sessionId } from "./schemas.ts";

export default defineTool({
  name: "pty_get_cursor_position",
  title: "Where the cursor is",
  description: "The cursor's 0-based row and column in a pty session.",
  toolset: "pty",
  tier: "readonly",
  smallResult: true,
  input: z.object({ session_id: sessionId }),
  output: z.object({ session_id: z.string(), row: z.number().int(), col: z.number().int() }),
  secrets: [],
  async handler({ session_id }, ctx) {
    const { row, col } = await ctx.terminal.cursor(session_id);
    return { structured: { session_id, row, col } };
  },
});
