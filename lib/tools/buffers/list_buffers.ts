import { z } from "zod";
import { defineTool } from "../declared.ts";

export default defineTool({
  name: "list-buffers",
  title: "List paste buffers",
  description: "Lists paste buffers and their sizes.",
  toolset: "buffers",
  tier: "readonly",
  input: z.object({}),
  output: z.object({
    buffers: z.array(z.object({
      name: z.string(),
      size_bytes: z.number().int(),
      order_index: z.number().int(),
    })),
  }),
  secrets: [],
  async handler(_args, ctx) {
    return { structured: { buffers: await ctx.buffers.list() } };
  },
});
