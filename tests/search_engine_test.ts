/**
 * The search engine (lib/search) on plain bytes: unit tests and fast-check
 * properties against independent computations (TextEncoder for offsets,
 * String.prototype.matchAll for regex semantics, a byte-level scan for
 * literals, a fatal TextDecoder for UTF-8 validity).
 */
import fc from "fast-check";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import {
  compileMatcher,
  escapeRegExp,
  searchableAsBytes,
  type SearchMode,
  withinLines,
} from "../lib/search/matcher.ts";
import { bytePattern, FOLDS_APART, utf8Sequences } from "../lib/search/byte_pattern.ts";
import { JS } from "refa";
import { createLineCounter, createOffsetCursor, createTextCursor } from "../lib/search/offsets.ts";
import {
  DECODE_CHUNK,
  decodePieces,
  firstInvalidUtf8,
  InvalidUtf8,
  scanInvalid,
  validByteString,
} from "../lib/search/text.ts";
import { SNIPPET_MATCH_MAX, snippetRange } from "../lib/search/snippet.ts";
import { WIDEN_MAX, wordCoverage } from "../lib/search/similarity.ts";
import { type BufferMatch, openContent, searchBuffers, type SearchTarget } from "../lib/search/search.ts";
import { type ScanOptions, type ScanResult, scanSubject } from "../lib/search/scan.ts";
import { round4 } from "../lib/search/round.ts";
import { bytesSubject, bytesView, subjectOf } from "../lib/search/subject.ts";
import { isUtf8 } from "node:buffer";

const enc = new TextEncoder();
const byteLen = (s: string) => enc.encode(s).length;

/** Text with ASCII, 2-, 3- and 4-byte characters, newlines and a combining mark. */
const CHARS = ["a", "b", "A", "B", " ", "\n", "x", "é", "É", "中", "😀", "\u0301", "_", "ab", "aB"];
const textArb = fc.array(fc.constantFrom(...CHARS), { maxLength: 60, size: "max" }).map((a) => a.join(""));

const REGEXES = [
  "a",
  "ab",
  "a+",
  "a*",
  "b?",
  "x*",
  "(?<=a)b",
  "a(?=b)",
  "^a",
  "$",
  "^",
  "\\b",
  "[^]",
  ".",
  "😀",
  "\\p{L}+",
  "a|ab",
  "(a)\\1",
  "(?m:^)",
  "(?m:^.)",
  "(?:a|é)+?",
  "é",
  "a[^]*b",
  "(?=[^]*😀)a",
  "\\n\\n?",
  // Searched over the byte string of non-ASCII text (searchableAsBytes), or not: empty or top-level alternatives.
  "[a-z]+",
  "\\w*",
  "(?<!a)b",
  "[AB]+\\b",
];

/**
 * Independent reference: every match of a one-pass matchAll, as byte offsets. `boundaries`: without the matches
 * V8 finds between the halves of a surrogate pair (an empty one after a lookbehind, e.g. `(?<!a)` in "a😀"), which
 * a search of the byte string, where every position it may match at is a character boundary, does not report.
 */
function referenceMatches(text: string, query: string, mode: SearchMode, ignoreCase: boolean, boundaries = false) {
  const src = mode === "literal" ? query.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&") : query;
  const re = new RegExp(src, "g" + (ignoreCase ? "iu" : "u"));
  const inPair = (i: number) => /[\uDC00-\uDFFF]/.test(text[i] ?? "") && /[\uD800-\uDBFF]/.test(text[i - 1] ?? "");
  return [...text.matchAll(re)].filter((m) => !boundaries || !inPair(m.index)).map((m) => {
    const start = byteLen(text.slice(0, m.index));
    return { offset_bytes: start, match_len: byteLen(m[0]), line: text.slice(0, m.index).split("\n").length };
  });
}

/** A literal case-sensitive scan over bytes, not over text. */
function byteLiteralMatches(bytes: Uint8Array, q: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i + q.length <= bytes.length;) {
    let k = 0;
    while (k < q.length && bytes[i + k] === q[k]) k++;
    if (k === q.length) {
      out.push(i);
      i += q.length;
    } else i++;
  }
  return out;
}

async function searchAll(
  store: Map<string, Uint8Array>,
  query: string,
  mode: SearchMode,
  ignoreCase: boolean,
  page: { maxMatches: number; maxScanBytes: number },
  probeSpan?: number,
  /** Search regexes as their byte patterns, as the search worker does. */
  bytes = false,
) {
  const matcher = compileMatcher(query, mode, ignoreCase, { probeSpan, bytePattern: bytes ? bytePattern : undefined });
  // A copy per read: the search takes over (and may release) the arrays it is handed.
  const read = (n: string) => Promise.resolve(store.get(n)!.slice());
  let targets: SearchTarget[] = [...store.keys()].map((name) => ({ name }));
  const all: BufferMatch[] = [];
  for (let pages = 0; targets.length > 0; pages++) {
    if (pages > 10_000) throw new Error("pagination does not terminate");
    const r = await searchBuffers(targets, read, { matcher, ...page, contextBytes: 3, includeSimilarity: false });
    assert(r.matches.length <= page.maxMatches, "page exceeds max_matches");
    all.push(...r.matches);
    targets = r.truncated.map(([name, from]) => ({ name, from }));
  }
  return all.map((m) => ({ buffer: m.buffer, offset_bytes: m.offset_bytes, match_len: m.match_len, line: m.line }));
}

