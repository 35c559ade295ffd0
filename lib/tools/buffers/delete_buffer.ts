import { z } from "zod";
import { defineTool } from "../declared.ts";
import { bufferName } from "../schemas.ts";

export default defineTool({
  name: "delete-buffer",
  title: "Delete a buffer",
  description: "Deletes one paste buffer.",
  toolset: "buffers",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true },
  input: z.object({ name: bufferName }),
  output: z.object({ name: z.string(), deleted: z.boolean() }),
  secrets: [],
  async handler({ name }, ctx) {
    await ctx.buffers.delete(name);
    return { structured: { name, deleted: true } };
  },
});
