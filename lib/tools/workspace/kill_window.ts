import { z } from "zod";
import { defineTool } from "../tool.ts";
import { targetSchema } from "../../tmux/target.ts";
import { refuseSelfKill } from "../../tmux/self.ts";
import { KILL_ANNOTATIONS, resolve, resolvedShape } from "./common.ts";

export default defineTool({
  name: "kill-window",
  title: "Kill a window",
  description: "Kills a window with all its panes and programs, in every session it is linked into. The " +
    "target is required: give a @window_id. Refused for the window tmux-mcp itself runs in.",
  toolset: "workspace",
  tier: "destructive",
  annotations: KILL_ANNOTATIONS,
  input: z.object({ target: targetSchema.describe("window to kill: @id or session:window") }),
  output: z.object({ ...resolvedShape, killed: z.literal("window") }),
  async handler({ target }, ctx) {
    const t = await resolve(ctx, target);
    await refuseSelfKill(ctx.tmux, "window", t, { signal: ctx.signal });
    await ctx.tmux.run(["kill-window", "-t", t.window_id], { signal: ctx.signal });
    return { structured: { ...t, killed: "window" as const } };
  },
});
