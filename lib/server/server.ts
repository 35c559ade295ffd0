/**
 * Builds the MCP server: services from the configuration, our own
 * `tools/list` (each served tool's schemas and annotations) and `tools/call`
 * routed through the one pipeline, which also answers calls to tools that are
 * not served with a clear refusal instead of a bare "not found".
 *
 * The tool table (`lib/tools/mod.ts`, with the response budgets) is the
 * largest part of the module graph and neither `initialize` nor `tools/list`
 * needs it: `tools/list` reads the table's listing from its file
 * (lib/server/listing.ts), and the table is imported once that answer is on
 * its way, or by the first request that needs it (`tools/call`, prompts).
 * Not sooner: evaluating modules blocks the event loop, so an import started
 * at once delayed the `initialize` answer by all of it, and one started at
 * `notifications/initialized` the `tools/list` answer.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * const app = await createApp(parseConfig(["--socket-name", "work"], {}));
 * await app.mcp.connect(new StdioServerTransport());
 * // ... on exit:
 * await app.close();
 * ```
 */
import {
  AjvJsonSchemaValidator,
  type CallToolResult,
  ErrorCode,
  type JsonSchemaValidatorProvider,
  ListToolsRequestSchema,
  McpError,
  McpServer,
  type Tool,
} from "../sdk.ts";
import type { Config } from "../config.ts";
import { sweepLeftovers } from "./sweep.ts";
import { createSearchPool } from "../search/worker_pool.ts";
import { createHosts } from "./hosts.ts";
import { type AnyTool, neverBuffered, type Services } from "../tools/tool.ts";
import { VERSION } from "../version.ts";
import { log } from "../log.ts";
import { type AuditSink, createAuditSink } from "./audit.ts";
import type { DirectHandler } from "./transport.ts";
import { type BudgetSettings, loadBudgetSettings } from "../budget/settings.ts";
import { listedTools, listing } from "./listing.ts";
import type { CallExtra, Pipeline } from "./pipeline.ts";
import { registerResources } from "./resources.ts";
import { registerPrompts } from "./prompts.ts";
import {
  BUFFER_SEARCH_DOC,
  EXACT_MATCHING,
  NAME_MATCHING,
  OMITTED_TARGET,
  PANE_SEARCH_DOC,
  SEARCH_DOC,
  SIMILARITY_DOC,
} from "../tools/docs.ts";

export interface App {
  mcp: McpServer;
  services: Services;
  /**
   * Ends every call in flight, and any that arrives later, at shutdown (`why`: the signal): each still
   * answers, with a one-line error saying the server is shutting down.
   */
  stopCalls(why: string): void;
  /**
   * tools/call for a transport that answers it itself (lib/server/transport.ts `direct`): the same
   * checks and pipeline as the SDK's dispatch reaches (see `toolsCall`).
   */
  callTool: DirectHandler;
  /** Releases what the server holds (run on normal exit). */
  close(): Promise<void>;
}

/**
 * Tool calls the server can stop at shutdown. Each call gets a signal that
 * fires when its client cancels it or when the server stops; the SDK's own
 * signal is left alone, because the SDK drops the answer of a request whose
 * signal it aborted. (Linked by hand: a fraction of what AbortSignal.any
 * costs on every call.)
 */
function stoppableCalls(pipeline: () => Promise<Pipeline>) {
  const live = new Set<AbortController>();
  let stopped: string | undefined;
  return {
    async call(name: string, args: unknown, extra: CallExtra): Promise<CallToolResult> {
      const own = new AbortController();
      const follow = () => own.abort(extra.signal.reason);
      if (stopped !== undefined) own.abort();
      else extra.signal.addEventListener("abort", follow, { once: true });
      live.add(own);
      try {
        const r = await (await pipeline()).call(name, args, {
          signal: own.signal,
          _meta: extra._meta,
          sendNotification: extra.sendNotification,
        });
        if (stopped === undefined || !r.isError) return r;
        // The tool's own cancellation message says what was left running; it was not the client that cancelled.
        const text = r.content.map((c) => c.type === "text" ? c.text.replace(" by the client", "") : "").join(" ");
        return { ...r, content: [{ type: "text", text: `the server is shutting down (${stopped}): ${text}` }] };
      } finally {
        live.delete(own);
        extra.signal.removeEventListener("abort", follow);
      }
    },
    stop(why: string): void {
      stopped ??= why;
      for (const c of live) c.abort();
    },
  };
}

