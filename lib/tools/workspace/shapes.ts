/**
 * Output schemas of the workspace tools, derived from the row specs in
 * `lib/tmux/panes.ts` so a fact added there appears in every result and
 * schema at once.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const output = z.object({ panes: z.array(paneShape) }); // a tool entry's output schema
 * ```
 */
import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import type { FieldKind, RowSpec } from "../../tmux/rows.ts";
import { PANE_SPEC, SESSION_SPEC, WINDOW_SPEC } from "../../tmux/panes.ts";

const KIND: Record<FieldKind, () => z.ZodType> = {
  "str": () => z.string(),
  "id": () => z.string(),
  "str?": () => z.string().nullable(),
  "int": () => z.number().int(),
  "int?": () => z.number().int().nullable(),
  "bool": () => z.boolean(),
};

function shapeOf(spec: RowSpec): z.ZodObject {
  return z.object(Object.fromEntries(Object.entries(spec).map(([k, [, kind]]) => [k, KIND[kind]()])));
}

export const sessionShape = shapeOf(SESSION_SPEC);
export const windowShape = shapeOf(WINDOW_SPEC);
export const paneShape = shapeOf(PANE_SPEC);

/** The resolved ids every tool that takes a pane target returns (one definition, in common.ts). */
export { resolvedShape } from "./common.ts";

/** An optional pane target: omitted means the active pane of the most recently used session. */
export const paneTarget = targetParam("pane").optional();

/** A target whose session is meant; omitted means tmux's global table (environment, hooks). */
export const sessionOrGlobal = targetParam("session", { omit: "global" }).optional();

/** The `fields` parameter of the listings (panes, windows, sessions): the facts to return, by name. */
export const fieldsParam = z.array(z.string().max(64)).min(1).max(64).optional();

/**
 * The facts `fields` names, checked against a row spec (`what` names its rows): an unknown name is an error
 * that lists the known ones. Undefined (every fact) when `fields` is.
 */
export function chosenFields(fields: readonly string[] | undefined, spec: RowSpec, what: string) {
  if (fields === undefined) return undefined;
  const known = Object.keys(spec);
  const unknown = fields.filter((f) => !known.includes(f));
  if (unknown.length > 0) {
    throw new UserError(
      `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((f) => JSON.stringify(f)).join(", ")} for ` +
        `${what}: fields takes ${known.join(", ")}`,
    );
  }
  return [...new Set(fields)];
}

/** Rows of the chosen fields' values, in their order: the answer of a listing given `fields`. */
export function rowsOf<T extends object>(rows: readonly T[], fields: readonly string[]) {
  return rows.map((r) => fields.map((f) => r[f as keyof T] as string | number | boolean | null));
}

/** The compact answer of a listing: the fields of each row, and one row per object. */
export const compactShape = {
  columns: z.array(z.string()).optional().describe("present with fields or compact: the fields of each row"),
  rows: z.array(z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))).optional()
    .describe("present with columns: one per object"),
};
