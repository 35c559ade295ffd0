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
import { type Risk, selfGuardRefusal } from "../../policy/options.ts";
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
