/**
 * Response-budget settings: defaults, the `--config` file (JSON or JSONC)
 * and `--max-tokens`. A bad file is a startup error that names the key, so a
 * typo never silently turns budgets off.
 *
 * File format (every key optional):
 * ```jsonc
 * {
 *   "maxTokensPerResponse": 25000, // --max-tokens overrides this
 *   "defaultMaxDepth": 3,          // previews summarize deeper nesting
 *   "enableBuffering": true,       // false: results are never budgeted
 *   "bufferTTL": 600000,           // ms a result buffer is kept
 *   "autoTruncate": false,         // true: over-budget results become the preview only
 *   "toolConfigs": { "capture-pane": { "maxTokens": 8000, "maxDepth": 4, "alwaysBuffer": false } }
 * }
 * ```
 *
 * @example
 * ```ts
 * declare const config: Parameters<typeof loadBudgetSettings>[0]; // from parseConfig
 * const tools = { names: ["show-buffer", "capture-pane"], neverBuffered: ["show-buffer"], former: new Map() };
 * const settings = loadBudgetSettings(config, tools);
 * resolveToolBudget(settings, "show-buffer").maxTokens; // 25000
 * ```
 */
import { z } from "zod";
import { type Config, MIN_MAX_TOKENS, UsageError } from "../config.ts";
import { parseJsonc } from "./jsonc.ts";

/** Default token budget of one result. */
export const DEFAULT_MAX_TOKENS = 25_000;
/** Token budget of a preview (capped at half the result budget). */
export const PREVIEW_TOKENS = 2_000;
/** Result buffers kept at once, and their total size; the oldest go first. */
export const MAX_RESULT_BUFFERS = 32;
export const MAX_RESULT_BYTES = 256 * 1024 * 1024;

const MAX_TOKENS = 10_000_000;

