/**
 * UTF-8 boundary helpers for byte-addressed slices of buffer content.
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode("aé");
 * clipToCharBoundary(bytes, 0, 2); // 1: the cut would split "é"
 * ```
 */

/** Whether a byte is a UTF-8 continuation byte (10xxxxxx). */
export function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** The first character boundary at or after `offset` (skips continuation bytes). */
export function charStartAtOrAfter(bytes: Uint8Array, offset: number): number {
  while (offset < bytes.length && isContinuation(bytes[offset])) offset++;
  return offset;
}

/** The last character boundary at or before `offset` (at most `bytes.length`) in valid UTF-8. */
export function charStartAtOrBefore(bytes: Uint8Array, offset: number): number {
  while (offset > 0 && offset < bytes.length && isContinuation(bytes[offset])) offset--;
  return offset;
}

/** Length of the UTF-8 sequence a lead byte starts, or 0 for a continuation/invalid byte. */
export function utf8SequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Moves `end` back so that `bytes[start, end)` does not cut a well-formed
 * character in two. Malformed bytes are left alone (they decode to U+FFFD
 * wherever they are). Returns `start` when the slice holds only part of one
 * character; callers decide what to do then.
 */
export function clipToCharBoundary(bytes: Uint8Array, start: number, end: number): number {
  if (end >= bytes.length || end <= start) return end;
  // Walk back over at most 3 continuation bytes to the lead byte.
  let lead = end - 1;
  while (lead > start && lead > end - 4 && isContinuation(bytes[lead])) lead--;
  const len = utf8SequenceLength(bytes[lead]);
  if (len <= 1 || lead + len <= end) return end;
  // The character continues past `end`; cut before it only if it is well-formed.
  for (let i = lead + 1; i < lead + len; i++) {
    if (i >= bytes.length || !isContinuation(bytes[i])) return end;
  }
  return lead;
}

/**
 * The first `units` UTF-16 units of `s`, one fewer where the cut would split a surrogate pair: a string cut for a
 * message or a limit never ends in half a character (which reaches a client as U+FFFD).
 *
 * @example
 * ```ts
 * headOf("a😀", 2); // "a"
 * headOf("a😀", 3); // "a😀"
 * ```
 */
export function headOf(s: string, units: number): string {
  if (units >= s.length) return s;
  const last = s.charCodeAt(units - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? units - 1 : units);
}
