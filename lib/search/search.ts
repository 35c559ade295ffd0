/**
 * A search over several buffers in one call: reads each buffer once, scans
 * them in order under one match quota and one byte budget, and reports where
 * each unfinished buffer resumes. Buffers are read through a function, so
 * this module runs on plain bytes in tests.
 *
 * @example
 * ```ts
 * import { compileMatcher } from "./matcher.ts";
 * const store = new Map([["log", new TextEncoder().encode("ok\nerror\n")]]);
 * const r = await searchBuffers([{ name: "log" }], async (n) => store.get(n)!, {
 *   matcher: compileMatcher("error", "literal", false),
 *   maxMatches: 50, maxScanBytes: Infinity, contextBytes: 16, includeSimilarity: false,
 * });
 * r.matches[0].offset_bytes; // 3
 * ```
 */
import { searchCancelled, UserError } from "../errors.ts";
import type { Matcher } from "./matcher.ts";
import { countByte } from "./offsets.ts";
import { countMatches, type FoundMatch, scanSubject } from "./scan.ts";
import { type Subject, subjectOf } from "./subject.ts";
import { invalidHex, InvalidUtf8, isContinuation } from "./text.ts";
import { isAscii } from "node:buffer";
import { countWindows, scanWindows, WINDOW_BYTES, type WindowedContent, windowedContent } from "./windows.ts";

export interface SearchTarget {
  name: string;
  /** Buffer offset to resume at (from a previous response); default: the start of the buffer or window. */
  from?: number;
  /**
   * Search only the window `[offset - context, offset + length + context]`
   * around an earlier match (clamped to the buffer, shrunk to whole
   * characters), as if it were the whole text.
   */
  around?: { offset: number; length: number; context: number };
  /**
   * A buffer that is not text (not UTF-8) is left out and named in `skipped`, not an error (a search of all, which
   * also reads a buffer deleted since the list as empty: lib/tools/search_schemas.ts).
   */
  skipIfNotText?: boolean;
}

export interface SearchOptions {
  matcher: Matcher;
  maxMatches: number;
  /** Byte budget shared by all buffers; Infinity for none. */
  maxScanBytes: number;
  contextBytes: number;
  includeSimilarity: boolean;
  signal?: AbortSignal;
  /**
   * Called when a buffer has been made searchable (validated, converted): its size and how long that took, a
   * linear pass over the same bytes on the same thread, which the regex deadline scales with.
   */
  onOpened?(bytes: number, ms: number): void;
  /** Called after each buffer is scanned. */
  onBuffer?(done: number, total: number): void;
  /**
   * Count the matches beyond the page too (the rest of each buffer, and before a resume offset), within what
   * is left of `maxScanBytes` and {@linkcode COUNT_MS}: `total` is then the whole buffers' count.
   */
  count?: boolean;
  /** Called with the page before the count starts (a regex worker stopped during the count still has it). */
  onPage?(page: SearchResult): void;
  /** The least bytes of a window of a buffer searched in windows (lib/search/windows.ts); tests shrink it. */
  windowBytes?: number;
}

/** The most time counting the matches beyond a page may take; past it the total is partial. */
export const COUNT_MS = 1000;

export interface BufferMatch extends FoundMatch {
  buffer: string;
}

export interface SearchResult {
  matches: BufferMatch[];
  buffersScanned: number;
  bytesScanned: number;
  /** Unfinished buffers and their resume offsets, in scan order. */
  truncated: Array<[name: string, offset: number]>;
  /** Clamped windows of windowed targets, by name. */
  windows: Map<string, { start: number; end: number }>;
  /** Matches in the targets: the page's, plus those counted beyond it when asked to count. */
  total: number;
  /** Whether `total` counts every match of the targets, from their starts. */
  totalComplete: boolean;
  /** Targets left out as not text (`skipIfNotText`), each with where its first invalid byte is. */
  skipped: Array<[name: string, why: string]>;
}

/**
 * Reads a buffer's bytes (throws a UserError naming a missing buffer) and
 * hands them over: the search may release (detach) the array to free its
 * memory early, so pass a fresh array or a copy, never one still in use.
 */
export type ReadBuffer = (name: string) => Promise<Uint8Array>;

