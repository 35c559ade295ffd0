/**
 * Builds the MCP server: services from the configuration, our own
 * `tools/list` (each served tool's schemas and annotations) and `tools/call`
 * routed through the one pipeline, which also answers calls to tools that are
 * not served with a clear refusal instead of a bare "not found".
 *
 * The tool table (`lib/tools/mod.ts`, with the response budgets) is the
 * largest part of the module graph and neither `initialize`,
 * `server/discover` nor `tools/list` needs it: `tools/list` reads the table's listing from its file
 * (lib/server/listing.ts), and the table is imported once that answer is on
 * its way, or by the first request that needs it (`tools/call`, prompts).
 * Not sooner: evaluating modules blocks the event loop, so an import started
 * at once delayed the `initialize` answer by all of it, and one started at
 * `notifications/initialized` the `tools/list` answer.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * import { LinearStdioTransport } from "./transport.ts";
 * const app = await createApp(parseConfig(["--socket-name", "work"], {}));
 * app.serve(new LinearStdioTransport({ maxMessageBytes: 1 << 20, direct: app.direct, refuse: app.refuse }));
 * // ... on exit:
 * await app.close();
 * ```
 */
import {
  AjvJsonSchemaValidator,
  type CacheHint,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type JsonSchemaValidatorProvider,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  serveStdio,
  type StdioServerHandle,
  type Tool,
  type Transport,
} from "../sdk.ts";
import type { Config } from "../config.ts";
import { sweepLeftovers } from "./sweep.ts";
import { createSearchPool } from "../search/worker_pool.ts";
import { createHosts } from "./hosts.ts";
import { type AnyTool, neverBuffered, type Services } from "../tools/tool.ts";
import { VERSION } from "../version.ts";
import { log } from "../log.ts";
import { type AuditSink, createAuditSink } from "./audit.ts";
import type { DirectHandler, Refusal } from "./transport.ts";
import { type ElicitingServer, legacyAsker, modernToolsCall, Parking } from "./ask.ts";
import { type BudgetSettings, loadBudgetSettings } from "../budget/settings.ts";
import { listedTools, listingEntries, servedListing } from "./listing.ts";
import type { CallExtra, Pipeline } from "./pipeline.ts";
import { registerResources } from "./resources.ts";
import { registerPrompts } from "./prompts.ts";
import { instructions } from "./instructions.ts";

export interface App {
  services: Services;
  /**
   * Serves MCP on `transport` (lib/server/transport.ts over stdio), both protocol eras: the connection is locked
   * to the era of its first era-specific message (the SDK's `serveStdio`), one McpServer built for it.
   */
  serve(transport: Transport): StdioServerHandle;
  /**
   * Ends every call in flight, and any that arrives later, at shutdown (`why`: the signal): each still
   * answers, with a one-line error saying the server is shutting down.
   */
  stopCalls(why: string): void;
  /**
   * The requests a transport may answer itself (lib/server/transport.ts `direct`): tools/call once the
   * connection is locked to the 2025 era, with the same checks and pipeline as the SDK's dispatch reaches (see
   * `toolsCall`). A 2026-era call goes through the SDK, which checks its `_meta` envelope and stamps its result.
   */
  direct(method: string): DirectHandler | undefined;
  /**
   * The error for a request of the other era than the connection is locked to (lib/server/transport.ts
   * `refuse`), for what the SDK lets through: on a 2025 connection a request claiming a 2026 revision in its
   * `_meta`, on a 2026 one a request naming a revision this server does not serve.
   */
  refuse(method: string, params: Record<string, unknown> | undefined): Refusal | undefined;
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
        const r = await (await pipeline()).call(name, args, { ...extra, signal: own.signal });
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
  return new ProtocolError(ProtocolErrorCode.MethodNotFound, "Method not found");
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
      new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "tools/call needs params.name (a tool name string) and params.arguments (an object, or absent)",
      ),
    );
  }
  return call(name, args, extra);
}

/**
 * The SDK's JSON Schema validator, made on first use: only the SDK's elicitInput uses it, which this server does
 * not call (lib/server/ask.ts sends elicitation/create and checks the answer itself), and making it (Ajv with its formats) at start delayed the answer to `initialize`.
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
 * How long a client may keep the tool list and the discover answer (2026 era): a server's tools and capabilities
 * are fixed for its life (they follow from its flags), so an hour; private, as another server started with other
 * flags serves another list.
 */
