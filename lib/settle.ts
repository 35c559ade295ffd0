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
  // A bound already past (a deadline minus now) gives `ready` no time, but is not an error.
  const late = AbortSignal.timeout(Math.max(0, ms));
  return new Promise<boolean>((resolve) => {
    const onLate = () => resolve(false);
    late.addEventListener("abort", onLate, { once: true });
    ready.then(
      () => (late.removeEventListener("abort", onLate), resolve(true)),
      () => (late.removeEventListener("abort", onLate), resolve(true)),
    );
  });
}

/**
 * Waits in `queue` (wake functions, first come first served) until the owner calls this waiter's function, or
 * until `deadline` (performance.now()), when it leaves the queue and rejects with `late()`.
 *
 * @example
 * ```ts
 * const queue: Array<() => void> = [];
 * const waiting = queueUntil(queue, performance.now() + 1000, () => new Error("no slot within 1 s"));
 * queue.shift()?.(); // the owner wakes the first waiter
 * await waiting;
 * ```
 */
export function queueUntil(queue: Array<() => void>, deadline: number, late: () => Error): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (deadline === Infinity) return void queue.push(resolve);
    const wake = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => {
      const at = queue.indexOf(wake);
      if (at < 0) return;
      queue.splice(at, 1);
      reject(late());
    }, Math.max(0, deadline - performance.now()));
    queue.push(wake);
  });
}
