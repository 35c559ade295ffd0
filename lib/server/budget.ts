/**
 * Response budgets: the one {@linkcode ResultStage} every successful tool
 * result passes through, and the trimming of huge error messages. The
 * pieces it is built from (estimates, previews, result buffers, settings,
 * the buffered shape) are in lib/budget/; this stage joins them to the
 * pipeline.
 *
 * A result estimated over its tool's budget (or any result of a tool with
 * `alwaysBuffer`) is stored whole in a tmux buffer `mcp-result-<pid>-<id>` and
 * replaced by a {@linkcode BufferedResponse}: a preview in the tool's own
 * shape, metadata, the buffer's name and concrete next calls. The estimate
 * counts what the client receives: the larger of the content blocks and the
 * structured result as JSON.
 *
 * @example
 * ```ts
 * declare const { services, settings, tools }: BudgetOptions; // the server's
 * const served = new Set(tools.map((t) => t.name));
 * const budget = createBudget({ services, settings, tools, isServed: (n) => served.has(n) });
 * // createPipeline({ tools, services, stages: [budget.stage], errorText: budget.trimError })
 * ```
 */
import { charStartAtOrAfter } from "../text/utf8.ts";
import { durationText } from "../text/duration.ts";
import type { CallToolResult } from "../sdk.ts";
import { outputResult, type ResultStage, structuredJson } from "./pipeline.ts";
import {
  type AnyTool,
  type ContentBlock,
  hostAddress,
  neverBuffered,
  type PageBudget,
  type Services,
  type ToolOutput,
} from "../tools/tool.ts";
import { UserError } from "../errors.ts";
import { estimateImageTokens, estimateTokens, MAX_TOKENS_PER_UNIT, pngSize } from "../budget/estimate.ts";
import {
  jsonStringTokens,
  planPreview,
  PREVIEW_STRING_CHARS,
  type PreviewPlan,
  tailStart,
  trimMiddle,
} from "../budget/preview.ts";
import { COSTLIEST_RESULT_NAME, registriesOf, type ResultRegistry } from "../budget/registry.ts";
import { capString, shrink } from "../budget/shape.ts";
import {
  type BudgetSettings,
  MAX_RESULT_BUFFERS,
  MAX_RESULT_BYTES,
  PREVIEW_TOKENS,
  resolveToolBudget,
  type ToolBudget,
} from "../budget/settings.ts";
import type { BufferedResponse } from "../budget/schema.ts";

export interface BudgetOptions {
  services: Services;
  settings: BudgetSettings;
  /** Every tool the server knows (for per-tool budgets). */
  tools: readonly AnyTool[];
  /** Whether a tool is served: suggestions only name tools the model can call. */
  isServed(name: string): boolean;
}

export interface Budget {
  stage: ResultStage;
  /** An error message as returned: whole, or head and tail when it alone is over the tool's budget. */
  trimError(message: string, tool?: string): string;
  /** The result buffers currently kept (for tests and diagnostics). */
  registry: ResultRegistry;
  /** The budget a natively paged tool fits its page to (`ToolDef.pagesNatively`). */
  pageBudget(tool: AnyTool): PageBudget;
  /**
   * Stores content in a new result buffer on that host, under the same TTL and caps as over-budget results;
   * undefined, and nothing stored, when show-buffer is not served.
   */
  keepResult(svc: Services, content: Uint8Array): Promise<string | undefined>;
}

const MAX_PAGE_BYTES = 1024 * 1024;
/** Strings in the preview of a batch buffered whole are cut to this: an error's gist, a result's first words. */
const OUTLINE_STRING_CHARS = 120;
/** An error in the briefest outline of a batch is cut to this: its first words. */
const OUTCOME_ERROR_CHARS = 60;
/** A budget that holds the fixed fields of every natively paged tool's page with room for its content. */
const MIN_PAGE_TOKENS = 300;

