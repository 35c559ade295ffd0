import { z } from "zod";
import { defineTool } from "../tool.ts";
import { bufferName } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import * as search from "../search_schemas.ts";

export default defineTool({
  name: "subsearch-buffer",
  title: "Search near an earlier match",
  description:
    "Searches only the window [offset_bytes − context_bytes, offset_bytes + match_len + context_bytes) of one buffer, e.g. around a search-buffer match. Same query options and response as search-buffer; offsets stay absolute.",
  toolset: "buffers",
  tier: "readonly",
  pagesNatively: true,
  input: z.object({
    buffer: bufferName,
    offset_bytes: search.byteOffset.describe("offset_bytes of the earlier match"),
    match_len: search.byteOffset.default(0).describe("its match_len"),
    context_bytes: search.contextBytes(
      256,
      "window (and snippet) bytes on each side",
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
