/**
 * What the buffer search shares: its query parameters, the response schema,
 * and the one path from arguments to a response (a search of whole buffers
 * and one near a match only differ in which bytes they hand to `lib/search`).
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * // In a tool's entry:
 * const input = z.object({ ...queryParams, resume_from_offset: resumeFromOffset.optional() });
 * const output = searchOutput;
 * const handler = (args: QueryArgs & { max_scan_bytes: number }, ctx: Parameters<typeof runSearch>[0]) =>
 *   runSearch(ctx, args, [{ name: "log" }], args.max_scan_bytes);
 * ```
 */
import { z } from "zod";
import { bufferName } from "./schemas.ts";
import type { ToolContext, ToolOutput } from "./tool.ts";
import { compileMatcher } from "../search/matcher.ts";
import { searchBuffers, type SearchTarget } from "../search/search.ts";
import { MissingBuffer, UnnamableBuffer } from "../buffers/store.ts";
import { changedBefore, type Identity, identityOf, markContinuation } from "../buffers/page_marks.ts";
import { UserError } from "../errors.ts";
import type { FoundMatch } from "../search/scan.ts";
import { redactedSlicer } from "../text/redact_page.ts";
import type { Redactor } from "../text/redact.ts";
import { firstMatches, MAX_BUFFERS, similarityStats } from "./search_page.ts";
import { largestFitting, textPrefix } from "../budget/page.ts";
import { cutTokens, SNIPPET_MATCH_MAX } from "../search/snippet.ts";
import { bytesView, type Utf8View } from "../search/subject.ts";

export { MAX_BUFFERS } from "./search_page.ts";

export const MAX_QUERY_CHARS = 1024;
export const MAX_CONTEXT_BYTES = 4096;
export const MAX_MATCHES = 1000;
const MiB = 1024 * 1024;
export const MAX_SCAN_BYTES = 256 * MiB;
/** Offsets beyond any real buffer; keeps offset + length + context exact in doubles. */
const MAX_OFFSET = 2 ** 40;

/** A byte offset into a buffer. */
export const byteOffset = z.number().int().min(0).max(MAX_OFFSET);

/** Query parameters both tools take. */
export const queryParams = {
  query: z.string().min(1, "query must not be empty").max(
    MAX_QUERY_CHARS,
    `query is longer than ${MAX_QUERY_CHARS} characters`,
  ),
  // How each works is said once, in SEARCH_DOC (lib/tools/docs.ts).
  mode: z.enum(["literal", "regex"]).default("literal"),
  ignore_case: z.boolean().default(false),
  max_matches: z.number().int().min(1).max(MAX_MATCHES).default(50),
  // How it scores is said in the result schema's similarity (the formula: docs/tools.md).
  include_similarity: z.boolean().default(false),
};

/** `resume_from_offset` as the input takes it. */
export const resumeFromOffset = z.record(bufferName, byteOffset)
  .refine((r) => Object.keys(r).length <= MAX_BUFFERS, `resume_from_offset names more than ${MAX_BUFFERS} buffers`)
  .optional();

/** `context_bytes`, optional: its default depends on the search (the handler picks it). */
export function contextBytes(what: string) {
  return z.number().int().min(0).max(MAX_CONTEXT_BYTES).optional().describe(what);
}

const count = z.number().int().min(0);

const matchSchema = z.object({
  buffer: z.string(),
  offset_bytes: count.describe("UTF-8 byte offset of the match in the buffer"),
  match_len: count.describe("length of the match in UTF-8 bytes"),
  line: z.number().int().min(1).describe("1-based line of the match start"),
  context_start: count.describe("buffer offset where the snippet starts"),
  context_end: count.describe("buffer offset where the snippet ends"),
  snippet: z.string().describe("bytes [context_start, context_end) as text; never cuts a character"),
  similarity: z.number().min(0).max(1).optional()
    .describe("include_similarity only; 1: an exact-case whole word (docs: tools.md)"),
});

/** The window a search near a match searched (present exactly then). */
const windowSchema = z.object({ buffer: z.string(), start_bytes: count, end_bytes: count });

