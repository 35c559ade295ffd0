import { z } from "zod";
import { defineTool } from "../declared.ts";
import { cols, rows, sessionId } from "./schemas.ts";

export default defineTool({
  name: "pty_resize",
  title: "Resize a session",
  description: "Resizes a pty session's terminal (SIGWINCH).",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { idempotentHint: true },
  input: z.object({ session_id: sessionId, rows, cols }),
  output: z.object({ session_id: z.string(), rows: z.number().int(), cols: z.number().int() }),
  secrets: [],
  async handler({ session_id, rows, cols }, ctx) {
    await ctx.terminal.resize(session_id, rows, cols);
    return { structured: { session_id, rows, cols } };
  },
});
