import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath } from "../schemas.ts";
import { sessionId } from "./schemas.ts";
import { filePolicy } from "../../policy/files.ts";

export default defineTool({
  name: "pty_capture_start",
  title: "Record a session's output",
  description: "Appends a pty session's raw output to a file where it runs, until pty_capture_stop.",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { openWorldHint: true },
  input: z.object({
    session_id: sessionId,
    output_file: absolutePath,
  }),
  output: z.object({ session_id: z.string(), output_file: z.string() }),
  secrets: [],
  async handler({ session_id, output_file }, ctx) {
    await ctx.terminal.captureStart(session_id, output_file, filePolicy(ctx.config));
    return { structured: { session_id, output_file } };
  },
});