/** The response of search-buffer; with near, it adds the window searched, [start_bytes, end_bytes). */
export const searchOutput = z.object({
  query: z.string(),
  mode: z.enum(["literal", "regex"]),
  ignore_case: z.boolean(),
  context_bytes: count,
  max_matches: count,
  max_scan_bytes: count,
  include_similarity: z.boolean(),
  buffers: z.array(z.string()).describe("the buffers searched, in scan order"),
  total_matches: count.describe("in the whole buffers searched, this page's included"),
  total_is_partial: z.boolean().describe("true: total_matches is a lower bound (max_scan_bytes or time ran out)"),
  buffers_scanned: count,
  bytes_scanned_total: count,
  matches: z.array(matchSchema),
  truncated_buffers: z.array(z.string())
    .describe("buffers with matches or bytes left; empty when the search is complete"),
  resume_from_offset: z.record(z.string(), count)
    .describe("pass back as resume_from_offset to get the remaining matches"),
  max_similarity: z.number().min(0).max(1).nullable().optional()
    .describe("include_similarity only"),
  avg_similarity: z.number().min(0).max(1).nullable().optional()
    .describe("include_similarity only"),
  truncated_by_budget: z.literal(true).optional().describe("present when cut to fit"),
  skipped_buffers: z.array(z.string()).optional().describe("present: not UTF-8"),
  window: windowSchema.optional().describe("with near only"),
});

/** What `runSearch` builds (a window only for a search near a match). */
export type SearchOutput = z.infer<typeof searchOutput>;

/**
 * A match without its `cut` tokens, its snippet redacted with them when a token its edge cuts continues past it:
 * a secret the edge cuts is judged whole and shows its marker (lib/text/redact_page.ts). The pipeline redacts
 * every answer again; a marker stays as it is.
 */
function snippetRedacted(m: FoundMatch & { buffer: string }, redactor: Redactor | undefined) {
  const { cut, ...match } = m;
  if (!cut || !redactor) return match;
  const [before, after] = cut;
  const page = redactedSlicer(
    redactor,
    before + match.snippet + after,
    0,
    before.length + match.snippet.length + after.length,
    0,
  );
  return { ...match, snippet: page(before.length, before.length + match.snippet.length) };
}

/** The query arguments after validation. */
export interface QueryArgs {
  query: string;
  mode: "literal" | "regex";
  ignore_case: boolean;
  max_matches: number;
  include_similarity: boolean;
  context_bytes: number;
}

/**
 * Runs a search and shapes the response. `maxScanBytes` is Infinity (the
 * default) for a window, whose own size is then echoed. `earlier`: buffers
 * of a resumed search that earlier pages finished are not among `targets`,
 * so their matches are not in the total. Regex searches
 * run in a worker with a deadline (`lib/search/worker_pool.ts`), so a
 * runaway pattern cannot freeze the server.
 */
