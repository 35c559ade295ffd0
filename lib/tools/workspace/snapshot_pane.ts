import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool.ts";
import { capturePane } from "../../tmux/capture.ts";
import { paneShape, paneTarget } from "./shapes.ts";
import { paneWarnings, warningsSchema } from "../../exec/warnings.ts";

export default defineTool({
  name: "snapshot-pane",
  title: "Where a pane stands: screen, cursor, mode",
  description: "One call that tells where a pane stands: its visible screen as text (one line per screen row, " +
    "so cursor_y is the line index of the cursor; blank rows below the cursor are trimmed) plus the pane's " +
    "facts: size, cursor_x/cursor_y, current_command, mode (copy-mode…, null when none), alternate_on " +
    "(a full-screen program such as vim or less), dead, history_size; warnings (copy mode, a pager, a " +
    "full-screen program, a prompt waiting for input) each say what to do. Next: send-keys to act, capture-pane " +
    "with a negative start to read scrollback.",
  toolset: "workspace",
  tier: "readonly",
  annotations: READ_ONLY,
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
