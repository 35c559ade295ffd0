import { z } from "zod";
import { defineTool } from "../declared.ts";
import { formerName, ptyId } from "./schemas.ts";

export default defineTool({
  name: "pty-kill-session",
  replaces: formerName("pty-kill-session"),
  title: "End a session",
  description: "Ends a pty session (SIGHUP, SIGKILL).",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true },
  input: z.object({ pty_id: ptyId }),
  output: z.object({ pty_id: z.string(), killed: z.boolean() }),
  secrets: [],
  async handler({ pty_id }, ctx) {
    await ctx.terminal.kill(pty_id);
    return { structured: { pty_id, killed: true } };
  },
});
