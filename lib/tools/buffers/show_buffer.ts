import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool.ts";
import { bufferName } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import { clipToCharBoundary } from "../../buffers/utf8.ts";

const MAX_SLICE = 1024 * 1024;

export default defineTool({
  name: "show-buffer",
  title: "Read a slice of a tmux buffer",
  description: "Returns bytes [offset_bytes, offset_bytes + max_bytes) of a paste buffer as text " +
    "(max_bytes up to 1 MiB; a slice never ends inside a UTF-8 character; invalid UTF-8 shows as U+FFFD). " +
    "The first content block is the text itself; the paging facts (size_bytes, returned_bytes, " +
    "next_offset_bytes — null at the end) come in a second block and in the structured result. " +
    "To read on, call again with offset_bytes = next_offset_bytes. To find something in a large " +
    "buffer, use search-buffer instead of paging through it.",
  toolset: "buffers",
  tier: "readonly",
  annotations: READ_ONLY,
  textField: "text",
  refinements: ["pass a smaller max_bytes", "search-buffer finds text in a buffer without reading all of it"],
  input: z.object({
    name: bufferName,
    offset_bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0)
      .describe("byte offset to start at (0, or a next_offset_bytes from an earlier call)"),
    max_bytes: z.number().int().min(1).max(MAX_SLICE).default(65536).describe("most bytes to return (≤ 1 MiB)"),
  }),
  output: z.object({
    name: z.string(),
    size_bytes: z.number().int(),
    offset_bytes: z.number().int(),
    returned_bytes: z.number().int(),
    next_offset_bytes: z.number().int().nullable(),
    text: z.string(),
  }),
  secrets: [],
  async handler({ name, offset_bytes, max_bytes }, ctx) {
    const bytes = await ctx.buffers.read(name);
    const size = bytes.length;
    if (offset_bytes > size) {
      throw new UserError(
        `offset_bytes ${offset_bytes} is past the end of buffer ${JSON.stringify(name)} (size ${size} bytes): ` +
          `pass an offset from 0 to ${size}`,
      );
    }
    let end = Math.min(size, offset_bytes + max_bytes);
    const clipped = clipToCharBoundary(bytes, offset_bytes, end);
    // A slice too small for the character at its start returns it partly
    // rather than nothing, so paging always moves forward.
    if (clipped > offset_bytes) end = clipped;
    const text = new TextDecoder().decode(bytes.subarray(offset_bytes, end));
    const facts = {
      name,
      size_bytes: size,
      offset_bytes,
      returned_bytes: end - offset_bytes,
      next_offset_bytes: end < size ? end : null,
    };
    return {
      structured: { ...facts, text },
      content: [{ type: "text", text }, { type: "text", text: JSON.stringify(facts) }],
    };
  },
});
