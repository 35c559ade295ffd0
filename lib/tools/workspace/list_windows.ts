import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { listWindows } from "../../tmux/panes.ts";
import { windowShape } from "./shapes.ts";

export default defineTool({
  name: "list-windows",
  title: "List tmux windows",
  description: "Windows of one session (target: session name or $id), or of every session when target is " +
    "omitted: window_id (@N), index, name, active flag, size, layout string, pane count, zoomed. " +
    "Next: list-panes {target: window_id}.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({
    target: targetParam("session", { omit: "all" }).optional(),
  }),
  output: z.object({ windows: z.array(windowShape) }),
  secrets: [],
  async handler({ target }, ctx) {
    const scope = target === undefined ? { all: true as const } : { session: target };
    return { structured: { windows: await listWindows(ctx.tmux, scope, ctx.signal) } };
  },
});
