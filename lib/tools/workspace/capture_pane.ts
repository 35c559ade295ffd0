import { z } from "zod";
import { defineTool } from "../declared.ts";
import { capturePane, captureRows, isBlankLine, lastLineOf, type RowCapture, rowsText } from "../../tmux/capture.ts";
import { largestFitting, textPrefix } from "../../budget/page.ts";
import { UserError } from "../../errors.ts";
import { paneFacts } from "../../tmux/panes.ts";
import type { Row } from "../../tmux/rows.ts";
import { paneTarget, resolvedShape } from "./shapes.ts";
import { resolvedOf } from "../../tmux/target.ts";
import { paneWarnings, warningsSchema } from "../../exec/warnings.ts";

const LINE = z.number().int().min(-10_000_000).max(100_000);

/** Lines returned without a start or a max_lines: the newest. */
const DEFAULT_MAX_LINES = 200;

/** Most lines of a start..end range (LINE's extent): the range is never cut by a line limit. */
const MAX_RANGE_LINES = 10_100_001;

/**
 * The pane facts this tool reports (ids), warns from, and places lines by
 * (height, history): 10 of the 27 fields; tmux expands every field it is
 * asked for on each call.
 */
export const FACTS = paneFacts([
  "session_id",
  "window_id",
  "height",
  "history_size",
  "current_command",
  "alternate_on",
  "in_mode",
  "mode",
  "dead",
]);
type Facts = Row<typeof FACTS.spec>;

export default defineTool({
  name: "capture-pane",
  title: "Read a pane's text",
  description:
    "A pane's newest max_lines lines, or lines start..end (0 = screen top, negative = scrollback), with warnings.",
  toolset: "workspace",
  tier: "readonly",
  textField: "text",
  pagesNatively: true,
  input: z.object({
    target: paneTarget,
    start: LINE.optional(),
    end: LINE.optional().describe("default: bottom"),
    max_lines: z.number().int().min(1).max(100_000).optional()
      .describe("newest kept (default 200; none with start)"),
    join_wrapped: z.boolean().default(true),
    colors: z.boolean().default(false),
  }),
  output: z.object({
    ...resolvedShape,
    lines: z.number().int(),
    dropped_lines: z.number().int().describe("older lines cut by max_lines: raise it for them"),
    warnings: warningsSchema,
    truncated_by_budget: z.literal(true).optional().describe("present if cut"),
    next_start: z.number().int().optional().describe("present if cut"),
    text: z.string(),
  }),
  secrets: [],
  async handler({ target, start, end, max_lines: asked, join_wrapped, colors }, ctx) {
    // A range the model chose is returned whole (paged by the budget below), not cut to a default it never set.
    const max_lines = asked ?? (start === undefined ? DEFAULT_MAX_LINES : MAX_RANGE_LINES);
    // Default: reach back max_lines into scrollback; keepNewest trims the screen's share.
    const from = start ?? (end === undefined ? -max_lines : undefined);
    const c = await capturePane(ctx.tmux, target, {
      start: from,
      end,
      join: join_wrapped,
      colors,
      maxLines: max_lines,
      facts: FACTS,
      signal: ctx.signal,
    });
    if (start !== undefined && start > c.pane.height - 1) {
      throw new UserError(
        `start ${start} is below the last line of pane ${c.pane.pane_id} (lines run from -${c.pane.history_size} ` +
          `to ${c.pane.height - 1}): pass a start in that range`,
      );
    }
    // Prompts are recognised on the bottom line, so only when the capture reaches it (its last line: blank
    // ones are trimmed); a full-screen program's prompt (a pinentry box) on the lines of its screen.
    const bottom = c.pane.alternate_on ? c.text.split("\n").slice(-c.pane.height) : [lastLineOf(c.text)];
    const warnings = paneWarnings(c.pane, end === undefined ? bottom : []);
    const whole = output(c.pane, c.defaulted, c.text, c.lines, c.dropped_lines, warnings);
    if (ctx.budget.fits(whole)) return whole;
    // Over the response budget: the first rows of the capture that fit, and the line to go on from.
    const rows = await captureRows(ctx.tmux, c.pane.pane_id, {
      start: from,
      end,
      join: join_wrapped,
      colors,
      facts: FACTS,
      signal: ctx.signal,
    });
    const kept = keptLines(rows, max_lines);
    const page = (k: number) => {
      const from = kept.starts[0];
      const text = rowsText(rows.rows, rows.wrapped, from, from + k);
      const more = from + k < kept.end;
      return output(rows.pane, c.defaulted, text, text.split("\n").length, kept.dropped, paneWarnings(rows.pane, []), {
        ...(more ? { truncated_by_budget: true as const, next_start: rows.first + from + k } : {}),
      });
    };
    // Whole lines where one fits; else the rows of the first line that fit (the next page has the rest of it).
    const lineEnd = (l: number) => (l < kept.starts.length ? kept.starts[l] : kept.end) - kept.starts[0];
    // The pane was cleared between the reads: it holds nothing now (never the over-budget first read).
    if (kept.starts.length === 0) {
      return output(rows.pane, c.defaulted, "", 0, kept.dropped, paneWarnings(rows.pane, []));
    }
    if (!ctx.budget.fits(page(lineEnd(1)))) {
      const first = page(largestFitting(1, lineEnd(1), (k) => ctx.budget.fits(page(k))));
      if (ctx.budget.fits(first)) return first;
      // One row alone is over the budget (a wide pane, colors): its first characters that fit, saying so.
      const row = rows.rows[kept.starts[0]];
      const cutRow = (n: number) => {
        const text = textPrefix(row, n);
        const why = `line ${rows.first + kept.starts[0]} of pane ${rows.pane.pane_id} is cut to its first ` +
          `${text.length} of ${row.length} characters to fit the response budget: ` +
          (colors
            ? "capture it with colors false to see more of it"
            : "resize the window narrower (resize-pane) to read it in parts");
        const more = 1 < kept.end - kept.starts[0];
        return output(rows.pane, c.defaulted, text, 1, kept.dropped, [
          ...paneWarnings(rows.pane, []),
          { kind: "lines_missed" as const, message: why },
        ], more ? { truncated_by_budget: true, next_start: rows.first + kept.starts[0] + 1 } : {});
      };
      const n = largestFitting(0, row.length, (n) => ctx.budget.fits(cutRow(n)));
      // Not one character fits beside the page's other fields: next_start would pass over the whole line.
      if (textPrefix(row, n).length === 0) {
        throw ctx.budget.tooSmall(`a page with line ${rows.first + kept.starts[0]} of pane ${rows.pane.pane_id}`);
      }
      return cutRow(n);
    }
    return page(lineEnd(largestFitting(1, kept.starts.length, (l) => ctx.budget.fits(page(lineEnd(l))))));
  },
});

