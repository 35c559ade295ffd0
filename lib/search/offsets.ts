/**
 * UTF-8 byte offsets ↔ UTF-16 indexes of the decoded text, without
 * re-encoding the buffer per match.
 *
 * A cursor walks from the nearest position it already knows (the start, the
 * end when the byte size is given, and the last few it converted), in either
 * direction. Search results arrive in increasing order and everything else a
 * match needs (its snippet, its similarity) lies within a few KiB of it, so a
 * whole call costs one pass at most, plus short local walks. For ASCII text,
 * and for the byte string a literal search uses, both are the same number and
 * nothing is walked at all.
 *
 * @example
 * ```ts
 * const text = "é-x";                     // bytes: c3 a9 2d 78
 * const at = createOffsetCursor(text, false);
 * at.toByte(2);  // 3 (the "x")
 * at.toU16(4);   // 3 (the end)
 * createTextCursor(text).floor(1); // { u: 0, b: 0 }: byte 1 is inside "é"
 * ```
 */
import { Buffer } from "node:buffer";

/** Maps positions of one text between UTF-16 indexes and UTF-8 byte offsets. */
export interface OffsetCursor {
  /** Byte offset of UTF-16 index `u16` (a code point boundary). */
  toByte(u16: number): number;
  /** UTF-16 index of byte offset `byte` (a character boundary; inside a character: the next one). */
  toU16(byte: number): number;
}

/** One character boundary in both units: UTF-16 index `u`, UTF-8 byte offset `b`. */
export interface Position {
  u: number;
  b: number;
}

/** An offset cursor over decoded text that also finds the character boundaries around any byte offset. */
export interface TextCursor extends OffsetCursor {
  /** The first character boundary at or after byte offset `byte` (the end of the text when past it). */
  ceil(byte: number): Position;
  /** The last character boundary at or before byte offset `byte`. */
  floor(byte: number): Position;
}

/** Most UTF-16 units per native skip. */
const SKIP = 1 << 16;

/** Distances (UTF-16 units) from which a native skip beats stepping character by character. */
const NATIVE_MIN = 32;

/** Recently converted positions a cursor walks from. A match needs about 8 (its ends, snippet, similarity). */
const RECENT = 8;

/**
 * UTF-8 length of `text[from, to)` (neither end may split a surrogate pair),
 * counted natively without encoding: `Buffer.byteLength` is about 2.5 times
 * as fast as `TextEncoder.encodeInto` and 4 times a JavaScript loop.
 */
