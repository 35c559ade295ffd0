/**
 * Searching byte arrays.
 *
 * @example
 * ```ts
 * import { indexOfBytes } from "./bytes.ts";
 * const enc = new TextEncoder();
 * indexOfBytes(enc.encode("noise\nMARK\ntmux"), enc.encode("MARK"), 0); // 6
 * ```
 */

/** The index of the first `needle` in `hay` at or after `from`, or -1. */
export function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (let i = hay.indexOf(first, from); i >= 0 && i + needle.length <= hay.length; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/**
 * `chunks` as one array of `total` bytes (their summed length); the chunk itself when there is only one.
 *
 * @example
 * ```ts
 * import { joinChunks } from "./bytes.ts";
 * joinChunks([new Uint8Array([1, 2]), new Uint8Array([3])], 3); // Uint8Array [1, 2, 3]
 * ```
 */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
