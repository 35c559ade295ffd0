/**
 * Previews of over-budget results. Terminal text keeps its END (where
 * errors and prompts are), starting at a line boundary; lists keep their
 * first items, each depth-truncated. The preview has the tool's own shape
 * (same keys), cut down to the preview budget; the full result is returned
 * alongside as the text to store.
 *
 * @example
 * ```ts
 * const log = "a long capture\n".repeat(10_000);
 * const plan = planPreview({ text: log, pane_id: "%1" }, "text", { budgetTokens: 2000, maxDepth: 3 });
 * plan.preview.text; // the last lines of log
 * plan.full;         // log, to be stored in a result buffer
 * ```
 */
import { estimateTokens, MAX_UNITS_PER_TOKEN } from "./estimate.ts";
import { getPath, mainArrayPath, nestingDepth, setPath, shrink } from "./shape.ts";

/** Strings inside structured previews keep at most this many characters. */
export const PREVIEW_STRING_CHARS = 500;

const encoder = new TextEncoder();

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * Estimated tokens of `text` as a client receives it inside a result: a JSON
 * string, where a control character becomes a 6-character `\u001b` escape
 * and a newline or tab two characters (a preview of such text is several
 * times its raw estimate).
 */
export function jsonStringTokens(text: string): number {
  return estimateTokens(JSON.stringify(text));
}

/**
 * The smallest start index such that `text.slice(start)` is estimated within
 * `budget` tokens by `cost` (suffix estimates only shrink as the start moves
 * right). Never splits a surrogate pair.
 */
export function fitSuffix(text: string, budget: number, cost: (s: string) => number = estimateTokens): number {
  // A token covers at most MAX_UNITS_PER_TOKEN units of text, raw or JSON-escaped (escaping only lengthens it).
  let lo = Math.max(0, text.length - (budget + 1) * MAX_UNITS_PER_TOKEN);
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cost(text.slice(mid)) <= budget) hi = mid;
    else lo = mid + 1;
  }
  if (lo < text.length && isLowSurrogate(text.charCodeAt(lo))) lo++;
  return lo;
}