/** Server instructions: the intended flow, naming only toolsets the server serves. */
function instructions(config: Config): string {
  const toolsets = config.toolsets;
  const parts = ["tmux-mcp drives tmux."];
  if (toolsets.includes("workspace")) {
    parts.push(
      'Find terminals with list {what: "panes"} or snapshot-pane and use the ids (%3, @2, $1) results return.',
      `Targets: %pane_id, @window_id, $session_id, a session name, session:window or session:window.pane; a ` +
        `session or window means its active pane. ${OMITTED_TARGET} ${NAME_MATCHING} Kill and respawn: ` +
        EXACT_MATCHING,
    );
    if (config.hosts.length > 1) {
      const [first, ...rest] = config.hosts.map((h) => h.name);
      parts.push(
        `Hosts ${[first, ...rest].join(", ")}: HOST::TARGET (${first}::%3) acts on that host, a target without ` +
          `HOST:: on ${first}; a listing without a target covers every host, each row's target names its host.`,
      );
    }
  }
  if (toolsets.includes("workspace") || toolsets.includes("exec") || toolsets.includes("pty")) {
    parts.push(`A wait (timeout_ms) is bounded by the server's --max-wait-ms (${config.maxWaitMs} ms here).`);
  }
  if (toolsets.includes("exec")) {
    parts.push(
      "To run a shell command use run-command (exit code and exactly its output in one call; it runs in the " +
        "pane's own shell, so cd and export persist, and on timeout the command keeps running); to follow output " +
        "use capture-since; to wait use wait (what: text or quiet) instead of polling.",
    );
  }
  if (toolsets.includes("pty")) {
    parts.push(
      "pty_* tools run programs in terminal sessions of their own: pty_launch returns the session_id the others " +
        "take (not a tmux $id); then pty_send_keys and pty_get_screen.",
    );
  }
  if (toolsets.includes("buffers")) {
    parts.push(
      "Paste buffers are a scratch space: set-buffer/append-buffer store text, show-buffer pages through it " +
        "(bytes [offset_bytes, offset_bytes + max_bytes), never cutting a UTF-8 character), search-buffer finds " +
        "things in it.",
    );
  }
  if (toolsets.includes("buffers") || toolsets.includes("workspace")) parts.push(SEARCH_DOC);
  if (toolsets.includes("buffers")) parts.push(BUFFER_SEARCH_DOC, SIMILARITY_DOC);
  if (toolsets.includes("workspace")) parts.push(PANE_SEARCH_DOC);
  parts.push(
    'Every result is bounded: one over the token budget comes back as {type: "buffered_response", note, ' +
      "metadata, buffer_id, suggested_refinements, preview}: a preview (the end of terminal text, the first items " +
      "of lists) plus a tmux buffer holding the full result, to page with show-buffer.",
  );
  const paged = [
    ...(toolsets.includes("buffers") ? ["show-buffer", "search-buffer", "subsearch-buffer"] : []),
    ...(toolsets.includes("workspace") ? ["capture-pane"] : []),
    ...(toolsets.includes("exec") ? ["capture-since"] : []),
  ];
  if (paged.length > 0) {
    parts.push(
      `${paged.join(", ")} page themselves instead: a page that would not fit is cut ` +
        "shorter (truncated_by_budget: true) and says exactly where to continue.",
    );
  }
  parts.push("batch runs several tool calls in one request. Errors say what to do next.");
  return parts.join(" ");
}

