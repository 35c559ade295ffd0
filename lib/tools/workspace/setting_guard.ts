/**
 * The one place where a risky setting (lib/policy/options.ts: hooks, aliases,
 * shell-running options and values, risky environment variables) meets the
 * server's safety tier and the self-kill guard. Used by set-option,
 * set-environment and new-session's `env`.
 *
 * @example
 * ```ts
 * declare const ctx: Parameters<typeof guardSetting>[0]; // the call's
 * declare const risk: Parameters<typeof guardSetting>[2]; // optionRisk(name, value), lib/policy/options.ts
 * const value = "run-shell 'tmux kill-server'";
 * await guardSetting(ctx, "set-option", risk, value);
 * // throws RefusedError below --safety destructive, or when the hook would kill our own server
 * ```
 */
import { TIERS } from "../../config.ts";
import { RefusedError } from "../../errors.ts";
import { optionRisk, type Risk, selfGuardRefusal } from "../../policy/options.ts";
import { isScopeOption, SCOPE_TAG } from "../../policy/scope.ts";
import { locateSelf } from "../../tmux/self.ts";
import type { ToolContext } from "../tool.ts";

/** Refuses `risk` (if any) below the destructive tier, and at it when it could end our own pane or server. */
export async function guardSetting(ctx: ToolContext, tool: string, risk: Risk | undefined, body: string) {
  if (!risk) return;
  if (TIERS.indexOf(ctx.config.safety) < TIERS.indexOf("destructive")) {
    throw new RefusedError(
      `${tool} refused: ${risk.what}; that needs the destructive tier and this server runs with --safety ` +
        `${ctx.config.safety}: ask the user to restart it with --safety destructive`,
    );
  }
  const self = await locateSelf(ctx.tmux, { signal: ctx.signal });
  if (!self.inServer) return;
  const why = selfGuardRefusal(risk, body);
  if (why) throw new RefusedError(`${tool} refused: ${why} (found by ${self.evidence.join(" and ")})`);
}

/** Why a global or server-wide setting is refused under a session scope. */
export const OUT_OF_SCOPE_GLOBAL =
  "refused: this server sees only some sessions (--sessions/--scope), and a global or server setting would " +
  "change the others too; set it on a session, window or pane in view";

/**
 * Refuses an option that would change what is in scope: the `@mcp` tag
 * (always: only the user sets it, with tmux itself), and under a session
 * scope global and server settings (they change sessions out of view) and
 * hooks and other options whose value tmux runs as commands (a tmux command
 * can name any session).
 */
export function guardScope(
  ctx: ToolContext,
  option: { base: string; hook: boolean },
  scope: string,
  global: boolean,
): void {
  if (isScopeOption(option.base)) {
    throw new RefusedError(
      `set-option refused: ${SCOPE_TAG} is the tag by which the user puts a session in view of tmux-mcp ` +
        "(--scope tagged); only the user sets or unsets it, with tmux itself",
    );
  }
  if (!ctx.tmux.scope) return;
  if (global || scope === "server") throw new RefusedError(`set-option ${OUT_OF_SCOPE_GLOBAL}`);
  const risk = optionRisk(option, "");
  if (risk?.kind === "commands") {
    throw new RefusedError(
      `set-option refused: ${risk.what}, and a tmux command can act on sessions out of this server's view ` +
        "(--sessions/--scope)",
    );
  }
}
