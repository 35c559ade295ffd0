/**
 * Resolving a model's `target` (tmux target syntax: `name`, `$3`, `@7`, `%12`,
 * `session:window.pane`) to stable ids, with one tmux call.
 *
 * A missing target means the active pane of the most recently used session;
 * the result says so (`defaulted: true`) so the agent learns which pane it
 * got. Unknown or ambiguous targets become errors that name the listing tool
 * to call.
 *
 * @example
 * ```ts
 * const t = await resolveTarget(tmux, "main:0.1");
 * t.pane_id; // "%3"
 * ```
 */
import { z } from "zod";
import type { TmuxExecutor } from "./executor.ts";
import { getPane } from "./panes.ts";

export { targetError } from "./panes.ts";

export interface ResolvedTarget {
  session_id: string;
  window_id: string;
  pane_id: string;
  /** True when no target was given and the default pane was chosen. */
  defaulted: boolean;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** The `target` parameter shared by every tool that addresses a tmux object. */
export const targetSchema = z.string()
  .min(1, "target must not be empty")
  .max(256, "target is longer than 256 characters")
  .refine((s) => !s.startsWith("-"), "target must not start with '-' (use an id such as %3, @2 or $1)")
  .refine((s) => !CONTROL.test(s), "target must not contain control characters")
  .describe("tmux target: session name, $session_id, @window_id, %pane_id or session:window.pane");

/**
 * Resolves `target` (or the default pane when undefined) to session, window
 * and pane ids. For a session or window target, the ids are those of its
 * active window and pane. Use {@linkcode getPane} when you also need the
 * pane's facts: it is the same single tmux call.
 */
export async function resolveTarget(
  tmux: TmuxExecutor,
  target: string | undefined,
  signal?: AbortSignal,
): Promise<ResolvedTarget> {
  const { pane, defaulted } = await getPane(tmux, target, { signal });
  return { session_id: pane.session_id, window_id: pane.window_id, pane_id: pane.pane_id, defaulted };
}
