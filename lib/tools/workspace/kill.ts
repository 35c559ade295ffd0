/**
 * kill-pane, kill-window and kill-session are one tool shape: resolve the
 * explicit, exact target (`exactTarget`), refuse if tmux-mcp itself runs in it, kill it by id.
 *
 * @example
 * ```ts
 * export default defineKillTool("pane", "Kills one pane …");
 * ```
 */
import { z } from "zod";
import type { AnyTool } from "../tool.ts";
import { defineTool } from "../declared.ts";
import { refuseSelfKill } from "../../tmux/self.ts";
import { refuseLinkedOutOfView } from "../../tmux/scope.ts";
import { noted, targetIds } from "./common.ts";
import { resolvedTarget } from "../declared.ts";
import { COMMAND_SEPARATOR } from "../../tmux/executor.ts";
import { parseRows, type Row, rowFormat, type RowSpec } from "../../tmux/rows.ts";

const ID_OF = { pane: "pane_id", window: "window_id", session: "session_id" } as const;

/** Every window link, read in the call that kills: what closes with the object killed. */
const LINK = {
  session_id: ["session_id", "id"],
  window_id: ["window_id", "id"],
  windows: ["session_windows", "int"],
  panes: ["window_panes", "int"],
  exitEmpty: ["exit-empty", "bool"],
} as const satisfies RowSpec;

/**
 * What closed with the object killed, as a note (undefined: nothing more): tmux closes a window with its last
 * pane, a session with its last window (in every session the window is linked into), and by default the server
 * with its last session, all without a word.
 */
function closedWith(
  kind: "pane" | "window" | "session",
  t: { session_id: string; window_id: string },
  links: readonly Row<typeof LINK>[],
): string | undefined {
  const mine = links.filter((l) => l.window_id === t.window_id);
  const windowGone = kind === "window" || (kind === "pane" && mine.some((l) => l.panes === 1));
  const closed = kind === "session"
    ? [t.session_id]
    : windowGone
    ? mine.filter((l) => l.windows === 1).map((l) => l.session_id)
    : [];
  const said: string[] = [];
  if (kind === "pane" && windowGone) said.push(`window ${t.window_id} closed with its last pane`);
  if (kind !== "session" && closed.length > 0) {
    said.push(`session${closed.length > 1 ? "s" : ""} ${closed.join(", ")} closed with its last window`);
  }
  if (closed.length > 0 && links[0]?.exitEmpty && links.every((l) => closed.includes(l.session_id))) {
    said.push(
      'no session is left, so the tmux server exited: new (what: "session") starts another, whose ids start ' +
        "again at $0, @0 and %0",
    );
  }
  return said.length > 0 ? said.join("; ") : undefined;
}

/** The kill tool for one kind of tmux object; `description` is what the model reads. */
export function defineKillTool(kind: "pane" | "window" | "session", description: string): AnyTool {
  return defineTool({
    name: `kill-${kind}`,
    title: `Kill a ${kind}`,
    description:
      `${description} The target is required and must be exact (an id or an exact name: prefixes and globs are refused). Refused for the ${kind} tmux-mcp itself runs in.`,
    toolset: "workspace",
    tier: "destructive",
    smallResult: true,
    target: kind,
    exactTarget: true,
    input: z.object({}),
    output: z.object({ ...targetIds, killed: z.literal(kind) }),
    secrets: [],
    async handler(_args, ctx) {
      const { defaulted: _given, ...t } = resolvedTarget(ctx);
      await refuseSelfKill(ctx.tmux, kind, t, { signal: ctx.signal });
      // A session's windows linked elsewhere survive there: only a window or pane is shared.
      if (kind !== "session") {
        await refuseLinkedOutOfView(ctx.tmux, t.window_id, `${kind} ${t[ID_OF[kind]]}`, ctx.signal);
      }
      const out = await ctx.tmux.run([
        ...["list-windows", "-a", "-F", rowFormat(LINK)],
        COMMAND_SEPARATOR,
        ...[`kill-${kind}`, "-t", t[ID_OF[kind]]],
      ], { signal: ctx.signal });
      return noted({ ...t, killed: kind }, closedWith(kind, t, parseRows(LINK, out).rows));
    },
  });
}
