/**
 * The benches' command-line flags: `--name value` pairs.
 *
 * @example
 * ```ts
 * import { flag } from "./args.ts";
 * const n = Number(flag("--n") ?? 40); // 40 unless the bench was run with `--n 100`
 * ```
 */

/** The value after `name` in `args` (the bench's own arguments), or undefined when `name` is not there. */
export function flag(name: string, args: readonly string[] = Deno.args): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
