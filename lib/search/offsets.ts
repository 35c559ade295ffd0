/**
 * UTF-8 byte offsets ↔ UTF-16 indexes of the decoded text, without
 * re-encoding the buffer per match.
 *
 * Search results arrive in increasing order, so a cursor walks forward from
 * the last position it converted: a whole call costs one pass at most. For
 * ASCII text, and for the byte string a literal search uses, both are the
 * same number and nothing is walked at all.
 *
 * @example
 * ```ts
 * const text = "é-x";                     // bytes: c3 a9 2d 78
 * const at = createOffsetCursor(text, false);
 * at.toByte(2);  // 3 (the "x")
 * at.toU16(4);   // 3 (the end)
 * ```
 */
import { Buffer } from "node:buffer";

/** Maps positions of one text between UTF-16 indexes and UTF-8 byte offsets, walking forward. */
export interface OffsetCursor {
  /** Byte offset of UTF-16 index `u16` (a code point boundary). */
  toByte(u16: number): number;
  /** UTF-16 index of byte offset `byte` (a character boundary). */
  toU16(byte: number): number;
}

/** UTF-16 units per native skip. */
const SKIP = 1 << 16;

/**
 * UTF-8 length of `text[from, to)` (`to` must not split a surrogate pair),
 * counted natively without encoding: `Buffer.byteLength` is about 2.5 times
 * as fast as `TextEncoder.encodeInto` and 4 times a JavaScript loop.
 */
function encodedLength(text: string, from: number, to: number): number {
  return Buffer.byteLength(text.substring(from, to), "utf8");
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/**
 * A forward-walking cursor over `text`. `byteIndexed` says its indexes
 * already are byte offsets (ASCII text, or a byte string), which makes every
 * conversion the identity. Starts at
 * (0, 0), or at a known pair (`u16`, `byte`) of the same position. Long
 * distances are skipped in native steps (see `encodedLength`); the last
 * stretch is walked character by character.
 */
export function createOffsetCursor(text: string, byteIndexed: boolean, u16 = 0, byte = 0): OffsetCursor {
  if (byteIndexed) return { toByte: (u) => u, toU16: (b) => b };
  const start = { u16, byte };
  let u = u16, b = byte;
  const rewind = (toU: number, toB: number) => {
    // Positions before the cursor are rare (they never occur in one scan);
    // restart from the origin rather than keep a history.
    if (toU < u || toB < b) {
      u = start.u16;
      b = start.byte;
      if (toU < u || toB < b) u = b = 0;
    }
  };
  // SKIP units (one more when the last is the first half of a pair) forward.
  const skip = () => {
    let end = u + SKIP;
    if (isHighSurrogate(text.charCodeAt(end - 1))) end++;
    b += encodedLength(text, u, end);
    u = end;
  };
  // One character forward; a surrogate pair is one 4-byte character.
  const step = () => {
    const c = text.charCodeAt(u);
    if (c < 0x80) {
      b++;
      u++;
    } else if (isHighSurrogate(c)) {
      b += 4;
      u += 2;
    } else {
      b += c < 0x800 ? 2 : 3;
      u++;
    }
  };
  return {
    toByte(target) {
      rewind(target, b);
      while (target - u > SKIP + 1) skip();
      while (u < target) step();
      return b;
    },
    toU16(target) {
      rewind(u, target);
      // A skip adds at most 3 bytes per unit, so it cannot pass a target this far.
      while (target - b > 3 * SKIP + 6 && u + SKIP + 1 < text.length) skip();
      while (b < target) step();
      return u;
    },
  };
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
