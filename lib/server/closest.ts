/**
 * The closest valid name to a mistyped one, for one-line errors that say
 * what was meant ("unknown tool show_buffer: did you mean show-buffer?").
 *
 * @example
 * ```ts
 * closest("max_byte", ["name", "offset_bytes", "max_bytes"]); // "max_bytes"
 * closest("zzz", ["name"]); // undefined: nothing is near enough
 * ```
 */

/** Levenshtein distance, case-insensitive, with `-` and `_` counted as the same character. */
export function editDistance(a: string, b: string): number {
  const norm = (s: string) => s.toLowerCase().replaceAll("_", "-");
  const x = norm(a), y = norm(b);
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[y.length];
}

/**
 * The candidate nearest to `name`, if it is near enough to be a typo: at
 * most a third of the longer name's length (and at least 2) edits away, or
 * one name containing the other. Ties go to the first candidate.
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    const near = d <= Math.max(2, Math.floor(Math.max(name.length, c.length) / 3)) ||
      (name.length >= 3 && c.toLowerCase().includes(name.toLowerCase()));
    if (near && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
