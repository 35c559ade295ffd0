/**
 * The server without the SDK: services from the configuration, the tool
 * pipelines, the calls in flight (2026-era calls parked for the client's
 * retry among them), the sweep of leftovers and cleanup. The SDK
 * (lib/server/server.ts) and the answers given before it loads
 * (lib/server/front.ts) both serve through it.
 *
 * The tool table (`lib/tools/mod.ts`, with the response budgets) is the
 * largest part of the module graph and neither `initialize`,
 * `server/discover` nor `tools/list` needs it: `tools/list` reads the table's
 * listing from its file (lib/server/listing_file.ts). A call before the table
 * has loaded imports only its own tool's module (lib/tools/modules.ts); the
 * table is imported once the first call is answered, or by the first request
 * that needs every tool (batch, a name not in the table, prompts). Not sooner:
 * evaluating modules blocks the event loop, so an import started at once
 * delayed the `initialize` answer by all of it, and one started before the
 * first call that call's answer.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * const core = await createCore(parseConfig(["--socket-name", "work"], {}));
 * // ... serve through it (lib/server/server.ts createApp), then on exit:
 * await core.close();
 * ```
 */
import type { CallToolResult, Tool } from "../sdk.ts";
import { type Config, UsageError } from "../config.ts";
import { ServerStopping } from "../errors.ts";
import { sweepLeftovers } from "./sweep.ts";
import { createSearchPool } from "../search/worker_pool.ts";
import { createHosts } from "./hosts.ts";
import type { AnyTool, Services } from "../tools/tool.ts";
import { TOOL_MODULES } from "../tools/modules.ts";
import { log } from "../log.ts";
import { type AuditSink, createAuditSink } from "./audit.ts";
import type { BudgetSettings } from "../budget/settings.ts";
import { listedTools } from "./listing_file.ts";
import type { CallExtra, Pipeline } from "./pipeline.ts";
import { type InputRequiredResult, modernToolsCall, Parking, type ProgressSink } from "./ask.ts";

/** JSON-RPC error codes (the SDK's ProtocolErrorCode). */
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

/** How long after the handshake a server that got no call yet sweeps the leftovers of killed servers. */
export const SWEEP_DELAY_MS = 2_000;

/**
 * Tool calls the server can stop at shutdown. Each call gets a signal that
 * fires when its client cancels it or when the server stops; the SDK's own
 * signal is left alone, because the SDK drops the answer of a request whose
 * signal it aborted. (Linked by hand: a fraction of what AbortSignal.any
 * costs on every call.)
 */
export function stoppableCalls(pipeline: (name: string) => Promise<Pipeline>, afterFirst: () => void) {
  const live = new Set<AbortController>();
  let stopped: string | undefined;
  let first = true;
  let idle: PromiseWithResolvers<void> | undefined;
  return {
    async call(name: string, args: unknown, extra: CallExtra): Promise<CallToolResult> {
      const own = new AbortController();
      const follow = () => own.abort(extra.signal.reason);
      // The pipeline words the error of a call the stop ended (and its audit line) by this reason.
      if (stopped !== undefined) own.abort(new ServerStopping(stopped));
      else extra.signal.addEventListener("abort", follow, { once: true });
      live.add(own);
      try {
        return await (await pipeline(name)).call(name, args, { ...extra, signal: own.signal });
      } finally {
        live.delete(own);
        extra.signal.removeEventListener("abort", follow);
        if (first) first = false, afterFirst();
        if (live.size === 0) idle?.resolve(), idle = undefined;
      }
    },
    stop(why: string): void {
      stopped ??= why;
      for (const c of live) c.abort(new ServerStopping(stopped));
    },
    /** Resolves once no call is running (each has written its audit line). */
    ended(): Promise<void> {
      if (live.size === 0) return Promise.resolve();
      return (idle ??= Promise.withResolvers()).promise;
    },
  };
}

/** Stoppable calls: see {@linkcode stoppableCalls}. */
export type Calls = ReturnType<typeof stoppableCalls>;

