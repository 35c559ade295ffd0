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
 * So is a case-sensitive regex whose matches are ASCII and never empty (see
 * {@linkcode searchableAsBytes}): most log searches, with no decoding. Any
 * other regex is too when the caller passes a `bytePattern` rewriter (the
 * search worker does: `lib/search/byte_pattern.ts`) and it can rewrite it;
 * only the rest needs the decoded text.
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
import { invalidRegex } from "./line_search.ts";
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
   * True when no match, and nothing a match looks at (lookarounds, `\b`), can reach past a newline, and
   * nothing refers to the ends of the text (`^`, `$`): then the matches in a run of whole lines, searched
   * as a text of its own, are exactly the whole text's matches that start in it (see `withinLines`).
   */
  readonly lineLocal: boolean;
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

/** How {@linkcode compileMatcher} may search. */
export interface MatcherOptions {
  /** Start positions a regex probe covers per call (tests shrink it to walk the probe across many spans). */
  probeSpan?: number;
  /**
   * Rewrites a regex for the byte string of UTF-8 content (`lib/search/byte_pattern.ts`); undefined when it
   * cannot. Given, a regex that would need the decoded text of non-ASCII content searches its byte string
   * instead. Passed in by the search worker, so the parser loads there and not with every tool.
   */
  bytePattern?: (source: string, ignoreCase: boolean) => string | undefined;
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

/** Compiles a pattern this module built, or (`given`) the model's own, refused as {@linkcode invalidRegex} says. */
function compile(source: string, flags: string, given = source): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (e) {
    throw invalidRegex(given, e, 'mode "literal"', flags);
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
  options: MatcherOptions = {},
): Matcher {
  const { probeSpan = PROBE_SPAN, bytePattern } = options;
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
      lineLocal: !query.includes("\n"),
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

  // A case-sensitive pattern that matches only ASCII runs on the byte string, like a literal: no decoding.
  // Any other runs there as its byte pattern, when the caller can make one.
  const asIs = !ignoreCase && searchableAsBytes(query);
  const bytes = asIs ? undefined : bytePattern?.(query, ignoreCase);
  const exactBytes = bytes !== undefined && ignoreCase ? bytePattern?.(query, false) : undefined;
  const onBytes = bytes !== undefined && (!ignoreCase || exactBytes !== undefined);
  const needsChars = !asIs && !onBytes;
  if (onBytes) compile(query, flags); // the engine that runs the original has the last word on its syntax
  const [source, reFlags] = onBytes ? [bytes!, ""] : [query, flags];
  const global = compile(source, "g" + reFlags);
  const sticky = compile(source, "y" + reFlags);
  // Exact-case check for similarity: the same pattern without `i`.
  const exactCase = !ignoreCase ? undefined : onBytes ? compile(exactBytes!, "y") : compile(query, "yu");
  // The probe: sticky at `from`, tries R at up to probeSpan + 1 positions and
  // stops at the first where R matches; its length is the distance to that start.
  const probe = compile(`[^]{0,${probeSpan}}?(?=${source})`, "y" + reFlags);
  return {
    query,
    mode,
    ignoreCase,
    needsChars,
    lineLocal: withinLines(query),
    finder: regexFinder,
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
 * Whether `source` (a valid `u`-flag pattern, matched case-sensitively)
 * finds exactly the same matches in the byte string of UTF-8 content as in
 * the decoded text: true when every match holds at least one character and
 * no part of the pattern matches anything at or above U+0080. Then a match
 * consumes only ASCII characters, which are the same single bytes in both,
 * so it starts on a character boundary; and each test the pattern makes of a
 * non-ASCII character (a class, a lookaround, `\b`) fails on that
 * character's lead or continuation bytes just as on the character. (An empty
 * match could sit inside a character, and V8 even finds some inside a
 * surrogate pair, hence the first condition.)
 *
 * Conservative. Not searchable as bytes: `.`, negated classes, `\D \S \W
 * \s` (`\s` takes U+00A0 and more), `\p{…}`, a non-ASCII character or
 * escape, modifier groups such as `(?i:…)` or `(?m:…)`, an alternative at
 * the top level, and a pattern without a top-level character, class or
 * escape that must occur at least once (`NEEDLE-[A-Z]+` has one, `a*` and
 * `(ab)+` do not).
 */
export function searchableAsBytes(source: string): boolean {
  let inClass = false, depth = 0, consumes = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c.charCodeAt(0) >= 0x80) return false;
    // Whether this is an atom of the top level that matches one character (set where it ends).
    let atom = false;
    if (c === "\\") {
      const e = source[++i];
      if ("DSWsPp".includes(e)) return false;
      if (e === "x" && parseInt(source.slice(i + 1, i + 3), 16) >= 0x80) return false;
      if (e === "u") {
        const braced = source[i + 1] === "{";
        const hex = braced ? source.slice(i + 2, source.indexOf("}", i)) : source.slice(i + 1, i + 5);
        if (parseInt(hex, 16) >= 0x80) return false;
      }
      // One character: \d \w, a control escape, an escaped syntax character. (Not \b \B \k, backreferences, or
      // the multi-character escapes \x \u \c, whose ends this loop does not track.)
      atom = !inClass && depth === 0 && ("dwtnrfv0".includes(e) || !/[A-Za-z0-9]/.test(e));
    } else if (inClass) {
      if (c === "]") {
        inClass = false;
        atom = depth === 0;
      }
    } else if (c === ".") return false;
    else if (c === "[") {
      if (source[i + 1] === "^") return false;
      inClass = true;
    } else if (c === "(") {
      // Plain, lookaround and named groups only; `(?flags:…)` changes how the inside matches.
      if (source[i + 1] === "?" && !":=!<".includes(source[i + 2])) return false;
      depth++;
    } else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return false;
    else if (c === "{") {
      // A quantifier's counts (under u a lone brace is a syntax error).
      i = source.indexOf("}", i);
      if (i < 0) return false;
    } else atom = depth === 0 && !"^$*+?{}".includes(c);
    // An atom counts unless a quantifier lets it match zero times.
    const q = source[i + 1];
    if (atom && !(q === "*" || q === "?" || (q === "{" && source[i + 2] === "0"))) consumes = true;
  }
  return consumes;
}

