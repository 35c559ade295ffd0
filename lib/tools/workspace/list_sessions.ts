import { z } from "zod";
import { defineTool } from "../tool.ts";
import { listSessions } from "../../tmux/panes.ts";
import { sessionShape } from "./shapes.ts";

export default defineTool({
  name: "list-sessions",
  title: "List tmux sessions",
  description: "Every tmux session: session_id ($N), name, window count, attached clients (control-mode ones too: " +
    "this server briefly attaches a read-only one while it waits on output or reads a buffer), created and last " +
    "activity (unix seconds). Use the ids as targets from then on. Next: list-windows or list-panes {target}.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({}),
  output: z.object({ sessions: z.array(sessionShape) }),
  secrets: [],
  async handler(_args, ctx) {
    return { structured: { sessions: await listSessions(ctx.tmux, ctx.signal) } };
  },
});
