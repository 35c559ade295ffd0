/**
 * One-line errors for bad input: zod's issues described field by field, and
 * the closest valid name to a mistyped one, so the error says what was meant
 * ("unknown tool show_buffer: did you mean show-buffer?"). The pipeline and
 * the families (lib/tools/family.ts) describe invalid arguments with it.
 *
 * @example
 * ```ts
 * closest("max_byte", ["name", "offset_bytes", "max_bytes"]); // "max_bytes"
 * closest("zzz", ["name"]); // undefined: nothing is near enough
 * import { z } from "zod";
 * const input = z.object({ name: z.string(), offset_bytes: z.number(), max_bytes: z.number() });
 * parameterNames(input, []); // ["name", "offset_bytes", "max_bytes"]
 * ```
 */
import type { z } from "zod";

const norm = (s: string) => s.toLowerCase().replaceAll("_", "-");

// Two rows of the distance table, reused: allocating them per pair cost more than the comparisons.
let prevRow = new Uint32Array(64);
let row = new Uint32Array(64);

/** Levenshtein distance, case-insensitive, with `-` and `_` counted as the same character. */
export function editDistance(a: string, b: string): number {
  return distance(norm(a), norm(b), Infinity);
}

/**
 * Levenshtein distance of `x` and `y`, or any number above `cap` once the
 * distance is certain to exceed it (a row's smallest entry never shrinks in
 * the rows below): a name far from every candidate costs a row or two each.
 */
function distance(x: string, y: string, cap: number): number {
  const n = y.length;
  if (Math.abs(n - x.length) > cap) return cap + 1;
  if (n + 1 > row.length) {
    prevRow = new Uint32Array(n + 1);
    row = new Uint32Array(n + 1);
  }
  // Locals in the loops: the module's bindings are slower to reach.
  let prev = prevRow, cur = row;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    let least = i;
    const xc = x.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const sub = prev[j - 1] + (xc === y.charCodeAt(j - 1) ? 0 : 1);
      const del = prev[j] + 1, ins = cur[j - 1] + 1;
      const d = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
      cur[j] = d;
      if (d < least) least = d;
    }
    if (least > cap) return cap + 1;
    const done = prev;
    prev = cur;
    cur = done;
  }
  return prev[n];
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
    // Contained: only insertions apart, so exactly the difference in length.
    if (name.length >= 3 && c.toLowerCase().includes(lower)) {
      const d = y.length - x.length;
      if (d < bestDistance) [best, bestDistance] = [c, d];
      continue;
    }
    // Only a distance within the typo limit that beats the best counts: computed no further than that.
    const cap = Math.min(Math.max(2, Math.floor(Math.max(name.length, c.length) / 3)), bestDistance - 1);
    const d = distance(x, y, cap);
    if (d <= cap) [best, bestDistance] = [c, d];
  }
  return best;
}

/**
 * The parameter names of the object a zod issue path points into: the
 * top-level input (path []), a nested object, or an array's items (a number
 * step). Empty when the path leads elsewhere.
 */
export function parameterNames(schema: unknown, path: readonly PropertyKey[]): string[] {
  const shape = (unwrap(schemaAt(schema, path)) as { shape?: Record<string, unknown> })?.shape;
  return shape ? Object.keys(shape) : [];
}

/** Whether the parameter a zod issue path points to may be left out (it is optional or has a default). */
export function omittable(schema: unknown, path: readonly PropertyKey[]): boolean {
  const node = schemaAt(schema, path) as z.ZodType | undefined;
  return typeof node?.safeParse === "function" && node.safeParse(undefined).success;
}

