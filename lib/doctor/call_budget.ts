/**
 * What doctor says about --call-budget-ms: the longest one tool call blocks,
 * against the tool-call timeouts of the clients that have one.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * checkCallBudget(parseConfig([], {})).detail; // "50000 ms per call (--call-budget-ms) …"
 * ```
 */
import type { Config } from "../config.ts";
import type { CheckResult } from "./check.ts";

/** Codex's default tool_timeout_sec and claude.ai's connector limit, in ms. */
const CLIENT_TIMEOUT_MS = 60_000;
/** Room between the budget and a client's timeout for the answer to travel. */
const MARGIN_MS = 5_000;

/** Informational when the budget fits the 60 s clients; a warning with what to set when it does not. */
export function checkCallBudget(config: Pick<Config, "callBudgetMs" | "maxWaitMs">): CheckResult {
  const b = config.callBudgetMs;
  const needSec = Math.ceil((b + MARGIN_MS) / 1000);
  const clients = `Codex: tool_timeout_sec (default 60) at least ${needSec}; claude.ai: 60 s, fixed; ` +
    `Claude Code: no setting needed (progress every few seconds resets its timeout)`;
  const waits = `a wait or run-command may go on for up to --max-wait-ms ${config.maxWaitMs} ms through ` +
    `continue tokens`;
  if (b + MARGIN_MS > CLIENT_TIMEOUT_MS) {
    return {
      status: "warn",
      name: "call budget",
      detail: `${b} ms per call (--call-budget-ms) is too close to or over the 60 s that Codex (by default) and ` +
        `claude.ai allow a tool call: lower it to at most ${CLIENT_TIMEOUT_MS - MARGIN_MS}, or set ${clients}`,
    };
  }
  return { status: "info", name: "call budget", detail: `${b} ms per call (--call-budget-ms); ${clients}; ${waits}` };
}
