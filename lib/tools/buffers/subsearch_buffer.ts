import { z } from "zod";
import { defineTool } from "../declared.ts";
import { bufferName } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import * as search from "../search_schemas.ts";

export default defineTool({
  name: "subsearch-buffer",
  title: "Search near an earlier match",
  description:
    "Searches one buffer within context_bytes around an earlier match (offset_bytes, match_len); results as search-buffer's.",
  toolset: "buffers",
  tier: "readonly",
  pagesNatively: true,
  input: z.object({
    buffer: bufferName,
    offset_bytes: search.byteOffset.describe("the match's offset_bytes"),
    match_len: search.byteOffset.default(0),
    context_bytes: search.contextBytes(256, "bytes each side"),
    ...search.queryParams,
    resume_from_offset: search.resumeFromOffset,
  }),
  output: search.subsearchOutput,
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
    const out = await search.runSearch(ctx, args, [{ name: args.buffer, from, around }], Infinity);
    const { window } = out.structured;
    // A windowed target is always read first, so the search reports its window.
    if (!window) throw new Error("subsearch-buffer: the search reported no window");
    return { structured: { ...out.structured, window } };
  },
});
