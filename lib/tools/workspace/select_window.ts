import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../tool.ts";
import { resolve, resolvedOutput } from "./common.ts";

export default defineTool({
  name: "select-window",
  title: "Make a window the current one",
  description: "Makes the target window the current window of its session (what an attached user sees, and " +
    "what a missing target means for later calls).",
  toolset: "workspace",
  tier: "mutating",
  annotations: { idempotentHint: true },
  input: z.object({ target: targetParam("window", { omit: "required" }) }),
  output: resolvedOutput,
  secrets: [],
  async handler({ target }, ctx) {
    const t = await resolve(ctx, target);
    await ctx.tmux.run(["select-window", "-t", t.window_id], { signal: ctx.signal });
    return { structured: t };
  },
});
