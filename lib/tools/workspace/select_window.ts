import { z } from "zod";
import { defineTool } from "../declared.ts";
import { resolvedOutput } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

export default defineTool({
  name: "select-window",
  title: "Make a window the current one",
  description: "Makes the target window the current window of its session (what an attached user sees, and " +
    "what a missing target means for later calls).",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "window",
  annotations: { idempotentHint: true },
  targetRequired: true,
  input: z.object({}),
  output: resolvedOutput,
  secrets: [],
  async handler(_args, ctx) {
    const t = resolvedTarget(ctx);
    await ctx.tmux.run(["select-window", "-t", t.window_id], { signal: ctx.signal });
    return { structured: t };
  },
});
