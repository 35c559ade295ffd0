import { z } from "zod";
import { hostAddress, type ToolContext } from "../tool.ts";
import { defineTool } from "../declared.ts";
import { resolvedTarget } from "../declared.ts";
import { resolvedShape } from "../workspace/shapes.ts";
import { resolvedOf } from "../../tmux/target.ts";
import { UserError } from "../../errors.ts";
import {
  firstLineRows,
  type Position,
  positionAfter,
  readScreen,
  readSince,
  type ScreenRead,
} from "../../tmux/grid.ts";
import { largestFitting, textPrefix } from "../../budget/page.ts";
import { cursorSchema, decodeCursor, encodeCursor } from "../../exec/cursor.ts";
import { paneWarnings, warningsSchema } from "../../exec/warnings.ts";

export default defineTool({
  name: "capture-since",
  title: "Read a pane's new output",
  description:
    "Follows a pane's output: without cursor, the screen and a cursor; with it, what appeared since and the next cursor.",
  toolset: "exec",
  tier: "readonly",
  textField: "text",
  pagesNatively: true,
  input: z.object({
    cursor: cursorSchema.optional(),
    max_lines: z.number().int().min(1).max(20000).default(400).describe("last kept"),
  }),
  output: z.object({
    ...resolvedShape,
    text: z.string().describe("the new lines (the whole visible screen on the first call)"),
    line_count: z.number().int(),
    first_call: z.boolean().describe("true when no cursor was given: text is the visible screen"),
    lines_missed: z.boolean(),
    dropped_lines: z.number().int().describe("lines left out at the start to respect max_lines"),
    cursor: z.string().describe("pass this to the next capture-since call"),
    warnings: warningsSchema,
    truncated_by_budget: z.literal(true).optional().describe("present if cut"),
  }),
  secrets: [],
  target: "pane",
  // With a cursor, an omitted target is the cursor's pane (a damaged cursor is refused here, before any tmux call).
  targetDefault: ({ cursor }) => {
    if (cursor === undefined) return undefined;
    const pane = decodeCursor(cursor).pane;
    return { target: pane, gone: gone(pane) };
  },
  async handler({ target, cursor, max_lines }, ctx) {
    const t = resolvedTarget(ctx);
    if (cursor === undefined) {
      const s = await readScreen(ctx.tmux, t.pane_id, ctx.signal, max_lines);
      return fitted(ctx, { ...s, defaulted: t.defaulted }, {
        first_call: true,
        lines_missed: false,
        dropped_lines: s.dropped,
      });
    }
    const c = decodeCursor(cursor);
    if (t.pane_id !== c.pane) {
      throw new UserError(
        `this cursor belongs to pane ${c.pane}, not ${t.pane_id} (target ${JSON.stringify(target)}): pass it ` +
          `without target (or with ${c.pane}), or omit cursor to start over on ${t.pane_id}`,
      );
    }
    let read;
    try {
      read = await readSince(ctx.tmux, c.pane, c.pos, { maxRows: max_lines, signal: ctx.signal });
    } catch (e) {
      throw e instanceof UserError ? new UserError(gone(c.pane)) : e;
    }
    if (read.pane.pid !== c.pid) {
      throw new UserError(
        `pane ${c.pane} was respawned since this cursor was taken (it runs another process now): call ` +
          `capture-since without cursor to start over`,
      );
    }
    return fitted(ctx, read, { first_call: false, lines_missed: read.missed, dropped_lines: read.dropped });
  },
});

function gone(pane: string): string {
  return `pane ${pane} of this cursor no longer exists: call list (what: panes), then capture-since without cursor`;
}

/**
 * The result of a read, fitted to the response budget: whole when it fits;
 * else its first lines that fit (rows of the first line when not even that
 * line fits), with a cursor right after them, so the next call goes on with
 * no line lost or repeated.
 */
function fitted(
  ctx: ToolContext,
  read: ScreenRead,
  facts: { first_call: boolean; lines_missed: boolean; dropped_lines: number },
) {
  const out = (text: string, lines: number, pos: Position, cut: boolean) => ({
    structured: {
      ...resolvedOf(read.pane, read.defaulted),
      text,
      line_count: lines,
      ...facts,
      // HOST::CURSOR with several hosts: a cursor given without target goes back to its own host's pane.
      cursor: hostAddress(ctx, encodeCursor({ pane: read.pane.pane_id, pid: read.pane.pid, pos })),
      warnings: paneWarnings(read.pane, cut ? [] : read.rows),
      ...(cut ? { truncated_by_budget: true as const } : {}),
    },
  });
  const whole = out(read.rows.join("\n"), read.rows.length, read.next, false);
  const layout = read.layout;
  if (!layout || read.rows.length === 0 || ctx.budget.fits(whole)) return whole;
  // A page that reaches past the cursor's row goes on from the cursor (rows below it are not output yet).
  const after = (rows: number) => {
    const pos = positionAfter(layout, rows);
    return pos.row > read.next.row ? read.next : pos;
  };
  const rowsOf = (lines: number) => layout.spans.slice(0, lines).reduce((a, b) => a + b, 0);
  const lines = (l: number) =>
    l >= read.rows.length ? whole : out(read.rows.slice(0, l).join("\n"), l, after(rowsOf(l)), true);
  if (ctx.budget.fits(lines(1))) {
    return lines(largestFitting(1, read.rows.length, (l) => ctx.budget.fits(lines(l))));
  }
  const rows = (k: number) => out(firstLineRows(layout, k), 1, after(k), true);
  const page = rows(largestFitting(1, layout.spans[0], (k) => ctx.budget.fits(rows(k))));
  if (ctx.budget.fits(page)) return page;
  // One row alone is over the budget (a very wide pane): its first characters that fit, saying so.
  const row = firstLineRows(layout, 1);
  const cutRow = (n: number) => {
    const text = textPrefix(row, n);
    const o = out(text, 1, after(1), true);
    o.structured.warnings.push({
      kind: "lines_missed",
      message: `a row of pane ${read.pane.pane_id} is cut to its first ${text.length} of ${row.length} characters ` +
        "to fit the response budget: resize the window narrower (resize-pane) to read such rows whole",
    });
    return o;
  };
  const n = largestFitting(0, row.length, (n) => ctx.budget.fits(cutRow(n)));
  // Not one character fits beside the page's other fields: its cursor would pass over the whole row.
  if (textPrefix(row, n).length === 0) throw ctx.budget.tooSmall(`a page with a row of pane ${read.pane.pane_id}`);
  return cutRow(n);
}