const CACHE_HINT: CacheHint = { ttlMs: 3_600_000, cacheScope: "private" };

/**
 * The 2026-era revisions the SDK serves, as its `server/discover` lists them (the SDK exports only the 2025 list,
 * `SUPPORTED_PROTOCOL_VERSIONS`, which `initialize` negotiates from).
 */
export const MODERN_VERSIONS: readonly string[] = ["2026-07-28"];

/** The protocol revision a request's `_meta` envelope claims, when it claims one. */
function claimedVersion(params: Record<string, unknown> | undefined): unknown {
  const meta = params?._meta;
  return meta !== null && typeof meta === "object"
    ? (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY]
    : undefined;
}

/** -32022, UnsupportedProtocolVersion: the request's revision and the ones this connection serves. */
function unsupportedVersion(requested: unknown, supported: readonly string[]): Refusal {
  return {
    code: ProtocolErrorCode.UnsupportedProtocolVersion,
    message: `Unsupported protocol version: ${String(requested)}`,
    data: { supported, requested },
  };
}

/** The client's capabilities for a request: its own `_meta` envelope (2026 era), else what `initialize` declared. */
function clientCapabilities(server: McpServer, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined ??
    server.server.getClientCapabilities();
}

/**
 * Builds the server for a configuration; `tools` defaults to every tool, loaded
 * once the tool list is answered (see the module documentation).
 * Throws a `UsageError` when the response-budget config file is invalid.
 */
