/**
 * A `u`-flag regex (with or without `i`) rewritten to match the byte string of
 * UTF-8 content (one char per byte, see `byteString`) exactly where the
 * original matches the decoded text, with byte offsets.
 *
 * Why: a regex over non-ASCII content otherwise needs the decoded UTF-16
 * text, often 1.75× the bytes and built from pieces beside it (3.9× the
 * buffer at its peak for a pattern that can cross a line), and the decoding
 * is most of such a search's time. The byte string is one byte per byte and
 * costs a quarter of the decoding.
 *
 * How: refa parses the pattern into character sets of code points — `.`,
 * `\s`, `\w`, negated classes and case folding under `i` resolved as
 * JavaScript defines them, `\b`, `^` and `$` as lookarounds — and each set
 * becomes an alternation of the UTF-8 byte sequences of its code points
 * (ranges split so that each sequence is a run of byte ranges, the way RE2
 * and Rust's regex compile UTF-8). Structure, order of alternatives,
 * greediness and lookarounds are kept one to one (refa's simplifications
 * off), so backtracking finds the same match at every start. Every
 * character the rewritten pattern consumes is a whole, valid sequence, so a
 * match that consumes starts and ends on character boundaries; a leading
 * `(?![\x80-\xbf])` keeps empty matches and lookarounds off the middle of a
 * character too. Surrogate code points are dropped from the sets: valid UTF-8
 * holds none.
 *
 * Not rewritten (`undefined`, and the caller decodes as before):
 * backreferences (they compare text under case folding), modifier groups
 * (`(?i:…)`, which the parser does not read), patterns whose rewrite would be
 * larger than {@linkcode MAX_BYTE_PATTERN} characters, and where refa's
 * Unicode tables are older than V8's: property escapes (`\p{…}`, `\P{…}`:
 * thousands of code points apart) and, under `i`, a set holding some but not
 * all of the characters whose case folding the two tables disagree on
 * ({@linkcode FOLDS_APART}; a set holding none or all of them matches the
 * same either way). A test recomputes that list against the running V8, so an
 * upgrade that moves it fails there.
 *
 * A property test compares the two searches match by match on random text
 * with 1- to 4-byte characters.
 *
 * @example
 * ```ts
 * import { Buffer } from "node:buffer";
 * const source = bytePattern("é\\s", true)!;
 * const bytes = Buffer.from("día É\nÉ x").toString("latin1");
 * new RegExp(source, "g").exec(bytes)?.index; // 5: "É\n" starts at byte 5
 * ```
 */
import { type CharSet, type Concatenation, type Element, JS } from "refa";

/** Longest rewrite kept (characters of pattern source): past it, V8 compiles a huge alternation for little gain. */
export const MAX_BYTE_PATTERN = 200_000;

/**
 * The byte-string pattern for `source` (a valid `u`-flag pattern, matched
 * with `iu` when `ignoreCase`), to be compiled without flags (besides `g`
 * or `y`); undefined when it cannot be rewritten (see the module doc).
 */
