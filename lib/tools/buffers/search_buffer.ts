import { z } from "zod";
import { defineTool } from "../declared.ts";
import { bufferName } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import { missingBuffer } from "../../buffers/store.ts";
import * as search from "../search_schemas.ts";
import type { SearchTarget } from "../../search/search.ts";

export default defineTool({
  name: "search-buffer",
  title: "Search buffers",
  description:
    "Finds text in paste buffers: each match's offset, line and snippet. Next: show-buffer at context_start, or subsearch-buffer.",
  toolset: "buffers",
  tier: "readonly",
  pagesNatively: true,
  input: z.object({
    ...search.queryParams,
    buffers: z.array(bufferName).min(1, "buffers must name at least one buffer (omit it to search all)")
      .max(search.MAX_BUFFERS, `buffers names more than ${search.MAX_BUFFERS} buffers`).optional()
      .describe("in order (omit: all)"),
    context_bytes: search.contextBytes(64, "snippet bytes each side"),
    max_scan_bytes: z.number().int().min(1).max(search.MAX_SCAN_BYTES).default(16 * 1024 * 1024),
    resume_from_offset: search.resumeFromOffset,
  }),
  output: search.searchOutput,
  secrets: ["query"],
  async handler(args, ctx) {
    let names = args.buffers;
    if (names) {
      const seen = new Set<string>();
      for (const n of names) {
        if (seen.has(n)) throw new UserError(`buffers lists ${JSON.stringify(n)} twice: name each buffer once`);
        seen.add(n);
      }
    } else {
      names = (await ctx.buffers.list()).map((b) => b.name);
      if (names.length > search.MAX_BUFFERS) {
        throw new UserError(
          `there are ${names.length} buffers, more than one search covers (${search.MAX_BUFFERS}): ` +
            `name the ones to search in buffers`,
        );
      }
    }
    let targets: SearchTarget[] = names.map((name) => ({ name }));
    if (args.resume_from_offset) {
      const resume = new Map(Object.entries(args.resume_from_offset));
      const known = new Set(names);
      for (const name of resume.keys()) {
        if (known.has(name)) continue;
        if (!args.buffers) throw missingBuffer(name);
        throw new UserError(
          `resume_from_offset names ${JSON.stringify(name)}, which is not in buffers: ` +
            `pass the same buffers as in the call that returned it`,
        );
      }
      targets = names.filter((n) => resume.has(n)).map((name) => ({ name, from: resume.get(name) }));
    }
    return await search.runSearch(ctx, args, targets, args.max_scan_bytes);
  },
});
