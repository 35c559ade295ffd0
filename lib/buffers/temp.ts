/**
 * A paste buffer that exists only while a function runs: for delivering
 * text to a pane with `paste-buffer` without leaving anything behind in the
 * user's buffer list, even when the paste fails.
 *
 * @example
 * ```ts
 * await withTempBuffer(ctx.buffers, bytes, (name) =>
 *   ctx.tmux.run(["paste-buffer", "-b", name, "-t", "%3"]));
 * ```
 */
import type { BufferStore } from "./store.ts";

/** Prefix of temporary buffer names, so leftovers (after a crash) are recognisable. */
export const TEMP_BUFFER_PREFIX = "tmux-mcp-tmp-";

/**
 * Writes `content` to a fresh uniquely named buffer, runs `fn(name)`, then
 * deletes the buffer whether `fn` succeeded or threw (a buffer `fn` already
 * deleted, e.g. with `paste-buffer -d`, is fine).
 */
export async function withTempBuffer<T>(
  buffers: BufferStore,
  content: Uint8Array,
  fn: (name: string) => Promise<T>,
): Promise<T> {
  const name = TEMP_BUFFER_PREFIX + crypto.randomUUID();
  await buffers.write(name, content);
  try {
    return await fn(name);
  } finally {
    await buffers.delete(name).catch(() => {});
  }
}
