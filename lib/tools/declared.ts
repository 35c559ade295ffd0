/**
 * What a tool entry declares and the pipeline does for it before its
 * handler runs (the model: tmux's `cmd_entry`, where a command declares its
 * target and tmux resolves it before `exec`): resolve the declared target
 * (exactly, for `exactTarget` tools; omitted: the current pane or the
 * entry's `targetDefault`) and check the declared wait bound
 * against --max-wait-ms. Families run it for the member they dispatch to;
 * tools whose target depends on other arguments call {@linkcode resolve}.
 *
 * @example
 * ```ts
 * declare const [tool, args, ctx]: Parameters<typeof enter>; // the entry, its validated arguments, the call's context
 * const ready = await enter(tool, args, ctx); // ready.target: { session_id, window_id, pane_id, defaulted }
 * await tool.handler(args, ready);
 * ```
 */
import { z } from "zod";
import type { AnyTool, ToolContext, ToolDef } from "./tool.ts";
import { targetParam } from "./schemas.ts";
import { checkTimeout } from "../exec/wait.ts";
import { asKind, exactKind, exactTarget, resolvedOf, type ResolvedTarget, resolveTarget } from "../tmux/target.ts";
import { getPane, SHELL_FACTS } from "../tmux/panes.ts";
import { windowSessions } from "../tmux/scope.ts";
import type { TmuxArg } from "../tmux/executor.ts";
import { UserError } from "../errors.ts";

/**
 * A tool entry as the registry holds it, with type inference so an entry
 * reads as a declaration. A declared `target` kind gives the input its
 * `target` parameter (first, described by {@linkcode targetParam}), so the
 * kind is written once.
 */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): AnyTool {
  if (def.target === undefined) return def as unknown as AnyTool;
  if ("target" in def.input.shape) {
    throw new Error(`${def.name}: the target parameter comes from the declared kind; drop it from input`);
  }
  const param = targetParam(def.target, { exact: def.exactTarget });
  const target = def.exactTarget || def.targetRequired ? param : param.optional();
  return { ...def, input: z.object({ target, ...def.input.shape }) } as unknown as AnyTool;
}

/** The context a tool's handler gets: resolved target and checked wait bound, per its declaration. */
export async function enter(tool: AnyTool, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolContext> {
  const ready: ToolContext = tool.exactTarget ? { ...ctx, exactTarget: true } : ctx;
  if (tool.waitBound) {
    const ms = args[tool.waitBound];
    // A default above this server's limit is lowered to it (the caller asked for no bound); a given one is refused.
    if (typeof ms === "number" && ctx.given && !ctx.given.has(tool.waitBound)) {
      args[tool.waitBound] = Math.min(ms, ctx.config.maxWaitMs);
    } else if (typeof ms === "number") checkTimeout(ms, ctx.config.maxWaitMs);
  }
  if (!tool.target || tool.targetless?.(args)) return ready;
  const read = tool.targetRead;
  if (typeof args.target === "string") {
    // An exact tool refuses relative targets (exactTarget) and larger objects rather than reading them.
    const given = tool.exactTarget ? exactKind(tool.target, args.target) : asKind(tool.target, args.target);
    const target = await resolve(ready, given, read, args.target);
    if (tool.target === "session") await refuseLinkedWindowSession(ready, args.target, target.window_id);
    return { ...ready, target };
  }
  const derived = tool.targetDefault?.(args);
  try {
    return { ...ready, target: await resolve(ready, derived?.target, read) };
  } catch (e) {
    throw derived && e instanceof UserError ? new UserError(derived.gone) : e;
  }
}

/**
 * Refuses a session tool's target that is a window or pane id (`@2`, `%3`) of a window linked into several
 * sessions: tmux picks one of them (its most recently used), not necessarily the one the model read the id in.
 */
export async function refuseLinkedWindowSession(ctx: ToolContext, target: string, windowId: string): Promise<void> {
  if (!/^[@%]\d+$/.test(target)) return;
  const sessions = new Set(await windowSessions(ctx.tmux, windowId, ctx.signal));
  if (sessions.size < 2) return;
  // Under scope only the sessions in view count: the target was resolved in the one of them, if one.
  const inView = ctx.tmux.scope ? await ctx.tmux.scope.sessions(ctx.tmux, ctx.signal) : undefined;
  const named = [...sessions].filter((id) => !inView || inView.has(id));
  if (named.length < 2) return;
  throw new UserError(
    `target ${JSON.stringify(target)} is in window ${windowId}, which is linked into several sessions, so it names ` +
      `none of them: pass the session's id (${named.join(", ")}) or its exact name; nothing was done`,
  );
}

/** The target the pipeline resolved for a tool that declares one (an internal error otherwise). */
export function resolvedTarget(ctx: ToolContext): ResolvedTarget {
  if (!ctx.target) throw new Error("this tool does not declare a target, so none was resolved");
  return ctx.target;
}

/**
 * Resolves a target (undefined → default pane) and records its ids for the
 * audit line. For a tool declared `exactTarget`, the target must be given and
 * exact ({@linkcode exactTarget}: ids or exact names, no prefixes or globs); for any other, a window index must
 * be one a window has (getPane checks it). `read`: commands for the resolved pane run in the same tmux call (a
 * tool's `targetRead`); their output comes back as the target's `read`. `given`: the target as the model wrote it,
 * which errors name, where `target` is its rewrite for the tool's kind (`:{last}` for a window's `{last}`).
 */
export async function resolve(
  ctx: ToolContext,
  target: string | undefined,
  read?: (paneTarget: string) => TmuxArg[],
  given: string | undefined = target,
): Promise<ResolvedTarget> {
  if (ctx.exactTarget && target === undefined) {
    throw new UserError("this tool needs an explicit target: pass an id such as %3, @2 or $1, or an exact name");
  }
  const exact = target !== undefined && ctx.exactTarget ? await exactTarget(ctx.tmux, target, ctx.signal) : target;
  // Errors name the target as the model wrote it, not its rewrite (`$1:0.1` for `w1:0.1`, `:{last}` for `{last}`).
  const shown = exact === given ? undefined : given;
  let t: ResolvedTarget;
  if (read) {
    const { pane, defaulted, output } = await getPane(ctx.tmux, exact, {
      signal: ctx.signal,
      then: read,
      facts: SHELL_FACTS,
      shown,
    });
    t = { ...resolvedOf(pane, defaulted), read: { pane, output } };
  } else {
    t = await resolveTarget(ctx.tmux, exact, ctx.signal, shown);
  }
  ctx.noteTarget({ session_id: t.session_id, window_id: t.window_id, pane_id: t.pane_id });
  return t;
}
