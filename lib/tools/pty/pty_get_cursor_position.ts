import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool.ts";
import { sessionId } from "./schemas.ts";

export default defineTool({
  name: "pty_get_cursor_position",
  title: "Where the cursor is",
  description: "Returns the cursor's position on a pty session's screen, 0-based: row 0 is the top line of " +
    "pty_get_screen, col 0 its first column. Useful to see which field or prompt is waiting for input.",
  toolset: "pty",
  tier: "readonly",
  annotations: READ_ONLY,
  input: z.object({ session_id: sessionId }),
  output: z.object({ session_id: z.string(), row: z.number().int(), col: z.number().int() }),
  secrets: [],
  async handler({ session_id }, ctx) {
    const { row, col } = await ctx.terminal.cursor(session_id);
    return { structured: { session_id, row, col } };
  },
});