Deno.test("offset cursor converts UTF-16 indexes to UTF-8 offsets and back, as TextEncoder counts", () => {
  fc.assert(
    fc.property(textArb, fc.array(fc.nat(), { maxLength: 12 }), (text, picks) => {
      // Code point boundaries in increasing order.
      const bounds = [0];
      for (let i = 0; i < text.length; bounds.push(i)) i += text.codePointAt(i)! > 0xffff ? 2 : 1;
      const targets = [...new Set(picks.map((p) => bounds[p % bounds.length]))].sort((a, b) => a - b);
      const ascii = byteLen(text) === text.length;
      const toByte = createOffsetCursor(text, ascii);
      const toU16 = createOffsetCursor(text, ascii);
      for (const u of targets) {
        const b = byteLen(text.slice(0, u));
        assertEquals(toByte.toByte(u), b);
        assertEquals(toU16.toU16(b), u);
      }
      // Going backwards restarts and still answers right.
      if (targets.length) assertEquals(toByte.toByte(targets[0]), byteLen(text.slice(0, targets[0])));
    }),
    { numRuns: 500 },
  );
});

Deno.test("offset cursor skips long distances natively and lands on the same offsets", () => {
  const text = Array.from({ length: 70_000 }, (_, i) => ["a", "é", "中", "😀", "\n"][(i * 7) % 5]).join("");
  fc.assert(
    fc.property(fc.array(fc.nat({ max: text.length }), { minLength: 1, maxLength: 6 }), (picks) => {
      const ascii = false;
      const toByte = createOffsetCursor(text, ascii);
      const toU16 = createOffsetCursor(text, ascii);
      for (let u of [...picks].sort((a, b) => a - b)) {
        if (u > 0 && u < text.length && text.charCodeAt(u) >= 0xdc00 && text.charCodeAt(u) <= 0xdfff) u--;
        const b = byteLen(text.slice(0, u));
        assertEquals(toByte.toByte(u), b);
        assertEquals(toU16.toU16(b), u);
      }
    }),
    { numRuns: 40 },
  );
});

/** For each byte offset of `text`'s UTF-8, the character boundaries around it, and each boundary's UTF-16 index. */
function boundaryTable(text: string) {
  const u16OfByte = new Map<number, number>();
  let b = 0;
  for (let u = 0; u < text.length;) {
    u16OfByte.set(b, u);
    const cp = text.codePointAt(u)!;
    b += byteLen(String.fromCodePoint(cp));
    u += cp > 0xffff ? 2 : 1;
  }
  u16OfByte.set(b, text.length);
  const size = b;
  const ceil = (x: number) => {
    while (!u16OfByte.has(x)) x++;
    return x;
  };
  const floor = (x: number) => {
    while (!u16OfByte.has(x)) x--;
    return x;
  };
  return { size, u16OfByte, ceil, floor };
}

