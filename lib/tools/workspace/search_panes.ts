import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { getPane, listPanes, type PaneInfo } from "../../tmux/panes.ts";
import { TmuxError, type TmuxExecutor } from "../../tmux/executor.ts";
import { searchLines } from "../../search/line_search.ts";
import { queryParams } from "../search_schemas.ts";

const MAX_TEXT = 400;

/** A pane id or s:w.p is one pane; @id or s:w one window; anything else a session. */
async function panesOf(tmux: TmuxExecutor, target: string | undefined, signal: AbortSignal): Promise<PaneInfo[]> {
  if (target === undefined) return await listPanes(tmux, { all: true }, signal);
  if (target.startsWith("%") || /:.*\./.test(target)) return [(await getPane(tmux, target, { signal })).pane];
  if (target.startsWith("@") || target.includes(":")) return await listPanes(tmux, { window: target }, signal);
  return await listPanes(tmux, { session: target }, signal);
}

/** The text of one match, cut around the match when the line is long. */
function excerpt(line: string, index: number): string {
  if (line.length <= MAX_TEXT) return line;
  const from = Math.max(0, Math.min(index - 100, line.length - MAX_TEXT));
  return (from > 0 ? "…" : "") + line.slice(from, from + MAX_TEXT) + (from + MAX_TEXT < line.length ? "…" : "");
}

export default defineTool({
  name: "search-panes",
  title: "Find text in panes",
  description:
    "Finds lines in the newest lines of every pane (or a target's), by pane, with capture-pane's line numbers.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({
    // The buffer searches' names and defaults: one vocabulary for every search.
    query: queryParams.query,
    mode: queryParams.mode,
    ignore_case: queryParams.ignore_case,
    max_matches: queryParams.max_matches,
    target: targetParam("session", { omit: "all" }).optional().describe("session, window or pane (omit: all)"),
    lines: z.number().int().min(1).max(100_000).default(2000).describe("newest lines per pane"),
    offset: z.number().int().min(0).max(10_000_000).default(0).describe("a next_offset"),
  }),
  output: z.object({
    total_matches: z.number().int(),
    offset: z.number().int(),
    next_offset: z.number().int().nullable(),
    panes_searched: z.number().int(),
    panes: z.array(z.object({
      pane_id: z.string(),
      session_name: z.string(),
      window_index: z.number().int(),
      pane_index: z.number().int(),
      current_command: z.string(),
      matches: z.array(z.object({ line: z.number().int(), text: z.string() })),
    })),
  }),
  secrets: ["query"],
  async handler({ query, mode, ignore_case, target, lines, max_matches, offset }, ctx) {
    const panes = await panesOf(ctx.tmux, target, ctx.signal);
    const captured = await Promise.all(panes.map(async (p) => {
      try {
        const out = await ctx.tmux.text(["capture-pane", "-p", "-t", p.pane_id, "-S", String(p.height - lines)], {
          signal: ctx.signal,
        });
        const rows = out.split("\n");
        rows.pop(); // every row ends with \n
        return rows;
      } catch (e) {
        if (e instanceof TmuxError && e.kind === "failed") return []; // the pane closed meanwhile
        throw e;
      }
    }));
    const hits = await searchLines(
      ctx.regex,
      captured,
      { pattern: query, regex: mode === "regex", ignoreCase: ignore_case, literalHint: 'mode "literal"' },
      { signal: ctx.signal },
    );
    const total = hits.reduce((n, h) => n + h.length, 0);
    const result = [];
    let seen = 0;
    for (let i = 0; i < panes.length && seen < offset + max_matches; i++) {
      const rows = captured[i];
      const p = panes[i];
      const matches = [];
      for (const h of hits[i]) {
        if (seen >= offset && seen < offset + max_matches) {
          // The capture ends at the bottom screen row, whose line number is height - 1.
          matches.push({ line: p.height - rows.length + h.line, text: excerpt(rows[h.line], h.index) });
        }
        seen++;
      }
      if (matches.length) {
        result.push({
          pane_id: p.pane_id,
          session_name: p.session_name,
          window_index: p.window_index,
          pane_index: p.pane_index,
          current_command: p.current_command,
          matches,
        });
      }
    }
    const end = offset + max_matches;
    return {
      structured: {
        total_matches: total,
        offset,
        next_offset: end < total ? end : null,
        panes_searched: panes.length,
        panes: result,
      },
    };
  },
});