/** Long-lived services for a configuration, plus the exit hooks they registered. */
export function createServices(config: Config): { services: Services; runExitHooks(): Promise<void> } {
  const hooks: Array<() => Promise<void>> = [];
  const lastHooks: Array<() => Promise<void>> = [];
  const atExit = (fn: () => Promise<void>, last = false) => void (last ? lastHooks : hooks).push(fn);
  const regex = createSearchPool();
  atExit(() => Promise.resolve(regex.close()), true);
  // One set of services per host; the first host's are the server's own (budget buffers, sweeps).
  const { first } = createHosts(config, { regex, atExit });
  const services: Services = { ...first, config };
  return {
    services,
    async runExitHooks() {
      // Side by side: a hook waiting on a stuck tmux (a result buffer's delete) held back the ones after it until
      // the exit's bound cut them off, so a pty session's job that ignores SIGHUP outlived the server.
      const run = (fn: () => Promise<void>) =>
        fn().catch((e) => log("warn", `cleanup failed: ${e instanceof Error ? e.message : String(e)}`));
      await Promise.all(hooks.splice(0).map(run));
      await Promise.all(lastHooks.splice(0).map(run));
    },
  };
}

/**
 * tools/call, reached two ways: from our stdio transport directly (`App.callTool`,
 * see lib/server/transport.ts), and from any other transport through the SDK's
 * fallback request handler rather than `setRequestHandler` (the SDK's Server
 * wraps a tools/call handler to parse each request twice and each result once
 * more with zod, work the pipeline already does). The
 * transport has checked the JSON-RPC envelope; the name and arguments are
 * checked here, the arguments' contents by the pipeline. `fail` makes the error of a bad request (the SDK's
 * ProtocolError where the SDK answers it).
 */
export function toolsCall(
  request: { method: string; params?: Record<string, unknown> },
  extra: CallExtra,
  call: (name: string, args: unknown, extra: CallExtra) => Promise<CallToolResult>,
  fail: (code: number, message: string) => Error,
): Promise<CallToolResult> {
  // What the SDK answers for a request no handler takes (no fallback handler set).
  if (request.method !== "tools/call") return Promise.reject(fail(METHOD_NOT_FOUND, "Method not found"));
  const { name, arguments: args } = request.params ?? {};
  if (typeof name !== "string" || (args !== undefined && (args === null || typeof args !== "object"))) {
    return Promise.reject(
      fail(
        INVALID_PARAMS,
        "tools/call needs params.name (a tool name string) and params.arguments (an object, or absent)",
      ),
    );
  }
  return call(name, args, extra);
}

/** Every tool (`lib/tools/mod.ts`), imported on demand: most of the server's modules are the tools'. */
export function loadTools(): Promise<readonly AnyTool[]> {
  return import("../tools/mod.ts").then((m) => m.TOOLS);
}

/** The response-budget settings; a `--config` file is checked against the tool names. */
async function budgetSettings(config: Config, tools: readonly AnyTool[]): Promise<BudgetSettings> {
  const [{ budgetToolNames }, { loadBudgetSettings }] = await Promise.all([
    import("../tools/tool.ts"),
    import("../budget/settings.ts"),
  ]);
  return loadBudgetSettings(config, budgetToolNames(tools));
}

/**
 * Pipelines over the tool table or over one tool of it, all with the same response budgets (one store of
 * buffered results) as their result stage. `served`: the names of the tools the server serves, which budget
 * suggestions name.
 */
async function pipelineMaker(
  config: Config,
  checked: BudgetSettings | undefined,
  services: Services,
  audit: AuditSink,
  served: Promise<ReadonlySet<string>>,
): Promise<(tools: readonly AnyTool[]) => Pipeline> {
  const [{ createBudget }, { createPipeline }, { loadBudgetSettings, NO_TOOLS }, names] = await Promise.all([
    import("./budget.ts"),
    import("./pipeline.ts"),
    import("../budget/settings.ts"),
    served,
  ]);
  // Without a --config file (nothing to check at start) the settings are the defaults and the flags.
  const settings = checked ?? loadBudgetSettings(config, NO_TOOLS);
  const budget = createBudget({ services, settings, tools: [], isServed: (name) => names.has(name) });
  return (tools) =>
    createPipeline({
      tools,
      services,
      audit,
      stages: [budget.stage],
      pageBudget: budget.pageBudget,
      keepResult: budget.keepResult,
      errorText: budget.trimError,
    });
}

