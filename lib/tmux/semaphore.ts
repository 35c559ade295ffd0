import { queueUntil } from "../settle.ts";

/**
 * A counting semaphore with FIFO fairness.
 *
 * Written by hand on purpose: the executor's concurrency bound is a product
 * guarantee ("never more than N tmux children"), so its behaviour must be
 * exact and small enough to read in one sitting.
 *
 * @example
 * ```ts
 * const sem = new Semaphore(2);
 * const out = await sem.use(() => Deno.readTextFile("/etc/hostname")); // at most 2 at once
 * ```
 */
export class Semaphore {
  #available: number;
  #waiters: Array<() => void> = [];
  readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`semaphore capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#available = capacity;
  }

  /** Slots free right now. */
  get available(): number {
    return this.#available;
  }

  /** Callers waiting for a slot right now. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Waits for a slot and returns its release function. The release function
   * is idempotent so a double release can never inflate the count. A caller
   * still waiting at `deadline` (performance.now()) leaves the queue and
   * gets `late()` thrown.
   */
  async acquire(deadline = Infinity, late?: () => Error): Promise<() => void> {
    if (this.#available > 0 && this.#waiters.length === 0) {
      this.#available--;
    } else {
      // The slot is handed over directly by release(), so a newcomer can
      // never overtake a waiter (FIFO).
      await queueUntil(this.#waiters, deadline, late ?? (() => new Error("no slot came free in time")));
    }
    return this.#releaser();
  }

  /**
   * Waits for a slot of whichever of `sems` has one first (the first of them
   * when several have one now) and returns its release function; never holds
   * two. Waits in each one's queue in turn order, so it is FIFO in each.
   * `deadline`, `late`: see `acquire`.
   */
  static first(sems: readonly Semaphore[], deadline = Infinity, late?: () => Error): Promise<() => void> {
    for (const s of sems) {
      if (s.#available > 0 && s.#waiters.length === 0) {
        s.#available--;
        return Promise.resolve(s.#releaser());
      }
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const wakes = sems.map((s) => {
        const wake = () => {
          // A slot handed over after another semaphore's came first goes on to the next in line.
          if (settled) return s.#handBack();
          settled = true;
          leave(s);
          resolve(s.#releaser());
        };
        s.#waiters.push(wake);
        return wake;
      });
      const leave = (kept?: Semaphore) => {
        clearTimeout(timer);
        sems.forEach((s, i) => {
          const at = s === kept ? -1 : s.#waiters.indexOf(wakes[i]);
          if (at >= 0) s.#waiters.splice(at, 1);
        });
      };
      if (deadline !== Infinity) {
        timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          leave();
          reject((late ?? (() => new Error("no slot came free in time")))());
        }, Math.max(0, deadline - performance.now()));
      }
    });
  }

  /** The release function of a slot just taken (idempotent). */
  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#handBack();
    };
  }

  /** A slot given back: to the first waiter, else free. */
  #handBack(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#available++;
  }

  /** Runs `fn` while holding a slot; the slot is released however `fn` ends. `deadline`, `late`: see `acquire`. */
  async use<T>(fn: () => Promise<T>, deadline = Infinity, late?: () => Error): Promise<T> {
    const release = await this.acquire(deadline, late);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
