/**
 * Where pages of a buffer ended: the places this server told a client to
 * continue reading (show-buffer's `next_offset_bytes`, search-buffer's
 * `resume_from_offset`), each with what the buffer was then. A buffer
 * replaced between two pages (same name, other text) would otherwise be read
 * on as if it were the rest of the old one; a continuation checks that the
 * buffer is still that one: no shorter, the same bytes at sixteen places
 * spread over its old length, and (where the page knew them) the same bytes
 * just before the offset. A buffer appended to keeps all of them, and reads
 * on. The marks are kept per store (one per host), the most recent
 * {@linkcode MAX_MARKS}; an offset with no mark (from before a restart, or
 * typed by hand) is not checked. A read of the buffer from its start
 * ({@linkcode forgetChanged}) drops the marks of the text it replaced: the
 * reader has the new text, whose offsets (a search's `context_start`) are
 * then read as asked.
 *
 * @example
 * ```ts
 * const store = {}; // a host's buffer store
 * const old = new TextEncoder().encode("first page|second page");
 * markContinuation(store, "log", 11, identityOf(old), old.slice(0, 11));
 * changedBefore(store, "log", old, 11); // false
 * changedBefore(store, "log", new TextEncoder().encode("other text, all new"), 11); // true
 * ```
 */

/** What a buffer was when a page of it was given: its size, and its bytes at places spread over it. */
export interface Identity {
  size: number;
  /** Offsets of the samples, and their bytes. */
  at: number[];
  samples: Uint8Array[];
}

/** Bytes kept before each continuation offset, and per sample. */
const WINDOW = 64;
const SAMPLE_BYTES = 16;
const SAMPLES = 16;
/** Marks kept per store; the oldest are forgotten. */
export const MAX_MARKS = 1024;

interface Mark {
  identity: Identity;
  before?: Uint8Array;
}

const marksOf = new WeakMap<object, Map<string, Mark>>();

const keyOf = (name: string, offset: number) => `${offset}\0${name}`;

/** A buffer's {@linkcode Identity}: cheap whatever its size (sixteen 16-byte samples). */
export function identityOf(bytes: Uint8Array): Identity {
  const span = Math.max(0, bytes.length - SAMPLE_BYTES);
  const at = [...new Set(Array.from({ length: SAMPLES }, (_, k) => Math.floor(span * k / (SAMPLES - 1))))];
  return { size: bytes.length, at, samples: at.map((p) => bytes.slice(p, p + SAMPLE_BYTES)) };
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Notes that a page of buffer `name`, which was `identity`, ended at `offset`, where a later call may continue;
 * `before`: the bytes just before `offset` (their last {@linkcode WINDOW} are kept), when the page had them.
 */
export function markContinuation(
  store: object,
  name: string,
  offset: number,
  identity: Identity,
  before?: Uint8Array,
): void {
  let marks = marksOf.get(store);
  if (!marks) marksOf.set(store, marks = new Map());
  const key = keyOf(name, offset);
  marks.delete(key);
  marks.set(key, { identity, ...(before ? { before: before.slice(Math.max(0, before.length - WINDOW)) } : {}) });
  if (marks.size > MAX_MARKS) marks.delete(marks.keys().next().value!);
}

/**
 * Whether buffer `name`, now `bytes`, is no longer the one a page this server gave left off in at `offset`: shorter
 * than it was, or other bytes where they were sampled or just before `offset`. False when no page left off there.
 */
export function changedBefore(store: object, name: string, bytes: Uint8Array, offset: number): boolean {
  const mark = marksOf.get(store)?.get(keyOf(name, offset));
  if (mark === undefined) return false;
  const { identity, before } = mark;
  if (bytes.length < identity.size) return true;
  if (identity.at.some((p, i) => !same(bytes.subarray(p, p + identity.samples[i].length), identity.samples[i]))) {
    return true;
  }
  return before !== undefined && !same(bytes.subarray(offset - before.length, offset), before);
}

/**
 * Drops the marks of buffer `name` that it, now `bytes`, no longer matches ({@linkcode changedBefore}): for a read
 * from its start, after which an offset of the old text that happens to be one of the new is the new text's.
 */
export function forgetChanged(store: object, name: string, bytes: Uint8Array): void {
  const marks = marksOf.get(store);
  if (!marks) return;
  for (const key of [...marks.keys()]) {
    const at = key.indexOf("\0"); // after the offset's digits (keyOf)
    if (key.slice(at + 1) !== name) continue;
    if (changedBefore(store, name, bytes, Number(key.slice(0, at)))) marks.delete(key);
  }
}
