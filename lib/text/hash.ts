/**
 * SHA-256 of a text as lowercase hex, synchronously, in plain JavaScript:
 * `crypto.subtle.digest` is an async op that every refused call would pay,
 * and `node:crypto` loads Deno's Node compatibility modules, tens of
 * milliseconds on a starting server's path to its first answer. The texts
 * hashed here (audit fingerprints, redaction tags, lock names) are short.
 *
 * @example
 * ```ts
 * sha256Hex("abc").slice(0, 12); // "ba7816bf8f01"
 * ```
 */

const K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);

const encoder = new TextEncoder();
const w = new Int32Array(64);
const state = new Int32Array(8);
const INITIAL = new Int32Array([
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
]);

/** Mixes the 64-byte block of `bytes` at `off` into `state`. */
function block(bytes: Uint8Array, off: number): void {
  for (let i = 0; i < 16; i++, off += 4) {
    w[i] = (bytes[off] << 24) | (bytes[off + 1] << 16) | (bytes[off + 2] << 8) | bytes[off + 3];
  }
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15], b = w[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g, g = f, f = e, e = (d + t1) | 0, d = c, c = b, b = a, a = (t1 + t2) | 0;
  }
  state[0] += a, state[1] += b, state[2] += c, state[3] += d;
  state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

/** The SHA-256 digest of `text` (UTF-8), 64 hex digits. */
export function sha256Hex(text: string): string {
  const data = encoder.encode(text);
  state.set(INITIAL);
  const whole = data.length - (data.length % 64);
  for (let off = 0; off < whole; off += 64) block(data, off);
  // The rest, a 1 bit, zeros, and the length in bits (big-endian, 64 bits), to a multiple of 64 bytes.
  const tail = new Uint8Array(data.length - whole + 9 > 64 ? 128 : 64);
  tail.set(data.subarray(whole));
  tail[data.length - whole] = 0x80;
  const bits = data.length * 8;
  for (let i = 0; i < 8; i++) tail[tail.length - 1 - i] = Math.floor(bits / 2 ** (8 * i)) & 0xff;
  for (let off = 0; off < tail.length; off += 64) block(tail, off);
  let hex = "";
  for (const x of state) hex += (x >>> 0).toString(16).padStart(8, "0");
  return hex;
}

/**
 * A short, stable fingerprint of a value (a string as itself, anything else as its JSON): equal values can be
 * matched across audit lines without revealing them.
 *
 * @example
 * ```ts
 * fingerprint("abc"); // { len: 3, sha256_12: "ba7816bf8f01" }
 * ```
 */
export function fingerprint(value: unknown): { len: number; sha256_12: string } {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  return { len: text.length, sha256_12: sha256Hex(text).slice(0, 12) };
}