/** Runs the search; see the module doc. */
export async function searchBuffers(
  targets: readonly SearchTarget[],
  read: ReadBuffer,
  o: SearchOptions,
): Promise<SearchResult> {
  const result: SearchResult = {
    matches: [],
    buffersScanned: 0,
    bytesScanned: 0,
    truncated: [],
    windows: new Map(),
    total: 0,
    totalComplete: false,
    skipped: [],
  };
  // What the count needs of each target the page visited: the parts of its subject the page did not cover.
  const visited = new Map<SearchTarget, { subject: Content; from: number; next?: number }>();
  let budget = o.maxScanBytes;
  for (const t of targets) {
    if (result.matches.length >= o.maxMatches || budget <= 0) {
      // Not visited: everything from its start offset is left.
      result.truncated.push([t.name, t.from ?? 0]);
      continue;
    }
    if (o.signal?.aborted) throw searchCancelled();
    const bytes = await read(t.name);
    const opening = performance.now();
    let subject: Content;
    try {
      subject = openContent(t, bytes, o.matcher, o.windowBytes);
    } catch (e) {
      // One buffer of binary bytes must not hide the matches of every other.
      if (!(e instanceof NotText) || !t.skipIfNotText) throw e;
      result.skipped.push([t.name, e.where]);
      continue;
    }
    o.onOpened?.(subject.size, performance.now() - opening);
    if (t.around) result.windows.set(t.name, { start: subject.base, end: subject.base + subject.size });
    const from = startOffset(t, subject);
    const scan = {
      from,
      budget,
      maxMatches: o.maxMatches - result.matches.length,
      contextBytes: o.contextBytes,
      includeSimilarity: o.includeSimilarity,
    };
    const r = "windowed" in subject ? scanWindows(subject, o.matcher, scan) : scanSubject(subject, o.matcher, scan);
    for (const m of r.matches) result.matches.push({ buffer: t.name, ...m });
    result.buffersScanned++;
    result.bytesScanned += r.scanned;
    budget -= r.scanned;
    if (!r.done) result.truncated.push([t.name, subject.base + r.next]);
    if (o.count) visited.set(t, { subject, from, ...(r.done ? {} : { next: r.next }) });
    o.onBuffer?.(result.buffersScanned, targets.length);
  }
  result.total = result.matches.length;
  if (!o.count) {
    result.totalComplete = result.truncated.length === 0 && targets.every((t) => t.from === undefined);
    return result;
  }
  o.onPage?.({ ...result, windows: new Map(result.windows) });
  return await countRest(targets, visited, read, o, result);
}

/**
 * Adds to `result.total` the matches the page left out: in each visited target before its start offset and
 * after where the page stopped, and in every target not visited, in scan order, within what is left of
 * the scan budget and {@linkcode COUNT_MS}.
 */
async function countRest(
  targets: readonly SearchTarget[],
  visited: Map<SearchTarget, { subject: Content; from: number; next?: number }>,
  read: ReadBuffer,
  o: SearchOptions,
  result: SearchResult,
): Promise<SearchResult> {
  const deadline = performance.now() + COUNT_MS;
  let budget = o.maxScanBytes - result.bytesScanned;
  let complete = true;
  const skipped = new Set(result.skipped.map(([name]) => name));
  for (const t of targets) {
    if (skipped.has(t.name)) continue;
    let seen = visited.get(t);
    if (!seen) {
      if (budget <= 0 || performance.now() > deadline) {
        complete = false;
        break;
      }
      if (o.signal?.aborted) throw searchCancelled();
      let subject: Content;
      try {
        const bytes = await read(t.name);
        const opening = performance.now();
        subject = openContent({ name: t.name }, bytes, o.matcher, o.windowBytes);
        o.onOpened?.(subject.size, performance.now() - opening);
      } catch (e) {
        // One the page that reaches it will leave out has no matches to count.
        if (e instanceof NotText && t.skipIfNotText) continue;
        // A buffer the page never reached (gone, not text) fails the page that reaches it, not this one.
        complete = false;
        break;
      }
      // Counted whole: its start offset is where earlier pages stopped, and what lies before it counts too.
      seen = { subject, from: 0, next: 0 };
    }
    const { subject, from, next } = seen;
    const parts: [number, number][] = [];
    if (from > 0) parts.push([0, from]);
    if (next !== undefined) parts.push([next, subject.size]);
    for (const [lo, hi] of parts) {
      const c = "windowed" in subject
        ? countWindows(subject, o.matcher, lo, hi, budget, deadline)
        : countMatches(subject, o.matcher, lo, hi, budget, deadline);
      result.total += c.count;
      budget -= c.scanned;
      if (!c.complete) {
        complete = false;
        break;
      }
    }
    visited.delete(t); // its text may go
    if (!complete) break;
  }
  result.totalComplete = complete;
  return result;
}

/** A target's content: one subject, or windows decoded one at a time (lib/search/windows.ts). */
export type Content = Subject | WindowedContent;

