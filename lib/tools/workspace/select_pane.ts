import { z } from "zod";
import { defineTool } from "../declared.ts";
import { COMMAND_SEPARATOR } from "../../tmux/executor.ts";
import { changeAnswer, noted, resolvedChange } from "./common.ts";
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
    const [active, zoomed] = (await ctx.tmux.text([
      ...[
        "display-message",
        "-p",
        "-t",
        `${window}.${t.pane_id}`,
        "#{pane_active}#{window_active} #{window_zoomed_flag}",
      ],
      COMMAND_SEPARATOR,
      ...["select-window", "-t", window],
      COMMAND_SEPARATOR,
      ...["select-pane", "-t", t.pane_id],
    ], { signal: ctx.signal })).trim().split(" ");
    // A zoomed window shows its active pane alone: tmux unzooms it to make another pane active, and says nothing.
    if (zoomed === "1" && active[0] !== "1") {
      return noted(
        { ...t, changed: true },
        `window ${t.window_id} was zoomed on another pane: tmux unzoomed it to make pane ${t.pane_id} active ` +
          "(resize-pane with zoom: true zooms this one)",
      );
    }
    return changeAnswer({ ...t, changed: active !== "11" }, "the active pane of the current window");
  },
});
