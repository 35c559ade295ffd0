import { z } from "zod";
import { defineTool } from "../tool.ts";
import { targetSchema } from "../../tmux/target.ts";
import { refuseSelfKill } from "../../tmux/self.ts";
import { KILL_ANNOTATIONS, resolve, resolvedShape } from "./common.ts";

export default defineTool({
  name: "kill-pane",
  title: "Kill a pane",
  description: "Kills one pane and the program in it (its window closes with its last pane). The target is " +
    "required: give a %pane_id. Refused for the pane tmux-mcp itself runs in.",
  toolset: "workspace",
  tier: "destructive",
  annotations: KILL_ANNOTATIONS,
  input: z.object({ target: targetSchema.describe("pane to kill: %id or session:window.pane") }),
  output: z.object({ ...resolvedShape, killed: z.literal("pane") }),
  async handler({ target }, ctx) {
    const t = await resolve(ctx, target);
    await refuseSelfKill(ctx.tmux, "pane", t, { signal: ctx.signal });
    await ctx.tmux.run(["kill-pane", "-t", t.pane_id], { signal: ctx.signal });
    return { structured: { ...t, killed: "pane" as const } };
  },
});
