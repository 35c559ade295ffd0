/**
 * Input pieces shared by the pty-* tools.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const input = z.object({ pty_id: ptyId, rows: rows.default(24), cols: cols.default(80) });
 * ```
 */
import { z } from "zod";
import { SESSION_ID_PATTERN } from "../../terminal/backend.ts";

/** A pty session id, as returned by pty-launch. */
export const ptyId = z.string()
  .regex(
    SESSION_ID_PATTERN,
    "pty_id is 1-64 letters, digits, _ or -, starting with a letter or digit (as pty-launch returns it)",
  );

/** Terminal height in rows. */
export const rows = z.number().int().min(2).max(500);

/** Terminal width in columns. */
export const cols = z.number().int().min(10).max(1000);

/**
 * A pty tool's former snake_case name (`pty_launch` for `pty-launch`), for its `replaces`: a call to the
 * old name gets the new one in its error.
 */
export function formerName(name: string): Record<string, string> {
  return { [name.replaceAll("-", "_")]: name };
}
