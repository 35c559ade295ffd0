import { z } from "zod";
import { defineTool } from "../tool.ts";
import { targetSchema } from "../../tmux/target.ts";
import { formatLiteral } from "../../tmux/quote.ts";
import { resolve, resolvedShape, windowName } from "./common.ts";

export default defineTool({
  name: "rename-window",
  title: "Rename a tmux window",
  description: "Renames the target's window (default: the active window of the latest session) and stops " +
    "tmux from renaming it automatically after the running command. Ids do not change.",
  toolset: "workspace",
  tier: "mutating",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({ target: targetSchema.optional(), name: windowName }),
  output: z.object({ ...resolvedShape, name: z.string() }),
  async handler({ target, name }, ctx) {
    const t = await resolve(ctx, target);
    await ctx.tmux.run(["rename-window", "-t", t.window_id, "--", formatLiteral(name)], { signal: ctx.signal });
    return { structured: { ...t, name } };
  },
});
