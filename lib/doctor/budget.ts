/**
 * The response-budget config file (`--config`) parses and names only known
 * keys and tools, checked by the loader the server uses at startup.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * checkBudgetConfig(parseConfig(["--config", "budgets.jsonc"], {}));
 * ```
 */
import type { Config } from "../config.ts";
import { loadBudgetSettings } from "../budget/settings.ts";
import { TOOLS } from "../tools/mod.ts";
import { budgetToolNames } from "../tools/tool.ts";
import { type CheckResult, messageOf } from "./check.ts";

/** Always needed: the server refuses to start with a bad file. */
export function checkBudgetConfig(config: Config): CheckResult {
  try {
    const s = loadBudgetSettings(config, budgetToolNames(TOOLS));
    const where = config.configPath ? `${config.configPath} valid` : "no --config file (defaults)";
    return { status: "ok", name: "config", detail: `${where}: ${s.maxTokensPerResponse} tokens per response` };
  } catch (e) {
    return { status: "fail", name: "config", detail: `${messageOf(e)}: fix the file or drop --config` };
  }
}
