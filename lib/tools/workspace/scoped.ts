/**
 * Running a read-only `show-*` command either globally or for a target that
 * is validated and resolved in the same tmux call, so a bad target is an
 * error instead of tmux's silent fallback to the current session.
 *
 * @example
 * ```ts
 * declare const ctx: Parameters<typeof showFor>[0]; // the call's
 * const r = await showFor(ctx, "main", (t) => ["show-hooks", "-t", t], ["show-hooks", "-g"]);
 * r.session_id; // "$0"
 * ```
 */
import { getPane } from "../../tmux/panes.ts";
import type { ToolContext } from "../tool.ts";
import { splitLines } from "../../text/lines.ts";

export interface ShowResult {
  /** Resolved ids; null when the global table was read. */
  session_id: string | null;
  window_id: string | null;
  pane_id: string | null;
  /** stdout lines (the trailing empty line removed). */
  lines: string[];
}

/**
 * `target` given: runs `forTarget(target)` after validating it; `global`
 * given and no target: runs it as is; neither: runs `forTarget` on the
 * default pane.
 */
export async function showFor(
  ctx: ToolContext,
  target: string | undefined,
  forTarget: (t: string) => string[],
  global?: string[],
): Promise<ShowResult> {
  if (target === undefined && global) {
    const out = await ctx.tmux.text(global, { signal: ctx.signal });
    return { session_id: null, window_id: null, pane_id: null, lines: splitLines(out) };
  }
  const { pane, output } = await getPane(ctx.tmux, target, { signal: ctx.signal, then: forTarget });
  return {
    session_id: pane.session_id,
    window_id: pane.window_id,
    pane_id: pane.pane_id,
    lines: splitLines(new TextDecoder().decode(output)),
  };
}
