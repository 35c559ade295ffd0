/**
 * Shrinking structured values for previews: nesting beyond a depth becomes
 * a one-line summary, long strings keep their head.
 *
 * Depth counts containers: the result object itself is depth 1, its arrays
 * and objects depth 2, and so on. A container deeper than `maxDepth` is
 * replaced by `"[Array: N items, truncated]"` or
 * `"[Object: N properties, truncated]"`.
 *
 * @example
 * ```ts
 * shrink({ a: [{ b: 1 }] }, { maxDepth: 2, maxStringChars: 100 }).value;
 * // { a: ["[Object: 1 properties, truncated]"] }
 * ```
 */

export interface ShrinkOptions {
  maxDepth: number;
  /** Strings longer than this keep their first `maxStringChars` characters and a marker. */
  maxStringChars: number;
}

export interface Shrunk {
  value: unknown;
  /** Whether any container was replaced by its summary. */
  depthTruncated: boolean;
}

/** The summary that replaces a container nested too deep. */
export function containerSummary(value: object): string {
  return Array.isArray(value)
    ? `[Array: ${value.length} items, truncated]`
    : `[Object: ${Object.keys(value).length} properties, truncated]`;
}

/** Cuts a string to its first `max` characters (never inside a surrogate pair) plus a marker. */
export function capString(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}… [${s.length - end} more characters]`;
}

/** Nesting depth of containers: a scalar is 0, `{}` or `[]` is 1, `{a: [1]}` is 2. */
export function nestingDepth(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let deepest = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) {
    const d = nestingDepth(v);
    if (d > deepest) deepest = d;
  }
  return deepest + 1;
}

/** A copy of `value` with deep containers summarized and long strings cut. */
export function shrink(value: unknown, opts: ShrinkOptions): Shrunk {
  let depthTruncated = false;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return capString(v, opts.maxStringChars);
    if (v === null || typeof v !== "object") return v;
    if (depth > opts.maxDepth) {
      depthTruncated = true;
      return containerSummary(v);
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x, depth + 1);
    return out;
  };
  const result = walk(value, 1);
  return { value: result, depthTruncated };
}

/**
 * The path (object keys only) of the longest array reachable through
 * objects: the "list" of a list or search result. Undefined when there is
 * none but empty ones (an empty `warnings` is no list to count or cut).
 */
export function mainArrayPath(value: unknown): string[] | undefined {
  let best: { path: string[]; length: number } | undefined;
  const walk = (v: unknown, path: string[]) => {
    if (v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      if (v.length > 0 && (!best || v.length > best.length)) best = { path, length: v.length };
      return;
    }
    for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(value, []);
  return best && best.path.length > 0 ? best.path : undefined;
}

/** The value at an object-key path, or undefined. */
export function getPath(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const k of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** A copy of `value` (objects along the path copied) with the value at `path` replaced. */
export function setPath(value: unknown, path: readonly string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const obj = value as Record<string, unknown>;
  return { ...obj, [path[0]]: setPath(obj[path[0]], path.slice(1), replacement) };
}