/**
 * Estimated tokens of a result as the client receives it, or undefined when
 * it certainly fits `budget`. Content blocks and structured content carry
 * the same information (clients show one or the other), so the longer of
 * the two is estimated; text too short to reach the budget even at the
 * estimate's highest rate per character is not estimated at all.
 */
export function resultTokens(result: CallToolResult, budget: number): number | undefined {
  // An image costs what a model pays to see it (by its pixels), not its base64 length.
  let images = 0;
  const texts: string[] = [];
  for (const b of result.content as ContentBlock[]) {
    const size = b.type === "image" && b.mimeType === "image/png" ? pngSize(b.data) : undefined;
    if (size) images += estimateImageTokens(size.width, size.height);
    else texts.push(b.type === "text" ? b.text : JSON.stringify(b));
  }
  const contentChars = texts.reduce((n: number, t: string) => n + t.length, 0);
  const json = result.structuredContent ? structuredJson(result.structuredContent) : "";
  if (Math.max(contentChars, json.length) * MAX_TOKENS_PER_UNIT + images <= budget) return undefined;
  if (json.length >= contentChars) return estimateTokens(json) + images;
  return texts.reduce((n: number, t: string) => n + estimateTokens(t), images);
}

function contentText(result: CallToolResult): string {
  return result.content.map((b: ContentBlock) => b.type === "text" ? b.text : "").join("\n");
}

