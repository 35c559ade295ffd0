/**
 * Strict checks of what tools/list advertises and of every result against
 * it: Ajv (already in the dependency tree through the MCP SDK) in strict
 * mode, so a type array (`["string","null"]`) is an error, as MCP Inspector
 * --strict warns about it, and a field the schema lists as `required` must
 * be there.
 *
 * @example
 * ```ts
 * declare const tools: ListedTool[]; // tools/list's answer
 * declare const result: unknown; // a list-buffers call's structuredContent
 * checkResult(tools.find((t) => t.name === "list-buffers"), result); // throws with the schema errors on a mismatch
 * ```
 */
import { Ajv, type ValidateFunction } from "ajv";

const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: false, validateFormats: false });

/** Compiled validators by schema text: every client of a test process shares them. */
const compiled = new Map<string, ValidateFunction>();

/** A strict validator for one JSON Schema; throws when the schema itself is not strict (e.g. a type array). */
export function strictValidator(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    const { $schema: _drop, ...rest } = schema;
    v = ajv.compile(rest);
    compiled.set(key, v);
  }
  return v;
}

/** Type arrays (`type: [...]`) anywhere in a schema, as JSON pointers. */
export function typeArrays(node: unknown, path = ""): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => typeArrays(n, `${path}/${i}`));
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === "type" && Array.isArray(v) ? [`${path}/type`] : typeArrays(v, `${path}/${k}`)
  );
}

const CONSTRAINING = new Set([
  ...["type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"],
  ...["maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema"],
  ...["maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties"],
  ...["required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains"],
  ...["additionalItems", "unevaluatedItems", "properties", "patternProperties", "additionalProperties"],
  ...["unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref", "$dynamicRef"],
  "$recursiveRef",
]);
const BOOLEAN_OK = new Set(["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"]);
const MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"];
const ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const ONE_KEYWORDS = [
  ...["items", "contains", "not", "propertyNames", "if", "then", "else", "additionalProperties"],
  ...["unevaluatedProperties", "additionalItems", "unevaluatedItems", "contentSchema"],
];

/**
 * What MCP Inspector's `--strict` reports on a tool schema (its
 * `lintToolSchemas`, read from @modelcontextprotocol/inspector 2.12.0):
 * a `type` array, a `$ref` outside the document, a subschema that
 * constrains nothing (`{}`), a bare boolean where a schema object is
 * expected (`true`/`false` are fine only under additionalProperties and its
 * kin). Returned as `path: rule` lines; none means the Inspector is silent.
 */
export function inspectorFindings(node: unknown, path = "", keyword?: string): string[] {
  if (typeof node === "boolean") return keyword && BOOLEAN_OK.has(keyword) ? [] : [`${path}: boolean-schema`];
  if (node === null || typeof node !== "object" || Array.isArray(node)) return [];
  const n = node as Record<string, unknown>;
  const out: string[] = [];
  if (Array.isArray(n.type)) out.push(`${path}: type-union`);
  if (typeof n.$ref === "string" && n.$ref !== "" && !n.$ref.startsWith("#")) out.push(`${path}: remote-ref`);
  const constrains = Object.keys(n).some((k) => CONSTRAINING.has(k)) || ("if" in n && ("then" in n || "else" in n));
  if (!constrains && keyword !== "not") out.push(`${path || "/"}: untyped-schema`);
  for (const k of MAP_KEYWORDS) {
    const map = n[k];
    if (map === null || typeof map !== "object" || Array.isArray(map)) continue;
    for (const [name, sub] of Object.entries(map)) out.push(...inspectorFindings(sub, `${path}/${k}/${name}`, k));
  }
  for (const k of ARRAY_KEYWORDS) {
    const arr = n[k];
    if (Array.isArray(arr)) arr.forEach((sub, i) => out.push(...inspectorFindings(sub, `${path}/${k}/${i}`, k)));
  }
  for (const k of ONE_KEYWORDS) {
    if (!(k in n)) continue;
    const v = n[k];
    if (k === "items" && Array.isArray(v)) {
      v.forEach((sub, i) => out.push(...inspectorFindings(sub, `${path}/items/${i}`, k)));
    } else out.push(...inspectorFindings(v, `${path}/${k}`, k));
  }
  return out;
}

/** Object schemas with properties but no `required` list, as JSON pointers. */
export function missingRequired(node: unknown, path = ""): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => missingRequired(n, `${path}/${i}`));
  if (node === null || typeof node !== "object") return [];
  const n = node as Record<string, unknown>;
  const here = n.properties && Object.keys(n.properties).length && !Array.isArray(n.required) ? [path || "/"] : [];
  return [...here, ...Object.entries(n).flatMap(([k, v]) => missingRequired(v, `${path}/${k}`))];
}

export interface ListedTool {
  name: string;
  outputSchema?: Record<string, unknown>;
}

/** Checks a tool's structured result against its advertised output schema; throws a readable error. */
export function checkResult(tool: ListedTool | undefined, structured: unknown): void {
  if (!tool?.outputSchema) return;
  const validate = strictValidator(tool.outputSchema);
  if (!validate(structured)) {
    throw new Error(
      `${tool.name} returned a result that does not match its advertised output schema: ` +
        `${ajv.errorsText(validate.errors)}\nresult: ${JSON.stringify(structured).slice(0, 1000)}`,
    );
  }
}
