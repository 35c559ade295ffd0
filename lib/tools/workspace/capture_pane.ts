import { z } from "zod";
import { defineTool } from "../tool.ts";
import { capturePane } from "../../tmux/capture.ts";
import { paneTarget, resolvedOf, resolvedShape } from "./shapes.ts";
import { paneWarnings, warningsSchema } from "../../exec/warnings.ts";

const LINE = z.number().int().min(-10_000_000).max(100_000);

export default defineTool({
  name: "capture-pane",
  title: "Read a pane's text",
  description:
    "A pane's newest max_lines lines, or lines start..end (0 = screen top, negative = scrollback), with warnings.",
  toolset: "workspace",
  tier: "readonly",
  textField: "text",
  input: z.object({
    target: paneTarget,
    start: LINE.optional(),
    end: LINE.optional().describe("default: bottom"),
    max_lines: z.number().int().min(1).max(100_000).default(200).describe("newest kept"),
    join_wrapped: z.boolean().default(true),
    colors: z.boolean().default(false),
  }),
  output: z.object({
    ...resolvedShape,
    lines: z.number().int(),
    dropped_lines: z.number().int().describe("older lines cut to respect max_lines"),
    warnings: warningsSchema,
    text: z.string(),
  }),
  secrets: [],
  async handler({ target, start, end, max_lines, join_wrapped, colors }, ctx) {
    const c = await capturePane(ctx.tmux, target, {
      // Default: reach back max_lines into scrollback; keepNewest trims the screen's share.
      start: start ?? (end === undefined ? -max_lines : undefined),
      end,
      join: join_wrapped,
      colors,
      maxLines: max_lines,
      signal: ctx.signal,
    });
    // Prompts are recognised on the bottom line, so only when the capture reaches it.
    const warnings = paneWarnings(c.pane, end === undefined ? c.text.split("\n") : []);
    const facts = { ...resolvedOf(c.pane, c.defaulted), lines: c.lines, dropped_lines: c.dropped_lines, warnings };
    return {
      structured: { ...facts, text: c.text },
      content: [{ type: "text", text: c.text }, { type: "text", text: JSON.stringify(facts) }],
    };
  },
});