export function createBudget(opts: BudgetOptions): Budget {
  const { settings, services } = opts;
  const budgets = new Map<string, ToolBudget>(opts.tools.map((t) => [t.name, resolveToolBudget(settings, t.name)]));
  const budgetOf = (name: string) => budgets.get(name) ?? resolveToolBudget(settings, name);
  // Each host's results are kept in that host's tmux (the one the call acted on), deleted at exit there.
  const registryOf = registriesOf({
    ttlMs: settings.bufferTTL,
    maxCount: MAX_RESULT_BUFFERS,
    maxBytes: MAX_RESULT_BYTES,
  });
  const registry = registryOf(services);

  /** A show-buffer page size that keeps a page of this content under show-buffer's own budget. */
  function pageBytes(plan: PreviewPlan, fullTokens: number): number {
    const bytesPerToken = plan.full.length / Math.max(1, fullTokens);
    const page = Math.floor(budgetOf("show-buffer").maxTokens * 0.75 * bytesPerToken);
    return Math.max(1024, Math.min(MAX_PAGE_BYTES, page));
  }

  function refinements(tool: AnyTool, plan: PreviewPlan, bufferId: string | null, fullTokens: number): string[] {
    const out: string[] = [];
    if (bufferId) {
      const page = pageBytes(plan, fullTokens);
      const name = JSON.stringify(bufferId);
      if (plan.tailOffsetBytes) {
        const from = charStartAtOrAfter(plan.full, Math.max(0, plan.tailOffsetBytes - page));
        out.push(
          `show-buffer {"name":${name},"offset_bytes":${from},"max_bytes":${plan.tailOffsetBytes - from}} ` +
            `reads the part just before the preview`,
        );
      }
      out.push(
        `show-buffer {"name":${name},"offset_bytes":0,"max_bytes":${page}} reads it from the start; ` +
          `go on with offset_bytes = next_offset_bytes`,
      );
      if (opts.isServed("search-buffer")) {
        out.push(
          `search-buffer {"buffers":[${name}],"query":"error","ignore_case":true} finds lines (here: any case of ` +
            `"error") without reading it all`,
        );
      }
    }
    out.push(...tool.refinements ?? []);
    return out;
  }

  /** Why no full result is kept on this server, or undefined when it is. */
  function notKept(): string | undefined {
    if (settings.autoTruncate) return "The full result was not kept (autoTruncate is on)";
    if (!opts.isServed("show-buffer")) {
      return "The full result was not kept (show-buffer, needed to read it, is not served)";
    }
  }

  async function keep(
    plan: PreviewPlan,
    svc: Services,
  ): Promise<{ id: string; why?: never } | { id: null; why: string }> {
    const why = notKept();
    if (why !== undefined) return { id: null, why };
    try {
      // As a later call names it: `HOST::NAME` on a server with several hosts.
      return { id: hostAddress(svc, await registryOf(svc).store(plan.full)) };
    } catch (e) {
      return {
        id: null,
        why: `The full result could not be kept in a tmux buffer (${e instanceof Error ? e.message : String(e)})`,
      };
    }
  }

  const stage: ResultStage = async (tool, result, ctx, toolNamed) => {
    // A natively paged tool already fit its page and says where to go on, a confirmation is small: a copy
    // would only cost a buffer.
    if (!settings.enableBuffering || neverBuffered(tool)) return result;
    const budget = budgetOf(tool.name);
    let outlines: Record<string, unknown>[] | undefined;
    if (tool.innerResults) ({ result, outlines } = await keepInnerResults(result, ctx, budget, toolNamed));
    return await fit(
      tool,
      result,
      ctx,
      budget,
      `this server's ${budget.maxTokens}-token budget for it`,
      keep,
      outlines,
    );
  };

  /**
   * `result` as it is when within `budget`, else kept whole in a result buffer and answered by a preview
   * (`overWhat` names the budget it is over) of `outlines` if given: the result cut down to what a preview shows,
   * richest first (the first whose preview shows all its `results` is shown, else the last).
   */
  async function fit(
    tool: AnyTool,
    result: CallToolResult,
    ctx: Services,
    budget: ToolBudget,
    overWhat: string,
    store: typeof keep = keep,
    outlines?: Record<string, unknown>[],
  ): Promise<CallToolResult> {
    const estimate = resultTokens(result, budget.maxTokens);
    const over = estimate !== undefined && estimate > budget.maxTokens;
    if (!over && !budget.alwaysBuffer) return result;
    const tokens = estimate ?? resultTokens(result, 0) ?? 0;

    const structured = result.structuredContent ?? { text: contentText(result) };
    let textField = result.structuredContent ? tool.textField : "text";
    const planned = Math.min(PREVIEW_TOKENS, Math.floor(budget.maxTokens / 2));
    let previewTokens = planned;
    const fits = (e: BufferedResponse) => estimateTokens(JSON.stringify(e)) <= budget.maxTokens;
    /** The outline the last plan shows. */
    let outline: Record<string, unknown> | undefined;
    const planFor = (tokens: number): PreviewPlan => {
      const opts = { budgetTokens: tokens, maxDepth: budget.maxDepth };
      if (outlines === undefined) return planPreview(structured, textField, opts);
      const { full, fullText, itemCount, maxDepth } = planPreview(structured, undefined, { ...opts, budgetTokens: 0 });
      let shown: PreviewPlan | undefined;
      for (outline of outlines) {
        // The outline is cut down already: its depth is what it shows.
        shown = planPreview(outline, undefined, { ...opts, maxDepth: Number.MAX_SAFE_INTEGER });
        const all = outline.results as unknown[];
        if ((shown.preview.results as unknown[] | undefined)?.length === all.length) break;
      }
      return { ...shown!, full, fullText, itemCount, maxDepth };
    };
    let plan = planFor(previewTokens);
    // An empty text has nothing to page through: alwaysBuffer leaves it as it is.
    if (!over && plan.full.length === 0) return result;
    // The fields beside a text (ids, a continue token) are not in the stored text, so they never give way: under a
    // budget too small for them all, the whole result is kept as JSON instead, whose preview may leave some out.
    const least = {
      type: "buffered_response",
      note: shortestNote(budget.maxTokens, true),
      metadata: {
        total_tokens: tokens,
        total_bytes: plan.full.length,
        item_count: plan.itemCount,
        max_depth: plan.maxDepth,
        would_exceed_limit: over,
        limit_tokens: budget.maxTokens,
      },
      buffer_id: hostAddress(ctx, COSTLIEST_RESULT_NAME),
      suggested_refinements: [],
    };
    if (
      plan.kind === "text" &&
      estimateTokens(JSON.stringify({ ...least, preview: planFor(0).preview })) > budget.maxTokens
    ) {
      textField = undefined;
      plan = planFor(previewTokens);
    }
    // As show-buffer's budget counts a page of what is stored: a JSON string (of indented JSON, for a structured
    // result: not the compact JSON estimated above, which has no indents and escapes no quotes).
    const fullTokens = jsonStringTokens(plan.fullText);
    const kept = await store(plan, ctx);
    const what = plan.kind === "text" ? "text" : "result (as indented JSON)";
    const head = over
      ? `${tool.name} returned about ${tokens} tokens, over ${overWhat}.`
      : `${tool.name} results are always buffered (alwaysBuffer).`;
    const where = kept.id !== null
      ? `The full ${what} (${plan.full.length} bytes) is in tmux buffer "${kept.id}" for up to ${
        durationText(settings.bufferTTL)
      }; page it with show-buffer.`
      : `${kept.why}: this preview is all there is; narrow the call to see more.`;
    const envelopeOf = (plan: PreviewPlan): BufferedResponse => ({
      type: "buffered_response",
      note: `${head} ${where} The preview holds ${plan.describe}.`,
      metadata: {
        total_tokens: tokens,
        total_bytes: plan.full.length,
        item_count: plan.itemCount,
        max_depth: plan.maxDepth,
        ...(plan.truncatedAtDepth !== undefined ? { truncated_at_depth: plan.truncatedAtDepth } : {}),
        would_exceed_limit: over,
        limit_tokens: budget.maxTokens,
      },
      buffer_id: kept.id,
      suggested_refinements: refinements(tool, plan, kept.id, fullTokens),
      preview: plan.preview,
    });
    let envelope = envelopeOf(plan);
    // The note, metadata and suggested calls cost tokens too: under a small budget, the preview gives way to them
    // (below about 400 tokens they alone are over it, and the preview is as small as it gets).
    // Estimates of parts do not add up exactly (a list's items are fitted one by one): cut harder each time.
    for (let tries = 0; tries < 6 && previewTokens > 0; tries++) {
      const excess = estimateTokens(JSON.stringify(envelope)) - budget.maxTokens;
      if (excess <= 0) break;
      previewTokens = Math.max(0, previewTokens - excess * 2 ** tries);
      plan = planFor(previewTokens);
      envelope = envelopeOf(plan);
    }
    // Cut that hard, the preview may have given way more than it had to: it takes back what still fits.
    for (let lo = previewTokens + 1, hi = planned; lo <= hi && fits(envelope);) {
      const mid = (lo + hi) >>> 1;
      const tried = planFor(mid);
      const e = envelopeOf(tried);
      if (fits(e)) [lo, plan, envelope] = [mid + 1, tried, e];
      else hi = mid - 1;
    }
    // Still over (a budget of a few hundred tokens): the note and suggestions give way too, down to where the full
    // result is and the one show-buffer call that reads it from the start, then that note alone, then the least
    // note (the required fields alone are about 120 tokens: the smallest budget taken, MIN_MAX_TOKENS, holds them).
    const fromStart = readsFromStart(envelope.suggested_refinements);
    const short = kept.id !== null
      ? `${head} The full ${what} is in tmux buffer "${kept.id}": page it with show-buffer.`
      : `${head} ${kept.why}: narrow the call to see it.`;
    const shortest = shortestNote(budget.maxTokens, kept.id !== null);
    for (const [note, refs] of [[short, fromStart], [short, []], [shortest, []]] as const) {
      if (estimateTokens(JSON.stringify(envelope)) <= budget.maxTokens) break;
      envelope = { ...envelope, note, suggested_refinements: [...refs], preview: planFor(0).preview };
    }
    // Last, the preview's own fields give way (a tool with many, as snapshot-pane's pane facts), and what room the
    // note and suggestions left goes back to them: the ids, the exit code, the text's newest lines.
    // (A note that describes the preview stays true: its preview is left as planned.)
    if (envelope.note === short || envelope.note === shortest) {
      const base = outline ?? structured;
      const source = shrink(base, { maxDepth: budget.maxDepth, maxStringChars: PREVIEW_STRING_CHARS }).value;
      const tailField = result.structuredContent ? tool.textField : "text";
      envelope = previewFilled(envelope, source as Record<string, unknown>, base, tailField, budget.maxTokens);
    } else if (plan.kind === "structured") envelope = previewFieldsThatFit(envelope, budget.maxTokens);
    return {
      content: [{ type: "text", text: JSON.stringify(envelope) }],
      structuredContent: envelope as unknown as Record<string, unknown>,
    };
  }

  /**
   * A result whose `results` hold other tools' results (batch), over `budget`: its largest inner results are
   * each kept in a result buffer of their own with their own tool's preview, fitted to a share of the budget
   * (the smaller ones first take what they need), so the answer shows every call's outcome. The result as it
   * is when it fits, holds no such list, or would not fit even so: it is then kept whole, in one buffer, and
   * previewed by its outlines: each call's outcome with its result's own fields, their values cut short, or when
   * those do not all fit, the later calls' tool and outcome alone.
   */
  async function keepInnerResults(
    result: CallToolResult,
    ctx: Services,
    budget: ToolBudget,
    toolNamed: (name: string) => AnyTool | undefined,
  ): Promise<{ result: CallToolResult; outlines?: Record<string, unknown>[] }> {
    const whole = resultTokens(result, budget.maxTokens);
    const structured = result.structuredContent as { results?: unknown } | undefined;
    if (whole === undefined || whole <= budget.maxTokens || !Array.isArray(structured?.results)) return { result };
    const entries = structured.results as Record<string, unknown>[];
    // A failed call's error text is a part too: trimmed to its share as a lone error is to the budget.
    const partOf = (e: Record<string, unknown>) => e.result ?? e.text ?? e.error;
    const costs = entries.map((e) => partOf(e) === undefined ? 0 : estimateTokens(JSON.stringify(partOf(e))));
    const fixed = estimateTokens(
      JSON.stringify({ ...structured, results: entries.map(({ result: _r, text: _t, error: _e, ...e }) => e) }),
    );
    const order = costs.map((_, i) => i).filter((i) => costs[i] > 0).sort((a, b) => costs[a] - costs[b]);
    // Each kept result costs a buffer of the few the server keeps (older ones give way): they are kept only when
    // the answer then fits.
    const replaced = async (store: typeof keep, slack: number): Promise<CallToolResult> => {
      let left = budget.maxTokens - fixed - slack;
      const out = [...entries];
      for (const [k, i] of order.entries()) {
        const share = Math.floor(left / (order.length - k));
        if (costs[i] <= share) {
          left -= costs[i];
          continue;
        }
        if (typeof entries[i].error === "string") {
          const error = trimMiddle(entries[i].error as string, Math.max(1, share));
          out[i] = { ...entries[i], error };
          left -= estimateTokens(JSON.stringify(error));
          continue;
        }
        const inner = toolNamed(String(entries[i].tool));
        const { result: part, text, ...rest } = entries[i];
        if (isBuffered(part)) {
          // Kept in a buffer already, under the call's own budget: a buffer holding that answer would only hide
          // where the result is. The answer gives way instead, down to its buffer's name.
          out[i] = { ...rest, result: squeezed(part, Math.max(1, share)) };
          left -= estimateTokens(JSON.stringify(out[i].result));
          continue;
        }
        if (inner === undefined) continue;
        const innerResult: CallToolResult = part !== undefined
          ? {
            content: [{ type: "text", text: JSON.stringify(part) }],
            structuredContent: part as Record<string, unknown>,
          }
          : { content: [{ type: "text", text: String(text) }] };
        const kept = await fit(
          inner,
          innerResult,
          ctx,
          { ...budget, maxTokens: Math.max(1, share), alwaysBuffer: false },
          `its ${Math.max(0, share)}-token share of the ${budget.maxTokens}-token budget of the batch it ran in`,
          store,
        );
        out[i] = { ...rest, result: kept.structuredContent };
        left -= estimateTokens(JSON.stringify(kept.structuredContent));
      }
      const next = { ...structured, results: out };
      return { content: [{ type: "text", text: structuredJson(next) }], structuredContent: next };
    };
    // Estimates of parts do not add up exactly to the whole's: what the whole is over is taken off, harder each time.
    for (let tries = 0, slack = 0; tries < 4; tries++) {
      // Each result under the name it will be stored under, stored only once the answer that names it fits.
      const staged: Array<() => Promise<string>> = [];
      const tried = await replaced((plan, svc) => {
        const why = notKept();
        if (why !== undefined) return Promise.resolve({ id: null, why });
        const registry = registryOf(svc);
        const name = registry.newName();
        staged.push(() => registry.store(plan.full, name));
        return Promise.resolve({ id: hostAddress(svc, name) });
      }, slack);
      const excess = (resultTokens(tried, budget.maxTokens) ?? 0) - budget.maxTokens;
      if (excess <= 0) {
        try {
          for (const store of staged) await store();
          return { result: tried };
        } catch {
          // The answer names buffers that could not all be kept: each result then says so itself.
          return { result: await replaced(keep, slack) };
        }
      }
      // At least a few tokens more each time: a greedy fit of fields fills any share up again.
      slack += Math.max(excess, 8) * 2 ** tries;
    }
    // A call's result shows its fields (not a summary of the whole object), and no string is long.
    const outlined = entries.map((e) => shrink(e, { maxDepth: 2, maxStringChars: OUTLINE_STRING_CHARS }).value);
    // When not every call's result fits, every call's tool and outcome still does (the gist of an error with it):
    // the first calls with their results, as many as fit, the rest by their outcome alone.
    const outcomes = entries.map(({ tool, ok, error }) => ({
      tool,
      ok,
      ...(typeof error === "string" ? { error: capString(error, OUTCOME_ERROR_CHARS) } : {}),
    }));
    const outlines = outlined.map((_, i) => outlined.length - i).concat(0)
      .map((k) => ({ ...structured, results: [...outlined.slice(0, k), ...outcomes.slice(k)] }));
    return { result, outlines };
  }

  /**
   * A buffered answer made to fit `maxTokens` without another buffer: its suggested calls give way (the one that
   * reads from the start last), then its note to the shortest, then its preview's fields.
   */
  function squeezed(envelope: BufferedResponse, maxTokens: number): BufferedResponse {
    const fits = (e: BufferedResponse) => estimateTokens(JSON.stringify(e)) <= maxTokens;
    const fromStart = { ...envelope, suggested_refinements: readsFromStart(envelope.suggested_refinements) };
    for (const e of [envelope, fromStart, { ...envelope, suggested_refinements: [] }]) if (fits(e)) return e;
    const note = shortestNote(envelope.metadata.limit_tokens, envelope.buffer_id !== null);
    return previewFieldsThatFit({ ...envelope, note, suggested_refinements: [] }, maxTokens);
  }

  function pageBudget(tool: AnyTool): PageBudget {
    const { maxTokens } = budgetOf(tool.name);
    const fits = settings.enableBuffering
      ? (out: ToolOutput<unknown>) => (resultTokens(outputResult(out), maxTokens) ?? 0) <= maxTokens
      : () => true;
    return {
      fits,
      tooSmall: (what, instead) =>
        new UserError(
          `${what} is over this server's ${maxTokens}-token budget for ${tool.name}: ` +
            (instead !== undefined
              ? `${instead}, or ask the user to raise toolConfigs.${tool.name}.maxTokens (or --max-tokens)`
              : `ask the user to raise toolConfigs.${tool.name}.maxTokens (or --max-tokens) to ${MIN_PAGE_TOKENS} or more`),
        ),
    };
  }

  return {
    stage,
    registry,
    pageBudget,
    // A name the model cannot read back only costs a buffer and misleads it.
    keepResult: (svc, content) =>
      opts.isServed("show-buffer") ? registryOf(svc).store(content) : Promise.resolve(undefined),
    // A tool's own budget (toolConfigs) bounds its errors too; an unknown tool's, the global one.
    trimError: (message, tool) =>
      trimMiddle(message, tool === undefined ? settings.maxTokensPerResponse : budgetOf(tool).maxTokens),
  };
}