export function bytePattern(source: string, ignoreCase: boolean): string | undefined {
  if (/\\[pP]\{/.test(source)) return undefined; // maybe an escaped backslash before it: then decoding is exact too
  let alternatives: Concatenation[];
  try {
    const parser = JS.Parser.fromLiteral({ source, flags: ignoreCase ? "iu" : "u" });
    alternatives = parser.parse({
      backreferences: "throw",
      maxBackreferenceWords: 0,
      assertions: "parse",
      simplify: false,
    }).expression.alternatives;
  } catch {
    return undefined;
  }
  let out: string;
  try {
    out = `(?![\\x80-\\xbf])(?:${alternation(alternatives, ignoreCase)})`;
  } catch (e) {
    if (e === FOLDS_DIFFER) return undefined;
    throw e;
  }
  return out.length > MAX_BYTE_PATTERN ? undefined : out;
}

/**
 * The code points whose case-insensitive equivalents differ between refa's
 * tables (Unicode 15) and V8's in Deno 2.9 (Unicode 16 added these folds), as
 * ranges; tests/search_engine_test.ts recomputes them.
 */
export const FOLDS_APART: readonly (readonly [number, number])[] = [
  [0x19b, 0x19b],
  [0x264, 0x264],
  [0x390, 0x390],
  [0x3b0, 0x3b0],
  [0x1c89, 0x1c8a],
  [0x1fd3, 0x1fd3],
  [0x1fe3, 0x1fe3],
  [0xa7cb, 0xa7cd],
  [0xa7da, 0xa7dc],
  [0xfb05, 0xfb06],
  [0x10d50, 0x10d65],
  [0x10d70, 0x10d85],
];

const FOLDS_DIFFER = new Error("case folding differs");

function alternation(alternatives: readonly Concatenation[], folded: boolean): string {
  return alternatives.map((c) => c.elements.map((e) => element(e, folded)).join("")).join("|");
}

function element(e: Element, folded: boolean): string {
  const alternation_ = (a: readonly Concatenation[]) => alternation(a, folded);
  switch (e.type) {
    case "CharacterClass":
      if (folded) {
        const all = FOLDS_APART.every(([min, max]) => e.characters.isSupersetOf({ min, max }));
        if (!all && FOLDS_APART.some(([min, max]) => !e.characters.isDisjointWith({ min, max }))) throw FOLDS_DIFFER;
      }
      return charSet(e.characters);
    case "Alternation":
      return `(?:${alternation_(e.alternatives)})`;
    case "Quantifier": {
      const { min, max } = e;
      const q = max === Infinity
        ? (min === 0 ? "*" : min === 1 ? "+" : `{${min},}`)
        : min === 0 && max === 1
        ? "?"
        : min === max
        ? `{${min}}`
        : `{${min},${max}}`;
      return `(?:${alternation_(e.alternatives)})${q}${e.lazy ? "?" : ""}`;
    }
    case "Assertion": {
      // `^` and `$` (refa: not preceded / followed by any character) as themselves: V8 anchors on them.
      const only = e.alternatives.length === 1 && e.alternatives[0].elements.length === 1
        ? e.alternatives[0].elements[0]
        : undefined;
      if (e.negate && only?.type === "CharacterClass" && only.characters.isAll) return e.kind === "behind" ? "^" : "$";
      return `(?${e.kind === "behind" ? "<" : ""}${e.negate ? "!" : "="}${alternation_(e.alternatives)})`;
    }
    default:
      // Only backreferences and assertions become Unknown, and the parse options make both throw.
      throw new Error(`unexpected regex node ${e.type}`);
  }
}

/** A character set as the alternation of its code points' UTF-8 sequences. */
function charSet(set: CharSet): string {
  const single: string[] = [], multi: string[] = [];
  for (const r of set.ranges) {
    for (const seq of utf8Sequences(r.min, r.max)) {
      if (seq.length === 1) single.push(range(seq[0][0], seq[0][1]));
      else multi.push(seq.map(([lo, hi]) => lo === hi ? hex(lo) : `[${range(lo, hi)}]`).join(""));
    }
  }
  const alternatives = single.length > 0 ? [`[${single.join("")}]`, ...multi] : multi;
  if (alternatives.length === 0) return "[]"; // matches nothing, as the empty set
  return alternatives.length === 1 ? alternatives[0] : `(?:${alternatives.join("|")})`;
}

const hex = (b: number) => "\\x" + b.toString(16).padStart(2, "0");
const range = (lo: number, hi: number) => lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`;

/** Byte ranges, one per byte of a sequence: every combination is the UTF-8 of one code point of the range. */
type Sequence = [lo: number, hi: number][];

/**
 * The code points `[lo, hi]` (surrogates left out) as UTF-8 sequences of byte
 * ranges: split where the encoded length changes, then wherever the low bits
 * of the ends do not span all continuation bytes.
 */
export function utf8Sequences(lo: number, hi: number): Sequence[] {
  const out: Sequence[] = [];
  const split = (lo: number, hi: number): void => {
    if (lo > hi) return;
    if (lo <= 0xdfff && hi >= 0xd800) {
      split(lo, 0xd7ff);
      split(0xe000, hi);
      return;
    }
    for (const edge of [0x7f, 0x7ff, 0xffff]) {
      if (lo <= edge && hi > edge) {
        split(lo, edge);
        split(edge + 1, hi);
        return;
      }
    }
    const n = lengthOf(lo);
    for (let i = 1; i < n; i++) {
      const m = (1 << (6 * i)) - 1;
      if ((lo & ~m) === (hi & ~m)) continue;
      if ((lo & m) !== 0) {
        split(lo, lo | m);
        split((lo | m) + 1, hi);
        return;
      }
      if ((hi & m) !== m) {
        split(lo, (hi & ~m) - 1);
        split(hi & ~m, hi);
        return;
      }
    }
    const a = encode(lo), b = encode(hi);
    out.push(a.map((x, i) => [x, b[i]]));
  };
  split(lo, hi);
  return out;
}

function lengthOf(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

function encode(cp: number): number[] {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
}
