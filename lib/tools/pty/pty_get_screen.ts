import { z } from "zod";
import { defineTool } from "../declared.ts";
import { formerName, ptyId } from "./schemas.ts";
import { screenImage } from "../screen_image.ts";
import { promptWarning, toldForMode, type Warning, warningsSchema } from "../../exec/warnings.ts";

export default defineTool({
  name: "pty-get-screen",
  replaces: { ...formerName("pty-get-screen"), pty_get_cursor_position: "pty-get-screen (its cursor)" },
  title: "Read a session's screen",
  description: "A pty session's screen and cursor (kept after exit).",
  toolset: "pty",
  tier: "readonly",
  input: z.object({
    pty_id: ptyId,
    include_colors: z.boolean().default(false),
    format: z.enum(["text", "png"]).optional(),
  }),
  output: z.object({
    pty_id: z.string(),
    rows: z.number().int(),
    cols: z.number().int(),
    cursor: z.object({ row: z.number().int(), col: z.number().int() }).describe("0-based"),
    screen: z.string(),
    warnings: warningsSchema.optional().describe("present at a prompt or exit"),
  }),
  textField: "screen",
  secrets: [],
  async handler({ pty_id, include_colors, format }, ctx) {
    const png = format === "png";
    // One snapshot: a cursor read apart from the screen may belong to a later one.
    const s = await ctx.terminal.screen(pty_id, include_colors || png);
    const cursor = s.cursor;
    // The screen of a program that has ended looks like one that waits: say which it is.
    const ended: Warning | undefined = s.exited && {
      kind: "exited",
      message: `pty session ${pty_id}'s program has exited${
        s.exited.code === undefined ? "" : ` (exit code ${s.exited.code})`
      }: this is the screen it left; pty-kill-session removes the session, pty-launch starts a new one`,
    };
    if (png) {
      const structured = {
        pty_id,
        rows: s.rows,
        cols: s.cols,
        cursor,
        screen: "",
        ...(ended ? { warnings: [ended] } : {}),
      };
      return { structured, content: [await screenImage(ctx, { ...s, cursor }, structured)] };
    }
    const screen = s.lines.join("\n");
    if (ended) {
      return {
        structured: { pty_id, rows: s.rows, cols: s.cols, cursor, screen, warnings: [ended] },
        content: [{ type: "text", text: screen }, { type: "text", text: ended.message }],
      };
    }
    // A program at a password or yes/no prompt: say which call hands it to the user.
    const seen = promptWarning(s.lines, {
      name: `pty session ${pty_id}`,
      arg: `pty_id: "${pty_id}"`,
      keys: "pty-send-keys",
    });
    // A password prompt's words on a terminal that echoes: no secret goes there (request-input refuses it); a
    // question read key by key: its key alone.
    const prompt = seen && toldForMode([seen], await ctx.terminal.inputState(pty_id))[0];
    return {
      structured: { pty_id, rows: s.rows, cols: s.cols, cursor, screen, ...(prompt ? { warnings: [prompt] } : {}) },
      content: [{ type: "text", text: screen }, ...(prompt ? [{ type: "text" as const, text: prompt.message }] : [])],
    };
  },
});
