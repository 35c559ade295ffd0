/**
 * A full garbage collection on demand, where the engine allows it.
 *
 * `gc` is not exposed to scripts by default: V8's `--expose-gc` set at run
 * time installs it in contexts created afterwards, so a new context hands it
 * over. Fetching it takes milliseconds (the new context), and `node:v8` and
 * `node:vm` load Deno's Node compatibility modules (tens of milliseconds), so
 * they are imported when the collector is first asked for, not at start.
 *
 * @example
 * ```ts
 * const gc = await fullCollector();
 * gc?.(); // frees what dead objects hold (large strings, detached buffers) now
 * ```
 */

/** The engine's `gc`, or undefined where it cannot be had. */
export async function fullCollector(): Promise<(() => void) | undefined> {
  try {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([import("node:v8"), import("node:vm")]);
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc");
    return typeof gc === "function" ? gc as () => void : undefined;
  } catch {
    return undefined;
  }
}
