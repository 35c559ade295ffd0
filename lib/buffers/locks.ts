/**
 * Per-key mutual exclusion, so that read-modify-write sequences on one tmux
 * buffer (append, rename) never interleave and lose data.
 *
 * @example
 * ```ts
 * const locks = new KeyedLocks();
 * await locks.with(["a", "b"], async () => {/* both names held *\/});
 * ```
 */
export class KeyedLocks {
  #tails = new Map<string, Promise<void>>();

  async #lock(key: string): Promise<() => void> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => release = r);
    const tail = prev.then(() => mine);
    this.#tails.set(key, tail);
    await prev;
    return () => {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
  }

  /** Runs `fn` holding every key; keys are taken in sorted order so two callers cannot deadlock. */
  async with<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const releases: Array<() => void> = [];
    try {
      for (const k of sorted) releases.push(await this.#lock(k));
      return await fn();
    } finally {
      for (const r of releases.reverse()) r();
    }
  }

  /** Keys currently held or waited for (for tests and leak checks). */
  get size(): number {
    return this.#tails.size;
  }
}
