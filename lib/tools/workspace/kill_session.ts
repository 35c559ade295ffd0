import { z } from "zod";
import { defineTool } from "../tool.ts";
import { targetSchema } from "../../tmux/target.ts";
import { refuseSelfKill } from "../../tmux/self.ts";
import { KILL_ANNOTATIONS, resolve, resolvedShape } from "./common.ts";

export default defineTool({
  name: "kill-session",
  title: "Kill a session",
  description: "Kills a session with all its windows, panes and programs (windows linked into other sessions " +
    "survive there). The target is required: give a $session_id or name. Refused for the session tmux-mcp " +
    "itself runs in.",
  toolset: "workspace",
  tier: "destructive",
  annotations: KILL_ANNOTATIONS,
  input: z.object({ target: targetSchema.describe("session to kill: $id or name") }),
  output: z.object({ ...resolvedShape, killed: z.literal("session") }),
  async handler({ target }, ctx) {
    const t = await resolve(ctx, target);
    await refuseSelfKill(ctx.tmux, "session", t, { signal: ctx.signal });
    await ctx.tmux.run(["kill-session", "-t", t.session_id], { signal: ctx.signal });
    return { structured: { ...t, killed: "session" as const } };
  },
});