Deno.test("text cursor answers in any order and rounds offsets inside characters to either side", () => {
  const long = Array.from({ length: 150_000 }, (_, i) => ["a", "é", "中", "😀", "\n"][(i * 7) % 5]).join("");
  const longTable = boundaryTable(long);
  const texts = fc.oneof(textArb, fc.constant(long));
  fc.assert(
    fc.property(texts, fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (text, picks, sized) => {
      const t = text === long ? longTable : boundaryTable(text);
      const at = createTextCursor(text, sized ? t.size : undefined);
      // Unsorted on purpose: the cursor walks back as well as forward.
      for (const pick of picks) {
        const byte = pick % (t.size + 1);
        const up = t.ceil(byte), down = t.floor(byte);
        assertEquals(at.ceil(byte), { u: t.u16OfByte.get(up)!, b: up });
        assertEquals(at.floor(byte), { u: t.u16OfByte.get(down)!, b: down });
        assertEquals(at.toU16(byte), t.u16OfByte.get(up));
        assertEquals(at.toByte(t.u16OfByte.get(down)!), down);
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("an ASCII-only text converts offsets without walking it", () => {
  // A cursor declared ASCII answers the identity even for positions past the text: no walk happens.
  const at = createOffsetCursor("", true);
  assertEquals(at.toByte(1e9), 1e9);
  assertEquals(at.toU16(123), 123);
});

Deno.test("line counter counts newlines before increasing positions, long and short lines alike", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("\n", "a", "bb", "\n\n", "ccccccccccccccccccccccccc"), { maxLength: 2000, size: "max" }),
      (parts) => {
        const text = parts.join("");
        const lines = createLineCounter(text);
        for (let u = 0; u <= text.length; u += 1 + (u % 97)) {
          assertEquals(lines.before(u), text.slice(0, u).split("\n").length - 1);
        }
      },
    ),
    { numRuns: 100 },
  );
});

/** Reference for UTF-8 validity: the longest prefix a fatal TextDecoder accepts. */
function fatalPrefix(bytes: Uint8Array): number {
  const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const ok = (n: number) => {
    try {
      fatal.decode(bytes.subarray(0, n));
      return true;
    } catch {
      return false;
    }
  };
  if (ok(bytes.length)) return -1;
  let n = bytes.length;
  while (!ok(n)) n--;
  return n;
}

const bytesArb = fc.array(
  fc.oneof(
    fc.integer({ min: 0, max: 255 }).map((b) => [b]),
    fc.constantFrom("a", "é", "中", "😀", "\uFEFF", "\uFFFD").map((s) => [...enc.encode(s)]),
    fc.constantFrom([0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe0, 0x9f, 0x80]),
  ),
  { maxLength: 24 },
).map((parts) => new Uint8Array(parts.flat()));

Deno.test("first invalid UTF-8 byte is where the longest fatally-decodable prefix ends", () => {
  fc.assert(
    fc.property(bytesArb, (bytes) => {
      const expected = fatalPrefix(bytes);
      assertEquals(firstInvalidUtf8(bytes), expected);
      assertEquals(scanInvalid(bytes), expected);
      assertEquals(isUtf8(bytes), expected === -1);
      // Both ways to make searchable text validate: the byte string, and the decode in pieces (a real
      // U+FFFD included), whatever the piece size, even when pieces cut characters.
      const makers: Array<() => string> = [
        () => validByteString(bytes),
        ...[1, 2, 3, 5, 1 << 20].map((chunk) => () => decodePieces(bytes, chunk).join("")),
      ];
      for (const [i, make] of makers.entries()) {
        try {
          const text = make();
          assertEquals(expected, -1);
          const decoded = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
          assertEquals(text, i === 0 ? String.fromCharCode(...bytes) : decoded);
        } catch (e) {
          if (!(e instanceof InvalidUtf8)) throw e;
          assertEquals(e.offset, expected);
        }
      }
    }),
    { numRuns: 2000 },
  );
  assertEquals(firstInvalidUtf8(new Uint8Array([0x61, 0xe2, 0x82, 0x41])), 1);
  assertEquals(firstInvalidUtf8(enc.encode("ok")), -1);
});

Deno.test("snippets never cut a character and hold the match", () => {
  fc.assert(
    fc.property(textArb, fc.nat(), fc.nat(), fc.nat({ max: 12 }), (text, a, b, ctx) => {
      const bytes = enc.encode(text);
      const bounds: number[] = [];
      for (let i = 0; i <= bytes.length; i++) if (i === bytes.length || (bytes[i] & 0xc0) !== 0x80) bounds.push(i);
      const [s, e] = [bounds[a % bounds.length], bounds[b % bounds.length]].sort((x, y) => x - y);
      const [lo, hi] = snippetRange(bytesView(bytes), s, e, ctx);
      assert(bounds.includes(lo) && bounds.includes(hi), "snippet edge inside a character");
      assert(lo <= s && hi >= e && s - lo <= ctx && hi - e <= ctx, `snippet [${lo},${hi}) for [${s},${e})`);
    }),
    { numRuns: 1000 },
  );
  const long = enc.encode("x".repeat(SNIPPET_MATCH_MAX * 2));
  assertEquals(snippetRange(bytesView(long), 0, long.length, 10), [0, SNIPPET_MATCH_MAX]);
});

Deno.test("similarity: exact whole word 1, inside a longer word less, case-only match least", async () => {
  const score = async (text: string, query: string, mode: SearchMode, ignoreCase = true) => {
    const r = await searchBuffers([{ name: "s" }], () => Promise.resolve(enc.encode(text)), {
      matcher: compileMatcher(query, mode, ignoreCase),
      maxMatches: 1,
      maxScanBytes: Infinity,
      contextBytes: 0,
      includeSimilarity: true,
    });
    return r.matches[0].similarity!;
  };
  for (const mode of ["literal", "regex"] as const) {
    const exact = await score("an error here", "error", mode);
    const inside = await score("an errors here", "error", mode);
    const caseOnly = await score("an ERROR here", "error", mode);
    assertEquals(exact, 1);
    assert(exact > inside && inside > caseOnly, `${mode}: ${exact} > ${inside} > ${caseOnly}`);
    assertEquals(await score("an errors here", "error", mode, false), inside);
  }
  // Partly different case scores between exact and all-different.
  const mixed = await score("Error", "error", "literal");
  assert(mixed < 1 && mixed > await score("ERROR", "error", "literal"));
  assertEquals(mixed, 0.9);
  // Non-word edges do not widen; word characters of any script do, counted as characters.
  assertEquals(await score("(error)", "error", "literal"), 1);
  assertEquals(await score("中error", "error", "literal", false), round4(5 / 6));
  assertEquals(await score("😀é", "é", "literal", false), 1);
  assertEquals(await score("xé\u0301yz", "é", "regex", false), round4(1 / 5));
  assertEquals(wordCoverage(bytesView(enc.encode("abc")), 1, 1), 0);
  const long = bytesView(enc.encode("x".repeat(200) + "ab" + "y".repeat(200)));
  assertEquals(wordCoverage(long, 200, 202), 2 / (2 + 2 * WIDEN_MAX));
});

Deno.test("regex matches come out as one matchAll pass gives them, empty matches included", async () => {
  await fc.assert(
    fc.asyncProperty(
      textArb,
      fc.constantFrom(...REGEXES),
      fc.boolean(),
      fc.boolean(),
      async (text, query, ic, bytes) => {
        const store = new Map([["b", enc.encode(text)]]);
        const got = await searchAll(
          store,
          query,
          "regex",
          ic,
          { maxMatches: 1000, maxScanBytes: Infinity },
          undefined,
          bytes,
        );
        assertEquals(got, referenceMatches(text, query, "regex", ic).map((m) => ({ buffer: "b", ...m })));
      },
    ),
    { numRuns: 400 },
  );
});

/** Characters where bytes and code points part ways: every UTF-8 length, folds, JavaScript's spaces and line ends. */
const BYTE_CHARS = [
  "a",
  "A",
  "b",
  "k",
  "K",
  "\u212A",
  "s",
  "\u017F",
  "ß",
  "é",
  "É",
  "ǅ",
  "中",
  "😀",
  "\u00A0",
  "\u2028",
  "\uFEFF",
  "\n",
  "\r",
  " ",
  "_",
  "1",
  "\u0301",
  "\u00FF",
  "\u0100",
  "\u07FF",
  "\u0800",
  "\uFFFF",
  "\u{10000}",
  "\u{10FFFF}",
  // Folded together by V8 (Unicode 16), not by refa's tables (FOLDS_APART).
  "\u0264",
  "\uA7CB",
  "\u0390",
  "\u1FD3",
];
const byteTextArb = fc.array(fc.constantFrom(...BYTE_CHARS), { maxLength: 40, size: "max" }).map((a) => a.join(""));

/** Regexes built from atoms that each stress one part of the rewrite, with quantifiers, groups and lookarounds. */
const patternArb = fc.letrec<{ pattern: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    fc.constantFrom(
      "a",
      "é",
      "É",
      "中",
      "😀",
      "k",
      "ß",
      ".",
      "[^]",
      "\\s",
      "\\S",
      "\\w",
      "\\W",
      "\\d",
      "\\D",
      "\\b",
      "\\B",
      "[^a]",
      "[^é\\n]",
      "[a-é]",
      "[é-中]",
      "[\\u00A0-\\u{10000}]",
      "[^\\u0080-\\u07FF]",
      "\\p{L}",
      "\\P{L}",
      "\\p{Script=Han}",
      "^",
      "$",
      "\\n",
      "\\u{10FFFF}",
      "\\x7F",
      "\\u{A7CB}",
      "[^\\u0264]",
      "\\u1FD3",
      "[\\u0390-\\u03B0]",
    ),
    fc.tuple(tie("pattern"), fc.constantFrom("(?:", "(", "(?=", "(?!", "(?<=", "(?<!")).map(([p, g]) => `${g}${p})`),
  ),
  pattern: fc.array(
    fc.tuple(tie("atom"), fc.constantFrom("", "", "", "*", "+", "?", "*?", "+?", "{2}", "{0,2}", "{1,}?")),
    { minLength: 1, maxLength: 4 },
  ).chain((parts) => fc.constantFrom("", "|a", "|").map((alt) => parts.map(([a, q]) => a + q).join("") + alt)),
})).pattern.filter((p) => {
  try {
    new RegExp(p, "u"); // a quantified assertion is a syntax error under u
  } catch {
    return false;
  }
  return !nestedQuantifier(p);
});

