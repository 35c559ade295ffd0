import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool.ts";

export default defineTool({
  name: "list-buffers",
  title: "List tmux paste buffers",
  description: "Lists every tmux paste buffer with its size in bytes. order_index 0 is the most recently added " +
    "buffer (tmux's own order). Buffer content is not returned: read it with show-buffer " +
    "(paged by offset_bytes/max_bytes) or search it with search-buffer.",
  toolset: "buffers",
  tier: "readonly",
  annotations: READ_ONLY,
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