/** Long-lived services for a configuration, plus the exit hooks they registered. */
export function createServices(config: Config): { services: Services; runExitHooks(): Promise<void> } {
  const hooks: Array<() => Promise<void>> = [];
  const atExit = (fn: () => Promise<void>) => void hooks.push(fn);
  const regex = createSearchPool();
  // Registered first, so it runs last: every host's exit hooks (lib/server/hosts.ts) come after it.
  atExit(() => Promise.resolve(regex.close()));
  // One set of services per host; the first host's are the server's own (budget buffers, sweeps).
  const { first } = createHosts(config, { regex, atExit });
  const services: Services = { ...first, config };
  return {
    services,
    async runExitHooks() {
      for (const fn of hooks.reverse()) {
        await fn().catch((e) => log("warn", `cleanup failed: ${e instanceof Error ? e.message : String(e)}`));
      }
    },
  };
}

/** A request no handler takes: what the SDK answers for it when no fallback handler is set. */
function methodNotFound(): Error {
  return Object.assign(new Error("Method not found"), { code: ErrorCode.MethodNotFound });
}

/**
 * tools/call, reached two ways: from our stdio transport directly (`App.callTool`,
 * see lib/server/transport.ts), and from any other transport through the SDK's
 * fallback request handler rather than `setRequestHandler` (the SDK's Server
 * wraps a tools/call handler to parse each request twice and each result once
 * more with zod, work the pipeline already does). The
 * transport has checked the JSON-RPC envelope; the name and arguments are
 * checked here, the arguments' contents by the pipeline.
 */
function toolsCall(
  request: { method: string; params?: Record<string, unknown> },
  extra: CallExtra,
  call: (name: string, args: unknown, extra: CallExtra) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  if (request.method !== "tools/call") return Promise.reject(methodNotFound());
  const { name, arguments: args } = request.params ?? {};
  if (typeof name !== "string" || (args !== undefined && (args === null || typeof args !== "object"))) {
    return Promise.reject(
      new McpError(
        ErrorCode.InvalidParams,
        "tools/call needs params.name (a tool name string) and params.arguments (an object, or absent)",
      ),
    );
  }
  return call(name, args, extra);
}

/**
 * The SDK's JSON Schema validator, made on first use: only elicitation uses it, which this server never sends,
 * and making it (Ajv with its formats) at start delayed the answer to `initialize`.
 */
