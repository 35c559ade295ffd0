/**
 * What the two waits (`wait {what: text}` and `wait {what: quiet}`) share
 * beyond the call budget: the choice of a pane or a pty session (`pty_id`),
 * the ids in their answers (a pty has none), and the screen's last lines for
 * an answer, read from whichever of the two is waited on.
 *
 * @example
 * ```ts
 * declare const ctx: import("../tool.ts").ToolContext; // the call's
 * checkPtyWait({ pty_id: "s1" }, ctx); // throws when target is given too, or the pty toolset is not served
 * const { tail } = await tailOf(ctx, { ptyId: "s1" }, 20);
 * ```
 */
import { z } from "zod";
import type { ToolContext } from "../tool.ts";
import { targetIds } from "../workspace/common.ts";
import type { Warning } from "../../exec/warnings.ts";
import { finalView } from "../../exec/observe.ts";
import { ptyTail } from "../../exec/pty_wait.ts";
import { resolvedOf } from "../../tmux/target.ts";
import { UserError } from "../../errors.ts";
import { servesToolset } from "../../config.ts";

/** Absent fields of a wait on a pty. */
const PANE_ONLY = "absent for pty_id";

/** The pane's ids in a wait's answer: absent for a pty. */
export const waitIds = {
  session_id: targetIds.session_id.optional().describe(PANE_ONLY),
  window_id: targetIds.window_id.optional().describe(PANE_ONLY),
  pane_id: targetIds.pane_id.optional().describe(PANE_ONLY),
  defaulted: z.boolean().optional().describe(PANE_ONLY),
};

/** The resolved ids of a waited-on pane. */
export type PaneIds = ReturnType<typeof resolvedOf>;

/** What is waited on: a pane (its ids, once resolved) or a pty session. */
export interface Waited {
  ids?: PaneIds;
  ptyId?: string;
}

/** Refuses a wait given both a pane target and a pty, or a pty where the pty toolset is not served. */
export function checkPtyWait(args: { target?: string; pty_id?: string }, ctx: ToolContext): void {
  if (args.pty_id === undefined) return;
  if (args.target !== undefined) throw new UserError("pass target (a pane) or pty_id (a pty session), not both");
  if (!servesToolset(ctx.config, "pty")) {
    throw new UserError("pty_id needs the pty toolset, which this server does not serve (--toolsets)");
  }
}

/** The last `lines` of the waited-on screen now, with the pane's warnings and ids (none for a pty). */
export async function tailOf(
  ctx: ToolContext,
  w: Waited,
  lines: number,
): Promise<{ tail: string; warnings: Warning[] } & Partial<PaneIds>> {
  if (w.ptyId !== undefined) return { tail: (await ptyTail(ctx.terminal, w.ptyId, lines)).join("\n"), warnings: [] };
  const view = await finalView(ctx.tmux, w.ids!.pane_id, lines);
  // Its window may have moved (move-window, join-pane) since the wait began: the ids are where it is now.
  const ids = view.pane ? resolvedOf(view.pane, w.ids!.defaulted) : w.ids;
  return { tail: view.tail.join("\n"), warnings: view.warnings, ...ids };
}