function wholeNumber(min: number, max: number) {
  const error = `expected a whole number from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}
const flag = z.boolean({ error: "expected true or false" });

const ToolConfigSchema = z.strictObject({
  maxTokens: wholeNumber(MIN_MAX_TOKENS, MAX_TOKENS).optional(),
  maxDepth: wholeNumber(1, 64).optional(),
  alwaysBuffer: flag.optional(),
}, { error: "expected an object" });

const FileSchema = z.strictObject({
  maxTokensPerResponse: wholeNumber(MIN_MAX_TOKENS, MAX_TOKENS).optional(),
  defaultMaxDepth: wholeNumber(1, 64).optional(),
  enableBuffering: flag.optional(),
  bufferTTL: wholeNumber(100, 7 * 24 * 3600 * 1000).optional(),
  autoTruncate: flag.optional(),
  toolConfigs: z.record(z.string(), ToolConfigSchema, { error: "expected an object" }).optional(),
}, { error: "expected an object" });

export type ToolConfig = z.infer<typeof ToolConfigSchema>;

export interface BudgetSettings {
  maxTokensPerResponse: number;
  defaultMaxDepth: number;
  enableBuffering: boolean;
  /** Milliseconds a result buffer lives. */
  bufferTTL: number;
  autoTruncate: boolean;
  toolConfigs: Record<string, ToolConfig>;
}

/** What the budget stage applies to one tool. */
export interface ToolBudget {
  maxTokens: number;
  maxDepth: number;
  alwaysBuffer: boolean;
}

export function defaultBudgetSettings(): BudgetSettings {
  return {
    maxTokensPerResponse: DEFAULT_MAX_TOKENS,
    defaultMaxDepth: 3,
    enableBuffering: true,
    bufferTTL: 10 * 60 * 1000,
    autoTruncate: false,
    toolConfigs: {},
  };
}

/** `a.b.c` for an issue path; `(top level)` for the root. */
function keyOf(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join(".") : "(top level)";
}

/** The tools a `--config` file is checked against (lib/tools/tool.ts `budgetToolNames` makes it from the table). */
export interface BudgetToolNames {
  /** Every tool the server knows. */
  names: readonly string[];
  /** The tools whose results are never buffered: `alwaysBuffer` for one would do nothing. */
  neverBuffered: readonly string[];
  /** Former tool names, each with the tool that replaced it (a file written for an earlier version). */
  former: ReadonlyMap<string, string>;
}

/** No tools: for settings without a `--config` file, which have no tool names to check. */
export const NO_TOOLS: BudgetToolNames = { names: [], neverBuffered: [], former: new Map() };

/**
 * Validates a parsed config file. Throws {@linkcode UsageError} naming the
 * offending key: unknown keys, wrong types, unknown tool names (a former
 * one with the tool that replaced it), and `alwaysBuffer` for a tool whose
 * results are never buffered (it would do nothing).
 */
export function parseBudgetFile(raw: unknown, tools: BudgetToolNames, source: string): BudgetSettings {
  const { neverBuffered } = tools;
  const parsed = FileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === "unrecognized_keys") {
      const at = issue.path.length ? ` in ${keyOf(issue.path)}` : "";
      const allowed = issue.path.length === 0
        ? Object.keys(FileSchema.shape)
        : issue.path[0] === "toolConfigs"
        ? Object.keys(ToolConfigSchema.shape)
        : [];
      throw new UsageError(
        `${source}: unknown key "${issue.keys[0]}"${at}` +
          (allowed.length ? ` (known keys: ${allowed.join(", ")})` : ""),
      );
    }
    throw new UsageError(`${source}: ${keyOf(issue.path)}: ${issue.message}`);
  }
  const file = parsed.data;
  const known = new Set(tools.names);
  // The names as written: a "__proto__" key (an own key of the parsed JSON) is not one of the parsed record's.
  const written = Object.keys((raw as { toolConfigs?: object }).toolConfigs ?? {});
  for (const name of written) {
    const now = tools.former.get(name);
    if (!known.has(name) && now !== undefined) {
      throw new UsageError(
        `${source}: toolConfigs.${name}: the tool ${name} is now ${now}: write toolConfigs.${now} instead (one ` +
          `budget for all of ${now})`,
      );
    }
    if (!known.has(name)) {
      throw new UsageError(
        `${source}: toolConfigs.${name}: unknown tool "${name}" (known tools: ${[...known].sort().join(", ")})`,
      );
    }
  }
  for (const [name, own] of Object.entries(file.toolConfigs ?? {})) {
    if (own?.alwaysBuffer && neverBuffered.includes(name)) {
      throw new UsageError(
        `${source}: toolConfigs.${name}.alwaysBuffer: ${name} results are never buffered ` +
          "(it pages within the budget itself, or returns a small confirmation): remove alwaysBuffer",
      );
    }
  }
  const out = defaultBudgetSettings();
  for (const [k, v] of Object.entries(file)) {
    if (v !== undefined) Object.assign(out, { [k]: v });
  }
  return out;
}

/**
 * The settings for a configuration: defaults, then the `--config` file, then
 * `--max-tokens`. Reads the file synchronously (startup only). `tools` has
 * no default, so that no caller (the doctor) passes a file the server
 * refuses at start.
 */
export function loadBudgetSettings(config: Config, tools: BudgetToolNames): BudgetSettings {
  let settings = defaultBudgetSettings();
  if (config.configPath) {
    const source = `config file ${config.configPath}`;
    let text: string;
    try {
      text = Deno.readTextFileSync(config.configPath);
    } catch (e) {
      throw new UsageError(`${source}: cannot read the file (${e instanceof Error ? e.message : String(e)})`);
    }
    let raw: unknown;
    try {
      raw = parseJsonc(text);
    } catch (e) {
      const why = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 200);
      throw new UsageError(`${source}: not valid JSON/JSONC: ${why}`);
    }
    settings = parseBudgetFile(raw, tools, source);
  }
  if (config.maxTokens !== undefined) settings.maxTokensPerResponse = config.maxTokens;
  return settings;
}

/** The budget one tool gets: its toolConfigs entry over the global settings. */
export function resolveToolBudget(settings: BudgetSettings, toolName: string): ToolBudget {
  const own = settings.toolConfigs[toolName] ?? {};
  return {
    maxTokens: own.maxTokens ?? settings.maxTokensPerResponse,
    maxDepth: own.maxDepth ?? settings.defaultMaxDepth,
    alwaysBuffer: own.alwaysBuffer ?? false,
  };
}