/**
 * The code point of the escape at `source[i]` (the character after a backslash) and the index after it; `cp`
 * undefined for an escape that is no single character: a class (`\d`, `\s`, …), an assertion (`\b`), a
 * backreference. (Inside a class, `\b` is a backspace: undefined here too, which is only ever taken for "not a
 * newline".)
 */
function escapeAt(source: string, i: number): { cp?: number; end: number } {
  const e = source[i];
  if (e === "x") return { cp: parseInt(source.slice(i + 1, i + 3), 16), end: i + 3 };
  if (e === "u") {
    if (source[i + 1] !== "{") return { cp: parseInt(source.slice(i + 1, i + 5), 16), end: i + 5 };
    const close = source.indexOf("}", i);
    return { cp: parseInt(source.slice(i + 2, close), 16), end: close + 1 };
  }
  if (e === "c") return { cp: source.charCodeAt(i + 1) % 32, end: i + 2 };
  const control = "tnvfr0".indexOf(e);
  if (control >= 0) return { cp: [9, 10, 11, 12, 13, 0][control], end: i + 1 };
  if (e === "k") return { end: source.indexOf(">", i) + 1 };
  if (e >= "1" && e <= "9") {
    let end = i + 1;
    while (source[end] >= "0" && source[end] <= "9") end++;
    return { end };
  }
  if ("dDwWsSbB".includes(e)) return { end: i + 1 };
  if (e === "p" || e === "P") return { end: source.indexOf("}", i) + 1 };
  return { cp: e.codePointAt(0), end: i + 1 + (e.codePointAt(0)! > 0xffff ? 1 : 0) };
}

const NEWLINE = 10;

/**
 * Whether every match of `source` (a valid `u`-flag pattern, with or without `i`) and everything it looks at
 * lie within one line: nothing in it can match a newline and it has no `^` or `$` (without the `m` flag they
 * are the text's ends). Then a lookbehind or `\b` at a line's start sees the same as at the start of a text,
 * a lookahead stops at the newline as at the end of one, and a search of whole lines finds what a search of
 * the whole text finds in them.
 *
 * Conservative: false for `\s \D \W \p \P` outside a negated class, a class that can match a newline (a
 * negated one without it, a range over U+000A), the newline written or escaped, and modifier groups
 * (`(?s:…)`). `.` is fine: without the `s` flag it matches no line terminator.
 */
export function withinLines(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const e = source[i + 1];
      if ("sDWpP".includes(e)) return false;
      const { cp, end } = escapeAt(source, i + 1);
      if (cp === NEWLINE) return false;
      i = end - 1;
    } else if (c === "^" || c === "$" || c === "\n") return false;
    else if (c === "(" && source[i + 1] === "?" && !":=!<".includes(source[i + 2])) return false;
    else if (c === "[") {
      const negated = source[i + 1] === "^";
      let j = negated ? i + 2 : i + 1;
      let holdsNewline = false;
      let last: number | undefined;
      for (; j < source.length && source[j] !== "]"; j++) {
        let cp: number | undefined;
        if (source[j] === "\\") {
          const e = source[j + 1];
          // \s, \D and \W hold the newline; \p{…} and \P{…} may.
          if ("sDW".includes(e)) holdsNewline = true;
          if (e === "p" || e === "P") return false;
          const esc = escapeAt(source, j + 1);
          cp = esc.cp;
          j = esc.end - 1;
        } else {
          cp = source.codePointAt(j)!;
          if (cp > 0xffff) j++;
        }
        if (source[j + 1] === "-" && source[j + 2] !== "]" && cp !== undefined) {
          last = cp;
          j++;
          continue;
        }
        if (last !== undefined && cp !== undefined && last <= NEWLINE && NEWLINE <= cp) holdsNewline = true;
        else if (cp === NEWLINE) holdsNewline = true;
        last = undefined;
      }
      // A class matches a newline when it holds one, a negated class when it does not.
      if (holdsNewline !== negated) return false;
      i = j;
    }
  }
  return true;
}

function isLowSurrogateAfterHigh(text: string, i: number): boolean {
  const d = text.charCodeAt(i), c = text.charCodeAt(i - 1);
  return d >= 0xdc00 && d <= 0xdfff && c >= 0xd800 && c <= 0xdbff;
}