/** The least note of a buffered answer over a `limit`-token budget, its result `kept` in a buffer or not. */
function shortestNote(limit: number, kept: boolean): string {
  return `Over the ${limit}-token budget: ${kept ? "page buffer_id with show-buffer" : "narrow the call"}.`;
}

/** Of a buffered answer's suggested calls, the one that reads its buffer from the start. */
function readsFromStart(refinements: readonly string[]): string[] {
  return refinements.filter((r) => r.includes(`"offset_bytes":0,`));
}

/**
 * `envelope` with the fields of its preview that fit `maxTokens` beside the rest, in the tool's order (those
 * left out are in the full result as stored); as it is when it fits.
 */
function previewFieldsThatFit(envelope: BufferedResponse, maxTokens: number): BufferedResponse {
  if (estimateTokens(JSON.stringify(envelope)) <= maxTokens) return envelope;
  let out: BufferedResponse = { ...envelope, preview: {} };
  for (const [k, v] of Object.entries(envelope.preview)) {
    const tried = { ...out, preview: { ...out.preview, [k]: v } };
    if (estimateTokens(JSON.stringify(tried)) <= maxTokens) out = tried;
  }
  return out;
}

/**
 * `envelope` (its preview cut down for the rest to fit `maxTokens`) with the room left given back to the preview:
 * each field of `source` (the result shrunk, in the tool's order) it lacks that fits, then as many of the newest
 * lines of `full`'s `tailField` (terminal text) as fit.
 */
