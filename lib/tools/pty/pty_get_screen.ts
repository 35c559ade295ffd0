import { z } from "zod";
import { defineTool } from "../declared.ts";
import { sessionId } from "./schemas.ts";

export default defineTool({
  name: "pty_get_screen",
  title: "Read a session's screen",
  description: "A pty session's screen (also after its program exited).",
  toolset: "pty",
  tier: "readonly",
  input: z.object({
    session_id: sessionId,
    include_colors: z.boolean().default(false),
  }),
  output: z.object({ session_id: z.string(), rows: z.number().int(), cols: z.number().int(), screen: z.string() }),
  textField: "screen",
  secrets: [],
  async handler({ session_id, include_colors }, ctx) {
    const s = await ctx.terminal.screen(session_id, include_colors);
    const screen = s.lines.join("\n");
    return {
      structured: { session_id, rows: s.rows, cols: s.cols, screen },
      content: [{ type: "text", text: screen }],
    };
  },
});