/** The schema an issue path points to, through objects and arrays; undefined when the path leads elsewhere. */
function schemaAt(schema: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = schema;
  for (const step of path) {
    node = unwrap(node);
    if (typeof step === "number") {
      node = (node as { element?: unknown })?.element; // an array's items
      if (!node) return undefined;
      continue;
    }
    const shape = (node as { shape?: Record<string, unknown> })?.shape;
    if (typeof step !== "string" || !shape || !(step in shape)) return undefined;
    node = shape[step];
  }
  return node;
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

/** Parameters renamed in a release (former → current), named in the error where the current one is valid. */
const FORMER_PARAMETERS: Readonly<Record<string, string>> = { session_id: "pty_id" };

/**
 * zod issues → one line: `field: problem; field: problem`. `known` (the
 * parameter names of the object at each path) lets an unknown parameter
 * name its closest valid one; `input` (what was parsed) lets a parameter
 * that was not given at all be called missing, with what it takes, where
 * zod would say "expected string, received undefined", and one given as
 * null be told to be left out when `omittable` says it may be.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const r = z.object({ what: z.enum(["a", "b"]) }).safeParse({});
 * if (!r.success) console.log(describeIssues(r.error, undefined, {})); // what: missing: give one of a, b
 * ```
 */
export function describeIssues(
  error: z.ZodError,
  known?: (path: readonly PropertyKey[]) => string[],
  input?: unknown,
  omittable?: (path: readonly PropertyKey[]) => boolean,
): string {
  // zod checks an integer twice past 2^53 (as an int, then as a number): one problem is said once.
  const issues = error.issues.filter((i, n, all) =>
    !all.slice(0, n).some((j) => j.code === i.code && j.path.join("\0") === i.path.join("\0"))
  );
  return issues.slice(0, 5).map((i) => {
    const path = i.path.length ? i.path.map(shownKey).join(".") : "arguments";
    const missing = input === undefined ? undefined : missingText(i, input);
    if (missing) return `${path}: ${missing}`;
    // Models often send null for a parameter they mean to leave out; zod's "expected string, received null"
    // does not say that leaving it out is the way.
    if (i.code === "invalid_type" && i.path.length && input !== undefined && valueAt(input, i.path) === null) {
      const name = shownKey(i.path[i.path.length - 1]);
      return `${path}: null is not a value here: ${
        omittable?.(i.path)
          ? `leave ${name} out for its default, or give ${article(i.expected)}`
          : `give ${article(i.expected)}`
      }`;
    }
    // zod's "expected int, received number" for 1.5 reads as if 1.5 were no number.
    const given = input === undefined ? undefined : valueAt(input, i.path);
    if (i.code === "invalid_type" && i.expected === "int" && typeof given === "number") {
      return `${path}: ${given} is not a whole number: give one`;
    }
    if (i.code === "unrecognized_keys") {
      const valid = known?.(i.path) ?? [];
      const keys = i.keys.map((k) => {
        const now = Object.hasOwn(FORMER_PARAMETERS, k) ? FORMER_PARAMETERS[k] : undefined;
        if (now !== undefined && valid.includes(now)) return `${shownKey(k)} (renamed ${now})`;
        const near = closest(k, valid);
        return near ? `${shownKey(k)} (did you mean ${near}?)` : shownKey(k);
      });
      return `${path}: unknown parameter(s) ${keys.join(", ")}`;
    }
    // zod says only "Invalid key in record": the key's own check says what a key must be.
    if (i.code === "invalid_key" && i.path.length) {
      const where = i.path.slice(0, -1).map(shownKey).join(".") || "arguments";
      const why = i.issues.map((k) => k.message).join("; ");
      return `${where}: key ${JSON.stringify(String(i.path.at(-1)))}: ${why}`;
    }
    return `${path}: ${i.message}`;
  }).join("; ");
}

/**
 * A parameter name, record key or index as an error shows it: as it is when plain, else quoted, so that a newline
 * or an escape sequence in a name a model made up neither breaks the one-line error nor reaches a terminal raw.
 */
function shownKey(key: PropertyKey): string {
  const s = String(key);
  return /^[\w-]+$/.test(s) ? s : JSON.stringify(s);
}

/** What a parameter takes, for one that was not given at all (its issue's path leads nowhere in `input`). */
function missingText(issue: z.core.$ZodIssue, input: unknown): string | undefined {
  if (!issue.path.length) return undefined;
  if (valueAt(input, issue.path) !== undefined) return undefined;
  if (issue.code === "invalid_value" && issue.values.length) {
    return `missing: give one of ${issue.values.map((v) => String(v)).join(", ")}`;
  }
  if (issue.code === "invalid_type") return `missing: give ${article(issue.expected)}`;
  return undefined;
}

/** The value at a path of the parsed input; undefined where the path leads nowhere. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = input;
  for (const step of path) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, step)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[step];
  }
  return at;
}

function article(type: string): string {
  if (type === "int") return "a whole number";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
