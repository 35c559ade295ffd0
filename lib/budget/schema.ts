/**
 * The shape of a buffered response, and the output schema every tool
 * advertises: `anyOf` [the tool's own result, a buffered response].
 *
 * Why in the schema: clients validate `structuredContent` against the
 * advertised output schema (the SDK client does), and an over-budget result
 * is replaced by a buffered response. Declaring both shapes keeps every
 * result valid, and tells a model up front that any tool may answer with a
 * preview plus a buffer to page through.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const schema = advertisedOutputSchema(z.object({ text: z.string() })); // { type: "object", anyOf: [...] }
 * ```
 */
import { z } from "zod";

// Plain numbers (not .int()) keep the advertised JSON Schema short: it is repeated in every tool's listing.
export const BufferedResponse = z.object({
  type: z.literal("buffered_response"),
  note: z.string(),
  metadata: z.object({
    total_tokens: z.number(),
    total_bytes: z.number(),
    /** Lines of text, items of the main list, or top-level fields. */
    item_count: z.number(),
    max_depth: z.number(),
    truncated_at_depth: z.number().optional(),
    /** false: buffered because the tool has alwaysBuffer. */
    would_exceed_limit: z.boolean(),
    limit_tokens: z.number(),
  }),
  buffer_id: z.string().nullable().describe(
    "tmux buffer with the full result: page with show-buffer; null if not kept",
  ),
  suggested_refinements: z.array(z.string()),
  preview: z.record(z.string(), z.unknown()).describe("the result's own fields, cut down"),
});

export type BufferedResponse = z.infer<typeof BufferedResponse>;

type JsonSchema = Record<string, unknown>;

/**
 * Drops what costs tokens in every listing but tells a model nothing: the
 * ±2^53 bounds zod puts on every integer, and the `additionalProperties:
 * false` zod puts on every result object (clients read the fields they know
 * and need no promise about others), and `additionalProperties: {}` (any
 * value: what leaving it out means). `required` stays
 * in output schemas: it tells a client which fields it can rely on, while a
 * field that is sometimes absent is optional and its description says when.
 * Nullable types become `anyOf` [type, null] instead of zod's type arrays
 * (`["string","null"]`), which strict validators (MCP Inspector --strict,
 * Ajv strictTypes) warn about.
 */
/**
 * Input constraints the server checks but does not advertise: string
 * lengths, patterns, key names and array sizes. They cost every agent tokens
 * in every listing, a model rarely comes near them, and a call that breaks
 * one gets a one-line error naming the limit. Numeric bounds stay where they
 * say what a parameter means (max_matches ≤ 1000, max_bytes ≤ 1 MiB), not
 * where they are only a sanity cap (beyond 2^20: offsets, milliseconds) or
 * what a count implies (a minimum of 0 or 1). A boolean's `default: false`
 * is unsaid too: leaving a flag out means false.
 */
const INPUT_ONLY_CHECKED = new Set(["minLength", "maxLength", "pattern", "propertyNames", "minItems", "maxItems"]);

/**
 * Bounds of result values (counts are ≥ 0, scores in [0, 1]): true, but a
 * client reading a result needs no promise about them, and every listing
 * would repeat them.
 */
const OUTPUT_UNSAID = new Set(["minimum", "maximum", "propertyNames"]);

function compact(node: unknown, io: "input" | "output", names = false): unknown {
  if (Array.isArray(node)) return node.map((n) => compact(n, io));
  if (node === null || typeof node !== "object") return node;
  const src = node as JsonSchema;
  if (Array.isArray(src.type)) return compact(splitTypeArray(src), io);
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(src)) {
    if ((k === "minimum" && v === Number.MIN_SAFE_INTEGER) || (k === "maximum" && v === Number.MAX_SAFE_INTEGER)) {
      continue;
    }
    if (io === "output" && k === "additionalProperties" && v === false) continue;
    // zod writes "any other properties" as `additionalProperties: {}`, a subschema Inspector --strict flags as
    // constraining nothing; JSON Schema allows any other properties without it, so it is left out.
    if (k === "additionalProperties" && isEmptySchema(v)) continue;
    // `names`: the keys of a `properties` object are parameter names, not keywords.
    if (!names && (io === "input" ? INPUT_ONLY_CHECKED : OUTPUT_UNSAID).has(k)) continue;
    if (io === "input" && !names && (k === "minimum" || k === "maximum") && Math.abs(v as number) > 2 ** 20) continue;
    if (io === "input" && !names && k === "minimum" && (v === 0 || v === 1)) continue;
    if (io === "input" && !names && k === "default" && v === false && src.type === "boolean") continue;
    out[k] = compact(v, io, k === "properties" && !names);
  }
  if (io === "output" && !names) dropRequiredDocs(out);
  return out;
}

function isEmptySchema(v: unknown): boolean {
  return v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
}

/**
 * In an output object, a field that is always present (required) needs no
 * description: its name and the input docs say what it is. A field that is
 * sometimes absent keeps its description, which says when it is there.
 */
function dropRequiredDocs(node: JsonSchema): void {
  const props = node.properties as Record<string, JsonSchema> | undefined;
  if (!props) return;
  // An object whose fields are all optional still says so (strict validators want `required` declared).
  if (!Array.isArray(node.required)) node.required = [];
  for (const k of node.required as string[]) {
    if (props[k] && typeof props[k] === "object") delete props[k].description;
  }
}

/** `{type: ["string","null"], ...}` → `{anyOf: [{type: "string", ...}, {type: "null"}]}`, annotations outside. */
function splitTypeArray(node: JsonSchema): JsonSchema {
  const { type, description, title, default: dflt, ...rest } = node;
  const branches = (type as string[]).map((t) => t === "null" ? { type: "null" } : { type: t, ...rest });
  return {
    ...(description !== undefined ? { description } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(dflt !== undefined ? { default: dflt } : {}),
    anyOf: branches,
  };
}

/** JSON Schema of a zod schema, as the SDK converts it (draft-7), compacted, without `$schema`. */
function toJson(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io }) as JsonSchema;
  return compact(rest, io) as JsonSchema;
}

/**
 * The buffered branch as advertised: only what tells the two shapes apart,
 * the `type` field no tool's own result has (tests/budget_test.ts checks
 * that), declared as well as required (strict validators want both). It is
 * repeated in every tool's listing, so the complete shape
 * (`BufferedResponse`, what the budget stage builds, `type:
 * "buffered_response"` included) is described once, in the server
 * instructions, instead of once per tool.
 */
const bufferedJson: JsonSchema = { properties: { type: { type: "string" } }, required: ["type"] };

/**
 * The input schema as listed in tools/list (same conversion the SDK applies),
 * without `$schema`: every listing would repeat it, and the schemas use
 * nothing that differs between draft-07 and the MCP default dialect.
 */
export function advertisedInputSchema(input: z.ZodObject): JsonSchema {
  return toJson(input, "input");
}

/**
 * The output schema as listed in tools/list: the tool's own result or a
 * buffered response. `buffered: false` for a tool whose results are never
 * buffered (it pages natively, `ToolDef.pagesNatively`): its own result only.
 */
export function advertisedOutputSchema(output: z.ZodObject, { buffered = true } = {}): JsonSchema {
  if (!buffered) return toJson(output, "output");
  // Both branches are objects: the outer `type` says so once.
  const { type: _object, ...own } = toJson(output, "output");
  return { type: "object", anyOf: [own, bufferedJson] };
}