/**
 * Whether a quantified group of `p` holds a quantifier: `(?:a*)*` backtracks exponentially on a run of `a`, and a
 * random pattern of that kind made one run of the property below take minutes. (The atoms hold no `(` `)` `*` `+`
 * `?` `{` other than as syntax, except inside classes, which have none of them.)
 */
function nestedQuantifier(p: string): boolean {
  const open: boolean[] = []; // per open group: whether it holds a quantifier so far
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === "\\") i++;
    else if (c === "(") open.push(false);
    else if (c === ")") {
      const holds = open.pop()!;
      if (holds && "*+?{".includes(p[i + 1] ?? "")) return true;
      if (holds && open.length > 0) open[open.length - 1] = true;
    } else if ("*+?{".includes(c) && !(c === "?" && p[i - 1] === "(") && open.length > 0) {
      open[open.length - 1] = true;
    }
  }
  return false;
}

Deno.test("a regex rewritten for the byte string finds what it finds in the decoded text, match for match", () => {
  fc.assert(
    fc.property(byteTextArb, patternArb, fc.boolean(), (text, query, ic) => {
      const source = bytePattern(query, ic);
      if (source === undefined) return;
      const m = compileMatcher(query, "regex", ic, { bytePattern });
      assert(!m.needsChars, `${query} runs on the byte string`);
      const byteString = String.fromCharCode(...enc.encode(text));
      const re = new RegExp(source, "g");
      const got: [number, number][] = [];
      for (let pos = 0; pos <= byteString.length;) {
        re.lastIndex = pos;
        const hit = re.exec(byteString);
        if (!hit) break;
        got.push([hit.index, hit[0].length]);
        pos = hit[0].length > 0 ? hit.index + hit[0].length : hit.index + 1;
      }
      const want = referenceMatches(text, query, "regex", ic, true).map((r) => [r.offset_bytes, r.match_len]);
      assertEquals(got, want, `${JSON.stringify(query)} ${ic ? "iu" : "u"} on ${JSON.stringify(text)}: ${source}`);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("byte patterns: what is rewritten, what is not, and the UTF-8 sequences of code point ranges", () => {
  for (const q of ["é\\s", "[^x]+", "^día$", ".+x", "(?<=中)\\b\\w"]) {
    assert(!compileMatcher(q, "regex", true, { bytePattern }).needsChars, q);
  }
  // Backreferences compare text under case folding; modifier groups are beyond the parser; refa's property tables
  // are older than V8's: all decode. So does a set that holds some of FOLDS_APART under `i` (V8 folds U+A7CB and
  // U+0264 together, refa does not), not without it.
  for (const [q, ic] of [["(é)\\1", false], ["(?i:é)x", false], ["\\p{L}+", false], ["[^\\u{A7CB}]", true]] as const) {
    assertEquals(bytePattern(q, ic), undefined, q);
    assert(compileMatcher(q, "regex", ic, { bytePattern }).needsChars, q);
  }
  assert(bytePattern("[^\\u{A7CB}]", false) !== undefined);
  // Invalid patterns are still reported by the engine that would run them.
  let error = "";
  try {
    compileMatcher("é(", "regex", false, { bytePattern });
  } catch (e) {
    error = (e as Error).message;
  }
  assertMatch(error, /^invalid regex "é\(": .*\(JavaScript syntax, u flag\); fix it/);
  fc.assert(
    fc.property(
      fc.nat({ max: 0x10ffff }),
      fc.nat({ max: 0x10ffff }),
      fc.array(fc.nat({ max: 0x10ffff })),
      (a, b, picks) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const seqs = utf8Sequences(lo, hi);
        for (const cp of [lo, hi, lo - 1, hi + 1, ...picks]) {
          if (cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) continue;
          const bytes = [...enc.encode(String.fromCodePoint(cp))];
          const holding = seqs.filter((s) =>
            s.length === bytes.length && s.every(([l, h], i) => l <= bytes[i] && bytes[i] <= h)
          );
          assertEquals(holding.length, cp >= lo && cp <= hi ? 1 : 0, `U+${cp.toString(16)} in [${lo}, ${hi}]`);
        }
      },
    ),
    { numRuns: 2000 },
  );
});

const refaParser = JS.Parser;

Deno.test("FOLDS_APART is where refa's case folding and this V8's differ, and refa's never joins more", () => {
  const candidates = new Set<number>();
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    for (const t of [s.toLowerCase(), s.toUpperCase()]) {
      if (t === s) continue;
      candidates.add(c);
      if ([...t].length === 1) candidates.add(t.codePointAt(0)!);
    }
  }
  const apart = new Set<number>();
  for (const c of candidates) {
    const esc = `\\u{${c.toString(16)}}`;
    const refa = refaParser.fromLiteral({ source: esc, flags: "iu" }).parse({ simplify: false });
    const set = (refa.expression.alternatives[0].elements[0] as { characters: { has(c: number): boolean } }).characters;
    const v8 = new RegExp(`^${esc}$`, "iu");
    for (const d of candidates) {
      const inV8 = v8.test(String.fromCodePoint(d));
      if (set.has(d) === inV8) continue;
      assert(inV8, `refa folds U+${c.toString(16)} with U+${d.toString(16)}, V8 does not`);
      apart.add(c).add(d);
    }
  }
  const listed = FOLDS_APART.flatMap(([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));
  assertEquals([...apart].sort((a, b) => a - b).map((c) => c.toString(16)), listed.map((c) => c.toString(16)));
});

Deno.test("literal matches are the non-overlapping byte matches, left to right", async () => {
  await fc.assert(
    fc.asyncProperty(textArb, fc.nat(), fc.nat({ max: 4 }), async (text, at, len) => {
      const query = text.slice(at % (text.length + 1), (at % (text.length + 1)) + len + 1) || "a";
      if (!query.isWellFormed()) return; // the tools refuse lone surrogates
      const bytes = enc.encode(text);
      const got = await searchAll(new Map([["b", bytes]]), query, "literal", false, {
        maxMatches: 1000,
        maxScanBytes: Infinity,
      });
      assertEquals(got.map((m) => m.offset_bytes), byteLiteralMatches(bytes, enc.encode(query)));
      assertEquals(got, referenceMatches(text, query, "literal", false).map((m) => ({ buffer: "b", ...m })));
    }),
    { numRuns: 500 },
  );
});

Deno.test("under the iu flags an ASCII letter matches only its two cases, KELVIN SIGN and LONG S", () => {
  for (const letter of "abcdefghijklmnopqrstuvwxyz") {
    const re = new RegExp(`^${letter}$`, "iu");
    const hits: number[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      if ((c < 0xd800 || c > 0xdfff) && re.test(String.fromCodePoint(c))) hits.push(c);
    }
    const extra = { k: [0x212a], s: [0x17f] }[letter as "k" | "s"] ?? [];
    assertEquals(hits, [letter.toUpperCase().charCodeAt(0), letter.charCodeAt(0), ...extra]);
  }
});

Deno.test("an ASCII literal with ignore_case, searched over bytes, matches what the iu regex matches in the text", async () => {
  const chars = [...CHARS, "k", "K", "\u212A", "s", "S", "\u017F", "ß", "ẞ", "Å", "\u212B", "é", "É", "."];
  const text = fc.array(fc.constantFrom(...chars), { maxLength: 60, size: "max" }).map((a) => a.join(""));
  const query = fc.array(fc.constantFrom("a", "B", "k", "K", "s", "S", " ", ".", "*", "\n", "x", "_", "ab"), {
    minLength: 1,
    maxLength: 4,
  }).map((a) => a.join(""));
  await fc.assert(
    fc.asyncProperty(text, query, async (text, query) => {
      assert(!compileMatcher(query, "literal", true).needsChars, "searched over bytes");
      const got = await searchAll(new Map([["b", enc.encode(text)]]), query, "literal", true, {
        maxMatches: 1000,
        maxScanBytes: Infinity,
      });
      assertEquals(got, referenceMatches(text, query, "literal", true).map((m) => ({ buffer: "b", ...m })));
    }),
    { numRuns: 500 },
  );
  // Non-ASCII queries still need the decoded text.
  assert(compileMatcher("é", "literal", true).needsChars);
});

Deno.test("paginated results equal unpaginated results (max_matches and max_scan_bytes pages)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(textArb, { minLength: 1, maxLength: 3 }),
      fc.oneof(
        fc.record({ mode: fc.constant<SearchMode>("regex"), query: fc.constantFrom(...REGEXES) }),
        fc.record({
          mode: fc.constant<SearchMode>("literal"),
          query: fc.constantFrom("a", "ab", "é", "😀", "a\nb", "x"),
        }),
      ),
      fc.boolean(),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 24 }),
      fc.constantFrom(undefined, 1, 2, 5),
      fc.boolean(),
      async (texts, { mode, query }, ic, maxMatches, maxScanBytes, probeSpan, bytes) => {
        const store = new Map(texts.map((t, i) => [`buf${i}`, enc.encode(t)]));
        const whole = await searchAll(store, query, mode, ic, { maxMatches: 100_000, maxScanBytes: Infinity });
        const paged = await searchAll(store, query, mode, ic, { maxMatches, maxScanBytes }, probeSpan);
        assertEquals(paged, whole);
        const expected = texts.flatMap((t, i) =>
          referenceMatches(t, query, mode, ic).map((m) => ({ buffer: `buf${i}`, ...m }))
        );
        assertEquals(whole, expected);
        if (!bytes || mode === "literal") return;
        // The same search over byte patterns, whole and paged as above.
        const onBytes = texts.flatMap((t, i) =>
          referenceMatches(t, query, mode, ic, true).map((m) => ({ buffer: `buf${i}`, ...m }))
        );
        const wholeBytes = await searchAll(
          store,
          query,
          mode,
          ic,
          { maxMatches: 100_000, maxScanBytes: Infinity },
          undefined,
          true,
        );
        assertEquals(wholeBytes, onBytes);
        assertEquals(await searchAll(store, query, mode, ic, { maxMatches, maxScanBytes }, probeSpan, true), onBytes);
      },
    ),
    { numRuns: 600 },
  );
});

