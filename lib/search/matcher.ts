/**
 * Finding matches in a buffer's text (decoded, or its byte string), bounded
 * by a scan limit.
 *
 * A finder returns the first match (in the whole text's context: lookbehind,
 * `^` and `\b` see everything before it) whose start lies in `[from, limit)`.
 * Calling it again from the end of that match yields exactly the sequence a
 * single left-to-right pass (`exec` with the `g` flag) yields, which is what
 * makes paging exact: a later call resuming at any position the scan reached
 * continues the same sequence.
 *
 * A case-sensitive literal is searched as its UTF-8 bytes in the content's
 * byte string, so its offsets need no conversion and nothing is decoded. So
 * is an ASCII literal with ignore_case: under the `iu` flags an ASCII letter
 * matches only its two cases, except `k` (also U+212A KELVIN SIGN) and `s`
 * (also U+017F LONG S) — a test checks this against every code point — so
 * it becomes a flagless pattern over bytes (`[eE][rR]…`, the two signs as
 * their UTF-8 bytes) with the same matches.
 * So is a case-sensitive regex that can only match ASCII (see
 * {@linkcode matchesOnlyAscii}): most log searches, with no decoding.
 * Literal queries (either case) only look at the characters they match, so
 * they are searched in a view that ends just past `limit`. A regex can look
 * arbitrarily far ahead, so it always runs on the whole text; to keep it from
 * scanning far past `limit` for a match that does not exist, a far-away limit
 * is searched with a sticky probe `[^]{0,K}?(?=R)` that gives up after K
 * start positions.
 *
 * @example
 * ```ts
 * const m = compileMatcher("b+", "regex", false); // needsChars: search decoded text
 * const find = m.finder("abba", 5);
 * find(0); // { start: 1, end: 3 }
 * ```
 */
import { isAscii } from "node:buffer";
import { UserError } from "../errors.ts";
import { byteString, decodeUtf8 } from "./text.ts";

export type SearchMode = "literal" | "regex";

/** A match in UTF-16 indexes of the text: `[start, end)`. */
export interface Span {
  start: number;
  end: number;
}

export interface Matcher {
  readonly query: string;
  readonly mode: SearchMode;
  readonly ignoreCase: boolean;
  /**
   * False when the matcher searches the byte string of the content (see
   * `byteString`), true when it needs the decoded text. Both are the same for
   * ASCII content.
   */
  readonly needsChars: boolean;
  /**
   * A finder over match starts below `limit` (`text.length + 1` lets an empty
   * match at the very end count). Returns undefined when no match starts in
   * `[from, limit)`.
   */
  finder(text: string, limit: number): (from: number) => Span | undefined;
  /**
   * How far the match `[start, end)` is from an exact-case hit: 0 when it
   * would match without ignore_case; for a literal the fraction of its
   * characters whose case differs from the query; for a regex 1 otherwise.
   */
  caseDistance(text: string, span: Span): number;
}

/** Start positions a regex probe covers per call; bounds V8's backtrack stack (32 Mi overflows it). */
const PROBE_SPAN = 65536;

/**
 * A plain `exec` searching to the end of the text costs about a fifth of the
 * probe per position, so it is used when the end is no more than this many
 * times as far as the limit.
 */
const PLAIN_REACH = 4;

/** Escapes a literal for a `u`-flag pattern (only syntax characters may be escaped there). */
export function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

function compile(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new UserError(
      `invalid regex: ${why}: fix the pattern (JavaScript syntax, u flag) or use mode "literal" to search the text as-is`,
    );
  }
}

/** Index after the code point at `i` (which may be a surrogate pair). */
export function nextCodePoint(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return i + 2;
  }
  return i + 1;
}

/** What an ASCII letter also matches under `iu`, as UTF-8 bytes in a byte string. */
const FOLDS_BEYOND_ASCII: Record<string, string> = {
  k: byteString(new TextEncoder().encode("\u212A")),
  s: byteString(new TextEncoder().encode("\u017F")),
};