function previewFilled(
  envelope: BufferedResponse,
  source: Record<string, unknown>,
  full: Record<string, unknown>,
  tailField: string | undefined,
  maxTokens: number,
): BufferedResponse {
  const fits = (e: BufferedResponse) => estimateTokens(JSON.stringify(e)) <= maxTokens;
  let out = previewFieldsThatFit(envelope, maxTokens);
  const text = tailField !== undefined ? full[tailField] : undefined;
  const inOrder = (preview: Record<string, unknown>) =>
    Object.fromEntries(Object.keys(source).filter((k) => k in preview).map((k) => [k, preview[k]]));
  for (const [k, v] of Object.entries(source)) {
    if (k in out.preview) continue;
    const tried = {
      ...out,
      preview: inOrder({ ...out.preview, [k]: k === tailField && typeof text === "string" ? "" : v }),
    };
    if (fits(tried)) out = tried;
  }
  if (typeof text !== "string" || tailField === undefined || !(tailField in out.preview)) return out;
  const shown = out.preview[tailField];
  // The newest lines fitted as the JSON string they become; estimates of parts do not add up exactly: cut harder.
  let room = maxTokens - estimateTokens(JSON.stringify({ ...out, preview: { ...out.preview, [tailField]: "" } }));
  for (let tries = 0; tries < 6 && room > 0; tries++) {
    const tail = text.slice(tailStart(text, room, jsonStringTokens));
    const tried = { ...out, preview: { ...out.preview, [tailField]: tail } };
    const excess = estimateTokens(JSON.stringify(tried)) - maxTokens;
    if (excess <= 0) return typeof shown === "string" && shown.length >= tail.length ? out : tried;
    room -= Math.max(1, excess) * 2 ** tries;
  }
  return out;
}

/** Whether an inner call's result is a buffered answer already (its result kept whole in a buffer). */
function isBuffered(part: unknown): part is BufferedResponse {
  const p = part as Partial<BufferedResponse> | null;
  return typeof p === "object" && p !== null && p.type === "buffered_response" && typeof p.note === "string" &&
    typeof p.metadata === "object" && p.metadata !== null && Array.isArray(p.suggested_refinements) &&
    typeof p.preview === "object" && p.preview !== null && "buffer_id" in p;
}