/**
 * The lines capture-pane returns of a row capture (trailing blank lines
 * dropped, then the newest max_lines kept): the row each starts at, the row
 * after the last, and how many older lines max_lines dropped.
 */
function keptLines(c: RowCapture<Facts>, maxLines: number): { starts: number[]; end: number; dropped: number } {
  const starts = [0];
  for (let i = 0; i < c.rows.length - 1; i++) if (!c.wrapped[i]) starts.push(i + 1);
  if (c.rows.length === 0) starts.pop();
  const endOf = (l: number) => l + 1 < starts.length ? starts[l + 1] : c.rows.length;
  let lines = starts.length;
  while (lines > 0 && isBlankLine(rowsText(c.rows, c.wrapped, starts[lines - 1], endOf(lines - 1)))) lines--;
  const dropped = Math.max(0, lines - maxLines);
  return { starts: starts.slice(dropped, lines), end: lines ? endOf(lines - 1) : 0, dropped };
}

function output(
  pane: Facts,
  defaulted: boolean,
  text: string,
  lines: number,
  dropped: number,
  warnings: ReturnType<typeof paneWarnings>,
  paging: { truncated_by_budget?: true; next_start?: number } = {},
) {
  const facts = { ...resolvedOf(pane, defaulted), lines, dropped_lines: dropped, warnings, ...paging };
  return {
    structured: { ...facts, text },
    content: [{ type: "text" as const, text }, { type: "text" as const, text: JSON.stringify(facts) }],
  };
}
