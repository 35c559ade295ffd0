/**
 * Fences: the lines that split tmux's output into the outputs of the commands
 * we sent, where nothing a pane, a buffer or a remote login prints can.
 *
 * A fence is a line that ends with F and one byte saying which kind, F
 * being 128 random bits (hex) drawn for one command line alone and shown to
 * nothing but tmux: `display-message -p F-` between two commands of a line,
 * or a `display-message -p` of ours printing `F+` as its last line (its
 * message ends with `"\n"F+`), or the unknown command `F.` on a line of its
 * own after a line (tmux answers `parse error: unknown command: F.`, the
 * cheapest reply a control client can ask for). Output of our
 * commands is raw text — a pane's lines, a path in a format — so any split by
 * what the output holds could be forged; a split at a fence cannot, as no
 * one else knows F. lib/tmux/connection.ts fences every line it sends;
 * lib/tmux/executor.ts (`spawnEach`) fences a spawned client's line, whose
 * stdout is the commands' outputs with nothing between them.
 *
 * @example
 * ```ts
 * const f = newFence();
 * const line = `capture-pane -p -t %1 ; display-message -p ${fenceText(f)}- ; list-buffers\n${fenceText(f)}.`;
 * const isFence = (buf: Uint8Array) => fenceKind(f, buf, 0, buf.length) === INNER;
 * ```
 */
/** Random bytes of a fence: 128 bits, printed as hex. */
const FENCE_BYTES = 16;
/** Length of a fence's end of line: the hex, then its kind. */
export const FENCE_LEN: number = FENCE_BYTES * 2 + 1;
/** Kind of a fence command between two commands of a line (`-`). */
export const INNER = 0x2d;
/** Kind of a fence that a command printed as its own last line (`+`). */
export const ECHO = 0x2b;
/** Kind of the fence after a line (`.`). */
export const LAST = 0x2e;
const HEX = new TextEncoder().encode("0123456789abcdef");
const decoder = new TextDecoder();
/** Random bytes drawn in bulk: one getRandomValues call per 256 fences. */
const pool = new Uint8Array(FENCE_BYTES * 256);
let poolAt = pool.length;

/** A fresh fence: the hex of 128 random bits, as bytes (without its last byte). */
export function newFence(): Uint8Array {
  if (poolAt === pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  const f = new Uint8Array(FENCE_BYTES * 2);
  for (let i = 0; i < FENCE_BYTES; i++) {
    const b = pool[poolAt + i];
    f[2 * i] = HEX[b >> 4];
    f[2 * i + 1] = HEX[b & 15];
  }
  poolAt += FENCE_BYTES;
  return f;
}

/** The kind of fence `f` (INNER, ECHO or LAST) when the line `buf[start, end)` ends with it, else 0. */
export function fenceKind(f: Uint8Array, buf: Uint8Array, start: number, end: number): number {
  const at = end - FENCE_LEN;
  if (at < start) return 0;
  for (let i = 0; i < FENCE_LEN - 1; i++) if (buf[at + i] !== f[i]) return 0;
  const last = buf[end - 1];
  return last === INNER || last === ECHO || last === LAST ? last : 0;
}

/** The fence as text, for a command line. */
export function fenceText(f: Uint8Array): string {
  return decoder.decode(f);
}