Deno.test("a match straddling the scan budget is returned once, whole, and the next page resumes after it", () => {
  const bytes = enc.encode("xx abcdef yy abc");
  for (const [query, mode] of [["abcdef", "literal"], ["a\\w+", "regex"]] as const) {
    const m = compileMatcher(query, mode, false);
    const subject = subjectOf(bytes, m.needsChars);
    // The budget ends inside "abcdef" (bytes 3..9).
    const first = scanSubject(subject, m, {
      from: 0,
      budget: 5,
      maxMatches: 10,
      contextBytes: 0,
      includeSimilarity: false,
    });
    assertEquals(first.matches.map((x) => [x.offset_bytes, x.match_len]), [[3, 6]]);
    assertEquals([first.done, first.next], [false, 9]);
    const second = scanSubject(subject, m, {
      from: 9,
      budget: 100,
      maxMatches: 10,
      contextBytes: 0,
      includeSimilarity: false,
    });
    assertEquals(second.matches.map((x) => x.offset_bytes), mode === "regex" ? [13] : []);
    assert(second.done);
  }
});

Deno.test("a regex budget far from the end is probed without missing matches across probe spans", () => {
  const text = "😀".repeat(50) + "é".repeat(50) + "needle" + "z".repeat(500);
  const bytes = enc.encode(text);
  const subject = subjectOf(bytes, true);
  const at = byteLen(text.slice(0, text.indexOf("needle")));
  for (const span of [1, 2, 3, 7, 64]) {
    const m = compileMatcher("ne+dle", "regex", false, { probeSpan: span });
    const r = scanSubject(subject, m, {
      from: 0,
      budget: at + 1,
      maxMatches: 5,
      contextBytes: 0,
      includeSimilarity: false,
    });
    assertEquals(r.matches.map((x) => x.offset_bytes), [at], `probe span ${span}`);
    const none = scanSubject(subject, m, {
      from: 0,
      budget: at,
      maxMatches: 5,
      contextBytes: 0,
      includeSimilarity: false,
    });
    assertEquals([none.matches.length, none.next, none.done], [0, at, false], `probe span ${span}`);
  }
});

