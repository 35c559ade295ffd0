/**
 * Unguessable one-shot tokens (a secret page's path, a parked call's
 * requestState): 256 random bits, base64url without padding.
 *
 * @example
 * ```ts
 * randomToken(); // "3q2-7w…" (43 characters)
 * ```
 */

/** A fresh token. */
export function randomToken(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
