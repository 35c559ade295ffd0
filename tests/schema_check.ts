/**
 * Strict checks of what tools/list advertises and of every result against
 * it: Ajv (already in the dependency tree through the MCP SDK) in strict
 * mode, so a type array (`["string","null"]`) is an error, as MCP Inspector
 * --strict warns about it, and a field the schema lists as `required` must
 * be there.
 *
 * @example
 * ```ts
 * const check = resultChecker(await client.listTools());
 * check("list-buffers", result); // throws with the schema errors when the result does not match
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
