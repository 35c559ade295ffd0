/**
 * One buffer (or a window of one), one call: collect matches from a start
 * offset until the match quota or the scan budget runs out, and say where the
 * next call resumes.
 *
 * Resume rule (what makes paging exact): the scan reports every match whose
 * start lies in its window `[from, cut)` — a match that starts inside and
 * ends past `cut` is reported whole — and resumes at whichever is later, the
 * end of the last match or `cut`. When the quota stops it, it resumes at the
 * start of the next match (already found, so the next call begins with it).
 * Each of these is a position a single unpaginated pass would also search
 * from, with nothing left behind it.
 *
 * @example
 * ```ts
 * import { compileMatcher } from "./matcher.ts";
 * import { subjectOf } from "./subject.ts";
 * const matcher = compileMatcher("a", "literal", false);
 * const subject = subjectOf(new TextEncoder().encode("a b a"), matcher.needsChars);
 * const r = scanSubject(subject, matcher, {
 *   from: 0, budget: 3, maxMatches: 10, contextBytes: 1, includeSimilarity: false,
 * });
 * r.matches.length; // 1 ("a" at 0; the window [0, 3) ends before the second)
 * r.next; // 3
 * ```
 */
import type { Matcher, Span } from "./matcher.ts";
import { nextCodePoint } from "./matcher.ts";
import { createLineCounter } from "./offsets.ts";
import { cutTokens, snippetRange } from "./snippet.ts";
import { similarity, wordCoverage } from "./similarity.ts";
import type { Subject } from "./subject.ts";
import { round4 } from "./round.ts";

/** A count of matches: how many, and whether it covered all it was asked to. */
export interface Count {
  count: number;
  complete: boolean;
  /** Bytes covered. */
  scanned: number;
}

/**
 * Counts the matches whose start lies in `[from, to)` of `subject` (with `to` at its end, an empty match at the
 * very end counts too), as the pass {@linkcode scanSubject} pages through finds them, without building them:
 * no snippet, line or similarity. Stops after `budget` bytes or at `deadline` (a `performance.now()` time),
 * and then says it is incomplete.
 */
export function countMatches(
  subject: Subject,
  matcher: Matcher,
  from: number,
  to: number,
  budget: number,
  deadline: number,
): Count {
  if (from >= to && to < subject.size) return { count: 0, complete: true, scanned: 0 };
  const { text, size } = subject;
  const stop = to - from > budget ? subject.charStartAtOrAfter(from + Math.max(0, budget)) : to;
  const limit = stop >= size ? text.length + 1 : subject.toU16(stop);
  const find = matcher.finder(text, limit);
  let pos = subject.toU16(from), count = 0, span: Span | undefined;
  while ((span = find(pos))) {
    count++;
    pos = span.end > span.start ? span.end : afterEmpty(subject, span.end);
    // The clock is read now and then: a count of millions of short matches would feel it every time.
    if ((count & 1023) === 0 && performance.now() > deadline) {
      const at = Math.min(subject.toByte(Math.min(pos, text.length)), to);
      return { count, complete: false, scanned: at - from };
    }
  }
  return { count, complete: stop >= to, scanned: stop - from };
}

/**
 * Where the pass goes on after an empty match at `at`: the next character, as
 * String.prototype.matchAll does (a byte string's next character may be
 * several bytes on).
 */
function afterEmpty(subject: Subject, at: number): number {
  if (!subject.byteIndexed || at >= subject.text.length) return nextCodePoint(subject.text, at);
  return subject.charStartAtOrAfter(at + 1);
}

/** A match as the tools report it; offsets are buffer offsets in bytes. */
export interface FoundMatch {
  offset_bytes: number;
  match_len: number;
  line: number;
  context_start: number;
  context_end: number;
  snippet: string;
  similarity?: number;
  /**
   * The token the snippet's edges cut, outside it (before, after), for the redactor; not part of a tool's answer
   * (runSearch takes it off). Absent when neither edge cuts one.
   */
  cut?: [before: string, after: string];
}

export interface ScanOptions {
  /** Byte offset in the subject to search from (a character boundary). */
  from: number;
  /** Bytes this scan may cover; Infinity for all. */
  budget: number;
  maxMatches: number;
  contextBytes: number;
  includeSimilarity: boolean;
}

export interface ScanResult {
  matches: FoundMatch[];
  /** True when nothing is left to find from `from` on. */
  done: boolean;
  /** Where the next call resumes (a byte offset in the subject); meaningful when not done. */
  next: number;
  /** Bytes covered: from `from` to `next`, or to the end when done. */
  scanned: number;
}

/** Scans `subject` as described in the module doc. */
export function scanSubject(subject: Subject, matcher: Matcher, o: ScanOptions): ScanResult {
  const { text, size } = subject;
  const fromU = subject.toU16(o.from);

  // The window of match starts: [from, cut), or through the end (inclusive:
  // an empty match can sit at the very end).
  const cut = o.from + o.budget >= size ? size : subject.charStartAtOrAfter(o.from + o.budget);
  const reachesEnd = cut >= size;
  const limit = reachesEnd ? text.length + 1 : subject.toU16(cut);
  const find = matcher.finder(text, limit);

  const lines = createLineCounter(text);
  const matches: FoundMatch[] = [];
  let pos = fromU;
  let next: Span | undefined;
  while ((next = find(pos)) && matches.length < o.maxMatches) {
    matches.push(report(subject, matcher, next, lines, o));
    // An empty match moves on by one character, as String.prototype.matchAll does.
    pos = next.end > next.start ? next.end : afterEmpty(subject, next.end);
  }

  let resume: number;
  if (next) resume = subject.toByte(next.start); // quota reached; the next call starts with this match
  else if (reachesEnd) return { matches, done: true, next: size, scanned: size - o.from };
  else resume = pos > limit ? subject.toByte(pos) : cut;
  return { matches, done: false, next: resume, scanned: resume - o.from };
}

function report(
  subject: Subject,
  matcher: Matcher,
  span: Span,
  lines: ReturnType<typeof createLineCounter>,
  o: ScanOptions,
): FoundMatch {
  const start = subject.toByte(span.start);
  const end = subject.toByte(span.end);
  const [lo, hi] = snippetRange(subject, start, end, o.contextBytes);
  const m: FoundMatch = {
    offset_bytes: subject.base + start,
    match_len: end - start,
    line: subject.lineBase + lines.before(span.start) + 1,
    context_start: subject.base + lo,
    context_end: subject.base + hi,
    snippet: subject.textOf(lo, hi),
  };
  const [before, after] = cutTokens(subject, lo, hi);
  if (before || after) m.cut = [before, after];
  if (o.includeSimilarity) {
    const coverage = wordCoverage(subject, start, end);
    m.similarity = round4(similarity(coverage, matcher.caseDistance(subject.text, span)));
  }
  return m;
}
