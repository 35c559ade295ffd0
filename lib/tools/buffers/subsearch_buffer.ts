import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool.ts";
import { bufferName } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import * as search from "../search_schemas.ts";

export default defineTool({
  name: "subsearch-buffer",
  title: "Search near an earlier match",
  description: "Searches only a window around an earlier match: bytes [offset_bytes − context_bytes, " +
    "offset_bytes + match_len + context_bytes) of one buffer, clamped to the buffer (a character cut by an " +
    "edge is left out). Pass offset_bytes and match_len of a search-buffer match (or any byte range) and a " +
    "new query, e.g. the request id near an error. The window is searched as if it were the whole text " +
    "(^ and $ match its edges, lookbehind does not see before it) and must itself be valid UTF-8. Same query " +
    "options and the same response as search-buffer: offsets are absolute buffer offsets, snippets stay " +
    "inside the window, `window` gives its bounds. truncated_buffers names the buffer only when the window " +
    "holds more matches than max_matches; then call again with resume_from_offset from the response. No state " +
    "is kept between calls. " + search.SIMILARITY_DOC,
  toolset: "buffers",
  tier: "readonly",
  annotations: READ_ONLY,
  input: z.object({
    buffer: bufferName,
    offset_bytes: search.byteOffset.describe("byte offset of the earlier match (offset_bytes from search-buffer)"),
    match_len: search.byteOffset.default(0).describe("its length in bytes (match_len from search-buffer)"),
    context_bytes: search.contextBytes(
      256,
      "window radius in bytes on each side of the match (0..4096); also the snippet radius",
    ),
    ...search.queryParams,
    resume_from_offset: search.resumeFromOffset,
  }),
  output: search.searchOutput,
  secrets: ["query"],
  async handler(args, ctx) {
    let from: number | undefined;
    for (const [name, offset] of Object.entries(args.resume_from_offset ?? {})) {
      if (name !== args.buffer) {
        throw new UserError(
          `resume_from_offset names ${JSON.stringify(name)}, but this subsearch is in ${
            JSON.stringify(args.buffer)
          }: ` +
            `pass back the resume_from_offset of the previous subsearch-buffer response unchanged`,
        );
      }
      from = offset;
    }
    const around = { offset: args.offset_bytes, length: args.match_len, context: args.context_bytes };
    return await search.runSearch(ctx, args, [{ name: args.buffer, from, around }], Infinity);
  },
});