/** What {@linkcode createCore} builds. */
export interface Core {
  config: Config;
  services: Services;
  /** The tool table given to createCore, if one was. */
  tools?: readonly AnyTool[];
  /** Every call goes through these (stoppable at shutdown, which also cancels the questions of parked calls). */
  calls: Calls;
  /**
   * tools/call of the 2026 era (`request` with the envelope and the retry fields lifted out of its params, as the
   * SDK hands a handler): a call whose client declared elicitation is parked across input-required rounds, and a
   * retry carrying `extra.requestState` resumes its parked call (lib/server/ask.ts `modernToolsCall`). The SDK's
   * handler (lib/server/server.ts) and the calls answered before it loads (lib/server/early.ts) share the parked
   * calls: a call parked before the SDK loaded is resumed through it.
   */
  modernCall(
    request: { method: string; params?: Record<string, unknown> },
    extra: CallExtra,
    fail: (code: number, message: string) => Error,
  ): Promise<CallToolResult | InputRequiredResult>;
  /** The pipeline over the whole table. */
  pipeline(): Promise<Pipeline>;
  /** The token budget of one answer (`maxTokensPerResponse`, `--max-tokens`); undefined when budgets are off. */
  answerTokens(): Promise<number | undefined>;
  /** The served tools as tools/list shows them. */
  listTools(): Promise<{ tools: Tool[] }>;
  /**
   * Removes what servers killed with SIGKILL left, in the background, once: after the first call is answered, or
   * {@linkcode SWEEP_DELAY_MS} after this is called if none was by then.
   */
  sweep(): void;
  /**
   * Starts loading what every call needs (the pipeline, the response budgets), in the
   * background: the first call does, beside its tool's module, and a starting server once it has answered the
   * tool list (main.ts).
   */
  prepare(): void;
  /** Releases what the server holds (run on normal exit). */
  close(): Promise<void>;
}

/** The `--audit-log` sink; a file that cannot be opened for appending is a `UsageError`, not a crash. */
function openAuditSink(path: string | undefined): AuditSink {
  try {
    return createAuditSink(path);
  } catch (e) {
    throw new UsageError(
      `--audit-log: cannot open "${path}" to append (${(e as Error).name}): give a file in a directory you can write`,
    );
  }
}

/**
 * The server's core for a configuration; `tools` defaults to every tool, loaded as the module documentation
 * says. `afterFirstCall` runs once the first call is answered (what a starting server left for later).
 * Throws a `UsageError` when the response-budget config file is invalid or the audit log cannot be opened.
 */
