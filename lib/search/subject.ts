/**
 * The content one scan searches (a buffer, or a window of one) and the few
 * byte-addressed questions a scan asks about it (character boundaries, the
 * text of a byte range, offset conversions), with two implementations:
 *
 * - bytes-backed: the UTF-8 bytes plus the string the matcher searches, for
 *   content whose searched string is byte-indexed (ASCII, or the byte string
 *   a literal or a rewritten regex searches). Both together cost twice the bytes.
 * - text-backed: the decoded text only, for a matcher that needs characters
 *   (a non-ASCII literal with ignore_case, a regex the byte rewrite leaves
 *   alone) on non-ASCII content. Its UTF-16 string is often 1.75 times the bytes (one
 *   character above U+00FF makes the whole string two-byte), and decoding it
 *   in one go holds a second copy while it runs: with the bytes, 4.5 times.
 *   So the bytes are decoded in pieces and released before the pieces are
 *   joined (peak: pieces + joined text, 3.5 times), and every question is
 *   answered from the text by short walks from positions already converted
 *   (lib/search/offsets.ts): near the match a report is about, never from the
 *   start of the text.
 *
 * Both give the same answers; a property test compares them.
 *
 * @example
 * ```ts
 * const s = subjectOf(new TextEncoder().encode("día 中文"), true); // text-backed; the array is released
 * s.charStartAtOrBefore(6); // 5: byte 6 is inside "中"
 * s.textOf(5, 8); // "中"
 * ```
 */
import { isAscii } from "node:buffer";
import { charStartAtOrAfter, charStartAtOrBefore, isContinuation } from "../text/utf8.ts";
import { createOffsetCursor, createTextCursor, type OffsetCursor } from "./offsets.ts";
import { byteString, DECODE_CHUNK, decodePieces, decodeUtf8, release, validByteString } from "./text.ts";

/** Byte-addressed questions about valid UTF-8 content. */
export interface Utf8View {
  /** Size in bytes. */
  readonly size: number;
  /** The first character boundary at or after byte offset `byte` (at most `size`). */
  charStartAtOrAfter(byte: number): number;
  /** The last character boundary at or before byte offset `byte` (at most `size`). */
  charStartAtOrBefore(byte: number): number;
  /** The text of bytes `[lo, hi)` (character boundaries), as a string of its own. */
  textOf(lo: number, hi: number): string;
  /** Characters (code points) in bytes `[lo, hi)` (character boundaries). */
  countChars(lo: number, hi: number): number;
}

/** Content being searched: a whole buffer, or a window of it. Valid UTF-8. */
export interface Subject extends Utf8View, OffsetCursor {
  /** What the matcher searches: the decoded text, or the byte string (see `byteString`). */
  readonly text: string;
  /** Whether indexes of `text` are byte offsets. */
  readonly byteIndexed: boolean;
  /** Buffer offset of the subject's byte 0. */
  readonly base: number;
  /** Newlines in the buffer before `base`. */
  readonly lineBase: number;
}

/**
 * A subject for UTF-8 `bytes`, which it takes over: text-backed when the
 * matcher needs the characters of non-ASCII content (the array is then
 * released: see {@linkcode release}), bytes-backed otherwise. Throws
 * `InvalidUtf8`, before anything is released. `chunk` is the decoding piece
 * size (tests shrink it).
 */
export function subjectOf(
  bytes: Uint8Array,
  needsChars: boolean,
  base = 0,
  lineBase = 0,
  chunk = DECODE_CHUNK,
): Subject {
  if (isAscii(bytes)) return bytesSubject(bytes, byteString(bytes), true, base, lineBase);
  if (!needsChars) return bytesSubject(bytes, validByteString(bytes), true, base, lineBase);
  const size = bytes.length;
  const pieces = decodePieces(bytes, chunk);
  release(bytes); // before the join: the bytes and the whole text never coexist
  return textSubject(pieces.join(""), size, base, lineBase);
}

/** A bytes-backed subject; `text` is what the matcher searches (valid UTF-8 `bytes` decoded, or their byte string). */
export function bytesSubject(
  bytes: Uint8Array,
  text: string,
  byteIndexed: boolean,
  base = 0,
  lineBase = 0,
): Subject {
  const at = createOffsetCursor(text, byteIndexed);
  return { ...bytesView(bytes), toByte: at.toByte, toU16: at.toU16, text, byteIndexed, base, lineBase };
}

/** A text-backed subject: `text` decoded from `size` bytes of UTF-8. */
export function textSubject(text: string, size: number, base = 0, lineBase = 0): Subject {
  return { ...textView(text, size), text, byteIndexed: false, base, lineBase };
}

/** The view of a bytes-backed subject. */
export function bytesView(bytes: Uint8Array): Utf8View {
  return {
    size: bytes.length,
    charStartAtOrAfter: (byte) => charStartAtOrAfter(bytes, byte),
    charStartAtOrBefore: (byte) => charStartAtOrBefore(bytes, byte),
    textOf: (lo, hi) => decodeUtf8(bytes.subarray(lo, hi)),
    countChars(lo, hi) {
      let n = 0;
      for (let i = lo; i < hi; i++) if (!isContinuation(bytes[i])) n++;
      return n;
    },
  };
}

/** The view (and offset cursor) of a text-backed subject. */
function textView(text: string, size: number): Utf8View & OffsetCursor {
  const at = createTextCursor(text, size);
  return {
    size,
    toByte: at.toByte,
    toU16: at.toU16,
    charStartAtOrAfter: (byte) => at.ceil(byte).b,
    charStartAtOrBefore: (byte) => at.floor(byte).b,
    textOf: (lo, hi) => copyOf(text.slice(at.toU16(lo), at.toU16(hi))),
    countChars(lo, hi) {
      const from = at.toU16(lo), to = at.toU16(hi);
      // A surrogate pair is one character.
      let n = to - from;
      for (let i = from; i < to; i++) if ((text.charCodeAt(i) & 0xfc00) === 0xdc00) n--;
      return n;
    },
  };
}

const encoder = new TextEncoder();
/** Reused for copies of snippet size (a snippet holds at most 12 KiB); longer ones allocate. */
const scratch = new Uint8Array(64 * 1024);

/**
 * A string of its own with the content of `slice`. V8 represents a slice of a
 * long string as a view that keeps the whole string alive, and snippets
 * outlive the scan: a search of several buffers would keep every buffer's text
 * until it returns. A decoder always makes a new string.
 */
function copyOf(slice: string): string {
  if (3 * slice.length > scratch.length) return decodeUtf8(encoder.encode(slice));
  return decodeUtf8(scratch.subarray(0, encoder.encodeInto(slice, scratch).written));
}
