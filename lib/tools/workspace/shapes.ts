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