export async function runSearch(
  ctx: ToolContext,
  args: QueryArgs,
  targets: SearchTarget[],
  maxScanBytes = Infinity,
  earlier = false,
): Promise<ToolOutput<SearchOutput>> {
  // Compiled here first so an invalid regex is reported at once, without a worker.
  const matcher = compileMatcher(args.query, args.mode, args.ignore_case);
  // A regex can backtrack for minutes: it runs in a worker with a deadline. Literal search is linear.
  const search = matcher.mode === "regex" ? ctx.regex.search : searchBuffers;
  // Searching every buffer: one deleted since they were listed (a result buffer expiring, tmux dropping its oldest
  // automatic buffer, another client) has nothing left to find, and must not fail the search of the others.
  const listed = new Set(targets.filter((t) => t.skipIfNotText).map((t) => t.name));
  // What each buffer was when read, for the resume offsets this page gives (lib/buffers/page_marks.ts); a
  // resumed buffer must still be the one the page that gave its offset searched.
  const resumedAt = new Map(targets.flatMap((t) => t.from === undefined ? [] : [[t.name, t.from] as const]));
  const identities = new Map<string, Identity>();
  const read = async (name: string) => {
    const bytes = await ctx.buffers.read(name).catch((e) => {
      if (e instanceof MissingBuffer && listed.has(name)) return new Uint8Array(0);
      // One listed under a name that is not UTF-8 cannot be read: left out as not UTF-8 (skipped_buffers), like
      // binary bytes, not searched as empty.
      if (e instanceof UnnamableBuffer && listed.has(name)) return new Uint8Array([0xff]);
      throw e;
    });
    const from = resumedAt.get(name);
    if (from !== undefined && changedBefore(ctx.buffers, name, bytes, from)) {
      throw new UserError(
        `buffer ${JSON.stringify(name)} changed since the search that gave resume_from_offset ${from} for it (it ` +
          `was replaced, not appended to): search again without resume_from_offset`,
      );
    }
    identities.set(name, identityOf(bytes));
    return bytes;
  };
  /** The page, with where each buffer it leaves is to resume noted for the page that resumes it. */
  const served = (page: ToolOutput<SearchOutput>): ToolOutput<SearchOutput> => {
    for (const [name, offset] of Object.entries(page.structured.resume_from_offset)) {
      const identity = identities.get(name);
      if (identity !== undefined && offset > 0) markContinuation(ctx.buffers, name, offset, identity);
    }
    return page;
  };
  const r = await search(targets, read, {
    matcher,
    maxMatches: args.max_matches,
    maxScanBytes,
    contextBytes: args.context_bytes,
    includeSimilarity: args.include_similarity,
    signal: ctx.signal,
    onBuffer: (done, total) => void ctx.progress(done, total),
    count: true,
  });
  const [win] = r.windows;
  const out: SearchOutput = {
    query: args.query,
    mode: args.mode,
    ignore_case: args.ignore_case,
    context_bytes: args.context_bytes,
    max_matches: args.max_matches,
    max_scan_bytes: win ? win[1].end - win[1].start : maxScanBytes,
    include_similarity: args.include_similarity,
    buffers: targets.map((t) => t.name),
    ...(win ? { window: { buffer: win[0], start_bytes: win[1].start, end_bytes: win[1].end } } : {}),
    total_matches: r.total,
    total_is_partial: !r.totalComplete || earlier,
    buffers_scanned: r.buffersScanned,
    bytes_scanned_total: r.bytesScanned,
    matches: r.matches.map((m) => snippetRedacted(m, ctx.redactor)),
    truncated_buffers: r.truncated.map(([name]) => name),
    // fromEntries defines own properties, so a buffer named "__proto__" stays a key.
    resume_from_offset: Object.fromEntries(r.truncated),
    ...(r.skipped.length > 0 ? { skipped_buffers: r.skipped.map(([name]) => name) } : {}),
  };
  if (args.include_similarity) Object.assign(out, similarityStats(r.matches));
  if (ctx.budget.fits({ structured: out })) return served({ structured: out });
  // Over the response budget. The names of the buffers searched (up to 1,024 of 256 characters) and the query
  // echoed (up to 1,024 characters, a control character 6 in JSON) can be over it alone: a page echoes the most of
  // the query, then names the most buffers, that leave room for one match (its snippet aside), and says so.
  const total = out.buffers.length;
  const query = out.query;
  const shown = (p: SearchOutput, n: number, q: number): ToolOutput<SearchOutput> => {
    if (n >= total && q >= query.length) return { structured: p };
    const echo = textPrefix(query, q);
    const named = p.buffers.slice(0, n);
    // Those left out as not text are named among the buffers shown only (they may be as many, as long).
    const kept = new Set(named);
    const skipped = p.skipped_buffers?.filter((b) => kept.has(b));
    const structured = {
      ...p,
      query: echo,
      buffers: named,
      ...(skipped ? { skipped_buffers: skipped } : {}),
      truncated_by_budget: true as const,
    };
    if (skipped?.length === 0) delete structured.skipped_buffers;
    const notes = [
      ...(echo.length < query.length
        ? [`query echoes the first ${echo.length} of the ${query.length} characters of the query searched`]
        : []),
      ...(n < total
        ? [
          `buffers lists the first ${n} of the ${total} buffers searched` +
          `${skipped && skipped.length < p.skipped_buffers!.length ? " (skipped_buffers: those of them)" : ""}` +
          `: list-buffers names them all`,
        ]
        : []),
    ];
    const note = `${notes.join("; ")} (cut to fit the response budget)`;
    return {
      structured,
      content: [{ type: "text", text: JSON.stringify(structured) }, { type: "text", text: note }],
    };
  };
  const bare = firstMatches(out, Math.min(1, out.matches.length));
  const one = { ...bare, matches: bare.matches.map((m) => ({ ...m, snippet: "" })) };
  const fitsOne = ctx.budget.fits({ structured: one });
  const q = fitsOne || ctx.budget.fits(shown(one, 0, query.length))
    ? query.length
    : largestFitting(0, query.length, (c) => ctx.budget.fits(shown(one, 0, c)));
  const n = fitsOne ? total : largestFitting(0, total, (b) => ctx.budget.fits(shown(one, b, q)));
  const named = (p: SearchOutput, n: number) => shown(p, n, q);
  const page = await fittedPage(ctx, out, (p) => named(p, n));
  // Every buffer left to search must be in resume_from_offset, or paging on would never search it. Refused when
  // those names are what is over: the page fits without them, or they alone are over (under a per-tool budget of
  // 100–250 the page's fixed part is over too).
  const { truncated_buffers, resume_from_offset } = page.structured;
  const unnamed = { ...page.structured, truncated_buffers: [], resume_from_offset: {} };
  if (
    truncated_buffers.length > 0 && !ctx.budget.fits(page) &&
    (ctx.budget.fits({ structured: unnamed }) ||
      !ctx.budget.fits({ structured: { truncated_buffers, resume_from_offset } }))
  ) {
    throw new UserError(
      `this search leaves ${page.structured.truncated_buffers.length} buffers to search, whose names alone are ` +
        `over the response budget: search fewer at a time (name them in buffers)`,
    );
  }
  // The page cut most (its query echoed as "", no buffer named) is still over: the budget is below its fixed part.
  if (!ctx.budget.fits(page)) {
    throw ctx.budget.tooSmall(page.structured.matches.length ? "a page with one match" : "a page with no match");
  }
  return served(page);
}

