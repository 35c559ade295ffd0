/**
 * Keeps the server's memory near what it uses over a long session: a full
 * garbage collection once enough garbage has piled up since the last one.
 *
 * Why: V8 collects its old generation lazily, raising its limit while it can,
 * and the native memory that dead objects hold (pipe buffers, process and
 * stream resources) goes back to the allocator only when they are collected.
 * Over thousands of calls the server's live JS heap stays near 17 MiB while
 * RSS climbed past 230 MiB and kept climbing (tests/bench/memory_soak.ts); with
 * a collection every few seconds of activity it stays within 1.5× of its
 * figure after the first 100 calls. A full collection of a heap this size takes
 * milliseconds; an idle server does none (nothing is allocated, nothing to do).
 *
 * The collector comes from lib/host/gc.ts; where it is unavailable the
 * reducer does nothing.
 *
 * @example
 * ```ts
 * const reducer = startMemoryReducer();
 * // … serve …
 * reducer.stop();
 * ```
 */
import { fullCollector } from "../host/gc.ts";

export { fullCollector };

export interface MemoryReducerOptions {
  /** How often the heap is looked at (default 2 s). */
  intervalMs?: number;
  /**
   * Collect once the JS heap and the native buffers it holds (ArrayBuffers) have grown this much since
   * the last collection (default 8 MiB).
   */
  garbageBytes?: number;
}

export interface MemoryReducer {
  /** Collections run so far. */
  readonly collections: number;
  stop(): void;
}

/** Starts looking at the heap every `intervalMs`; the timer does not keep the process alive. */
export function startMemoryReducer(opts: MemoryReducerOptions = {}): MemoryReducer {
  const intervalMs = opts.intervalMs ?? 2000;
  const garbageBytes = opts.garbageBytes ?? 8 * 1024 * 1024;
  // Fetched at the first look, not at start: the new context takes milliseconds a starting server needs more.
  let gc: (() => void) | undefined | null = null;
  let fetching = false;
  let collections = 0;
  const used = () => {
    const m = Deno.memoryUsage();
    return m.heapUsed + m.external;
  };
  let baseline = used();
  const timer = setInterval(() => {
    if (gc === null) {
      if (!fetching) fetching = true, void fullCollector().then((f) => gc = f);
      return;
    }
    if (gc === undefined) return clearInterval(timer);
    if (used() - baseline < garbageBytes) return;
    gc();
    collections++;
    baseline = used();
  }, intervalMs);
  Deno.unrefTimer(timer);
  return {
    get collections() {
      return collections;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
