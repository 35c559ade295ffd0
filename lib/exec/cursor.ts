/**
 * capture-since cursors: an opaque string that carries a pane, the process
 * running in it (a respawned pane is a different stream) and a
 * {@linkcode Position} in its output.
 *
 * A cursor comes back from a model, so decoding validates every field; a
 * damaged one is a clear error, never a wrong read.
 *
 * @example
 * ```ts
 * declare const pos: Cursor["pos"]; // where reading stopped
 * const c = encodeCursor({ pane: "%3", pid: 4242, pos });
 * decodeCursor(c).pos; // pos
 * ```
 */
import { z } from "zod";
import { UserError } from "../errors.ts";
import type { Position } from "../tmux/grid.ts";

export interface Cursor {
  pane: string;
  /** pane_pid when taken (null for a pane without a process). */
  pid: number | null;
  pos: Position;
}

const PREFIX = "tmc1.";
/**
 * tmux counts rows in 32 bits (history-limit is at most INT_MAX), so no
 * cursor it produced exceeds this; a larger number is a forged cursor.
 */
const MAX_ROW = 2 ** 32;
const nat = z.number().int().min(0).max(MAX_ROW);
const hash = z.string().max(16).regex(/^[0-9a-z]*$/);
const WIRE = z.object({
  p: z.string().regex(/^%\d{1,10}$/),
  q: nat.nullable(),
  r: nat,
  x: nat.max(100_000),
  a: hash,
  b: hash,
  h: nat,
}).strict();

/** Encodes a cursor as `tmc1.` + base64url(JSON). */
export function encodeCursor(c: Cursor): string {
  const wire: z.infer<typeof WIRE> = {
    p: c.pane,
    q: c.pid,
    r: c.pos.row,
    x: c.pos.x,
    a: c.pos.above,
    b: c.pos.head,
    h: c.pos.hs,
  };
  const b64 = btoa(JSON.stringify(wire)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  return PREFIX + b64;
}

const INVALID = "cursor is not one that capture-since returned (damaged or from another tool): pass the cursor " +
  "string exactly as returned, or omit cursor to start over with the current screen";

/** Decodes and validates a cursor; throws a UserError that says what to do. */
export function decodeCursor(s: string): Cursor {
  if (!s.startsWith(PREFIX)) throw new UserError(INVALID);
  let wire: z.infer<typeof WIRE>;
  try {
    const json = atob(s.slice(PREFIX.length).replaceAll("-", "+").replaceAll("_", "/"));
    wire = WIRE.parse(JSON.parse(json));
  } catch {
    throw new UserError(INVALID);
  }
  return { pane: wire.p, pid: wire.q, pos: { row: wire.r, x: wire.x, above: wire.a, head: wire.b, hs: wire.h } };
}

/** The cursor parameter's schema (length-bounded; content is checked by {@linkcode decodeCursor}). */
export const cursorSchema = z.string().min(1).max(512).describe("from the previous call");
