/**
 * A full garbage collection on demand, where the engine allows it.
 *
 * `gc` is not exposed to scripts by default: V8's `--expose-gc` set at run
 * time installs it in contexts created afterwards, so a new context hands it
 * over. Fetching it takes milliseconds (the new context), so callers fetch it
 * when they first need it, not at start.
 *
 * @example
 * ```ts
 * const gc = fullCollector();
 * gc?.(); // frees what dead objects hold (large strings, detached buffers) now
 * ```
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** The engine's `gc`, or undefined where it cannot be had. */
export function fullCollector(): (() => void) | undefined {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc");
    return typeof gc === "function" ? gc as () => void : undefined;
  } catch {
    return undefined;
  }
}