/** The page of `out` with the most matches that fit, as `shown` shapes it (at least one match when there is one). */
async function fittedPage(
  ctx: ToolContext,
  out: SearchOutput,
  shown: (p: SearchOutput) => ToolOutput<SearchOutput>,
): Promise<ToolOutput<SearchOutput>> {
  if (out.matches.length === 0) return shown(out);
  // The most matches that fit, and resume offsets that continue right after them.
  const k = largestFitting(1, out.matches.length, (m) => ctx.budget.fits(shown(firstMatches(out, m))));
  const page = shown(firstMatches(out, k));
  if (k > 1 || ctx.budget.fits(page)) return page;
  const cut = await fitFirstSnippet(
    ctx,
    page.structured,
    (p) => ctx.budget.fits(shown({ ...p, buffers: out.buffers })),
  );
  return shown({ ...cut, buffers: out.buffers });
}

/**
 * A page whose first match alone is over the budget (its snippet up to 8 KiB, or of control characters, each a
 * 6-character escape in JSON): that snippet cut around the match until the page fits, context first, then the
 * shown part of the match, from the buffer read again; with no snippet when the buffer changed since.
 */
async function fitFirstSnippet(
  ctx: ToolContext,
  page: SearchOutput,
  fits: (page: SearchOutput) => boolean,
): Promise<SearchOutput> {
  const m = page.matches[0];
  const start = m.offset_bytes, end = start + m.match_len;
  const bytes = await ctx.buffers.read(m.buffer).catch(() => undefined);
  const view = bytes && bytes.length >= end && bytes.length >= m.context_end ? bytesView(bytes) : undefined;
  // Changed since the search (the snippet made again differs): a snippet cut from it would show the match with
  // other text, so the match comes without one.
  if (!view || snippetOf(view, m.context_start, m.context_end, m, ctx.redactor).snippet !== m.snippet) {
    const bare = { ...m, context_start: start, context_end: start, snippet: "" };
    return { ...page, matches: [bare], truncated_by_budget: true };
  }
  const shown = Math.min(m.match_len, SNIPPET_MATCH_MAX);
  const context = Math.max(0, start - m.context_start, m.context_end - end);
  /** Size `s`: up to s bytes of the match, then s - shown bytes of context each side (none after a long match). */
  const withSize = (s: number): SearchOutput => {
    const c = Math.max(0, s - shown);
    const lo = view.charStartAtOrAfter(Math.max(0, start - c));
    const hi = view.charStartAtOrBefore(
      Math.min(view.size, start + Math.min(s, shown) + (m.match_len > SNIPPET_MATCH_MAX ? 0 : c)),
    );
    return { ...page, matches: [snippetOf(view, lo, hi, m, ctx.redactor)], truncated_by_budget: true };
  };
  return withSize(largestFitting(1, shown + context, (s) => fits(withSize(s))));
}

/** `m` with the snippet `[lo, hi)` of `view`, redacted as the search redacts it (a token its edge cuts whole). */
function snippetOf(view: Utf8View, lo: number, hi: number, m: SearchOutput["matches"][number], r?: Redactor) {
  const [before, after] = cutTokens(view, lo, hi);
  const found = { ...m, context_start: lo, context_end: hi, snippet: view.textOf(lo, hi) };
  return snippetRedacted(before || after ? { ...found, cut: [before, after] } : found, r);
}
