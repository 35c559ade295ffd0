import { z } from "zod";
import { defineTool } from "../declared.ts";
import { formerName, ptyId } from "./schemas.ts";

export default defineTool({
  name: "pty-capture-stop",
  replaces: formerName("pty-capture-stop"),
  title: "Stop recording",
  description: "Stops a pty-capture-start capture; the file stays.",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  input: z.object({ pty_id: ptyId }),
  output: z.object({ pty_id: z.string(), output_file: z.string() }),
  secrets: [],
  async handler({ pty_id }, ctx) {
    const output_file = await ctx.terminal.captureStop(pty_id);
    return { structured: { pty_id, output_file } };
  },
});
