/**
 * Where the pages of a buffer ended: the bytes just before each place this
 * server told a client to continue reading (`next_offset_bytes`). A buffer
 * replaced between two pages (same name, other content) would otherwise be
 * read on as if it were the rest of the old one: the continuation checks
 * that the bytes before its offset are still the ones the page ended with.
 * A buffer appended to keeps them, and reads on. The marks are kept per
 * store (one per host), the most recent {@linkcode MAX_MARKS} of them; an
 * offset with no mark (from before a restart, or typed by hand) is not
 * checked.
 *
 * @example
 * ```ts
 * const store = {}; // a host's buffer store
 * const old = new TextEncoder().encode("first page|second page");
 * markPageEnd(store, "log", old, 11);
 * changedBefore(store, "log", old, 11); // false
 * changedBefore(store, "log", new TextEncoder().encode("other text, all new"), 11); // true
 * ```
 */

/** Bytes kept before each continuation offset. */
const WINDOW = 64;
/** Marks kept per store; the oldest are forgotten. */
export const MAX_MARKS = 1024;

const marksOf = new WeakMap<object, Map<string, Uint8Array>>();

const keyOf = (name: string, offset: number) => `${offset}\0${name}`;

/** Notes that a page of buffer `name` (content `bytes`) ended at `end`, where a later call may continue. */
export function markPageEnd(store: object, name: string, bytes: Uint8Array, end: number): void {
  let marks = marksOf.get(store);
  if (!marks) marksOf.set(store, marks = new Map());
  const key = keyOf(name, end);
  marks.delete(key);
  marks.set(key, bytes.slice(Math.max(0, end - WINDOW), end));
  if (marks.size > MAX_MARKS) marks.delete(marks.keys().next().value!);
}

/**
 * Whether buffer `name`, now `bytes`, is no longer the one a page this server gave ended in at `offset`: the bytes
 * before it differ, or it is now shorter than that. False when no page ended there.
 */
export function changedBefore(store: object, name: string, bytes: Uint8Array, offset: number): boolean {
  const mark = marksOf.get(store)?.get(keyOf(name, offset));
  if (mark === undefined) return false;
  if (bytes.length < offset) return true;
  const now = bytes.subarray(offset - mark.length, offset);
  return now.some((b, i) => b !== mark[i]);
}
