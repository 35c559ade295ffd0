import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath } from "../schemas.ts";
import { ptyId } from "./schemas.ts";
import { filePolicy } from "../../policy/files.ts";

export default defineTool({
  name: "pty-capture",
  // Start and stop were two tools; one with an optional file costs every agent fewer listing bytes.
  replaces: {
    pty_capture_start: "pty-capture with output_file",
    pty_capture_stop: "pty-capture without output_file",
  },
  title: "Record a session's output",
  description:
    "Records a pty session's output to output_file where it runs (appended raw, or a new asciicast v2); no output_file: stops.",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { openWorldHint: true },
  input: z.object({
    pty_id: ptyId,
    output_file: absolutePath.optional(),
    format: z.enum(["raw", "asciicast"]).optional(),
  }),
  output: z.object({ pty_id: z.string(), output_file: z.string(), capturing: z.boolean() }),
  secrets: [],
  async handler({ pty_id, output_file, format }, ctx) {
    if (output_file === undefined) {
      return { structured: { pty_id, output_file: await ctx.terminal.captureStop(pty_id), capturing: false } };
    }
    await ctx.terminal.captureStart(pty_id, output_file, filePolicy(ctx.config), format);
    return { structured: { pty_id, output_file, capturing: true } };
  },
});