Deno.test("an invalid regex is a clear error, not a crash", () => {
  try {
    compileMatcher("a(", "regex", false);
    throw new Error("compiled");
  } catch (e) {
    assert(e instanceof Error && /^invalid regex ".*mode "literal"/.test(e.message), String(e));
  }
  // A lone surrogate could match half a character: refused.
  try {
    compileMatcher("\uD83D", "literal", false);
    throw new Error("compiled");
  } catch (e) {
    assert(e instanceof Error && /lone surrogate/.test(e.message), String(e));
  }
  // A literal is never parsed as a pattern.
  assertEquals(compileMatcher("a(", "literal", true).finder("xa(", 4)(0), { start: 1, end: 3 });
});

Deno.test("a window is searched as a whole text of its own, with buffer offsets and whole characters", async () => {
  await fc.assert(
    fc.asyncProperty(
      textArb,
      fc.nat(),
      fc.nat({ max: 12 }),
      fc.nat({ max: 12 }),
      fc.constantFrom(...REGEXES),
      fc.integer({ min: 1, max: 4 }),
      async (text, at, len, context, query, maxMatches) => {
        const bytes = enc.encode(text);
        const offset = at % (bytes.length + 1);
        const length = Math.min(len, bytes.length - offset);
        // The expected window: clamped, and shrunk to whole characters.
        let lo = Math.max(0, offset - context), hi = Math.min(bytes.length, offset + length + context);
        while (lo < hi && (bytes[lo] & 0xc0) === 0x80) lo++;
        while (hi > lo && hi < bytes.length && (bytes[hi] & 0xc0) === 0x80) hi--;
        const windowText = new TextDecoder().decode(bytes.subarray(lo, hi));
        const linesBefore = new TextDecoder().decode(bytes.subarray(0, lo)).split("\n").length - 1;
        const want = referenceMatches(windowText, query, "regex", false).map((m) => ({
          buffer: "w",
          offset_bytes: lo + m.offset_bytes,
          match_len: m.match_len,
          line: linesBefore + m.line,
        }));
        const matcher = compileMatcher(query, "regex", false);
        const read = () => Promise.resolve(bytes.slice());
        const got: BufferMatch[] = [];
        let from: number | undefined;
        for (let pages = 0;; pages++) {
          assert(pages < 1000, "pagination does not terminate");
          const r = await searchBuffers([{ name: "w", from, around: { offset, length, context } }], read, {
            matcher,
            maxMatches,
            maxScanBytes: Infinity,
            contextBytes: context,
            includeSimilarity: false,
          });
          assertEquals(r.windows.get("w"), { start: lo, end: hi });
          for (const m of r.matches) assert(m.context_start >= lo && m.context_end <= hi, "snippet leaves the window");
          got.push(...r.matches);
          if (r.truncated.length === 0) break;
          from = r.truncated[0][1];
        }
        assertEquals(
          got.map((m) => ({ buffer: m.buffer, offset_bytes: m.offset_bytes, match_len: m.match_len, line: m.line })),
          want,
        );
      },
    ),
    { numRuns: 400 },
  );
});

/** Text with long runs too, so contexts of up to 4096 bytes and the cursor's walks have room. */
const runsTextArb = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...CHARS) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...CHARS), fc.integer({ min: 2, max: 2500 })).map(([c, n]) => c.repeat(n)),
    },
  ),
  { maxLength: 40, size: "max" },
).map((a) => a.join(""));

