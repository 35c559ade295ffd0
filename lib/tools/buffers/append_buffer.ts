import { z } from "zod";
import { defineTool } from "../declared.ts";
import { content, writtenBufferName } from "../schemas.ts";

export default defineTool({
  name: "append-buffer",
  title: "Append to a buffer",
  description: "Appends text to a paste buffer, creating it if missing.",
  toolset: "buffers",
  tier: "mutating",
  smallResult: true,
  input: z.object({ name: writtenBufferName, content: content.min(1, "content must not be empty") }),
  output: z.object({
    name: z.string(),
    size_bytes: z.number().int(),
    appended_bytes: z.number().int(),
    created: z.boolean(),
  }),
  secrets: ["content"],
  async handler({ name, content }, ctx) {
    const bytes = new TextEncoder().encode(content);
    const { created, size_bytes } = await ctx.buffers.append(name, bytes);
    return { structured: { name, size_bytes, appended_bytes: bytes.length, created } };
  },
});
