import { z } from "zod";
import { defineTool } from "../tool.ts";
import { absolutePath } from "../schemas.ts";
import { sessionId } from "./schemas.ts";
import { filePolicy } from "../files.ts";

export default defineTool({
  name: "pty_capture_start",
  title: "Record a session's output to a file",
  description: "From now on, appends everything the program in a pty session writes (raw bytes, escape " +
    "sequences included, as the terminal receives them) to output_file (on the host where tmux runs), which is created if missing. The path " +
    "is used exactly as given (absolute, a regular file, not under /proc, /sys or /dev; its directory must exist). One capture per session: stop it with " +
    "pty_capture_stop.",
  toolset: "pty",
  tier: "mutating",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z.object({
    session_id: sessionId,
    output_file: absolutePath.describe("absolute path of the file to append to"),
  }),
  output: z.object({ session_id: z.string(), output_file: z.string() }),
  secrets: [],
  async handler({ session_id, output_file }, ctx) {
    await ctx.terminal.captureStart(session_id, output_file, filePolicy(ctx.config));
    return { structured: { session_id, output_file } };
  },
});
