/**
 * What a tool is: one small declarative entry (made with `defineTool`,
 * lib/tools/declared.ts). The pipeline (`lib/server/pipeline.ts`) applies
 * tiers, validation, audit and response budgets to every entry, so a tool
 * only says what it is and does its work.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { bufferName } from "./schemas.ts";
 * import { defineTool } from "./declared.ts";
 * export default defineTool({
 *   name: "delete-buffer",
 *   title: "Delete a tmux buffer",
 *   description: "Deletes one paste buffer. Next: list-buffers.",
 *   toolset: "buffers",
 *   tier: "mutating",
 *   annotations: { destructiveHint: true },
 *   input: z.object({ name: bufferName }),
 *   output: z.object({ deleted: z.string() }),
 *   async handler({ name }, ctx) {
 *     await ctx.buffers.delete(name);
 *     return { structured: { deleted: name } };
 *   },
 * });
 * ```
 */
import type { z } from "zod";
import type { CallToolResult } from "../sdk.ts";
import type { UserError } from "../errors.ts";
import type { Config, Tier, Toolset } from "../config.ts";
import type { TmuxEngine } from "../tmux/engine.ts";
import type { TmuxArg } from "../tmux/executor.ts";
import type { BufferStore } from "../buffers/store.ts";
import type { TerminalBackend } from "../terminal/backend.ts";
import type { ResolvedTarget, TargetKind } from "../tmux/target.ts";
import type { RegexService } from "../search/worker_pool.ts";
import type { ExecRuntime } from "../exec/runtime.ts";
import type { CallControl } from "../exec/context.ts";
import type { Redactor } from "../text/redact.ts";
import type { Asker } from "../ask.ts";
import type { BudgetToolNames } from "../budget/settings.ts";
import { qualify } from "../tmux/hosts.ts";

export type { Tier, Toolset };

