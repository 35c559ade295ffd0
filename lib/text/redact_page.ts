/**
 * Redacting a page cut from a longer text (a show-buffer page, a search snippet, a pane line's excerpt): the
 * redactor reads {@linkcode PAGE_MARGIN} past the page's edges, so a secret the edge cuts is found whole, and the
 * page shows the marker of the whole secret in place of its part. A secret across an edge is thus replaced on
 * both pages (each shows the whole marker, never a part of one), and every byte that is not a secret's is on
 * exactly one page: the page's offsets stay those of the source.
 *
 * @example
 * ```ts
 * import { loadRedactor } from "./redact.ts";
 * const text = "key AKIAIOSFODNN7EXAMPLE end";
 * const page = redactedSlicer(await loadRedactor(), text, 0, text.length);
 * page(0, 14); // "key [redacted:aws:…]": the key's first part, cut at 14, is replaced
 * ```
 */
import { redactFully, type Redactor } from "./redact.ts";
import { charStartAtOrAfter, charStartAtOrBefore } from "./utf8.ts";

/**
 * How far past a page's edges the redactor reads, in UTF-16 units or bytes: a secret up to this long is seen
 * whole (a 4096-bit RSA key block is about 3.3 KB); a longer one shows its cut parts to the rules that judge
 * cut tokens (lib/text/redact.ts).
 */
export const PAGE_MARGIN = 4096;

/**
 * Pages of `text` within [from, to), redacted with the margin around [from, to) read once: the returned
 * function gives the page [a, b) (from <= a <= b <= to) with each secret that reaches into it replaced by its
 * marker. Without a redactor, the plain slice.
 */
export function redactedSlicer(
  redactor: Redactor | undefined,
  text: string,
  from: number,
  to: number,
  margin = PAGE_MARGIN,
): (a: number, b: number) => string {
  if (!redactor) return (a, b) => text.slice(a, b);
  let ws = Math.max(0, from - margin);
  // Not from the second half of a surrogate pair.
  if (ws > 0 && isLowSurrogate(text.charCodeAt(ws))) ws--;
  const we = Math.min(text.length, to + margin);
  const spans = redactor.mark(text.slice(ws, we));
  return (a, b) => {
    let out = "";
    let at = a;
    for (const s of spans) {
      const start = ws + s.start, end = ws + s.end;
      if (end <= a || start >= b) continue;
      out += text.slice(at, Math.max(at, start)) + s.marker;
      at = Math.min(b, end);
    }
    return out + text.slice(at, b);
  };
}

/**
 * `text[from, to)` for a message or a field, redacted as a page of `text` ({@linkcode redactedSlicer}): a secret
 * the cut splits, or one at an edge of the whole text (a screen line's start, where the rules for cut tokens look),
 * is replaced whole; with the preset loaded if the text needs it. Without a redactor, the plain slice.
 *
 * @example
 * ```ts
 * import { loadRedactor } from "./redact.ts";
 * const line = "key AKIAIOSFODNN7EXAMPLE end";
 * await redactedExcerpt(await loadRedactor(), line, 10, line.length); // "[redacted:aws:…] end"
 * ```
 */
export function redactedExcerpt(
  redactor: Redactor | undefined,
  text: string,
  from: number,
  to: number,
): Promise<string> {
  const cut = (r: Redactor | undefined) => redactedSlicer(r, text, from, to)(from, to);
  return redactor ? redactFully(redactor, cut) : Promise.resolve(cut(undefined));
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

// A page may start with U+FEFF (a byte-order mark, or a no-break space mid-text): it is text, not to be dropped.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Pages of `bytes` starting at `start` (a character's start) and ending at most at `maxEnd`, as text redacted
 * as {@linkcode redactedSlicer} does: the returned function gives the page [start, end). Only the bytes within
 * the margin of [start, maxEnd) are decoded and redacted, once for every page length tried.
 */
export function redactedBytePages(
  redactor: Redactor | undefined,
  bytes: Uint8Array,
  start: number,
  maxEnd: number,
  margin = PAGE_MARGIN,
): (end: number) => string {
  if (!redactor) return (end) => decoder.decode(bytes.subarray(start, end));
  const ws = charStartAtOrAfter(bytes, Math.max(0, start - margin));
  const we = charStartAtOrBefore(bytes, Math.min(bytes.length, maxEnd + margin));
  const before = decoder.decode(bytes.subarray(Math.min(ws, start), start));
  const body = decoder.decode(bytes.subarray(start, maxEnd));
  const after = decoder.decode(bytes.subarray(maxEnd, Math.max(maxEnd, we)));
  const slice = redactedSlicer(redactor, before + body + after, before.length, before.length + body.length, margin);
  return (end) => {
    if (end === maxEnd) return slice(before.length, before.length + body.length);
    // Decoded on its own, as the page is without redaction (malformed bytes at `end` may decode otherwise).
    const length = Math.min(body.length, decoder.decode(bytes.subarray(start, end)).length);
    return slice(before.length, before.length + length);
  };
}
