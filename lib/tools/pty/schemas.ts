/**
 * Input pieces shared by the pty_* tools.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const input = z.object({ session_id: sessionId, rows: rows.default(24), cols: cols.default(80) });
 * ```
 */
import { z } from "zod";
import { SESSION_ID_PATTERN } from "../../terminal/backend.ts";

/** A pty session id, as returned by pty_launch. */
export const sessionId = z.string()
  .regex(
    SESSION_ID_PATTERN,
    "session_id is 1-64 letters, digits, _ or -, starting with a letter or digit (as pty_launch returns it)",
  );

/** Terminal height in rows. */
export const rows = z.number().int().min(2).max(500);

/** Terminal width in columns. */
export const cols = z.number().int().min(10).max(1000);
