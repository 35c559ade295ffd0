import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { listPanes, type PaneScope } from "../../tmux/panes.ts";
import { paneShape } from "./shapes.ts";

export default defineTool({
  name: "list-panes",
  title: "List tmux panes",
  description: "Panes with everything needed to pick one: pane_id (%N, the stable target), session/window ids " +
    "and indexes, active flags, size and position, current_command, current_path, pid, title, dead, mode " +
    "(copy-mode…, null when none), alternate_on (a full-screen program), cursor, history size. " +
    "No target: every pane on the server. A target lists its window's panes; all: true lists its whole " +
    "session. Next: snapshot-pane or capture-pane {target: pane_id}.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({
    target: targetParam("window", { omit: "all" }).optional(),
    all: z.boolean().default(false).describe("the target's whole session"),
  }),
  output: z.object({ panes: z.array(paneShape) }),
  secrets: [],
  async handler({ target, all }, ctx) {
    const scope: PaneScope = target === undefined ? { all: true } : all ? { session: target } : { window: target };
    return { structured: { panes: await listPanes(ctx.tmux, scope, ctx.signal) } };
  },
});
