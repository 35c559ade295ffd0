import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { getPane, listPanes, onePerPane, paneFacts, type PaneInfo } from "../../tmux/panes.ts";
import { TmuxError, type TmuxExecutor } from "../../tmux/executor.ts";
import { captureRows } from "../../tmux/capture.ts";
import { UserError } from "../../errors.ts";
import { searchLines } from "../../search/line_search.ts";
import { queryParams } from "../search_schemas.ts";
import type { Redactor } from "../../text/redact.ts";
import { redactedSlicer } from "../../text/redact_page.ts";

const MAX_TEXT = 400;

/** What a capture needs of a pane: where its lines run. */
const FACTS = paneFacts(["height", "history_size"]);

/**
 * The newest `lines` rows of a pane as capture-pane's joined lines (a line the terminal wrapped is one line, so a
 * match across the wrap is found), each with the line number of its first row; none when the pane closed meanwhile.
 */
async function paneLines(
  tmux: TmuxExecutor,
  p: PaneInfo,
  lines: number,
  signal: AbortSignal,
): Promise<{ text: string[]; line: number[] }> {
  try {
    const c = await captureRows(tmux, p.pane_id, { start: p.height - lines, join: true, facts: FACTS, signal });
    const out = { text: [] as string[], line: [] as number[] };
    for (let i = 0; i < c.rows.length; i++) {
      const first = i;
      let text = c.rows[i];
      while (c.wrapped[i] && i + 1 < c.rows.length) text += c.rows[++i];
      // -N keeps trailing spaces; a line is matched without them, as capture-pane prints it.
      out.text.push(text.replace(/ +$/, ""));
      out.line.push(c.first + first);
    }
    return out;
  } catch (e) {
    if ((e instanceof TmuxError && e.kind === "failed") || e instanceof UserError) return { text: [], line: [] };
    throw e;
  }
}

/** A pane id or s:w.p is one pane; @id or s:w one window; anything else a session. Each pane once. */
async function panesOf(tmux: TmuxExecutor, target: string | undefined, signal: AbortSignal): Promise<PaneInfo[]> {
  if (target !== undefined && (target.startsWith("%") || /:.*\./.test(target))) {
    return [(await getPane(tmux, target, { signal })).pane];
  }
  const scope = target === undefined
    ? { all: true as const }
    : target.startsWith("@") || target.includes(":")
    ? { window: target }
    : { session: target };
  return onePerPane(await listPanes(tmux, scope, signal));
}

/**
 * The text of one match, cut around the match when the line is long, never inside a surrogate pair; a secret the
 * cut splits is redacted whole (lib/text/redact_page.ts).
 */
function excerpt(line: string, index: number, redactor: Redactor | undefined): string {
  if (line.length <= MAX_TEXT) return line;
  const lowSurrogate = (i: number) => (line.charCodeAt(i) & 0xfc00) === 0xdc00;
  let from = Math.max(0, Math.min(index - 100, line.length - MAX_TEXT));
  if (lowSurrogate(from)) from++;
  let to = Math.min(line.length, from + MAX_TEXT);
  if (lowSurrogate(to)) to--;
  return (from > 0 ? "…" : "") + redactedSlicer(redactor, line, from, to)(from, to) + (to < line.length ? "…" : "");
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
    // Each line is matched alone: text with a line break would never be found, and "no match" would be false.
    if (mode === "literal" && /[\n\r]/.test(query)) {
      throw new UserError(
        "query holds a line break, and search-panes matches one line at a time: search for a part within one line",
      );
    }
    const panes = await panesOf(ctx.tmux, target, ctx.signal);
    const captured = await Promise.all(panes.map((p) => paneLines(ctx.tmux, p, lines, ctx.signal)));
    const hits = await searchLines(
      ctx.regex,
      captured.map((c) => c.text),
      { pattern: query, regex: mode === "regex", ignoreCase: ignore_case, literalHint: 'mode "literal"' },
      { signal: ctx.signal },
    );
    const total = hits.reduce((n, h) => n + h.length, 0);
    const result = [];
    let seen = 0;
    for (let i = 0; i < panes.length && seen < offset + max_matches; i++) {
      const { text, line } = captured[i];
      const p = panes[i];
      const matches = [];
      for (const h of hits[i]) {
        if (seen >= offset && seen < offset + max_matches) {
          matches.push({ line: line[h.line], text: excerpt(text[h.line], h.index, ctx.redactor) });
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