Deno.test("a text-backed subject gives exactly the results of a bytes-backed one", () => {
  fc.assert(
    fc.property(
      runsTextArb,
      fc.oneof(
        fc.record({ mode: fc.constant<SearchMode>("regex"), query: fc.constantFrom(...REGEXES) }),
        fc.record({
          mode: fc.constant<SearchMode>("literal"),
          query: fc.constantFrom("a", "AB", "é", "É", "中", "😀", "a\nb", "\u0301"),
        }),
      ),
      fc.boolean(),
      fc.record({
        maxMatches: fc.integer({ min: 1, max: 20 }),
        budget: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 6000 })),
        contextBytes: fc.oneof(fc.constantFrom(0, 1, 2, 3, 4096), fc.nat({ max: 4096 })),
        includeSimilarity: fc.boolean(),
      }),
      // Pieces of 1..7 bytes cut 2-, 3- and 4-byte characters.
      fc.integer({ min: 1, max: 7 }),
      (text, { mode, query }, ic, o, chunk) => {
        // Matchers that need the decoded text (ASCII literals with ignore_case search bytes: as a regex here).
        let matcher = compileMatcher(query, mode, mode === "literal" || ic);
        if (!matcher.needsChars) matcher = compileMatcher(escapeRegExp(query), "regex", true);
        const bytes = enc.encode(text);
        const decoded = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
        const reference = bytesSubject(bytes, decoded, false, 7, 2);
        const subject = subjectOf(bytes.slice(), matcher.needsChars, 7, 2, chunk);
        assertEquals(subject.byteIndexed, bytes.length === text.length, "non-ASCII content is decoded");
        assertEquals([subject.size, subject.text], [bytes.length, subject.byteIndexed ? text : decoded]);
        // A few pages, each with its resume point.
        let from = 0;
        for (let page = 0; page < 5; page++) {
          const options: ScanOptions = { from, ...o };
          const want: ScanResult = scanSubject(reference, matcher, options);
          assertEquals(scanSubject(subject, matcher, options), want, `page ${page}`);
          if (want.done) break;
          from = want.next;
        }
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("invalid UTF-8 is reported at its first invalid byte wherever the decoding pieces are cut", async () => {
  const chunk = DECODE_CHUNK;
  const emoji = enc.encode("😀");
  const join = (...parts: Array<Uint8Array | number[] | string>) =>
    new Uint8Array(parts.flatMap((p) => typeof p === "string" ? [...enc.encode(p)] : [...p]));
  const emojis = (n: number) => new Uint8Array(n * 4).map((_, i) => emoji[i % 4]);
  const cases: Array<[string, Uint8Array, number]> = [
    ["a stray continuation byte right at a piece boundary", join(emojis(chunk / 4), [0x80], "x"), chunk],
    ["a bad byte just after a piece boundary", join(emojis(chunk / 4), "a", [0xff], "é"), chunk + 1],
    // Byte `chunk` falls inside a 4-byte character; the surrogate sequence after it is invalid.
    [
      "a bad sequence after a 4-byte character cut by the boundary",
      join("a", emojis(chunk / 4), [0xed, 0xa0, 0x80]),
      1 + chunk,
    ],
    ["a character cut at the very end, after a piece boundary", join(emojis(chunk / 4), [0xe4, 0xb8]), chunk],
    ["a 4-byte character cut at the very end", join("ab", [0xf0, 0x9f, 0x98]), 2],
    ["a real U+FFFD, then a bad byte", join("\uFFFD", emojis(chunk / 4), [0xc0, 0x80]), 3 + chunk],
  ];
  for (const [what, bytes, offset] of cases) {
    assertEquals(scanInvalid(bytes), offset, what);
    for (const [query, mode, ignoreCase] of [["x", "regex", false], ["x", "literal", true], ["x", "literal", false]]) {
      const error = await searchBuffers([{ name: "b" }], () => Promise.resolve(bytes.slice()), {
        matcher: compileMatcher(query as string, mode as SearchMode, ignoreCase as boolean),
        maxMatches: 1,
        maxScanBytes: Infinity,
        contextBytes: 0,
        includeSimilarity: false,
      }).then(() => undefined, (e: Error) => e.message);
      assertMatch(error ?? "", new RegExp(`not valid UTF-8: the first invalid byte is at offset ${offset} `), what);
    }
  }
});

Deno.test("a decoded search releases the array it was handed; a byte-string search keeps it", async () => {
  const search = async (bytes: Uint8Array, query: string, mode: SearchMode) =>
    (await searchBuffers([{ name: "b" }], () => Promise.resolve(bytes), {
      matcher: compileMatcher(query, mode, false),
      maxMatches: 5,
      maxScanBytes: Infinity,
      contextBytes: 8,
      includeSimilarity: true,
    })).matches.map((m) => [m.offset_bytes, m.snippet]);
  const decoded = enc.encode("día 中文 x día");
  assertEquals(await search(decoded, "d.a", "regex"), [[0, "día 中文 "], [14, "文 x día"]]);
  assertEquals([decoded.length, decoded.buffer.detached], [0, true]);
  const byteString = enc.encode("día 中文 x día");
  assertEquals(await search(byteString, "día", "literal"), [[0, "día 中文 "], [14, "文 x día"]]);
  assertEquals(byteString.buffer.detached, false);
});

Deno.test("a case-sensitive regex that can only match ASCII is searched over bytes, others over the decoded text", () => {
  const bytes = [
    "NEEDLE-[A-Z]+ failure",
    "\\d+ms\\b",
    "x(?<name>a|b){2,}\\k<name>",
    "[\\w-]+",
    "Z\\x41\\u0042\\u{43}",
    "(?<=a)b",
    "a{1,}",
  ];
  const chars = [
    ".",
    "a.b",
    "[^a]",
    "\\s",
    "\\S+",
    "\\D",
    "\\W",
    "\\p{L}",
    "é",
    "[é]",
    "\\xe9",
    "\\u00e9",
    "\\u{1F600}",
  ];
  // Modifier groups, and what can match empty or holds a top-level alternative.
  chars.push("(?i:k)", "(?m:^a)", "(?-i:a)", "(?=x)(?!y)", "a*", "x?", "a{0,3}", "(ab)+", "a|b", "\\B", "\\b");
  for (const q of bytes) assert(searchableAsBytes(q) && !compileMatcher(q, "regex", false).needsChars, q);
  for (const q of chars) assert(!searchableAsBytes(q) && compileMatcher(q, "regex", false).needsChars, q);
  // ignore_case: `k` and `s` also match KELVIN SIGN and LONG S.
  assert(compileMatcher("[a-z]+", "regex", true).needsChars);
  const text = "día 中文 NEEDLE-ABC failure 🙂 x\nNEEDLE-Dé failure NEEDLE-XY failure";
  const m = compileMatcher("NEEDLE-[A-Z]+ failure", "regex", false);
  const subject = subjectOf(enc.encode(text), m.needsChars);
  assert(subject.byteIndexed, "no decoding");
  const r = scanSubject(subject, m, {
    from: 0,
    budget: Infinity,
    maxMatches: 10,
    contextBytes: 0,
    includeSimilarity: false,
  });
  const expected = [...text.matchAll(/NEEDLE-[A-Z]+ failure/gu)].map((x) => byteLen(text.slice(0, x.index)));
  assertEquals(r.matches.map((x) => x.offset_bytes), expected);
});

Deno.test("withinLines: patterns whose matches and lookarounds stay within a line, and those that may not", () => {
  const within = ["a", "error code=e\\d+", "(?<=a)b", "(?<!a)b", "a(?=b)", "\\b", ".", "😀", "a|ab", "(a)\\1"];
  within.push("[a-z]+", "[^\\n]+", "[^\\s]", "\\S+", "(?<n>x)\\k<n>", "[\\u{1F600}-\\u{1F64F}]", "[\\x0b-\\x20]");
  const not = ["^a", "$", "[^]", "\\p{L}+", "(?m:^.)", "a[^]*b", "(?=[^]*😀)a", "\\n", "\\s", "\\D", "\\W", "[\\s]"];
  not.push("[^a]", "[\\x00-\\x7f]", "\\x0a", "\\u000a", "\\u{a}", "\\cJ", "a\nb", "[\\n]", "(?s:.)", "[\\t-\\r]");
  for (const p of within) assert(withinLines(p), p);
  for (const p of not) assert(!withinLines(p), p);
});

/** Lines of a few characters each (at most 12 bytes), so windows of 12 bytes or more hold whole lines. */
const shortLinesArb = fc.array(
  fc.array(fc.constantFrom(...CHARS.filter((c) => c !== "\n")), { maxLength: 3, size: "max" }).map((a) => a.join("")),
  { minLength: 1, maxLength: 60, size: "max" },
).map((lines) => lines.join("\n"));

Deno.test("a buffer searched in windows of lines gives exactly the results of the whole text, page by page", async () => {
  let windowed = 0;
  await fc.assert(
    fc.asyncProperty(
      shortLinesArb,
      fc.oneof(
        fc.record({ mode: fc.constant<SearchMode>("regex"), query: fc.constantFrom(...REGEXES) }),
        fc.record({ mode: fc.constant<SearchMode>("literal"), query: fc.constantFrom("a", "AB", "é", "É", "😀") }),
      ),
      fc.boolean(),
      fc.record({
        maxMatches: fc.integer({ min: 1, max: 8 }),
        maxScanBytes: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 200 })),
        contextBytes: fc.constantFrom(0, 3, 40),
        includeSimilarity: fc.boolean(),
        count: fc.boolean(),
      }),
      fc.integer({ min: 12, max: 24 }),
      async (text, { mode, query }, ic, o, windowBytes) => {
        const matcher = compileMatcher(query, mode, ic);
        const bytes = enc.encode(text);
        if ("windowed" in openContent({ name: "b" }, bytes.slice(), matcher, windowBytes)) windowed++;
        const run = async (w: number | undefined) => {
          const pages = [];
          let targets: SearchTarget[] = [{ name: "b" }];
          for (let page = 0; page < 6 && targets.length > 0; page++) {
            const r = await searchBuffers(targets, () => Promise.resolve(bytes.slice()), {
              matcher,
              ...o,
              windowBytes: w,
            });
            pages.push(r);
            targets = r.truncated.map(([name, from]) => ({ name, from }));
          }
          return pages;
        };
        assertEquals(await run(windowBytes), await run(undefined));
      },
    ),
    { numRuns: 400 },
  );
  assert(windowed > 80, `only ${windowed} of 400 cases were searched in windows`);
});