/** The largest end index such that `text.slice(0, end)` is estimated within `budget` tokens. */
export function fitPrefix(text: string, budget: number): number {
  let lo = 0;
  let hi = Math.min(text.length, (budget + 1) * MAX_UNITS_PER_TOKEN);
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (estimateTokens(text.slice(0, mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0 && lo < text.length && isLowSurrogate(text.charCodeAt(lo))) lo--;
  return lo;
}

/**
 * Where the tail preview of `text` starts: within `budget` tokens (by
 * `cost`), moved forward to the start of a line unless that would leave
 * nothing (a single huge last line is cut inside).
 */
export function tailStart(text: string, budget: number, cost: (s: string) => number = estimateTokens): number {
  const start = fitSuffix(text, budget, cost);
  if (start === 0 || text.charCodeAt(start - 1) === 10) return start;
  const nl = text.indexOf("\n", start);
  return nl >= 0 && nl + 1 < text.length ? nl + 1 : start;
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n : n + 1;
}

export interface PreviewOptions {
  /** Token budget of the whole preview. */
  budgetTokens: number;
  maxDepth: number;
}

export interface PreviewPlan {
  kind: "text" | "structured";
  /** The preview: the result's own keys, cut down. */
  preview: Record<string, unknown>;
  /** The full result as stored: the text itself, or the structured result as indented JSON. */
  full: Uint8Array;
  /** `full` as a string. */
  fullText: string;
  /** Lines of text, items of the main list, or top-level properties. */
  itemCount: number;
  /** Nesting depth of the structured result. */
  maxDepth: number;
  /** Set when the preview summarized containers nested deeper than this. */
  truncatedAtDepth?: number;
  /** What the preview holds, for the note: "its last 212 of 20000 lines". */
  describe: string;
  /** Text kind: byte offset in `full` where the preview's tail starts. */
  tailOffsetBytes?: number;
}

/**
 * Plans the preview of a result. `textField` names the string field whose
 * end is kept (terminal text); without it (or when that field is not a
 * string) the result is treated as structured data.
 */
export function planPreview(
  structured: Record<string, unknown>,
  textField: string | undefined,
  opts: PreviewOptions,
): PreviewPlan {
  const depth = nestingDepth(structured);
  const text = textField !== undefined ? structured[textField] : undefined;
  if (typeof text === "string") return planText(structured, textField!, text, depth, opts);
  return planStructured(structured, depth, opts);
}

function planText(
  structured: Record<string, unknown>,
  field: string,
  text: string,
  depth: number,
  opts: PreviewOptions,
): PreviewPlan {
  const { [field]: _text, ...rest } = structured;
  const shrunk = shrink(rest, { maxDepth: opts.maxDepth, maxStringChars: PREVIEW_STRING_CHARS });
  const restTokens = estimateTokens(JSON.stringify(shrunk.value));
  const tailBudget = Math.max(1, opts.budgetTokens - restTokens);
  // The preview reaches the client as JSON: fit the tail as the JSON string it becomes.
  const start = tailStart(text, tailBudget, jsonStringTokens);
  const tail = text.slice(start);
  const full = encoder.encode(text);
  const lines = countLines(text);
  const tailLines = countLines(tail);
  const tailBytes = encoder.encode(tail).length;
  // Keep the tool's key order: the text field where it was.
  const preview: Record<string, unknown> = {};
  for (const k of Object.keys(structured)) {
    preview[k] = k === field ? tail : (shrunk.value as Record<string, unknown>)[k];
  }
  const cutInside = start > 0 && text.charCodeAt(start - 1) !== 10;
  return {
    kind: "text",
    preview,
    full,
    fullText: text,
    itemCount: lines,
    maxDepth: depth,
    truncatedAtDepth: shrunk.depthTruncated ? opts.maxDepth : undefined,
    describe: cutInside
      ? `the last ${tailBytes} bytes of its ${lines} lines (cut inside the last line)`
      : `its last ${tailLines} of ${lines} lines (${tailBytes} of ${full.length} bytes) in ${field}`,
    tailOffsetBytes: full.length - tailBytes,
  };
}

function planStructured(structured: Record<string, unknown>, depth: number, opts: PreviewOptions): PreviewPlan {
  const fullText = JSON.stringify(structured, null, 2);
  const full = encoder.encode(fullText);
  const listPath = mainArrayPath(structured);
  const list = listPath ? getPath(structured, listPath) as unknown[] : undefined;
  let depthLimit = opts.maxDepth;
  let shrunk = shrink(structured, { maxDepth: depthLimit, maxStringChars: PREVIEW_STRING_CHARS });
  let preview = shrunk.value as Record<string, unknown>;
  let describe = "all of it, with long strings cut";
  const shownList = listPath ? getPath(preview, listPath) : undefined;
  if (listPath && list && Array.isArray(shownList)) {
    const base = setPath(preview, listPath, []);
    let used = estimateTokens(JSON.stringify(base));
    let keep = 0;
    for (; keep < shownList.length; keep++) {
      const cost = estimateTokens(JSON.stringify(shownList[keep])) + 1;
      if (used + cost > opts.budgetTokens) break;
      used += cost;
    }
    if (keep < shownList.length) preview = setPath(preview, listPath, shownList.slice(0, keep)) as typeof preview;
    describe = `the first ${keep} of ${list.length} items of ${listPath.join(".")}`;
  }
  if (estimateTokens(JSON.stringify(preview)) > opts.budgetTokens) {
    // Still too big (many or large top-level fields): summarize every container, cut strings hard.
    depthLimit = 1;
    shrunk = shrink(structured, { maxDepth: depthLimit, maxStringChars: 100 });
    preview = {};
    let used = 2;
    for (const [k, v] of Object.entries(shrunk.value as Record<string, unknown>)) {
      const cost = estimateTokens(JSON.stringify({ [k]: v }));
      if (used + cost > opts.budgetTokens) break;
      used += cost;
      preview[k] = v;
    }
    describe = `${Object.keys(preview).length} of its ${Object.keys(structured).length} top-level fields, ` +
      `nested values summarized`;
  }
  return {
    kind: "structured",
    preview,
    full,
    fullText,
    itemCount: list ? list.length : Object.keys(structured).length,
    maxDepth: depth,
    truncatedAtDepth: shrunk.depthTruncated ? depthLimit : undefined,
    describe,
  };
}

/**
 * Cuts a huge error message to `budget` tokens: its head (what went wrong)
 * and its tail (what to do), with a marker between. The marker costs tokens
 * too: the head and tail give way to it until the whole fits.
 */
export function trimMiddle(text: string, budget: number): string {
  if (estimateTokens(text) <= budget) return text;
  let room = budget;
  for (;;) {
    const headEnd = fitPrefix(text, Math.floor(room * 2 / 3));
    const tailFrom = Math.max(headEnd, fitSuffix(text, Math.floor(room / 3)));
    const out = `${text.slice(0, headEnd)} […${tailFrom - headEnd} characters of this message omitted…] ${
      text.slice(tailFrom)
    }`;
    const excess = estimateTokens(out) - budget;
    if (excess <= 0 || room <= 0) return out;
    room = Math.max(0, room - excess);
  }
}
