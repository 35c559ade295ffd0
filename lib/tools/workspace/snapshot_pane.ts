import { z } from "zod";
import { defineTool } from "../declared.ts";
import { capturePane } from "../../tmux/capture.ts";
import { paneShape, paneTarget } from "./shapes.ts";
import { paneWarnings, warningsSchema } from "../../exec/warnings.ts";
import { screenPicture } from "../../terminal/render.ts";
import { screenImage } from "../screen_image.ts";

export default defineTool({
  name: "snapshot-pane",
  title: "Snapshot a pane",
  description: "A pane's screen, facts (size, cursor, command, mode) and warnings.",
  toolset: "workspace",
  tier: "readonly",
  textField: "text",
  input: z.object({
    target: paneTarget,
    format: z.enum(["text", "png", "svg"]).default("text"),
  }),
  output: paneShape.extend({
    defaulted: z.boolean().describe("true when no target was given and the default pane was used"),
    warnings: warningsSchema,
    text: z.string(),
  }),
  secrets: [],
  async handler({ target, format }, ctx) {
    const colors = format !== "text";
    const c = await capturePane(ctx.tmux, target, {
      maxLines: 10_000,
      keepTrailingBlank: true,
      colors,
      signal: ctx.signal,
    });
    // Rows up to the cursor line up with cursor_y; blank rows after it carry nothing.
    const rows = c.text.split("\n");
    let last = rows.length;
    while (last > c.pane.cursor_y + 1 && rows[last - 1].trim() === "") last--;
    const text = rows.slice(0, last).join("\n");
    const facts = { ...c.pane, defaulted: c.defaulted, warnings: paneWarnings(c.pane, rows.slice(0, last)) };
    if (!colors) {
      return {
        structured: { ...facts, text },
        content: [{ type: "text", text }, { type: "text", text: JSON.stringify(facts) }],
      };
    }
    const factsBlock = { type: "text" as const, text: JSON.stringify(facts) };
    const src = {
      lines: rows.slice(-c.pane.height),
      rows: c.pane.height,
      cols: c.pane.width,
      cursor: { row: c.pane.cursor_y, col: c.pane.cursor_x },
    };
    const structured = { ...facts, text: "" };
    if (format === "png") {
      return { structured, content: [await screenImage(ctx, src, structured, [factsBlock]), factsBlock] };
    }
    const { svg } = await screenPicture({ ...src, find: ctx.redactor?.find }, "svg") as { svg: string };
    return { structured: { ...facts, text: svg }, content: [{ type: "text", text: svg }, factsBlock] };
  },
});
