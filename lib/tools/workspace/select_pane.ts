import { z } from "zod";
import { defineTool } from "../declared.ts";
import { COMMAND_SEPARATOR } from "../../tmux/executor.ts";
import { changeAnswer, resolvedChange } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

export default defineTool({
  name: "select-pane",
  title: "Make a pane the active one",
  description: "Makes the target pane the active pane of its window and that window the current one of its " +
    "session (what an attached user sees, and what a missing target means for later calls).",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "pane",
  annotations: { idempotentHint: true },
  targetRequired: true,
  input: z.object({}),
  output: resolvedChange,
  secrets: [],
  async handler(_args, ctx) {
    const t = resolvedTarget(ctx);
    // In the session the target named: a window linked into several sessions is current in each apart.
    const window = `${t.session_id}:${t.window_id}`;
    const before = await ctx.tmux.text([
      ...["display-message", "-p", "-t", `${window}.${t.pane_id}`, "#{pane_active}#{window_active}"],
      COMMAND_SEPARATOR,
      ...["select-window", "-t", window],
      COMMAND_SEPARATOR,
      ...["select-pane", "-t", t.pane_id],
    ], { signal: ctx.signal });
    return changeAnswer({ ...t, changed: before.trim() !== "11" }, "the active pane of the current window");
  },
});