export async function createCore(
  config: Config,
  tools?: readonly AnyTool[],
  afterFirstCall: () => void = () => {},
): Promise<Core> {
  // A --config file names tools: it is checked against the tool table before anything starts (a bad one is a
  // usage error). Without one the settings name no tool, and nothing waits for the table.
  if (config.configPath) tools ??= await loadTools();
  const settings = tools ? await budgetSettings(config, tools) : undefined;
  // Before the services: a log that cannot be opened stops the start with nothing begun.
  const audit = openAuditSink(config.auditLog);
  const { services, runExitHooks } = createServices(config);
  const listing = () =>
    tools ? import("./listing.ts").then((l) => l.servedListing(l.listingEntries(tools), config)) : listedTools(config);
  const servedNames = listing().then((list) => new Set(list.map((t) => t.name)));
  let maker: Promise<(tools: readonly AnyTool[]) => Pipeline> | undefined;
  const pipelines = () => maker ??= pipelineMaker(config, settings, services, audit, servedNames);
  const makePipeline = (t: readonly AnyTool[]) => pipelines().then((make) => make(t));
  const prepare = () => void pipelines().catch(() => {}); // a failure surfaces in the first call
  // The whole table (see the module doc).
  let loading: Promise<Pipeline> | undefined;
  let loaded = false;
  const pipeline = () =>
    loading ??= (tools ? Promise.resolve(tools) : loadTools()).then(makePipeline).finally(() => loaded = true);
  // Until then a call to a tool of the table loads that tool's module alone (batch runs the others: the table).
  const single = new Map<string, Promise<Pipeline>>();
  const pipelineFor = (name: string): Promise<Pipeline> => {
    if (tools || loaded || !Object.hasOwn(TOOL_MODULES, name) || name === "batch") return pipeline();
    let p = single.get(name);
    if (!p) {
      // The pipeline and the budgets load beside the tool's module, not after it, and tmux's command connection
      // starts meanwhile (most first calls are a command to tmux).
      prepare();
      if (single.size === 0) services.tmux.attach();
      single.set(name, p = TOOL_MODULES[name]().then((m) => makePipeline([m.default])));
    }
    return p;
  };
  // Once the first call is answered (loading modules blocks the event loop: not while that call waits).
  const stoppable = stoppableCalls(pipelineFor, () =>
    setTimeout(() => {
      afterFirstCall();
      sweepNow();
      // The rule preset, for results with text it must see (a result without such text needs none:
      // lib/text/redact.ts earlyRedactor).
      if (config.redact !== false) import("../text/redact.ts").then((r) => r.loadRedactor()).catch(() => {});
      void pipeline().catch((e) =>
        log("error", `the tools could not be loaded: ${e instanceof Error ? e.message : String(e)}`)
      );
    }, 0));
  // 2026-era calls waiting for the client's retry with the human's answer; a question unanswered this long times out.
  const parking = new Parking<CallToolResult>({ ttlMs: config.maxWaitMs });
  const calls: Calls = {
    call: stoppable.call,
    stop(why) {
      stoppable.stop(why);
      parking.close();
    },
    ended: stoppable.ended,
  };
  const modernCall: Core["modernCall"] = (request, extra, fail) => {
    const name = typeof request.params?.name === "string" ? request.params.name : "";
    const token = extra._meta?.progressToken;
    const progress: ProgressSink | undefined = token === undefined
      ? undefined
      : (p, total, message) =>
        extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: p, total, message },
        });
    return modernToolsCall(
      parking,
      { name, requestState: extra.requestState, inputResponses: extra.inputResponses },
      extra.clientCapabilities?.elicitation as { form?: object; url?: object } | undefined,
      (ask, following) =>
        toolsCall(
          request,
          following
            // A parked call's progress goes to the request following it now, never to one already answered.
            ? {
              ...extra,
              ask,
              signal: AbortSignal.any([extra.signal, following.cancelled.signal]),
              _meta: { ...extra._meta, progressToken: token ?? "parked" },
              sendNotification: (n) =>
                following.now?.(n.params.progress, n.params.total, n.params.message) ??
                  Promise.resolve(),
            }
            : { ...extra, ask },
          calls.call,
          fail,
        ),
      progress,
      extra.signal,
    );
  };
  // What servers killed with SIGKILL left (temp files, result buffers), in the background, whether or not any
  // call comes. Not before the first call is answered: its tmux client (a spawn while the command connection is
  // not up) would hold up that connection's start, which that call waits for; nor before the handshake is answered.
  let swept = false;
  const sweepNow = () => {
    if (!swept) swept = true, void sweepLeftovers(services);
  };
  let sweepTimer: ReturnType<typeof setTimeout> | undefined;
  const sweep = () => {
    if (swept || sweepTimer !== undefined) return;
    const timer = sweepTimer = setTimeout(sweepNow, SWEEP_DELAY_MS);
    Deno.unrefTimer(timer);
  };
  // Our own tools/list: the SDK lists only plain object output schemas, and
  // ours admit a buffered response too (see lib/budget/schema.ts). The tool
  // table's listing is read from its file, so the client's first list does
  // not wait for the tool modules to load; a table given to createCore is
  // listed itself.
  let listed: Promise<{ tools: Tool[] }> | undefined;
  const listTools = () => listed ??= listing().then((list) => ({ tools: list })).finally(() => setTimeout(sweep, 0));
  return {
    config,
    services,
    tools,
    calls,
    modernCall,
    pipeline,
    async answerTokens() {
      let s = settings;
      if (s === undefined) {
        const { loadBudgetSettings, NO_TOOLS } = await import("../budget/settings.ts");
        s = loadBudgetSettings(config, NO_TOOLS);
      }
      return s.enableBuffering ? s.maxTokensPerResponse : undefined;
    },
    listTools,
    sweep,
    prepare,
    async close() {
      clearTimeout(sweepTimer);
      // The lines of calls already answered first (cleanup is bounded and may be cut), then those it ended.
      await audit.flush?.();
      // A call still running has nobody left to answer (a 2026-era call parked on its question to the human, one
      // the end of input's drain gave up on): stopped, it ends with its audit line before the process does.
      calls.stop("its client is gone");
      await calls.ended();
      await audit.flush?.();
      // The budget registers its exit hook (its result buffers) with the tools, if they were loaded.
      await loading?.catch(() => {});
      await maker?.catch(() => {});
      await runExitHooks();
      await audit.flush?.();
    },
  };
}
