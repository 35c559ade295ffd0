/**
 * kill-pane, kill-window and kill-session are one tool shape: resolve the
 * explicit, exact target (`exactTarget`), refuse if tmux-mcp itself runs in it, kill it by id.
 *
 * @example
 * ```ts
 * export default defineKillTool("pane", "Kills one pane …");
 * ```
 */
import { z } from "zod";
import type { AnyTool } from "../tool.ts";
import { defineTool } from "../declared.ts";
import { refuseSelfKill } from "../../tmux/self.ts";
import { refuseLinkedOutOfView } from "../../tmux/scope.ts";
import { targetIds } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

const ID_OF = { pane: "pane_id", window: "window_id", session: "session_id" } as const;

/** The kill tool for one kind of tmux object; `description` is what the model reads. */
export function defineKillTool(kind: "pane" | "window" | "session", description: string): AnyTool {
  return defineTool({
    name: `kill-${kind}`,
    title: `Kill a ${kind}`,
    description:
      `${description} The target is required and must be exact (an id or an exact name: prefixes and globs are refused). Refused for the ${kind} tmux-mcp itself runs in.`,
    toolset: "workspace",
    tier: "destructive",
    smallResult: true,
    target: kind,
    exactTarget: true,
    input: z.object({}),
    output: z.object({ ...targetIds, killed: z.literal(kind) }),
    secrets: [],
    async handler(_args, ctx) {
      const { defaulted: _given, ...t } = resolvedTarget(ctx);
      await refuseSelfKill(ctx.tmux, kind, t, { signal: ctx.signal });
      // A session's windows linked elsewhere survive there: only a window or pane is shared.
      if (kind !== "session") {
        await refuseLinkedOutOfView(ctx.tmux, t.window_id, `${kind} ${t[ID_OF[kind]]}`, ctx.signal);
      }
      await ctx.tmux.run([`kill-${kind}`, "-t", t[ID_OF[kind]]], { signal: ctx.signal });
      return { structured: { ...t, killed: kind } };
    },
  });
}
