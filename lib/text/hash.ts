/**
 * SHA-256 of a text as lowercase hex, synchronously: `node:crypto` hashes a
 * short string at a fraction of the cost of `crypto.subtle.digest`, an async
 * op that every refused call would pay.
 *
 * @example
 * ```ts
 * sha256Hex("abc").slice(0, 12); // "ba7816bf8f01"
 * ```
 */
import { createHash } from "node:crypto";

/** The SHA-256 digest of `text` (UTF-8), 64 hex digits. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