/**
 * A flagless pattern over the byte string that matches what `query` (ASCII)
 * matches with the `iu` flags in the decoded text; see the module doc.
 */
export function asciiFoldedPattern(query: string): string {
  let p = "";
  for (const ch of query) {
    const lower = ch.toLowerCase(), upper = ch.toUpperCase();
    const beyond = FOLDS_BEYOND_ASCII[lower];
    if (beyond) p += `(?:[${lower}${upper}]|${beyond})`;
    else if (lower !== upper) p += `[${lower}${upper}]`;
    else p += escapeRegExp(ch);
  }
  return p;
}

/** A finder for a query that reads only the characters it matches, at most `reach` units from its start. */
function viewFinder(
  text: string,
  limit: number,
  reach: number,
  find: (view: string, from: number) => Span | undefined,
) {
  // A match starting before `limit` lies inside the view, so the view gives the same answers as the text.
  const end = limit - 1 + reach;
  const view = end >= text.length ? text : text.slice(0, end);
  return (from: number) => {
    const m = find(view, from);
    return m && m.start < limit ? m : undefined;
  };
}

function execAt(re: RegExp, text: string, from: number): Span | undefined {
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? { start: m.index, end: m.index + m[0].length } : undefined;
}

/**
 * Compiles a query. Throws a {@linkcode UserError} for an invalid regex.
 * Literal + ignore_case is a regex of the escaped literal (Unicode simple case
 * folding, as the `iu` flags define it).
 */
export function compileMatcher(
  query: string,
  mode: SearchMode,
  ignoreCase: boolean,
  /** Tests shrink this to walk the probe across many spans. */
  probeSpan = PROBE_SPAN,
): Matcher {
  if (!query.isWellFormed()) {
    throw new UserError("query holds a lone surrogate (half of a UTF-16 pair): pass whole characters");
  }
  const flags = ignoreCase ? "iu" : "u";
  if (mode === "literal") {
    const utf8 = new TextEncoder().encode(query);
    const onBytes = !ignoreCase || isAscii(utf8);
    const folded = !ignoreCase
      ? undefined
      : onBytes
      ? compile(asciiFoldedPattern(query), "g")
      : compile(escapeRegExp(query), "g" + flags);
    const needle = byteString(utf8);
    // A case-folded character is one code point: at most 2 units of text, or 3 bytes (U+212A) of a byte string.
    const reach = onBytes ? 3 * query.length : 2 * query.length;
    const finder = folded
      ? (text: string, limit: number) => viewFinder(text, limit, reach, (v, f) => execAt(folded, v, f))
      : (text: string, limit: number) =>
        viewFinder(text, limit, needle.length, (v, f) => {
          const i = v.indexOf(needle, f);
          return i < 0 ? undefined : { start: i, end: i + needle.length };
        });
    return {
      query,
      mode,
      ignoreCase,
      needsChars: !onBytes,
      finder,
      caseDistance(text, span) {
        if (!ignoreCase) return 0;
        // On a byte string the match is UTF-8 bytes; a few, decoded here.
        const match = onBytes
          ? decodeUtf8(Uint8Array.from(text.slice(span.start, span.end), (c) => c.charCodeAt(0)))
          : text.slice(span.start, span.end);
        // Case folding maps one code point to one, so match and query have as many.
        let differ = 0, chars = 0;
        for (let i = 0, j = 0; i < match.length; chars++) {
          const a = match.codePointAt(i)!, b = query.codePointAt(j);
          if (a !== b) differ++;
          i += a > 0xffff ? 2 : 1;
          j += b !== undefined && b > 0xffff ? 2 : 1;
        }
        return chars === 0 ? 0 : differ / chars;
      },
    };
  }

  const global = compile(query, "g" + flags);
  const sticky = compile(query, "y" + flags);
  // Exact-case check for similarity: the same pattern without `i`.
  const exactCase = ignoreCase ? compile(query, "yu") : undefined;
  // The probe: sticky at `from`, tries R at up to probeSpan + 1 positions and
  // stops at the first where R matches; its length is the distance to that start.
  const probe = compile(`[^]{0,${probeSpan}}?(?=${query})`, "y" + flags);
  // A case-sensitive pattern that matches only ASCII runs on the byte string, like a literal: no decoding.
  const needsChars = ignoreCase || !matchesOnlyAscii(query);
  return {
    query,
    mode,
    ignoreCase,
    needsChars,
    finder(text, limit) {
      const find = regexFinder(text, limit);
      if (needsChars) return find;
      // On a byte string, a continuation byte (0x80..0xBF) is inside a character: only an empty match starts there.
      return (from) => {
        let m = find(from);
        while (m && m.start < text.length && (text.charCodeAt(m.start) & 0xc0) === 0x80) m = find(m.start + 1);
        return m;
      };
    },
    caseDistance(text, span) {
      if (!exactCase) return 0;
      const m = execAt(exactCase, text, span.start);
      return m && m.end === span.end ? 0 : 1;
    },
  };

  function regexFinder(text: string, limit: number) {
    return (from: number): Span | undefined => {
      if (from > text.length || from >= limit) return undefined;
      if (text.length - from <= PLAIN_REACH * (limit - from)) {
        const m = execAt(global, text, from);
        return m && m.start < limit ? m : undefined;
      }
      for (let p = from; p < limit;) {
        probe.lastIndex = p;
        const hit = probe.exec(text);
        if (hit) {
          const start = p + hit[0].length;
          if (start >= limit) return undefined;
          // R matched inside the lookahead at `start`, so it matches there on its own.
          const m = execAt(sticky, text, start);
          if (!m) throw new Error(`regex probe and match disagree at ${start}`);
          return m;
        }
        // The probe covered probeSpan + 1 code points, i.e. at least that many units.
        p += probeSpan + 1;
        if (p < text.length && isLowSurrogateAfterHigh(text, p)) p++;
      }
      return undefined;
    };
  }
}

