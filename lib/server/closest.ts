/**
 * The closest valid name to a mistyped one, for one-line errors that say
 * what was meant ("unknown tool show_buffer: did you mean show-buffer?").
 *
 * @example
 * ```ts
 * closest("max_byte", ["name", "offset_bytes", "max_bytes"]); // "max_bytes"
 * closest("zzz", ["name"]); // undefined: nothing is near enough
 * parameterNames(tool.input, []); // ["name", "offset_bytes", "max_bytes"]
 * ```
 */

const norm = (s: string) => s.toLowerCase().replaceAll("_", "-");

// Two rows of the distance table, reused: allocating them per pair cost more than the comparisons.
let prevRow = new Uint32Array(64);
let row = new Uint32Array(64);

/** Levenshtein distance, case-insensitive, with `-` and `_` counted as the same character. */
export function editDistance(a: string, b: string): number {
  return distance(norm(a), norm(b));
}

function distance(x: string, y: string): number {
  const n = y.length;
  if (n + 1 > row.length) {
    prevRow = new Uint32Array(n + 1);
    row = new Uint32Array(n + 1);
  }
  for (let j = 0; j <= n; j++) prevRow[j] = j;
  for (let i = 1; i <= x.length; i++) {
    row[0] = i;
    const xc = x.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const sub = prevRow[j - 1] + (xc === y.charCodeAt(j - 1) ? 0 : 1);
      const del = prevRow[j] + 1, ins = row[j - 1] + 1;
      row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    [prevRow, row] = [row, prevRow];
  }
  return prevRow[n];
}

/**
 * The candidate nearest to `name`, if it is near enough to be a typo: at
 * most a third of the longer name's length (and at least 2) edits away, or
 * one name containing the other. Ties go to the first candidate.
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const x = norm(name);
  const lower = name.toLowerCase();
  for (const c of candidates) {
    const y = norm(c);
    // The distance is at least the difference in length: a candidate that cannot beat the best is skipped.
    if (Math.abs(y.length - x.length) >= bestDistance) continue;
    const d = distance(x, y);
    const near = d <= Math.max(2, Math.floor(Math.max(name.length, c.length) / 3)) ||
      (name.length >= 3 && c.toLowerCase().includes(lower));
    if (near && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The parameter names of the object a zod issue path points into: the
 * top-level input (path []), a nested object, or an array's items (a number
 * step). Empty when the path leads elsewhere.
 */
export function parameterNames(schema: unknown, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  for (const step of path) {
    node = unwrap(node);
    if (typeof step === "number") {
      node = (node as { element?: unknown })?.element; // an array's items
      if (!node) return [];
      continue;
    }
    const shape = (node as { shape?: Record<string, unknown> })?.shape;
    if (typeof step !== "string" || !shape || !(step in shape)) return [];
    node = shape[step];
  }
  const shape = (unwrap(node) as { shape?: Record<string, unknown> })?.shape;
  return shape ? Object.keys(shape) : [];
}

/** Looks through optional/default/nullable wrappers to the schema inside. */
function unwrap(node: unknown): unknown {
  let n = node as { def?: { innerType?: unknown } } | undefined;
  for (let k = 0; k < 8 && n; k++) {
    const inner = n.def?.innerType;
    if (!inner) break;
    n = inner as typeof n;
  }
  return n;
}
