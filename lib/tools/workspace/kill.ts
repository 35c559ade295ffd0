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
import { AFTER_SERVER, noted, targetIds } from "./common.ts";
import { resolvedTarget } from "../declared.ts";
import { COMMAND_SEPARATOR, type TmuxArg } from "../../tmux/executor.ts";
import { parseRows, type Row, rowFormat, type RowSpec } from "../../tmux/rows.ts";

const ID_OF = { pane: "pane_id", window: "window_id", session: "session_id" } as const;

/** Every window link, read before the kill: what closes with the object killed. */
const LINK = {
  session_id: ["session_id", "id"],
  group: ["session_group", "str"],
  window_id: ["window_id", "id"],
  index: ["window_index", "int"],
  windows: ["session_windows", "int"],
  panes: ["window_panes", "int"],
  exitEmpty: ["exit-empty", "bool"],
} as const satisfies RowSpec;

type Link = Row<typeof LINK>;

/**
 * What a kill closes besides its object: the window, when a pane is its last, and each session whose every
 * window is that window (once, or linked into it several times), with that session's links of it.
 */
function closing(kind: "pane" | "window" | "session", t: { session_id: string; window_id: string }, links: Link[]) {
  const mine = links.filter((l) => l.window_id === t.window_id);
  const windowGone = kind === "window" || (kind === "pane" && mine.some((l) => l.panes === 1));
  const sessions = new Map<string, Link[]>();
  if (windowGone) {
    for (const l of mine) sessions.set(l.session_id, [...sessions.get(l.session_id) ?? [], l]);
    for (const [id, own] of sessions) if (own.length !== own[0].windows) sessions.delete(id);
  }
  return { windowGone, sessions };
}

/**
 * What closed with the object killed, as a note (undefined: nothing more): tmux closes a window with its last
 * pane, a session with its last window (in every session the window is linked into), and by default the server
 * with its last session, all without a word.
 */
function closedWith(
  kind: "pane" | "window" | "session",
  t: { session_id: string; window_id: string },
  links: Link[],
): string | undefined {
  const { windowGone, sessions } = closing(kind, t, links);
  const closed = kind === "session" ? [t.session_id] : [...sessions.keys()];
  const said: string[] = [];
  if (kind === "pane" && windowGone) said.push(`window ${t.window_id} closed with its last pane`);
  if (kind !== "session" && closed.length > 0) {
    said.push(`session${closed.length > 1 ? "s" : ""} ${closed.join(", ")} closed with its last window`);
  }
  if (closed.length > 0 && links[0]?.exitEmpty && links.every((l) => closed.includes(l.session_id))) {
    said.push(`no session is left, so the tmux server exited: ${AFTER_SERVER}`);
  }
  return said.length > 0 ? said.join("; ") : undefined;
}

/**
 * The commands to run before the kill that unlink the window's extra links from each session it closes, leaving
 * one: tmux 3.3a's server crashes, ending every session, when it closes a session that holds one window
 * several times while a control client (this server's connection) is attached. The sessions of a group share
 * their links: once per group.
 */
function unlinkExtra(kind: "pane" | "window" | "session", t: { session_id: string; window_id: string }, links: Link[]) {
  const args: TmuxArg[] = [];
  const groups = new Set<string>();
  for (const [id, [, ...extra]] of closing(kind, t, links).sessions) {
    const group = extra[0]?.group;
    if (group === undefined || (group !== "" && groups.has(group))) continue;
    groups.add(group);
    for (const l of extra) args.push("unlink-window", "-t", `${id}:${l.index}`, COMMAND_SEPARATOR);
  }
  return args;
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
      const links =
        parseRows(LINK, await ctx.tmux.run(["list-windows", "-a", "-F", rowFormat(LINK)], { signal: ctx.signal })).rows;
      await ctx.tmux.run([...unlinkExtra(kind, t, links), `kill-${kind}`, "-t", t[ID_OF[kind]]], {
        signal: ctx.signal,
      });
      return noted({ ...t, killed: kind }, closedWith(kind, t, links));
    },
  });
}