function lazyValidator(): JsonSchemaValidatorProvider {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

/** Every tool (`lib/tools/mod.ts`), imported on demand: most of the server's modules are the tools'. */
export function loadTools(): Promise<readonly AnyTool[]> {
  return import("../tools/mod.ts").then((m) => m.TOOLS);
}

/** The response-budget settings; a `--config` file is checked against the tool names. */
function budgetSettings(config: Config, tools: readonly AnyTool[]): BudgetSettings {
  return loadBudgetSettings(config, tools.map((t) => t.name), tools.filter(neverBuffered).map((t) => t.name));
}

/** The pipeline over the tool table, with the response budgets as its result stage. */
async function toolPipeline(
  tools: readonly AnyTool[],
  settings: BudgetSettings,
  services: Services,
  audit: AuditSink,
): Promise<Pipeline> {
  const [{ createBudget }, { createPipeline }] = await Promise.all([
    import("./budget.ts"),
    import("./pipeline.ts"),
  ]);
  // Budget suggestions name only served tools; the pipeline decides which those are.
  let served: ReadonlySet<string> = new Set();
  const budget = createBudget({ services, settings, tools, isServed: (name) => served.has(name) });
  const pipeline = createPipeline({
    tools,
    services,
    audit,
    stages: [budget.stage],
    pageBudget: budget.pageBudget,
    errorText: budget.trimError,
  });
  served = new Set(pipeline.served.map((t) => t.name));
  return pipeline;
}

/**
 * Builds the server for a configuration; `tools` defaults to every tool, loaded
 * once `initialize` is answered (see the module documentation).
 * Throws a `UsageError` when the response-budget config file is invalid.
 */
export async function createApp(config: Config, tools?: readonly AnyTool[]): Promise<App> {
  // A --config file names tools: it is checked against the tool table before anything starts (a bad one is a
  // usage error). Without one the settings name no tool, and nothing waits for the table.
  if (config.configPath) tools ??= await loadTools();
  const settings = tools ? budgetSettings(config, tools) : loadBudgetSettings(config, []);
  const { services, runExitHooks } = createServices(config);
  const audit = createAuditSink(config.auditLog);
  // Started once initialize is answered, or by the first request that needs the tools (see the module doc).
  let loading: Promise<Pipeline> | undefined;
  const pipeline = () =>
    loading ??= (tools ? Promise.resolve(tools) : loadTools()).then((t) => toolPipeline(t, settings, services, audit));
  const calls = stoppableCalls(pipeline);
  const mcp = new McpServer(
    { name: "tmux-mcp", title: "tmux MCP server", version: VERSION },
    // listChanged: what the SDK's registerTool declares; tools/list and tools/call are ours (below).
    {
      capabilities: { tools: { listChanged: true } },
      instructions: instructions(config),
      jsonSchemaValidator: lazyValidator(),
    },
  );
  // Our own tools/list: the SDK lists only plain object output schemas, and
  // ours admit a buffered response too (see lib/budget/schema.ts). The tool
  // table's listing is read from its file (lib/server/listing.ts), so the
  // client's first request after initialize does not wait for the tool
  // modules to load; a table given to createApp is listed itself.
  // The tools load once the answer is on its way, or on the first call.
  let listed: Promise<{ tools: Tool[] }> | undefined;
  const preload = () =>
    setTimeout(
      () =>
        void pipeline().catch((e) =>
          log("error", `the tools could not be loaded: ${e instanceof Error ? e.message : String(e)}`)
        ),
      0,
    );
  mcp.server.setRequestHandler(
    ListToolsRequestSchema,
    () =>
      listed ??= (tools ? pipeline().then((p) => p.served.map(listing)) : listedTools(config))
        .then((list) => ({ tools: list }))
        .finally(preload),
  );
  // tools/call is the pipeline: it gates, validates and audits every call, including calls to tools that
  // are not listed. The SDK's own handler (installed because the options declare the tools capability) goes.
  mcp.server.removeRequestHandler("tools/call");
  mcp.server.fallbackRequestHandler = (request, extra) => toolsCall(request, extra as CallExtra, calls.call);
  const callTool: DirectHandler = (params, signal) =>
    toolsCall({ method: "tools/call", params }, {
      signal,
      _meta: params?._meta as CallExtra["_meta"],
      // As the SDK's sendNotification: nothing once the call is cancelled.
      sendNotification: (n) => signal.aborted ? Promise.resolve() : mcp.server.notification(n),
    }, calls.call);
  // Resources and prompts are views of the workspace: served with its toolset.
  if (config.toolsets.includes("workspace")) {
    registerResources(mcp, services);
    registerPrompts(mcp, async () => new Set((await pipeline()).served.map((t) => t.name)));
  }
  // What servers killed with SIGKILL left (temp files, result buffers), in the background, whether or not any
  // call comes: once initialize is answered, as its spawns held up that answer.
  mcp.server.oninitialized = () => void sweepLeftovers(services);
  return {
    mcp,
    services,
    stopCalls: calls.stop,
    callTool,
    async close() {
      // The lines of calls already answered first (cleanup is bounded and may be cut), then those it ended.
      await audit.flush?.();
      // The budget registers its exit hook (its result buffers) with the tools, if they were loaded.
      await loading?.catch(() => {});
      await runExitHooks();
      await audit.flush?.();
      await mcp.close().catch(() => {});
    },
  };
}