export async function createApp(config: Config, tools?: readonly AnyTool[]): Promise<App> {
  // A --config file names tools: it is checked against the tool table before anything starts (a bad one is a
  // usage error). Without one the settings name no tool, and nothing waits for the table.
  if (config.configPath) tools ??= await loadTools();
  const settings = tools ? budgetSettings(config, tools) : loadBudgetSettings(config, []);
  const { services, runExitHooks } = createServices(config);
  const audit = createAuditSink(config.auditLog);
  // Started once the tool list is answered, or by the first request that needs the tools (see the module doc).
  let loading: Promise<Pipeline> | undefined;
  const pipeline = () =>
    loading ??= (tools ? Promise.resolve(tools) : loadTools()).then((t) => toolPipeline(t, settings, services, audit));
  const calls = stoppableCalls(pipeline);
  /** 2026-era calls waiting for the client's retry with the human's answer; a question unanswered this long times out. */
  const parking = new Parking<CallToolResult>({ ttlMs: config.maxWaitMs });
  // What servers killed with SIGKILL left (temp files, result buffers), in the background, whether or not any
  // call comes: once initialize (or the first 2026 request) is answered, as its spawns would hold up that answer.
  let swept = false;
  const sweep = () => {
    if (!swept) swept = true, void sweepLeftovers(services);
  };
  // Our own tools/list: the SDK lists only plain object output schemas, and
  // ours admit a buffered response too (see lib/budget/schema.ts). The tool
  // table's listing is read from its file (lib/server/listing.ts), so the
  // client's first list does not wait for the tool modules to load; a table
  // given to createApp is listed itself. The tools load once the answer is on
  // its way, or on the first call.
  let listed: Promise<{ tools: Tool[] }> | undefined;
  const preload = () =>
    setTimeout(() => {
      sweep();
      void pipeline().catch((e) =>
        log("error", `the tools could not be loaded: ${e instanceof Error ? e.message : String(e)}`)
      );
    }, 0);
  const listTools = () =>
    listed ??= (tools ? pipeline().then((p) => servedListing(listingEntries(p.served), config)) : listedTools(config))
      .then((list) => ({ tools: list }))
      .finally(preload);
  const instructionText = instructions(config);
  /** The requests of a connection locked to the 2025 era that the transport answers itself (`direct`). */
  let legacy: McpServer | undefined;
  /** The era of the connection's last server: a 2026 one serves a probe or a locked connection, a 2025 one locks. */
  let era: ProtocolEra | undefined;

  /** One McpServer for one connection's era (the SDK may build a 2026 one for a probe and then a 2025 one). */
  const build = ({ era: built }: { era: ProtocolEra }): McpServer => {
    const mcp = new McpServer(
      { name: "tmux-mcp", title: "tmux MCP server", version: VERSION },
      // listChanged: what the SDK's registerTool declares; tools/list and tools/call are ours (below).
      {
        capabilities: { tools: { listChanged: true } },
        instructions: instructionText,
        jsonSchemaValidator: lazyValidator(),
        cacheHints: { "tools/list": CACHE_HINT, "server/discover": CACHE_HINT },
      },
    );
    mcp.server.setRequestHandler("tools/list", listTools);
    // tools/call is the pipeline: it gates, validates and audits every call, including calls to tools that
    // are not listed. The SDK's own handler (installed because the options declare the tools capability) goes.
    mcp.server.removeRequestHandler("tools/call");
    mcp.server.fallbackRequestHandler = (request, ctx) => {
      const extra: CallExtra = {
        signal: ctx.mcpReq.signal,
        _meta: ctx.mcpReq._meta as CallExtra["_meta"],
        era: built,
        clientCapabilities: clientCapabilities(mcp, ctx),
        sendNotification: (n) => ctx.mcpReq.notify(n),
        ...(built === "legacy"
          ? { elicit: (p) => ctx.mcpReq.elicitInput(p) }
          : { inputResponses: ctx.mcpReq.inputResponses, requestState: ctx.mcpReq.requestState<string>() }),
        // The human, through the client: elicitation/create requests (2025 era), when the client declared it.
        ask: built === "legacy" ? legacyAsker(mcp.server as unknown as ElicitingServer) : undefined,
      };
      if (built === "legacy" || request.method !== "tools/call") return toolsCall(request, extra, calls.call);
      // 2026 era: a question ends the round with an input-required result and parks the call under a one-shot
      // requestState; the client's retry carrying it resumes the parked call (lib/server/ask.ts).
      const name = typeof request.params?.name === "string" ? request.params.name : "";
      return modernToolsCall(
        parking,
        { name, requestState: extra.requestState, inputResponses: extra.inputResponses },
        extra.clientCapabilities?.elicitation as { form?: object; url?: object } | undefined,
        (ask) => toolsCall(request, { ...extra, ask }, calls.call),
      ) as Promise<CallToolResult>;
    };
    // Resources and prompts are views of the workspace: served with its toolset.
    if (config.toolsets.includes("workspace")) {
      registerResources(mcp, services);
      registerPrompts(mcp, async () => new Set((await pipeline()).served.map((t) => t.name)));
    }
    era = built;
    if (built === "legacy") {
      legacy = mcp;
      mcp.server.oninitialized = sweep;
    } else {
      // No handshake to wait for: once the first 2026 request (a discover probe, most often) is answered.
      setTimeout(sweep, 0);
    }
    return mcp;
  };

  const callTool: DirectHandler = (params, signal) => {
    const mcp = legacy!;
    return toolsCall({ method: "tools/call", params }, {
      signal,
      _meta: params?._meta as CallExtra["_meta"],
      era: "legacy",
      clientCapabilities: mcp.server.getClientCapabilities(),
      elicit: (p) => mcp.server.elicitInput(p, { signal }),
      // As the SDK's notify: nothing once the call is cancelled.
      sendNotification: (n) => signal.aborted ? Promise.resolve() : mcp.server.notification(n),
      ask: legacyAsker(mcp.server as unknown as ElicitingServer),
    }, calls.call);
  };
  let handle: StdioServerHandle | undefined;
  return {
    services,
    serve(transport) {
      handle = serveStdio(build, { transport, onerror: (e) => log("debug", `mcp: ${e.message}`) });
      return handle;
    },
    stopCalls: (why) => {
      calls.stop(why);
      parking.close();
    },
    direct: (method) => method === "tools/call" && legacy ? callTool : undefined,
    refuse(_method, params) {
      const claimed = claimedVersion(params);
      if (claimed === undefined || era === undefined) return undefined; // the SDK decides the era on its own
      if (era === "legacy") {
        return unsupportedVersion(claimed, [legacy?.server.getNegotiatedProtocolVersion() ?? "2025-11-25"]);
      }
      // A claim of the wrong type is the SDK's to answer (invalid params).
      return typeof claimed === "string" && !MODERN_VERSIONS.includes(claimed)
        ? unsupportedVersion(claimed, MODERN_VERSIONS)
        : undefined;
    },
    async close() {
      // The lines of calls already answered first (cleanup is bounded and may be cut), then those it ended.
      await audit.flush?.();
      // The budget registers its exit hook (its result buffers) with the tools, if they were loaded.
      await loading?.catch(() => {});
      await runExitHooks();
      await audit.flush?.();
      await handle?.close().catch(() => {});
    },
  };
}
