/**
 * A duration in milliseconds as a message says it, exactly: whole minutes and seconds as such, anything else in
 * milliseconds (a timeout of 100 ms is never "1 s", nor "0 s").
 *
 * @example
 * ```ts
 * durationText(600_000); // "10 minutes"
 * durationText(90_000); // "90 s"
 * durationText(250); // "250 ms"
 * durationText(955.53); // "956 ms"
 * ```
 */
export function durationText(ms: number): string {
  // What is left of a budget is a fraction of a millisecond: said as a whole one, as a model would pass it.
  ms = Math.round(ms);
  if (ms > 0 && ms % 60_000 === 0) return ms === 60_000 ? "1 minute" : `${ms / 60_000} minutes`;
  return ms > 0 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
