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
import { refuseLinkedOutOfView, windowSessions } from "../../tmux/scope.ts";
import { UserError } from "../../errors.ts";
import type { ToolContext } from "../tool.ts";
import { targetIds } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

const ID_OF = { pane: "pane_id", window: "window_id", session: "session_id" } as const;

/**
 * Refuses a session kill whose target is a window or pane id (`@2`, `%3`) of a window linked into several sessions:
 * tmux would pick one of them (its most recently used), not necessarily the one the model read the id in.
 */
async function refuseLinkedWindowSession(ctx: ToolContext, target: string, windowId: string): Promise<void> {
  if (!/^[@%]\d+$/.test(target)) return;
  const sessions = await windowSessions(ctx.tmux, windowId, ctx.signal);
  if (sessions.length < 2) return;
  const inView = ctx.tmux.scope ? await ctx.tmux.scope.sessions(ctx.tmux, ctx.signal) : undefined;
  const named = sessions.filter((id) => !inView || inView.has(id));
  throw new UserError(
    `target ${JSON.stringify(target)} is in window ${windowId}, which is linked into several sessions, so it names ` +
      `none of them: pass the session's id (${named.join(", ")}) or its exact name; nothing was killed`,
  );
}

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
    async handler(args, ctx) {
      const { defaulted: _given, ...t } = resolvedTarget(ctx);
      if (kind === "session") await refuseLinkedWindowSession(ctx, String(args.target), t.window_id);
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
