import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath } from "../schemas.ts";
import { ptyId, runsOn } from "./schemas.ts";
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
  output: z.object({ pty_id: z.string(), output_file: z.string(), capturing: z.boolean(), file_host: z.string() }),
  secrets: [],
  async handler({ pty_id, output_file, format }, ctx) {
    if (output_file === undefined) {
      const stopped = await ctx.terminal.captureStop(pty_id);
      return { structured: { pty_id, output_file: stopped, capturing: false, file_host: runsOn(ctx) } };
    }
    await ctx.terminal.captureStart(pty_id, output_file, filePolicy(ctx.config), format);
    return { structured: { pty_id, output_file, capturing: true, file_host: runsOn(ctx) } };
  },
});
