import { z } from "zod";
import { defineTool } from "../tool.ts";
import { absolutePath } from "../schemas.ts";
import { sessionId } from "./schemas.ts";
import { filePolicy } from "../files.ts";

export default defineTool({
  name: "pty_capture_start",
  title: "Record a session's output to a file",
  description:
    "Appends everything a pty session's program writes (raw bytes) to output_file, a regular file on the machine " +
    "where the session runs, until pty_capture_stop.",
  toolset: "pty",
  tier: "mutating",
  annotations: { openWorldHint: true },
  input: z.object({
    session_id: sessionId,
    output_file: absolutePath.describe("absolute path to append to"),
  }),
  output: z.object({ session_id: z.string(), output_file: z.string() }),
  secrets: [],
  async handler({ session_id, output_file }, ctx) {
    await ctx.terminal.captureStart(session_id, output_file, filePolicy(ctx.config));
    return { structured: { session_id, output_file } };
  },
});