/**
 * Validates a target's bytes (its window, when it has one), which it takes over, as content to scan: in windows
 * when the matcher needs the characters of a large non-ASCII buffer and its matches stay within lines, and no
 * line is longer than a window (whose text would be no smaller than the whole one); else decoded whole
 * ({@linkcode openSubject}).
 */
export function openContent(
  t: SearchTarget,
  bytes: Uint8Array,
  matcher: Matcher,
  window = WINDOW_BYTES,
): Content {
  if (
    t.around || !matcher.needsChars || !matcher.lineLocal || bytes.length <= 2 * window || isAscii(bytes) ||
    !linesWithin(bytes, window)
  ) {
    return openSubject(t, bytes, matcher.needsChars);
  }
  try {
    return windowedContent(bytes, 0, 0, window);
  } catch (e) {
    if (!(e instanceof InvalidUtf8)) throw e;
    throw notUtf8(t.name, bytes, 0, e.offset);
  }
}

/** Whether no line of `bytes` (the last one included) is longer than `max` bytes. */
function linesWithin(bytes: Uint8Array, max: number): boolean {
  let start = 0;
  for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, start)) {
    if (nl - start > max) return false;
    start = nl + 1;
  }
  return bytes.length - start <= max;
}

/** What to do about a buffer whose first invalid byte is at offset `at`: search near a match only if text precedes it. */
function notTextAdvice(at: number): string {
  return at > 0
    ? "leave it out of buffers, look at it with show-buffer, or search-buffer near a match before that offset"
    : "leave it out of buffers or look at it with show-buffer";
}

/** A buffer that is not UTF-8, so not text to search; `where` says where its first invalid byte is (offset `at`). */
export class NotText extends UserError {
  constructor(name: string, readonly where: string, at: number) {
    super(
      `buffer ${JSON.stringify(name)} is not valid UTF-8: ${where}: only text can be searched; ${notTextAdvice(at)}`,
    );
  }
}

function notUtf8(name: string, part: Uint8Array, lo: number, offset: number): NotText {
  const at = lo + offset;
  return new NotText(name, `the first invalid byte is at offset ${at} (bytes ${invalidHex(part, offset)})`, at);
}

/** Validates and decodes a target's bytes (its window, when it has one), which it takes over (see `subjectOf`). */
export function openSubject(t: SearchTarget, bytes: Uint8Array, needsChars: boolean): Subject {
  let lo = 0, hi = bytes.length;
  if (t.around) {
    const { offset, length, context } = t.around;
    if (offset + length > bytes.length) {
      throw new UserError(
        `offset_bytes ${offset} + match_len ${length} is past the end of buffer ${JSON.stringify(t.name)} ` +
          `(size ${bytes.length} bytes): pass offset_bytes and match_len of a match from search-buffer`,
      );
    }
    lo = Math.max(0, offset - context);
    hi = Math.min(bytes.length, offset + length + context);
    // Leave out characters the window cuts (at most 3 continuation bytes each side).
    for (let k = 0; k < 3 && lo < hi && isContinuation(bytes[lo]); k++) lo++;
    for (let k = 0; k < 3 && hi > lo && hi < bytes.length && isContinuation(bytes[hi]); k++) hi--;
  }
  const part = bytes.subarray(lo, hi);
  try {
    return subjectOf(part, needsChars, lo, lo > 0 ? countByte(bytes, 10, 0, lo) : 0);
  } catch (e) {
    if (!(e instanceof InvalidUtf8)) throw e;
    throw notUtf8(t.name, part, lo, e.offset);
  }
}

function startOffset(t: SearchTarget, subject: Content): number {
  // tmux holds no empty buffer: a listed one read as empty was deleted since, and has nothing left from any offset.
  if (t.from === undefined || (t.skipIfNotText && subject.size === 0)) return 0;
  const rel = t.from - subject.base;
  const size = subject.size;
  const where = t.around ? `the window [${subject.base}, ${subject.base + size})` : `the buffer (size ${size} bytes)`;
  if (rel < 0 || rel > size) {
    throw new UserError(
      `resume_from_offset ${t.from} for ${JSON.stringify(t.name)} is outside ${where}: the buffer changed ` +
        `since that response, or the offset is not one a response gave; start again without resume_from_offset`,
    );
  }
  if (rel < size && subject.charStartAtOrAfter(rel) !== rel) {
    throw new UserError(
      `resume_from_offset ${t.from} for ${JSON.stringify(t.name)} is inside a UTF-8 character: pass back the ` +
        `resume_from_offset of the previous response unchanged, or start again without it`,
    );
  }
  return rel;
}
