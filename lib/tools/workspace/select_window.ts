import { z } from "zod";
import { defineTool } from "../declared.ts";
import { changeAnswer, resolvedChange } from "./common.ts";
import { COMMAND_SEPARATOR } from "../../tmux/executor.ts";
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
  output: resolvedChange,
  secrets: [],
  async handler(_args, ctx) {
    const t = resolvedTarget(ctx);
    // The window in the session the target named: a window linked into several sessions is current in each apart.
    const window = `${t.session_id}:${t.window_id}`;
    const before = await ctx.tmux.text([
      ...["display-message", "-p", "-t", window, "#{window_active}"],
      COMMAND_SEPARATOR,
      ...["select-window", "-t", window],
    ], { signal: ctx.signal });
    return changeAnswer({ ...t, changed: before.trim() !== "1" }, "the current window of its session");
  },
});
