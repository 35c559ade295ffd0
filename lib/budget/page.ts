/**
 * Fitting a natively paged result to its budget: the largest size (bytes,
 * matches, lines) whose output still fits, found by bisection, so a page is
 * as large as the budget allows and the place to continue stays exact.
 *
 * @example
 * ```ts
 * declare const budget: { fits(output: unknown): boolean }; // the call's `ctx.budget`
 * const matches = ["a", "b", "c"];
 * const outputWith = (page: string[]) => ({ matches: page });
 * const n = largestFitting(1, matches.length, (k) => budget.fits(outputWith(matches.slice(0, k))));
 * ```
 */

/**
 * The largest `n` in [min, max] for which `fits(n)` holds, assuming it holds
 * for every size below one that fits; `min` when none fits (a page always
 * moves forward). Stops refining once the step is under 1/64 of the size, so
 * a page may be up to ~1.5% smaller than the largest that fits, and a large
 * page costs about a dozen `fits` calls.
 */
export function largestFitting(min: number, max: number, fits: (n: number) => boolean): number {
  if (max <= min || fits(max)) return Math.max(min, max);
  let lo = min, hi = max; // fits(hi) is false; lo is the best known (assumed) fit
  while (hi - lo > Math.max(1, Math.floor(hi / 64))) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The first `n` UTF-16 units of a text, or fewer: never half a surrogate
 * pair, nor an escape sequence (of a colored capture) cut before its end.
 * For a page of one row that alone is over its budget.
 */
export function textPrefix(text: string, n: number): string {
  let out = text.slice(0, n);
  if (/[\uD800-\uDBFF]$/.test(out)) out = out.slice(0, -1);
  // deno-lint-ignore no-control-regex
  return out.replace(/\x1b(\[[0-9;:?]*|\][^\x07\x1b]*)?$/, "");
}