function encodedLength(text: string, from: number, to: number): number {
  return Buffer.byteLength(text.substring(from, to), "utf8");
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** UTF-8 length of a character from its UTF-16 unit (the first of a pair, or any unit of a pair: 4). */
function utf8Length(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 4 : 3;
}

/**
 * A cursor over `text`. `byteIndexed` says its indexes already are byte
 * offsets (ASCII text, or a byte string), which makes every conversion the
 * identity; otherwise see {@linkcode createTextCursor}.
 */
export function createOffsetCursor(text: string, byteIndexed: boolean): OffsetCursor {
  return byteIndexed ? { toByte: (u) => u, toU16: (b) => b } : createTextCursor(text);
}

/**
 * A cursor over well-formed `text` (no lone surrogates, as decoded UTF-8 is)
 * whose UTF-8 size is `size`, when known. Each answer walks from the nearest
 * known position: most of the way in native skips (see `encodedLength`), the
 * last few characters one by one.
 */
export function createTextCursor(text: string, size?: number): TextCursor {
  const fixed: Position[] = [{ u: 0, b: 0 }];
  if (size !== undefined) fixed.push({ u: text.length, b: size });
  const known = [...fixed];
  let slot = 0;

  /** The known position nearest to `target` in unit `key`. */
  const nearest = (key: "u" | "b", target: number): Position => {
    let best = known[0];
    for (const p of known) if (Math.abs(p[key] - target) < Math.abs(best[key] - target)) best = p;
    return best;
  };
  /** Keeps `p` (walked from `from`) as a known position, replacing the oldest; returns a copy. */
  const remember = (p: Position, from: Position): Position => {
    if (p.u !== from.u) {
      known[fixed.length + slot] = p;
      slot = (slot + 1) % RECENT;
    }
    return { u: p.u, b: p.b };
  };

  // `units` forward / back natively (one more to keep a surrogate pair whole).
  const skip = (p: Position, units: number) => {
    let end = p.u + units;
    if (isHighSurrogate(text.charCodeAt(end - 1))) end++;
    p.b += encodedLength(text, p.u, end);
    p.u = end;
  };
  const skipBack = (p: Position, units: number) => {
    let start = p.u - units;
    if (isLowSurrogate(text.charCodeAt(start))) start--;
    p.b -= encodedLength(text, start, p.u);
    p.u = start;
  };
  // One character forward / back; a surrogate pair is one 4-byte character.
  const nextLength = (p: Position) => utf8Length(text.charCodeAt(p.u));
  const prevLength = (p: Position) => utf8Length(text.charCodeAt(p.u - 1));
  const step = (p: Position) => {
    const n = nextLength(p);
    p.b += n;
    p.u += n === 4 ? 2 : 1;
  };
  const stepBack = (p: Position) => {
    const n = prevLength(p);
    p.b -= n;
    p.u -= n === 4 ? 2 : 1;
  };
  // Native skips toward a byte offset that cannot pass it: k units (k + 1 with a pair completed) hold at most
  // 3k + 1 bytes. The rest, under NATIVE_MIN units, is cheaper to step.
  const skipTowardByte = (p: Position, target: number) => {
    for (let k; (k = Math.min(SKIP, Math.floor((target - p.b) / 3) - 1)) > NATIVE_MIN && p.u + k <= text.length;) {
      skip(p, k);
    }
    for (let k; (k = Math.min(SKIP, Math.floor((p.b - target) / 3) - 1)) > NATIVE_MIN && p.u - k >= 0;) {
      skipBack(p, k);
    }
  };

  const toByte = (target: number): number => {
    const from = nearest("u", target), p = { u: from.u, b: from.b };
    // A skip ends exactly at `target` (a character boundary) or, when SKIP short of it, at most one unit further.
    while (target - p.u > NATIVE_MIN) skip(p, Math.min(SKIP, target - p.u));
    while (p.u - target > NATIVE_MIN) skipBack(p, Math.min(SKIP, p.u - target));
    while (p.u < target) step(p);
    while (p.u > target) stepBack(p);
    return remember(p, from).b;
  };
  const ceil = (target: number): Position => {
    const from = nearest("b", target), p = { u: from.u, b: from.b };
    skipTowardByte(p, target);
    while (p.b < target && p.u < text.length) step(p);
    while (p.u > 0 && p.b - prevLength(p) >= target) stepBack(p);
    return remember(p, from);
  };
  const floor = (target: number): Position => {
    const from = nearest("b", target), p = { u: from.u, b: from.b };
    skipTowardByte(p, target);
    while (p.u < text.length && p.b + nextLength(p) <= target) step(p);
    while (p.b > target) stepBack(p);
    return remember(p, from);
  };
  return { toByte, toU16: (byte) => ceil(byte).u, ceil, floor };
}

/**
 * Counts `\n` in `text` before increasing positions, walking forward once.
 * Long lines are skipped with the native `indexOf`; when lines turn out to be
 * very short, a plain loop is faster than one `indexOf` call per line.
 *
 * @example
 * ```ts
 * const lines = createLineCounter("a\nb\nc");
 * lines.before(4); // 2
 * ```
 */
export function createLineCounter(text: string): { before(u16: number): number } {
  let pos = 0, count = 0;
  return {
    before(target) {
      if (target < pos) pos = count = 0;
      let hits = 0;
      const from = pos;
      while (pos < target) {
        if (hits > 256 && hits * 16 > pos - from) {
          // Dense newlines: count the rest with a loop.
          for (; pos < target; pos++) if (text.charCodeAt(pos) === 10) count++;
          break;
        }
        const nl = text.indexOf("\n", pos);
        if (nl < 0 || nl >= target) {
          pos = target;
          break;
        }
        count++;
        hits++;
        pos = nl + 1;
      }
      return count;
    },
  };
}

/** Number of `byte` values in `bytes[from, to)`. */
export function countByte(bytes: Uint8Array, byte: number, from = 0, to = bytes.length): number {
  let n = 0;
  for (let i = from; i < to; i++) if (bytes[i] === byte) n++;
  return n;
}
