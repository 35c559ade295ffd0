/**
 * What a tool entry declares and the pipeline does for it before its
 * handler runs (the model: tmux's `cmd_entry`, where a command declares its
 * target and tmux resolves it before `exec`): resolve the declared target
 * (exactly, for `exactTarget` tools; omitted: the current pane or the
 * entry's `targetDefault`) and check the declared wait bound
 * against --max-wait-ms. Families run it for the member they dispatch to.
 *
 * @example
 * ```ts
 * declare const [tool, args, ctx]: Parameters<typeof enter>; // the entry, its validated arguments, the call's context
 * const ready = await enter(tool, args, ctx); // ready.target: { session_id, window_id, pane_id, defaulted }
 * await tool.handler(args, ready);
 * ```
 */
import type { AnyTool, ToolContext } from "./tool.ts";
import { resolve } from "./workspace/common.ts";
import { checkTimeout } from "../exec/wait.ts";
import type { ResolvedTarget } from "../tmux/target.ts";
import { UserError } from "../errors.ts";

/** The context a tool's handler gets: resolved target and checked wait bound, per its declaration. */
export async function enter(tool: AnyTool, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolContext> {
  const ready: ToolContext = tool.exactTarget ? { ...ctx, exactTarget: true } : ctx;
  if (tool.waitBound) {
    const ms = args[tool.waitBound];
    if (typeof ms === "number") checkTimeout(ms, ctx.config.maxWaitMs);
  }
  if (!tool.target) return ready;
  if (typeof args.target === "string") return { ...ready, target: await resolve(ready, args.target) };
  const derived = tool.targetDefault?.(args);
  try {
    return { ...ready, target: await resolve(ready, derived?.target) };
  } catch (e) {
    throw derived && e instanceof UserError ? new UserError(derived.gone) : e;
  }
}

/** The target the pipeline resolved for a tool that declares one (an internal error otherwise). */
export function resolvedTarget(ctx: ToolContext): ResolvedTarget {
  if (!ctx.target) throw new Error("this tool does not declare a target, so none was resolved");
  return ctx.target;
}
