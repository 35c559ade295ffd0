import { z } from "zod";
import { defineTool } from "../declared.ts";
import { formerName, ptyId } from "./schemas.ts";

export default defineTool({
  name: "pty-get-screen",
  replaces: { ...formerName("pty-get-screen"), pty_get_cursor_position: "pty-get-screen (its cursor)" },
  title: "Read a session's screen",
  description: "A pty session's screen and cursor (also after its program exited).",
  toolset: "pty",
  tier: "readonly",
  input: z.object({
    pty_id: ptyId,
    include_colors: z.boolean().default(false),
  }),
  output: z.object({
    pty_id: z.string(),
    rows: z.number().int(),
    cols: z.number().int(),
    cursor: z.object({ row: z.number().int(), col: z.number().int() }).describe("0-based"),
    screen: z.string(),
  }),
  textField: "screen",
  secrets: [],
  async handler({ pty_id, include_colors }, ctx) {
    const [s, cursor] = await Promise.all([ctx.terminal.screen(pty_id, include_colors), ctx.terminal.cursor(pty_id)]);
    const screen = s.lines.join("\n");
    return {
      structured: { pty_id, rows: s.rows, cols: s.cols, cursor, screen },
      content: [{ type: "text", text: screen }],
    };
  },
});