/**
 * Whether `source` (a valid `u`-flag pattern, matched case-sensitively) can
 * only ever match ASCII characters, so that its matches in the byte string
 * of UTF-8 content are exactly its matches in the decoded text: every
 * character it consumes is ASCII, and each test it makes of a non-ASCII
 * character (a class, a lookaround, `\b`) fails on that character's lead
 * byte or on a continuation byte just as on the character, since no part of
 * the pattern matches anything at or above U+0080. Only positions inside a
 * character differ, where nothing can be consumed, so only an empty match
 * can start there; the finder skips those.
 *
 * Conservative: `.`, negated classes, `\D \S \W \s` (`\s` takes U+00A0
 * and more), `\p{…}`, a non-ASCII character or escape, and modifier groups
 * such as `(?i:…)` or `(?m:…)` make it false.
 */
export function matchesOnlyAscii(source: string): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c.charCodeAt(0) >= 0x80) return false;
    if (c === "\\") {
      const e = source[++i];
      if ("DSWsPp".includes(e)) return false;
      if (e === "x" && parseInt(source.slice(i + 1, i + 3), 16) >= 0x80) return false;
      if (e === "u") {
        const braced = source[i + 1] === "{";
        const hex = braced ? source.slice(i + 2, source.indexOf("}", i)) : source.slice(i + 1, i + 5);
        if (parseInt(hex, 16) >= 0x80) return false;
      }
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === ".") return false;
    if (c === "[") {
      if (source[i + 1] === "^") return false;
      inClass = true;
    } else if (c === "(" && source[i + 1] === "?") {
      // Plain, lookaround and named groups only; `(?flags:…)` changes how the inside matches.
      const rest = source.slice(i + 2, i + 4);
      if (!(rest[0] === ":" || rest[0] === "=" || rest[0] === "!" || rest[0] === "<")) return false;
    }
  }
  return true;
}

function isLowSurrogateAfterHigh(text: string, i: number): boolean {
  const d = text.charCodeAt(i), c = text.charCodeAt(i - 1);
  return d >= 0xdc00 && d <= 0xdfff && c >= 0xd800 && c <= 0xdbff;
}
