import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath } from "../schemas.ts";
import { formerName, ptyId } from "./schemas.ts";
import { filePolicy } from "../../policy/files.ts";

export default defineTool({
  name: "pty-capture-start",
  replaces: formerName("pty-capture-start"),
  title: "Record a session's output",
  description: "Appends a pty session's raw output to a file where it runs, until pty_capture_stop.",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { openWorldHint: true },
  input: z.object({
    pty_id: ptyId,
    output_file: absolutePath,
  }),
  output: z.object({ pty_id: z.string(), output_file: z.string() }),
  secrets: [],
  async handler({ pty_id, output_file }, ctx) {
    await ctx.terminal.captureStart(pty_id, output_file, filePolicy(ctx.config));
    return { structured: { pty_id, output_file } };
  },
});
