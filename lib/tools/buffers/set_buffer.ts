import { z } from "zod";
import { defineTool } from "../declared.ts";
import { content, writtenBufferName } from "../schemas.ts";

export default defineTool({
  name: "set-buffer",
  title: "Set a buffer",
  description: "Stores text in a paste buffer, creating or replacing it.",
  toolset: "buffers",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true, idempotentHint: true },
  input: z.object({ name: writtenBufferName, content }),
  output: z.object({ name: z.string(), size_bytes: z.number().int() }),
  secrets: ["content"],
  async handler({ name, content }, ctx) {
    const bytes = new TextEncoder().encode(content);
    await ctx.buffers.write(name, bytes);
    return { structured: { name, size_bytes: bytes.length } };
  },
});
