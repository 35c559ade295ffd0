import { z } from "zod";
import { defineTool } from "../declared.ts";
import { bufferName } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import { clipToCharBoundary, utf8SequenceLength } from "../../text/utf8.ts";
import { largestFitting } from "../../budget/page.ts";
import { redactedBytePages } from "../../text/redact_page.ts";
import { firstInvalidUtf8 } from "../../search/text.ts";
import { changedBefore, forgetChanged, identityOf, markContinuation } from "../../buffers/page_marks.ts";

const MAX_SLICE = 1024 * 1024;

export default defineTool({
  name: "show-buffer",
  title: "Read a buffer",
  description: "A page of a paste buffer; continue at next_offset_bytes (null at the end).",
  toolset: "buffers",
  tier: "readonly",
  pagesNatively: true,
  input: z.object({
    name: bufferName,
    offset_bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    max_bytes: z.number().int().min(1).max(MAX_SLICE).default(65536),
  }),
  output: z.object({
    name: z.string(),
    size_bytes: z.number().int(),
    offset_bytes: z.number().int(),
    returned_bytes: z.number().int(),
    next_offset_bytes: z.number().int().nullable(),
    truncated_by_budget: z.literal(true).optional()
      .describe("present (true) when cut to fit the budget"),
    text: z.string(),
  }),
  secrets: [],
  async handler({ name, offset_bytes, max_bytes }, ctx) {
    const bytes = await ctx.buffers.read(name);
    const size = bytes.length;
    // Read from the start, as the refusal below says to: offsets the old text's pages gave are the new text's now.
    if (offset_bytes === 0) forgetChanged(ctx.buffers, name, bytes);
    if (changedBefore(ctx.buffers, name, bytes, offset_bytes)) {
      throw new UserError(
        `buffer ${JSON.stringify(name)} changed since the page that gave offset_bytes ${offset_bytes}: it was ` +
          `replaced (its bytes before that offset are not the ones that page ended with), so reading on would mix ` +
          `two texts: read it again from offset_bytes 0`,
      );
    }
    if (offset_bytes > size) {
      throw new UserError(
        `offset_bytes ${offset_bytes} is past the end of buffer ${JSON.stringify(name)} (size ${size} bytes): ` +
          `pass an offset from 0 to ${size}`,
      );
    }
    // An offset inside a well-formed character (an offset counted in characters, or a buffer that changed since
    // the page that gave it) would start the page with U+FFFD for the character's tail: say so instead. Offsets
    // inside malformed bytes are left alone: pages step through those a byte at a time.
    const charStart = clipToCharBoundary(bytes, 0, offset_bytes);
    if (charStart < offset_bytes) {
      throw new UserError(
        `offset_bytes ${offset_bytes} is inside a UTF-8 character of buffer ${JSON.stringify(name)} (it starts at ` +
          `byte ${charStart}): pass the next_offset_bytes of the previous page unchanged (the buffer may have ` +
          `changed since), or ${charStart}`,
      );
    }
    /** Where a page of at most `limit` bytes ends: never inside a character, and never before the first one. */
    const pageEnd = (limit: number): number => {
      const end = Math.min(size, offset_bytes + limit);
      const clipped = clipToCharBoundary(bytes, offset_bytes, end);
      if (clipped > offset_bytes || end === offset_bytes) return clipped;
      // Too small for the (well-formed) character at the start: return that character whole, so paging moves on.
      return Math.min(size, offset_bytes + utf8SequenceLength(bytes[offset_bytes]));
    };
    const longest = pageEnd(max_bytes);
    // A secret the page's edge cuts is redacted whole, from the bytes around the page (lib/text/redact_page.ts).
    const textTo = redactedBytePages(ctx.redactor, bytes, offset_bytes, longest);
    const page = (end: number, cut: boolean) => {
      const text = textTo(end);
      const facts = {
        name,
        size_bytes: size,
        offset_bytes,
        returned_bytes: end - offset_bytes,
        next_offset_bytes: end < size ? end : null,
        ...(cut ? { truncated_by_budget: true as const } : {}),
      };
      // Bytes that are not UTF-8 (search-buffer's "not text") decode to U+FFFD, which a buffer may also hold as
      // text: say so, after the facts (no field of its own: the tool list has no room), without the bytes
      // themselves, which the redaction of the text would not cover.
      const bad = firstInvalidUtf8(bytes.subarray(offset_bytes, end));
      const warning = bad < 0 ? [] : [{
        type: "text" as const,
        text: `warning: buffer ${JSON.stringify(name)} is not UTF-8 text (the first invalid byte of this page is ` +
          `at offset ${offset_bytes + bad}): text shows each invalid byte as U+FFFD; for the exact bytes, ` +
          `save-buffer it to a file`,
      }];
      return {
        structured: { ...facts, text },
        content: [{ type: "text" as const, text }, { type: "text" as const, text: JSON.stringify(facts) }, ...warning],
      };
    };
    /** The page, with where it ends noted for its continuation. */
    const served = <P extends ReturnType<typeof page>>(p: P): P => {
      const next = p.structured.next_offset_bytes;
      if (next !== null) markContinuation(ctx.buffers, name, next, identityOf(bytes), bytes.subarray(0, next));
      return p;
    };
    const whole = page(longest, false);
    if (ctx.budget.fits(whole)) return served(whole);
    // Over the response budget: the longest page that fits, continued exactly by next_offset_bytes.
    const n = largestFitting(1, whole.structured.returned_bytes, (k) => ctx.budget.fits(page(pageEnd(k), true)));
    const cut = page(pageEnd(n), true);
    // Not even its first character fits beside the page's fields (a long name echoed, a budget of about 100).
    if (!ctx.budget.fits(cut)) {
      throw ctx.budget.tooSmall(
        "a page with one character of this buffer (its name echoed)",
        "rename-buffer it to a shorter name",
      );
    }
    return served(cut);
  },
});