/** One host's state, as `list {what: "hosts"}` shows it. */
export interface HostState {
  host: string;
  /** `HOST::`: the host's default pane, and the prefix of every target on it. */
  target: string;
  /** The ssh destination; null for this machine. */
  destination: string | null;
  /** The host of a target without `HOST::`. */
  default: boolean;
  /** Whether its tmux answered just now. */
  connected: boolean;
  tmux_version: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

/** The server's hosts (lib/server/hosts.ts): each one's services, made on first use. */
export interface HostRouter {
  /** Host names in order; the first is the host of a target without `HOST::`. */
  readonly names: readonly string[];
  /** More than one host: results then say their `host` and carry `HOST::` targets. */
  readonly several: boolean;
  /** The services of host `name`; a UserError for a name that is no host. */
  services(name: string): Services;
  /** Records how a call on host `name` ended (an error that is the host's shows in its state). */
  noteOutcome(name: string, error?: unknown): void;
  /**
   * Every host's state, each asked for its tmux version at once, bounded (and by `deadline`, a performance.now()
   * time: the call's budget, so one stalled host never costs the others' states).
   */
  states(signal?: AbortSignal, deadline?: number): Promise<HostState[]>;
}

/**
 * A name this host handed out (a continue token, a buffer) as a later call must give it: `HOST::NAME` on a
 * server with several hosts, where a call without a host goes to the first one; else as it is.
 */
export function hostAddress(services: Pick<Services, "hosts" | "host">, name: string): string {
  return services.hosts?.several && services.host !== undefined ? qualify(services.host, name) : name;
}

/** Long-lived services shared by all tools; built once per server. */
export interface Services {
  config: Config;
  /** Every connection to tmux (lib/tmux/engine.ts); tools call it as a TmuxExecutor. */
  tmux: TmuxEngine;
  buffers: BufferStore;
  /** The backend of the pty-* tools (internal PTY or tmux, per --terminal-backend). */
  terminal: TerminalBackend;
  /** The regex-with-deadline service: every model-supplied regex runs here (lib/search/worker_pool.ts). */
  regex: RegexService;
  /** The exec tools' runs, pane locks and run scripts (lib/exec/runtime.ts). */
  exec: ExecRuntime;
  /** Every host of the server, this one's included (lib/server/hosts.ts); absent in tests that build services. */
  hosts?: HostRouter;
  /** This host's name among `hosts`. */
  host?: string;
  /**
   * Registers cleanup to run when the server exits normally (kill sessions
   * it created, delete result buffers). The hooks run side by side, so one
   * that waits on a stuck tmux does not hold back the others (a pty
   * session's kill) until the exit's bound; those registered `last` (the
   * connections to tmux) run once the others have ended.
   */
  atExit(fn: () => Promise<void>, last?: boolean): void;
}

/**
 * Per-call context handed to a tool's handler: the services, the call's
 * cancellation `signal` and `progress` ({@linkcode CallControl}), and what
 * the pipeline adds. The exec code takes it as an `ExecContext`.
 */
export interface ToolContext extends Services, CallControl {
  /**
   * performance.now() when the client's call began: the call's budget (`--call-budget-ms`) counts from it, for a
   * batch's inner calls too (they share the batch's).
   */
  startedAt: number;
  /**
   * The parameters the caller gave, before defaults were filled in: a wait bound left out takes at most the
   * server's --max-wait-ms, while one given above it is refused (absent: every parameter counts as given).
   */
  given?: ReadonlySet<string>;
  /**
   * Records the tmux objects this call resolved its target to, for the audit
   * line — also when the call then fails or is refused. Ids in the result
   * (session_id, window_id, pane_id) are recorded without this.
   */
  noteTarget(ids: Readonly<Record<string, string>>): void;
  /**
   * Records the `continue` token of a work this call leaves running: an error that ends the call from then on (its
   * cut at the call budget while tmux stalls) names it, so the work can still be followed.
   */
  noteContinue?(token: string): void;
  /**
   * Set for tools declared with `exactTarget: true`: target resolution
   * (`resolve` in lib/tools/declared.ts) accepts only ids and exact names.
   */
  exactTarget?: boolean;
  /**
   * For tools that declare a `target` kind: the ids the pipeline resolved
   * the `target` argument to (omitted: the current pane) before the handler
   * ran. Read it with `resolvedTarget(ctx)` (lib/tools/declared.ts).
   */
  target?: ResolvedTarget;
  /**
   * The response budget of this call, for tools that page natively (see
   * {@linkcode ToolDef.pagesNatively}): whether an output, as the client
   * would receive it, fits. Always true when budgets are off.
   */
  budget: PageBudget;
  /**
   * Stores content in a new result buffer (`mcp-result-…`) on this call's host and returns its name: kept as an
   * over-budget result is (bufferTTL, the 32-buffer and 256 MiB caps, deleted at exit). Undefined, and nothing
   * stored, when the model could not read it back (show-buffer is not served).
   */
  keepResult(content: Uint8Array): Promise<string | undefined>;
  /**
   * Hides secrets in text (lib/text/redact.ts); undefined when redaction is
   * off for this call. The pipeline redacts every text result itself; a tool
   * needs this only for what is not text (a screen drawn as an image).
   */
  redactor?: Redactor;
  /**
   * Runs another tool call through the whole pipeline (toolset and tier
   * gates, validation, audit, budget), as if the client had made it; errors
   * come back as `isError` results. The batch tool is built on this.
   */
  call(name: string, args: unknown): Promise<CallToolResult>;
  /** The human, through the client (elicitation); undefined when the client cannot be asked. */
  ask?: Asker;
}

/** What a natively paged tool asks of the response budget. */
export interface PageBudget {
  fits(out: ToolOutput<unknown>): boolean;
  /**
   * The one-line error for a page that cannot shrink under the budget (`what`: its fixed fields with the least
   * content that moves on), naming the budget and how to raise it, or what to do `instead`: a page over it, or
   * one that skipped what did not fit, would break the budget or lose that content.
   */
  tooSmall(what: string, instead?: string): UserError;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export type ContentBlock = CallToolResult["content"][number];

/** What a handler returns; the pipeline turns it into a CallToolResult. */
export interface ToolOutput<O> {
  /** The structured result; must satisfy the tool's output schema. */
  structured: O;
  /**
   * Content blocks for the model. Default: the structured result as JSON.
   * Tools returning a large text (a buffer slice, a screen) put it first here.
   */
  content?: ContentBlock[];
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** kebab-case, after tmux's own command names (the pty tools: `pty-` and the action). */
  name: string;
  title: string;
  /** Written for a model: what it is for, its limits, what to call next. */
  description: string;
  /** "any": served whatever toolsets are (the batch tool). */
  toolset: Toolset | "any";
  tier: Tier;
  /**
   * Only the hints that differ from what the tier implies
   * ({@linkcode annotationsOf}): a mutating tool that overwrites something
   * says `destructiveHint: true`, one that can be repeated safely
   * `idempotentHint: true`, one that touches the file system or runs programs
   * `openWorldHint: true`.
   */
  annotations?: Partial<ToolAnnotations>;
  input: I;
  output: O;
  /**
   * Top-level input fields that are content rather than identity (text typed,
   * commands, search queries, formats, values): the audit log shows them only
   * as a length and hash, and hides them wherever an error message quotes
   * them. Buffer, session and pane names, targets and paths are identity and
   * stay readable. Every served tool declares this, `[]` when nothing is
   * secret (tests/audit_redaction_test.ts checks the registry).
   */
  secrets?: readonly (keyof z.infer<I> & string)[];
  /**
   * When which arguments are secret depends on the call (a family: the
   * chosen member's own `secrets`); gets the raw arguments. Default: `secrets`.
   */
  secretsOf?: (args: unknown) => readonly string[] | undefined;
  /**
   * For a call the tool's input refuses: the error to give, where the tool can say it better than its schema
   * (a family: its chosen member's own check). Default: the schema's issues.
   */
  inputError?: (args: unknown) => string | undefined;
  /**
   * For response budgets: the field of the structured result that holds
   * terminal text, whose END is kept in previews (where errors and prompts are).
   */
  textField?: string;
  /**
   * For response budgets: the result's `results` list holds other tools'
   * results (batch: `{tool, ok, result | text | error}`). Over budget, its
   * largest inner results are each kept in a result buffer of their own, with
   * their own tool's preview, so every call's outcome stays in view.
   */
  innerResults?: true;
  /**
   * For response budgets: tool-specific next calls suggested when a result
   * is over budget, e.g. `"pass max_lines: 100"`. Declarative text only; the
   * budget stage adds the paging and search calls for the result buffer.
   */
  refinements?: readonly string[];
  /**
   * The tool acts only on an exact target (ids or exact names; prefixes and
   * globs refused): destructive tools, where tmux's fuzzy name matching
   * would pick the wrong victim. Resolution sees it as `ctx.exactTarget`.
   */
  exactTarget?: boolean;
  /**
   * The kind of tmux object the `target` parameter names. Declared, the
   * pipeline resolves `target` (omitted: the current pane, with its window
   * and session) before the handler runs, records the ids for the audit line
   * and hands them over as `ctx.target`; a bad target never reaches the
   * handler. The input's `target` parameter is made from it
   * (`defineTool`, lib/tools/declared.ts: `targetParam(kind)`, optional
   * unless `exactTarget` or `targetRequired`); `input` does not declare it.
   */
  target?: TargetKind;
  /**
   * The declared target must be given although the tool is not exact
   * (select-window, select-pane: the current one would be a no-op).
   */
  targetRequired?: true;
  /**
   * Where an omitted `target` comes from when not the current pane: a target
   * taken from other arguments (capture-since: its cursor's pane), and the
   * error to give when that object no longer exists. Undefined: current pane.
   */
  targetDefault?: (args: z.infer<I>) => { target: string; gone: string } | undefined;
  /**
   * Calls that address no pane although the tool declares a target (a wait
   * on a pty session, the continuation of a wait): no target is resolved for
   * them, and `ctx.target` stays unset.
   */
  targetless?: (args: z.infer<I>) => boolean;
  /**
   * tmux commands on the resolved pane (given its target) that run in the same call as the resolution of the
   * declared target: for a handler that reads the pane first thing, one round trip instead of two. Their
   * output, with the pane's facts, comes as `ctx.target.read`.
   */
  targetRead?: (paneTarget: string) => TmuxArg[];
  /**
   * The input field that is a wait in ms (`timeout_ms`): the pipeline
   * refuses a value above the server's --max-wait-ms before the handler runs.
   */
  waitBound?: string;
  /**
   * For response budgets: the tool's input already has a way to continue
   * (an offset, a resume point), so its handler fits the page to
   * `ctx.budget` itself and returns the exact place to continue in the
   * original source. The budget stage never moves such a result into a
   * result buffer.
   */
  pagesNatively?: true;
  /**
   * For response budgets: the result is a small confirmation (ids, counts,
   * flags, and names the call gave or tmux chose), never near any budget a
   * server can be given. It is never moved into a result buffer, so its
   * listing declares its own shape only (a buffered branch would cost every
   * agent bytes for a shape this tool never returns).
   */
  smallResult?: true;
  /**
   * What the audit line records as this call's arguments, when not the
   * arguments themselves (the batch tool: its inner calls are audited one by
   * one). Gets the raw arguments, which may not be valid, and whether a name is one of the server's tools (an
   * unknown name may hold a secret, and is logged only as a fingerprint).
   */
  auditArgs?: (args: unknown, isTool: (name: string) => boolean) => unknown;
  /**
   * Former tool names this one replaced, each with how to call it instead
   * (`{"kill-pane": 'kill with what: "pane"'}`): a call to an old name gets
   * that in its one-line error.
   */
  replaces?: Readonly<Record<string, string>>;
  /** The call's work; `args.target` is the target as given (the declared `target` parameter), resolved in `ctx.target`. */
  handler(args: z.infer<I> & { target?: string }, ctx: ToolContext): Promise<ToolOutput<z.infer<O>>>;
}

/** A tool with its types erased, as the registry holds it. */
export type AnyTool = ToolDef<z.ZodObject, z.ZodObject>;

/**
 * Whether the budget stage leaves every result of the tool as it is: it pages
 * natively or only ever returns a small confirmation.
 *
 * @example
 * ```ts
 * neverBuffered({ pagesNatively: true }); // true
 * ```
 */
export function neverBuffered(tool: Pick<AnyTool, "pagesNatively" | "smallResult">): boolean {
  return tool.pagesNatively === true || tool.smallResult === true;
}

/** What a `--config` file's tool names are checked against, for these tools (the server and the doctor alike). */
export function budgetToolNames(tools: readonly AnyTool[]): BudgetToolNames {
  return {
    names: tools.map((t) => t.name),
    neverBuffered: tools.filter(neverBuffered).map((t) => t.name),
    former: new Map(tools.flatMap((t) => Object.keys(t.replaces ?? {}).map((old) => [old, t.name]))),
  };
}

/**
 * A tool's annotations: derived from its tier (readonly → read-only and
 * idempotent; destructive → destructive; nothing is open-world), with the
 * entry's own hints where they differ.
 */
export function annotationsOf(tool: Pick<AnyTool, "tier" | "annotations">): ToolAnnotations {
  return {
    readOnlyHint: tool.tier === "readonly",
    destructiveHint: tool.tier === "destructive",
    idempotentHint: tool.tier === "readonly",
    openWorldHint: false,
    ...tool.annotations,
  };
}

/**
 * A tool's annotations as tools/list advertises them: only the hints that
 * let a client be less careful than the MCP defaults (readOnlyHint false,
 * destructiveHint true, idempotentHint false, openWorldHint true), and the
 * destructive hint of every tool that writes, either way. Destructive and
 * idempotent mean nothing for a read-only tool. openWorldHint false (no
 * tool reaches beyond tmux and the files it names) is left to the default:
 * no client we know acts on it, and every listing would repeat it.
 *
 * @example
 * ```ts
 * advertisedAnnotations({ tier: "readonly" }); // { readOnlyHint: true }
 * advertisedAnnotations({ tier: "mutating" }); // { destructiveHint: false }
 * ```
 */
export function advertisedAnnotations(tool: Pick<AnyTool, "tier" | "annotations">): Partial<ToolAnnotations> {
  const a = annotationsOf(tool);
  if (a.readOnlyHint) return { readOnlyHint: true };
  return { destructiveHint: a.destructiveHint, ...(a.idempotentHint ? { idempotentHint: true } : {}) };
}

/** The annotations of a read-only tool (what `tier: "readonly"` implies). */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
