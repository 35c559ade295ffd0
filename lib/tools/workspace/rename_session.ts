import { z } from "zod";
import { defineTool } from "../tool.ts";
import { targetSchema } from "../../tmux/target.ts";
import { formatLiteral } from "../../tmux/quote.ts";
import { TmuxError } from "../../tmux/executor.ts";
import { UserError } from "../../errors.ts";
import { resolve, resolvedShape, sessionName } from "./common.ts";

export default defineTool({
  name: "rename-session",
  title: "Rename a tmux session",
  description: "Renames the target's session (default: the most recently used session). Ids do not change.",
  toolset: "workspace",
  tier: "mutating",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({ target: targetSchema.optional(), name: sessionName }),
  output: z.object({ ...resolvedShape, name: z.string() }),
  async handler({ target, name }, ctx) {
    const t = await resolve(ctx, target);
    try {
      await ctx.tmux.run(["rename-session", "-t", t.session_id, "--", formatLiteral(name)], { signal: ctx.signal });
    } catch (e) {
      if (e instanceof TmuxError && /^duplicate session/.test(e.message)) {
        throw new UserError(`a session named ${JSON.stringify(name)} already exists: choose another name`);
      }
      throw e;
    }
    return { structured: { ...t, name } };
  },
});
