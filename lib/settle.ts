/**
 * Waiting for something with a time bound, without cancelling it: the
 * caller decides what to do with what is late (give a client up, exit
 * anyway).
 */
/**
 * Resolves once `ready` settles or `ms` have passed, whichever is first; true when `ready` came first.
 *
 * @example
 * ```ts
 * const ready = new Promise((resolve) => setTimeout(resolve, 100)); // a client's start
 * if (!await settledWithin(ready, 10_000)) console.log("gave up after 10 s");
 * ```
 */
export function settledWithin(ready: Promise<unknown>, ms: number): Promise<boolean> {
  const late = AbortSignal.timeout(ms);
  return new Promise<boolean>((resolve) => {
    const onLate = () => resolve(false);
    late.addEventListener("abort", onLate, { once: true });
    ready.then(
      () => (late.removeEventListener("abort", onLate), resolve(true)),
      () => (late.removeEventListener("abort", onLate), resolve(true)),
    );
  });
}
