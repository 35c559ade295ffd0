/**
 * Cutting a call that runs too long: the call's work gets a signal that
 * follows the client's cancellation and the cut, and the caller gets the
 * work's answer or, once the cut fires, the error that says why — the work's
 * own end after that is nobody's to hear.
 *
 * @example
 * ```ts
 * const cut = pausableTimeout(50);
 * const answer = await cutAt(undefined, cut.signal, async (signal) => {
 *   const asked = cut.pause(); // time spent here (a question to the human, between requests) does not count
 *   await new Promise((r) => setTimeout(r, 100));
 *   asked();
 *   return signal.aborted ? "cut" : "answered";
 * }, () => new Error("too late")).finally(cut.clear);
 * answer; // "answered"
 * ```
 */

/** A signal that fires `ms` from now plus the time spent paused. */
export interface PausableTimeout {
  signal: AbortSignal;
  /** Stops the clock until the returned function is called (idempotent); pauses may overlap. */
  pause(): () => void;
  /** Disarms it (the work ended). */
  clear(): void;
}

/** A {@linkcode PausableTimeout} of `ms`. */
export function pausableTimeout(ms: number): PausableTimeout {
  const fired = new AbortController();
  let deadline = performance.now() + ms;
  let paused = 0;
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => fired.abort(), Math.max(0, deadline - performance.now()));
  };
  arm();
  return {
    signal: fired.signal,
    pause() {
      if (paused++ === 0) {
        since = performance.now();
        clearTimeout(timer);
      }
      let resumed = false;
      return () => {
        if (resumed) return;
        resumed = true;
        if (--paused > 0 || fired.signal.aborted) return;
        deadline += performance.now() - since;
        arm();
      };
    },
    clear: () => clearTimeout(timer),
  };
}

/**
 * Runs `fn` with a signal that follows `parent` and `cut`: its answer, or `tooLate()` thrown once `cut` fires
 * first (and `fn`'s signal aborted, so it stops what it can).
 */
export function cutAt<T>(
  parent: AbortSignal | undefined,
  cut: AbortSignal,
  fn: (signal: AbortSignal) => Promise<T>,
  tooLate: () => Error,
): Promise<T> {
  const own = new AbortController();
  const follow = () => own.abort(parent?.reason);
  // A parent aborted already (a batch's call after the client cancelled the batch) fires no abort event again.
  if (parent?.aborted) follow();
  else parent?.addEventListener("abort", follow, { once: true });
  let onCut: (() => void) | undefined;
  const late = new Promise<never>((_, reject) => {
    onCut = () => {
      reject(tooLate());
      own.abort();
    };
    if (cut.aborted) onCut();
    else cut.addEventListener("abort", onCut, { once: true });
  });
  const work = fn(own.signal);
  work.catch(() => {}); // its end after the cut is nobody's to hear
  return Promise.race([work, late]).finally(() => {
    cut.removeEventListener("abort", onCut!);
    parent?.removeEventListener("abort", follow);
  });
}
