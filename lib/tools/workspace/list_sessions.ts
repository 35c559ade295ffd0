import { z } from "zod";
import { defineTool } from "../declared.ts";
import { listSessions } from "../../tmux/panes.ts";
import { sessionShape } from "./shapes.ts";

export default defineTool({
  name: "list-sessions",
  title: "List tmux sessions",
  description:
    "Every tmux session: session_id ($N), name, window count, clients attached at a terminal (control-mode " +
    "clients over pipes, this server's own read-only ones among them, are not counted), created and last " +
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
