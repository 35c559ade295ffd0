/**
 * Rounding of similarity scores, apart from the scanner: a page of results cut to fit (lib/tools/search_page.ts)
 * rounds too, without loading the search code.
 *
 * @example
 * ```ts
 * round4(2 / 3); // 0.6667
 * ```
 */

/** Rounds to 4 decimals: enough to rank, short to read. */
export function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
