import { z } from "zod";
import { defineTool } from "../declared.ts";
import { capturePane } from "../../tmux/capture.ts";
import { paneShape, paneTarget } from "./shapes.ts";
import { paneWarnings, warningsSchema } from "../../exec/warnings.ts";

export default defineTool({
  name: "snapshot-pane",
  title: "Snapshot a pane",
  description: "A pane's screen, facts (size, cursor, command, mode) and warnings.",
  toolset: "workspace",
  tier: "readonly",
  textField: "text",
  input: z.object({ target: paneTarget }),
  output: paneShape.extend({
    defaulted: z.boolean().describe("true when no target was given and the default pane was used"),
    warnings: warningsSchema,
    text: z.string(),
  }),
  secrets: [],
  async handler({ target }, ctx) {
    const c = await capturePane(ctx.tmux, target, { maxLines: 10_000, keepTrailingBlank: true, signal: ctx.signal });
    // Rows up to the cursor line up with cursor_y; blank rows after it carry nothing.
    const rows = c.text.split("\n");
    let last = rows.length;
    while (last > c.pane.cursor_y + 1 && rows[last - 1].trim() === "") last--;
    const text = rows.slice(0, last).join("\n");
    const facts = { ...c.pane, defaulted: c.defaulted, warnings: paneWarnings(c.pane, rows.slice(0, last)) };
    return {
      structured: { ...facts, text },
      content: [{ type: "text", text }, { type: "text", text: JSON.stringify(facts) }],
    };
  },
});
