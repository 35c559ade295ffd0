import { z } from "zod";
import { defineTool } from "../declared.ts";
import { sessionId } from "./schemas.ts";

export default defineTool({
  name: "pty_kill_session",
  title: "End a session",
  description: "Ends a pty session (SIGHUP, then SIGKILL).",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true },
  input: z.object({ session_id: sessionId }),
  output: z.object({ session_id: z.string(), killed: z.boolean() }),
  secrets: [],
  async handler({ session_id }, ctx) {
    await ctx.terminal.kill(session_id);
    return { structured: { session_id, killed: true } };
  },
});
