import { z } from "zod";
import { defineTool } from "../tool.ts";
import { resolveTarget } from "../../tmux/target.ts";
import { paneTarget, resolvedOf, resolvedShape } from "../workspace/shapes.ts";
import { UserError } from "../../errors.ts";
import { readScreen, readSince } from "../../exec/grid.ts";
import { cursorSchema, decodeCursor, encodeCursor } from "../../exec/cursor.ts";
import { tail } from "../../exec/text.ts";
import { paneWarnings, warningsSchema } from "../../exec/warnings.ts";

export default defineTool({
  name: "capture-since",
  title: "Read a pane's new output",
  description:
    "Follows a pane's output: without cursor, the screen and a cursor; with it, what appeared since and the next cursor.",
  toolset: "exec",
  tier: "readonly",
  textField: "text",
  input: z.object({
    target: paneTarget,
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
  }),
  secrets: [],
  async handler({ target, cursor, max_lines }, ctx) {
    if (cursor === undefined) {
      const s = await readScreen(ctx.tmux, target, ctx.signal);
      const t = tail(s.rows, max_lines);
      return {
        structured: {
          ...resolvedOf(s.pane, s.defaulted),
          text: t.rows.join("\n"),
          line_count: t.rows.length,
          first_call: true,
          lines_missed: false,
          dropped_lines: t.dropped,
          cursor: encodeCursor({ pane: s.pane.pane_id, pid: s.pane.pid, pos: s.next }),
          warnings: paneWarnings(s.pane, s.rows),
        },
      };
    }
    const c = decodeCursor(cursor);
    if (target !== undefined) {
      const r = await resolveTarget(ctx.tmux, target, ctx.signal);
      if (r.pane_id !== c.pane) {
        throw new UserError(
          `this cursor belongs to pane ${c.pane}, not ${r.pane_id} (target ${JSON.stringify(target)}): pass it ` +
            `without target (or with ${c.pane}), or omit cursor to start over on ${r.pane_id}`,
        );
      }
    }
    let read;
    try {
      read = await readSince(ctx.tmux, c.pane, c.pos, { maxRows: max_lines, signal: ctx.signal });
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      throw new UserError(
        `pane ${c.pane} of this cursor no longer exists: call list (what: panes), then capture-since without cursor`,
      );
    }
    if (read.pane.pid !== c.pid) {
      throw new UserError(
        `pane ${c.pane} was respawned since this cursor was taken (it runs another process now): call ` +
          `capture-since without cursor to start over`,
      );
    }
    return {
      structured: {
        ...resolvedOf(read.pane, false),
        text: read.rows.join("\n"),
        line_count: read.rows.length,
        first_call: false,
        lines_missed: read.missed,
        dropped_lines: read.dropped,
        cursor: encodeCursor({ pane: c.pane, pid: read.pane.pid, pos: read.next }),
        warnings: paneWarnings(read.pane, read.rows),
      },
    };
  },
});