Deno.test("a listed buffer deleted before a resumed search reads it is finished, not an offset past its end", async () => {
  // The tool reads a buffer of a search of all that is gone as empty (tmux holds no empty buffer).
  const store = new Map([["gone", new Uint8Array(0)], ["kept", enc.encode("hit hit")]]);
  const targets: SearchTarget[] = [{ name: "gone", from: 6, skipIfNotText: true }, {
    name: "kept",
    from: 4,
    skipIfNotText: true,
  }];
  for (const mode of ["literal", "regex"] as const) {
    const r = await searchBuffers(targets, (n) => Promise.resolve(store.get(n)!.slice()), {
      matcher: compileMatcher("hit", mode, false),
      maxMatches: 5,
      maxScanBytes: Infinity,
      contextBytes: 0,
      includeSimilarity: false,
      count: true,
    });
    assertEquals(r.matches.map((m) => [m.buffer, m.offset_bytes]), [["kept", 4]], mode);
    assertEquals([r.truncated, r.total], [[], 2], mode);
  }
  // A buffer named in the call has no such leeway.
  const named = await searchBuffers([{ name: "gone", from: 6 }], () => Promise.resolve(new Uint8Array(0)), {
    matcher: compileMatcher("hit", "literal", false),
    maxMatches: 5,
    maxScanBytes: Infinity,
    contextBytes: 0,
    includeSimilarity: false,
  }).then(() => "", (e: Error) => e.message);
  assertMatch(named, /resume_from_offset 6 for "gone" is outside the buffer/);
});
