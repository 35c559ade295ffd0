/**
 * Buffer bytes as searchable text, validated as UTF-8: their byte string
 * (see {@linkcode byteString}), or the decoded text, built in pieces (see
 * {@linkcode decodePieces}).
 *
 * Validation uses the native `isAscii`/`isUtf8` and only when they fail
 * walks the bytes in JavaScript to find where. A fatal `TextDecoder` gives
 * the same verdict but costs several times more in Deno 2.9 (and throws
 * without saying where); the property tests check that
 * they agree.
 *
 * @example
 * ```ts
 * firstInvalidUtf8(new Uint8Array([0x61, 0xe2, 0x82, 0x41])); // 1
 * decodeUtf8(new TextEncoder().encode("\uFEFFhi")).length; // 3: a BOM is content, not dropped
 * byteString(new TextEncoder().encode("é")); // "\u00c3\u00a9"
 * ```
 */
import { Buffer, isUtf8 } from "node:buffer";
import { isContinuation } from "../text/utf8.ts";

export { isContinuation };

/**
 * Offset of the first byte that is not part of a well-formed UTF-8 sequence
 * (Unicode Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF),
 * or -1 when every byte is. Equivalently: the length of the longest prefix
 * that decodes without error. For `61 E2 82 41` that is 1: the sequence
 * starting at `E2` is cut short by `41`.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  return scanInvalid(bytes);
}

/** The precise walk behind {@linkcode firstInvalidUtf8}; exported for tests. */
export function scanInvalid(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // Allowed range of the second byte for each lead byte; the rest are 80..BF.
    let len: number, lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return i;
    if (i + len > n) return i;
    const b1 = bytes[i + 1];
    if (b1 < lo || b1 > hi) return i;
    for (let k = 2; k < len; k++) if (!isContinuation(bytes[i + k])) return i;
    i += len;
  }
  return -1;
}

// ignoreBOM keeps a leading U+FEFF in the text: dropping it would shift every offset by 3 bytes.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Decodes bytes already known to be valid UTF-8 (invalid sequences would become U+FFFD). */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * The bytes as a string of one char per byte (U+0000..U+00FF), so string
 * indexes are byte offsets. A literal's UTF-8 bytes found in it are a match of
 * the literal: UTF-8 is self-synchronizing, so a byte match of valid UTF-8 in
 * valid UTF-8 never starts or ends inside a character.
 */
export function byteString(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
}

/** Bytes that are not valid UTF-8; `offset` as {@linkcode firstInvalidUtf8} defines it. */
export class InvalidUtf8 extends Error {
  constructor(readonly offset: number) {
    super(`invalid UTF-8 at byte ${offset}`);
  }
}

/** The byte string (see {@linkcode byteString}) of bytes validated as UTF-8; throws {@linkcode InvalidUtf8}. */
export function validByteString(bytes: Uint8Array): string {
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) throw new InvalidUtf8(bad);
  return byteString(bytes);
}

/**
 * Bytes decoded per piece by {@linkcode decodePieces}: small enough that the
 * decoder's transient copy is negligible, large enough to keep each piece
 * out of V8's young generation (at 64 KiB, copying them between GC spaces
 * costs more memory than the pieces save).
 */
export const DECODE_CHUNK = 1 << 20;

/**
 * Validates and decodes UTF-8 in pieces of about `chunk` bytes, each cut
 * before a character (a valid one has at most 3 continuation bytes). Decoding
 * 32 MiB at once needs twice the text's size while it runs (Deno's decoder
 * holds a second copy), a piece only twice its own. A lenient decode that
 * produced no U+FFFD had nothing to replace, so it needs no separate
 * validation; when it did, the content may hold a real U+FFFD and `isUtf8`
 * decides. Every piece before an invalid one is valid and ends on a character
 * boundary, so the first invalid byte is found by walking on from that
 * piece's start. Throws {@linkcode InvalidUtf8}.
 */
export function decodePieces(bytes: Uint8Array, chunk = DECODE_CHUNK): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < bytes.length;) {
    let j = Math.min(bytes.length, i + chunk);
    for (let k = 0; k < 3 && j < bytes.length && isContinuation(bytes[j]); k++) j++;
    const piece = decodeUtf8(bytes.subarray(i, j));
    if (piece.includes("\uFFFD") && !isUtf8(bytes.subarray(i, j))) {
      throw new InvalidUtf8(i + scanInvalid(bytes.subarray(i)));
    }
    pieces.push(piece);
    i = j;
  }
  return pieces;
}

/**
 * Gives the memory of `bytes`, which the caller owns and no longer needs,
 * back at once instead of at some later garbage collection: transferring its
 * ArrayBuffer to an empty one detaches it, and V8 frees a detached backing
 * store right away (measured: the resident set drops by its size). Only when
 * the view spans its whole ArrayBuffer, so a slice of a shared or pooled one
 * is never touched.
 */
export function release(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || buffer.detached) return;
  if (bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) buffer.transfer(0);
}

/**
 * The invalid sequence at `bytes[at]` as hex, for error messages: that byte and the continuation bytes (0x80–0xBF,
 * at most 3) after it. Not the bytes beyond, which may be text (a secret) that no redaction sees in hex.
 *
 * @example
 * ```ts
 * invalidHex(new Uint8Array([0x61, 0xe2, 0x82, 0x41, 0x42]), 1); // "e2 82"
 * ```
 */
export function invalidHex(bytes: Uint8Array, at: number): string {
  let end = at + 1;
  while (end < bytes.length && end < at + 4 && isContinuation(bytes[end])) end++;
  return Array.from(bytes.subarray(at, end), (b) => b.toString(16).padStart(2, "0")).join(" ");
}
