import { z } from "zod";
import { defineTool } from "../declared.ts";
import { sessionId } from "./schemas.ts";

export default defineTool({
  name: "pty_capture_stop",
  title: "Stop recording",
  description: "Stops a pty_capture_start capture; the file stays.",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  input: z.object({ session_id: sessionId }),
  output: z.object({ session_id: z.string(), output_file: z.string() }),
  secrets: [],
  async handler({ session_id }, ctx) {
    const output_file = await ctx.terminal.captureStop(session_id);
    return { structured: { session_id, output_file } };
  },
});
