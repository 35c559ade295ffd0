import { z } from "zod";
import { defineTool } from "../declared.ts";
import { bufferName, writtenBufferName } from "../schemas.ts";

export default defineTool({
  name: "rename-buffer",
  title: "Rename a buffer",
  description: "Renames a paste buffer.",
  toolset: "buffers",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true },
  input: z.object({
    from: bufferName,
    to: writtenBufferName,
    overwrite: z.boolean().default(false).describe("replace an existing `to`"),
  }),
  output: z.object({ from: z.string(), to: z.string(), replaced: z.boolean() }),
  secrets: [],
  async handler({ from, to, overwrite }, ctx) {
    const { replaced } = await ctx.buffers.rename(from, to, overwrite);
    return { structured: { from, to, replaced } };
  },
});
