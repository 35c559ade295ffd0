/**
 * Resolving a model's `target` (tmux target syntax: `name`, `$3`, `@7`, `%12`,
 * `session:window.pane`) to stable ids, with one tmux call.
 *
 * A missing target means the active pane of the most recently used session;
 * the result says so (`defaulted: true`) so the agent learns which pane it
 * got. Unknown or ambiguous targets become errors that name the listing tool
 * to call.
 *
 * @example
 * ```ts
 * const t = await resolveTarget(tmux, "main:0.1");
 * t.pane_id; // "%3"
 * ```
 */
import { z } from "zod";
import { COMMAND_SEPARATOR, TmuxError, type TmuxExecutor } from "./executor.ts";
import { UserError } from "../errors.ts";

export interface ResolvedTarget {
  session_id: string;
  window_id: string;
  pane_id: string;
  /** True when no target was given and the default pane was chosen. */
  defaulted: boolean;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** The `target` parameter shared by every tool that addresses a tmux object. */
export const targetSchema = z.string()
  .min(1, "target must not be empty")
  .max(256, "target is longer than 256 characters")
  .refine((s) => !s.startsWith("-"), "target must not start with '-' (use an id such as %3, @2 or $1)")
  .refine((s) => !CONTROL.test(s), "target must not contain control characters")
  .describe("tmux target: session name, $session_id, @window_id, %pane_id or session:window.pane");

const FIELDS = "#{session_id}\t#{window_id}\t#{pane_id}";

function parseIds(line: string, defaulted: boolean): ResolvedTarget {
  const [session_id, window_id, pane_id] = line.trim().split("\t");
  if (!session_id?.startsWith("$") || !window_id?.startsWith("@") || !pane_id?.startsWith("%")) {
    throw new Error(`unexpected tmux output while resolving a target: ${JSON.stringify(line)}`);
  }
  return { session_id, window_id, pane_id, defaulted };
}

/** Maps tmux's "can't find …"/"ambiguous" errors to a message that says what to call. */
export function targetError(target: string, e: unknown): unknown {
  if (e instanceof TmuxError && e.kind === "failed" && /can't find|ambiguous|not found|no such/i.test(e.message)) {
    const what = /ambiguous/i.test(e.message) ? "ambiguous" : "unknown";
    return new UserError(
      `${what} target ${JSON.stringify(target)} (tmux: ${e.message}): call list-sessions or list-panes ` +
        `and use an id such as %3, @2 or $1`,
    );
  }
  return e;
}

/**
 * Resolves `target` (or the default pane when undefined) to session, window
 * and pane ids. For a session or window target, the ids are those of its
 * active window and pane.
 */
export async function resolveTarget(
  tmux: TmuxExecutor,
  target: string | undefined,
  signal?: AbortSignal,
): Promise<ResolvedTarget> {
  if (target === undefined) return await defaultPane(tmux, signal);
  try {
    // display-message alone never fails on a bad -t: tmux lets its target fail and falls back to the
    // current pane ("main:9" would silently become the active pane of "main"). capture-pane does fail,
    // which stops the command sequence before display-message runs. Its one captured line comes first.
    const out = await tmux.text([
      "capture-pane",
      "-p",
      "-t",
      target,
      "-S",
      "0",
      "-E",
      "0",
      COMMAND_SEPARATOR,
      "display-message",
      "-p",
      "-t",
      target,
      FIELDS,
    ], { signal });
    const body = out.replace(/\n$/, "");
    return parseIds(body.slice(body.lastIndexOf("\n") + 1), false);
  } catch (e) {
    throw targetError(target, e);
  }
}

/** The active pane of the most recently used session. */
async function defaultPane(tmux: TmuxExecutor, signal?: AbortSignal): Promise<ResolvedTarget> {
  const out = await tmux.text([
    "list-panes",
    "-a",
    "-f",
    "#{&&:#{window_active},#{pane_active}}",
    "-F",
    `#{session_activity}\t${FIELDS}`,
  ], { signal });
  let best: { activity: number; line: string } | undefined;
  for (const row of out.split("\n")) {
    if (!row) continue;
    const tab = row.indexOf("\t");
    const activity = Number(row.slice(0, tab));
    if (!best || activity > best.activity) best = { activity, line: row.slice(tab + 1) };
  }
  if (!best) {
    throw new UserError("there is no tmux session on this server: create one with new-session, then retry");
  }
  return parseIds(best.line, true);
}
