import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { listPaneFacts, listPanes, PANE_SPEC, paneFacts, type PaneInfo, type PaneScope } from "../../tmux/panes.ts";
import type { Row } from "../../tmux/rows.ts";
import { chosenFields, compactShape, fieldsParam, paneShape, rowsOf } from "./shapes.ts";

/**
 * The columns of a compact listing: what picking a pane needs. Every fact of every pane is too much for one
 * answer when there are hundreds (and tmux takes twice as long to expand them all); a target narrows the
 * listing to a window or session with all facts. window_name rather than current_command: tmux keeps the
 * name (by default the active pane's command) at hand, but reads each pane's command from /proc on every
 * listing, which made the listing slower than tmux's own.
 */
const COMPACT = paneFacts(["session_name", "window_index", "window_name", "pane_index", "active", "dead"]);

/**
 * Beyond this many panes every fact of each cannot fit the default response budget (about 200 tokens a pane):
 * the listing is compact from the start. Below it, a listing over a smaller budget becomes compact too.
 */
const FULL_ROWS_UP_TO = 100;

/** How many panes the last whole-server listing of each tmux server found (the engine is the key). */
const wholeServerPanes = new WeakMap<object, number>();

/** The compact answer: rows of the facts that pick a pane, inline rather than in a buffer, and what they leave out. */
function compactAnswer(panes: readonly Row<typeof COMPACT.spec>[]) {
  const columns = Object.keys(COMPACT.spec) as (keyof typeof COMPACT.spec)[];
  const omitted = Object.keys(PANE_SPEC).filter((k) => !(k in COMPACT.spec));
  return { structured: { columns, rows: rowsOf(panes, columns), omitted_fields: omitted } };
}

export default defineTool({
  name: "list-panes",
  title: "List tmux panes",
  description: "Panes with everything needed to pick one: pane_id (%N, the stable target), session/window ids " +
    "and indexes, active flags, size and position, current_command, current_path, pid, title, dead, mode " +
    "(copy-mode…, null when none), alternate_on (a full-screen program), cursor, history size. " +
    "No target: every pane on the server. A target lists its window's panes; all: true lists its whole " +
    "session. Next: snapshot-pane or capture-pane {target: pane_id}.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({
    target: targetParam("window", { omit: "all" }).optional(),
    all: z.boolean().default(false).describe("the target's whole session"),
    fields: fieldsParam,
  }),
  output: z.object({
    panes: z.array(paneShape).optional().describe("absent with fields or compact"),
    ...compactShape,
    omitted_fields: z.array(z.string()).optional()
      .describe("compact only: list a window or session (target) for them"),
  }),
  secrets: [],
  async handler({ target, all, fields }, ctx) {
    const chosen = chosenFields(fields, PANE_SPEC, "panes") as (keyof typeof PANE_SPEC)[] | undefined;
    const scope: PaneScope = target === undefined ? { all: true } : all ? { session: target } : { window: target };
    // Chosen fields are all tmux is asked for, and come back as rows, in any number of panes.
    if (chosen) {
      const panes = await listPaneFacts(ctx.tmux, scope, paneFacts(chosen), ctx.signal);
      return { structured: { columns: chosen, rows: rowsOf(panes, chosen) } };
    }
    // Every fact of each pane when they fit; the compact facts of the same rows otherwise (no second tmux call).
    const answer = (panes: PaneInfo[]) => {
      if (panes.length <= FULL_ROWS_UP_TO) {
        const whole = { structured: { panes } };
        if (ctx.budget.fits(whole)) return whole;
      }
      return compactAnswer(panes);
    };
    if ("window" in scope) return answer(await listPanes(ctx.tmux, scope, ctx.signal));
    // Beyond a window, a listing of hundreds is answered with the compact facts alone (tmux expands them faster
    // than every fact), in one tmux call. For the whole server, the count the last listing found decides which to
    // ask for first: a small server is listed with every fact at once, not asked twice.
    const whole = "all" in scope;
    if (whole && (wholeServerPanes.get(ctx.tmux) ?? Infinity) <= FULL_ROWS_UP_TO) {
      const panes = await listPanes(ctx.tmux, scope, ctx.signal);
      wholeServerPanes.set(ctx.tmux, panes.length);
      return answer(panes);
    }
    const compact = await listPaneFacts(ctx.tmux, scope, COMPACT, ctx.signal);
    if (whole) wholeServerPanes.set(ctx.tmux, compact.length);
    if (compact.length > FULL_ROWS_UP_TO) return compactAnswer(compact);
    return answer(await listPanes(ctx.tmux, scope, ctx.signal));
  },
});
