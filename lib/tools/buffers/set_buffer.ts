import { z } from "zod";
import { defineTool } from "../tool.ts";
import { bufferName, content } from "../schemas.ts";

export default defineTool({
  name: "set-buffer",
  title: "Create or replace a tmux buffer",
  description: "Stores text in a paste buffer, creating it or replacing its content. Works for megabytes " +
    "(the content goes to tmux on stdin). tmux cannot hold an empty buffer, so empty content is refused " +
    "and the buffer left as it was. Next: show-buffer or search-buffer to read it, append-buffer to add to it.",
  toolset: "buffers",
  tier: "mutating",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z.object({ name: bufferName, content }),
  output: z.object({ name: z.string(), size_bytes: z.number().int() }),
  secrets: ["content"],
  async handler({ name, content }, ctx) {
    const bytes = new TextEncoder().encode(content);
    await ctx.buffers.write(name, bytes);
    return { structured: { name, size_bytes: bytes.length } };
  },
});
