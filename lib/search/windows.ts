/**
 * A large buffer searched in windows of whole lines, each decoded only while
 * it is searched, for a matcher that needs the characters of non-ASCII
 * content (a non-ASCII literal with ignore_case, a regex the byte rewrite
 * of `byte_pattern.ts` leaves alone) and whose matches stay
 * within lines ({@linkcode Matcher.lineLocal}). The whole decoded text of
 * such content is one UTF-16 string, twice the bytes as soon as one
 * character is above U+00FF, and building it needs its pieces beside it:
 * windows keep the bytes and one window's text instead.
 *
 * A window starts at a line's start and ends after a newline (or at the end
 * of the buffer), so what a line-local matcher finds in it, and where, is
 * what it finds in the whole text. Offsets, snippets and their contexts are
 * the whole buffer's (read from its bytes), line numbers count from the
 * buffer's start: results are exactly those of the whole-text subject, page
 * by page and resume offset by resume offset (a property test compares them).
 *
 * @example
 * ```ts
 * import { compileMatcher } from "./matcher.ts";
 * const matcher = compileMatcher("é+", "regex", true);
 * const content = windowedContent(new TextEncoder().encode("a é\nÉÉ b\n"), 0, 0, 4); // windows of ≥ 4 bytes
 * const r = scanWindows(content, matcher, {
 *   from: 0, budget: Infinity, maxMatches: 10, contextBytes: 2, includeSimilarity: false,
 * });
 * r.matches.map((m) => m.offset_bytes); // [2, 5]
 * ```
 */
import { isUtf8 } from "node:buffer";
import type { Matcher } from "./matcher.ts";
import { countByte, createTextCursor } from "./offsets.ts";
import { type Count, countMatches, type ScanOptions, type ScanResult, scanSubject } from "./scan.ts";
import { bytesView, type Subject } from "./subject.ts";
import { decodeUtf8, InvalidUtf8, scanInvalid } from "./text.ts";

/** Bytes a window holds at least (it runs on to the end of its last line): its text is at most twice this. */
export const WINDOW_BYTES = 1 << 20;

/** A buffer (or a window of one) searched window by window. */
export interface WindowedContent {
  readonly windowed: true;
  /** Size in bytes. */
  readonly size: number;
  /** Buffer offset of byte 0. */
  readonly base: number;
  /** The first character boundary at or after byte offset `byte` (at most `size`). */
  charStartAtOrAfter(byte: number): number;
  /** The window holding byte offset `at` (at `size`: the last line's), decoded; the previous one is dropped. */
  windowAt(at: number): { subject: Subject; lo: number; hi: number };
}

/**
 * `bytes` (valid UTF-8, else {@linkcode InvalidUtf8} is thrown) as windowed content; `window`: the least bytes
 * of a window (tests shrink it). The array is kept (read for snippets and the next windows), not released.
 */
export function windowedContent(
  bytes: Uint8Array,
  base = 0,
  lineBase = 0,
  window = WINDOW_BYTES,
): WindowedContent {
  if (!isUtf8(bytes)) throw new InvalidUtf8(scanInvalid(bytes));
  const view = bytesView(bytes);
  const size = bytes.length;
  let current: { subject: Subject; lo: number; hi: number } | undefined;
  // Newlines before `counted` (kept so windows in order count each byte once).
  let counted = 0, lines = 0;
  const linesBefore = (at: number) => {
    if (at < counted) counted = lines = 0;
    lines += countByte(bytes, 10, counted, at);
    counted = at;
    return lines;
  };
  return {
    windowed: true,
    size,
    base,
    charStartAtOrAfter: view.charStartAtOrAfter,
    windowAt(at) {
      if (current && current.lo <= at && (at < current.hi || (at === size && current.hi === size))) return current;
      current = undefined; // its text may go before the next is decoded
      const lo = at === 0 ? 0 : bytes.lastIndexOf(10, at - 1) + 1;
      const nl = lo + window - 1 < size ? bytes.indexOf(10, Math.max(lo + window - 1, at)) : -1;
      const hi = nl < 0 ? size : nl + 1;
      const text = decodeUtf8(bytes.subarray(lo, hi));
      const at16 = createTextCursor(text, hi - lo);
      const subject: Subject = {
        ...view,
        text,
        byteIndexed: false,
        base,
        lineBase: lineBase + linesBefore(lo),
        toByte: (u16) => lo + at16.toByte(u16),
        toU16: (byte) => at16.toU16(byte - lo),
      };
      return current = { subject, lo, hi };
    },
  };
}

/** {@linkcode scanSubject} over windowed content: the same result as over the whole text's subject. */
export function scanWindows(content: WindowedContent, matcher: Matcher, o: ScanOptions): ScanResult {
  const { size } = content;
  // The end of the window of match starts, as scanSubject places it.
  const cut = o.from + o.budget >= size ? size : content.charStartAtOrAfter(o.from + o.budget);
  const matches: ScanResult["matches"] = [];
  for (let from = o.from;;) {
    const { subject, hi } = content.windowAt(from);
    const end = Math.min(cut, hi);
    const r = scanSubject(subject, matcher, {
      ...o,
      from,
      budget: end >= size ? Infinity : end - from,
      // Once the quota is met, a search on finds where the next page starts (the next match), as a whole pass does.
      maxMatches: o.maxMatches - matches.length,
    });
    for (const m of r.matches) matches.push(m);
    if (r.done) return { matches, done: true, next: size, scanned: size - o.from };
    // Stopped inside this window (by the quota, or at the cut), or at the cut itself.
    if (r.next !== hi || hi >= cut) return { matches, done: false, next: r.next, scanned: r.next - o.from };
    from = hi;
  }
}

/** {@linkcode countMatches} over windowed content: the same count as over the whole text's subject. */
export function countWindows(
  content: WindowedContent,
  matcher: Matcher,
  from: number,
  to: number,
  budget: number,
  deadline: number,
): Count {
  let count = 0, scanned = 0;
  for (let at = from;;) {
    const { subject, hi } = content.windowAt(at);
    const end = Math.min(to, hi);
    const c = countMatches(subject, matcher, at, end, budget - scanned, deadline);
    count += c.count;
    scanned += c.scanned;
    if (!c.complete || end >= to) return { count, complete: c.complete, scanned };
    at = end;
  }
}
