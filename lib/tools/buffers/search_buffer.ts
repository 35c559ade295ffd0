import { z } from "zod";
import { defineTool } from "../declared.ts";
import { bufferName, closedObject } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import * as search from "../search_schemas.ts";
import type { SearchTarget } from "../../search/search.ts";

/** How a call to the former subsearch-buffer is written now (its error says so). */
const NEAR_CALL = "search-buffer with near: {buffer, offset_bytes, match_len} (context_bytes: bytes each side)";

export default defineTool({
  name: "search-buffer",
  // Searching near a match was its own tool; one optional object costs every agent fewer listing bytes.
  replaces: { "subsearch-buffer": NEAR_CALL },
  title: "Search buffers",
  description: "Finds text in paste buffers: each match's offset, line and snippet; show-buffer at context_start " +
    "shows more.",
  toolset: "buffers",
  tier: "readonly",
  pagesNatively: true,
  input: z.object({
    ...search.queryParams,
    buffers: z.array(bufferName).min(1, "buffers must name at least one buffer (omit it to search all)")
      .max(search.MAX_BUFFERS, `buffers names more than ${search.MAX_BUFFERS} buffers`).optional()
      .describe("in order (omit: all)"),
    near: closedObject({ buffer: bufferName, offset_bytes: search.byteOffset, match_len: search.byteOffset.optional() })
      .optional().describe("a match: search context_bytes around it (answer: window)"),
    context_bytes: search.contextBytes("snippet bytes each side; 64, with near 256"),
    max_scan_bytes: z.number().int().min(1).max(search.MAX_SCAN_BYTES).default(16 * 1024 * 1024),
    resume_from_offset: search.resumeFromOffset,
  }),
  output: search.searchOutput,
  secrets: ["query"],
  async handler(args, ctx) {
    if (args.near) {
      if (args.buffers) {
        throw new UserError("near names its buffer: leave buffers out (or search them without near)");
      }
      const { buffer, offset_bytes, match_len = 0 } = args.near;
      let from: number | undefined;
      for (const [name, offset] of Object.entries(args.resume_from_offset ?? {})) {
        if (name !== buffer) {
          throw new UserError(
            `resume_from_offset names ${JSON.stringify(name)}, but this search is near a match in ${
              JSON.stringify(buffer)
            }: pass back the resume_from_offset of the previous response unchanged, with the same near`,
          );
        }
        from = offset;
      }
      const context = args.context_bytes ?? 256;
      const around = { offset: offset_bytes, length: match_len, context };
      const out = await search.runSearch(ctx, { ...args, context_bytes: context }, [{ name: buffer, from, around }]);
      // A windowed target is always read first, so the search reports its window.
      if (!out.structured.window) throw new Error("search-buffer: the search near a match reported no window");
      return out;
    }
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
    // Searching every buffer, one that is not text is left out (and named), not the end of the search.
    const skipIfNotText = !args.buffers;
    let targets: SearchTarget[] = names.map((name) => ({ name, skipIfNotText }));
    if (args.resume_from_offset) {
      const resume = new Map(Object.entries(args.resume_from_offset));
      const known = new Set(names);
      for (const name of resume.keys()) {
        // Searching every buffer, one deleted since the last page has nothing left to find (as in one search).
        if (known.has(name) || !args.buffers) continue;
        throw new UserError(
          `resume_from_offset names ${JSON.stringify(name)}, which is not in buffers: ` +
            `pass the same buffers as in the call that returned it`,
        );
      }
      targets = names.filter((n) => resume.has(n)).map((name) => ({ name, from: resume.get(name), skipIfNotText }));
    }
    return await search.runSearch(
      ctx,
      { ...args, context_bytes: args.context_bytes ?? 64 },
      targets,
      args.max_scan_bytes,
      targets.length < names.length,
    );
  },
});
