/**
 * Builds the MCP server over the server's core (lib/server/core.ts): our own
 * `tools/list` (each served tool's schemas and annotations) and `tools/call`
 * routed through the one pipeline, which also answers calls to tools that are
 * not served with a clear refusal instead of a bare "not found". A starting
 * server loads this module (the SDK with it) after it has begun answering
 * (main.ts, lib/server/front.ts).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * import { LinearStdioTransport } from "./transport.ts";
 * const app = await createApp(parseConfig(["--socket-name", "work"], {}));
 * app.serve(new LinearStdioTransport({ maxMessageBytes: 1 << 20, parse: app.parse, direct: app.direct, refuse: app.refuse }));
 * // ... on exit:
 * await app.close();
 * ```
 */
import {
  AjvJsonSchemaValidator,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type JSONRPCMessage,
  type JsonSchemaValidatorProvider,
  McpServer,
  parseJSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  serveStdio,
  type StdioServerHandle,
  type Transport,
} from "../sdk.ts";
import type { Config } from "../config.ts";
import type { AnyTool, Services } from "../tools/tool.ts";
import { log } from "../log.ts";
import type { DirectHandler, Refusal } from "./transport.ts";
import { type ElicitingServer, legacyAsker } from "./ask.ts";
import type { CallExtra } from "./pipeline.ts";
import { registerResources } from "./resources.ts";
import { registerPrompts } from "./prompts.ts";
import { instructions } from "./instructions.ts";
import { type Core, createCore, createServices, loadTools, toolsCall } from "./core.ts";
import { CACHE_HINT, declaredCapabilities, MODERN_VERSIONS, SERVER_INFO } from "./front.ts";

export { createServices, loadTools, MODERN_VERSIONS };

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
   * `refuse`), for what the SDK lets through: on a 2025 connection a request naming another revision in its `_meta`
   * than the one `initialize` negotiated (a 2026 one), on a 2026 one a request naming a revision this server does
   * not serve. And a list request naming a `cursor` (see {@linkcode listCursor}).
   */
  refuse(method: string, params: Record<string, unknown> | undefined, negotiated?: string): Refusal | undefined;
  /** The 2025-era connection's server, once the SDK has seen its `initialize`. */
  legacyServer(): McpServer["server"] | undefined;
  /**
   * Whether the SDK has pinned the connection to the 2026 era: its 2026 server handled a request that is not a
   * discover probe (tools/list or tools/call), which the SDK delivers only once pinned. From then on a 2026 call
   * of the plain shape can be answered as before the SDK had loaded (lib/server/early.ts), without its dispatch.
   */
  modernPinned(): boolean;
  /** The SDK's parser of a JSON-RPC message (lib/server/transport.ts `parse`). */
  parse(json: unknown): JSONRPCMessage;
  /** Releases what the server holds (run on normal exit). */
  close(): Promise<void>;
}

/**
 * The SDK's JSON Schema validator, made on first use: only the SDK's elicitInput uses it, which this server does
 * not call (lib/server/ask.ts sends elicitation/create and checks the answer itself), and making it (Ajv with its formats) at start delayed the answer to `initialize`.
 */
function lazyValidator(): JsonSchemaValidatorProvider {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

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

/** -32602 for a request without the 2026 `_meta` envelope, in the SDK's words for one on a 2026 connection. */
function missingEnvelope(): Refusal {
  return {
    code: ProtocolErrorCode.InvalidParams,
    message: `Request is missing the required _meta envelope for protocol revision ${MODERN_VERSIONS[0]} ` +
      `(${PROTOCOL_VERSION_META_KEY}, ${CLIENT_CAPABILITIES_META_KEY})`,
  };
}

/** The list requests of the protocol, each answered in one page. */
const LISTS: readonly string[] = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"];

/**
 * -32602 for a list request with a string `cursor`: every list is answered in one page, with no `nextCursor`,
 * so no cursor is one this server gave (the spec: an invalid cursor gets -32602). The SDK's list handlers ignore
 * it and answered the first page again, which a client paging on would take as more of the list. A cursor that is
 * no string is the SDK's schema to refuse.
 */
function listCursor(method: string, params: Record<string, unknown> | undefined): Refusal | undefined {
  if (!LISTS.includes(method) || typeof params?.cursor !== "string") return undefined;
  return {
    code: ProtocolErrorCode.InvalidParams,
    message: `Invalid cursor: this server answers ${method} in one page and gives no nextCursor; send it without one`,
  };
}

/** The client's capabilities for a request: its own `_meta` envelope (2026 era), else what `initialize` declared. */
function clientCapabilities(server: McpServer, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined ??
    server.server.getClientCapabilities();
}

/**
 * Builds the server for a configuration; `tools` defaults to every tool, loaded as lib/server/core.ts says.
 * `core`: the server's core when it was built before the SDK loaded (main.ts), else one is made here.
 * Throws a `UsageError` when the response-budget config file is invalid.
 */
export async function createApp(config: Config, tools?: readonly AnyTool[], core?: Core): Promise<App> {
  core ??= await createCore(config, tools);
  const { services, calls, modernCall, pipeline, listTools, sweep, answerTokens } = core;
  const fail = (code: number, message: string) => new ProtocolError(code, message);
  const instructionText = instructions(config);
  /** The requests of a connection locked to the 2025 era that the transport answers itself (`direct`). */
  let legacy: McpServer | undefined;
  /** The era of the connection's last server: a 2026 one serves a probe or a locked connection, a 2025 one locks. */
  let era: ProtocolEra | undefined;
  /** See {@linkcode App.modernPinned}. */
  let pinned = false;

  /**
   * The error for a request whose `_meta` names a revision the connection does not serve: on a 2026 one any but
   * those this server serves (a claim of the wrong type is the SDK's to answer, invalid params), on a 2025 one any
   * but the one `initialize` negotiated (`negotiated`, else the SDK's word once its handler has run).
   */
  const claimRefusal = (
    locked: ProtocolEra,
    params: Record<string, unknown> | undefined,
    negotiated?: string,
  ): Refusal | undefined => {
    const claimed = claimedVersion(params);
    if (claimed === undefined) return undefined;
    if (locked === "modern") {
      return typeof claimed === "string" && !MODERN_VERSIONS.includes(claimed)
        ? unsupportedVersion(claimed, MODERN_VERSIONS)
        : undefined;
    }
    const version = negotiated ?? legacy?.server.getNegotiatedProtocolVersion();
    return version !== undefined && claimed !== version ? unsupportedVersion(claimed, [version]) : undefined;
  };

  /** One McpServer for one connection's era (the SDK may build a 2026 one for a probe and then a 2025 one). */
  const build = ({ era: built }: { era: ProtocolEra }): McpServer => {
    const mcp = new McpServer(
      { ...SERVER_INFO },
      // tools/list and tools/call are ours (below); registering resources and prompts keeps these listChanged bits.
      {
        capabilities: declaredCapabilities(config),
        instructions: instructionText,
        jsonSchemaValidator: lazyValidator(),
        cacheHints: { "tools/list": CACHE_HINT, "server/discover": CACHE_HINT },
      },
    );
    mcp.server.setRequestHandler("tools/list", () => {
      if (built === "modern") pinned = true;
      return listTools();
    });
    // tools/call is the pipeline: it gates, validates and audits every call, including calls to tools that
    // are not listed. The SDK's own handler (installed because the options declare the tools capability) goes.
    mcp.server.removeRequestHandler("tools/call");
    mcp.server.fallbackRequestHandler = (request, ctx) => {
      if (built === "modern" && request.method === "tools/call") pinned = true;
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
      if (built === "legacy" || request.method !== "tools/call") return toolsCall(request, extra, calls.call, fail);
      // 2026 era: a question ends the round with an input-required result and parks the call under a one-shot
      // requestState; the client's retry carrying it resumes the parked call (lib/server/core.ts).
      return modernCall(request, extra, fail) as Promise<CallToolResult>;
    };
    // serveStdio hands the instance it pinned every message without checking the revision a request's `_meta`
    // names, and `refuse` (asked as the transport reads a message) lets through what was read before the era was
    // decided: judged again as the instance receives it.
    const connect = mcp.connect.bind(mcp);
    mcp.connect = async (channel) => {
      await connect(channel);
      const receive = channel.onmessage;
      channel.onmessage = (message, extra) => {
        const request = "method" in message && "id" in message
          ? message as { id: string | number; params?: Record<string, unknown> }
          : undefined;
        const refusal = request && claimRefusal(built, request.params);
        if (!refusal) return receive?.(message, extra);
        void channel.send({ jsonrpc: "2.0", id: request!.id, error: refusal }).catch(() => {});
      };
    };
    // Resources and prompts are views of the workspace: served with its toolset.
    if (config.toolsets.includes("workspace")) {
      registerResources(mcp, services, answerTokens);
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

  // A 2025-era ping answered as the SDK answers it (an empty result), without its request parsing and dispatch.
  const pong: DirectHandler = () => Promise.resolve({});
  const callTool: DirectHandler = (params, signal) => {
    const mcp = legacy!;
    return toolsCall(
      { method: "tools/call", params },
      {
        signal,
        _meta: params?._meta as CallExtra["_meta"],
        era: "legacy",
        clientCapabilities: mcp.server.getClientCapabilities(),
        elicit: (p) => mcp.server.elicitInput(p, { signal }),
        // As the SDK's notify: nothing once the call is cancelled.
        sendNotification: (n) => signal.aborted ? Promise.resolve() : mcp.server.notification(n),
        ask: legacyAsker(mcp.server as unknown as ElicitingServer),
      },
      calls.call,
      fail,
    );
  };
  let handle: StdioServerHandle | undefined;
  return {
    services,
    serve(transport) {
      handle = serveStdio(build, { transport, onerror: (e) => log("debug", `mcp: ${e.message}`) });
      return handle;
    },
    stopCalls: (why) => calls.stop(why),
    direct: (method) => !legacy ? undefined : method === "tools/call" ? callTool : method === "ping" ? pong : undefined,
    refuse(method, params, negotiated) {
      // A discover probe without the envelope is a 2026 client's (2025 has no server/discover): answered as the
      // 2026 era answers a request without one. The SDK would take it as 2025 traffic and lock the connection to
      // that era, refusing the client's next, well-formed probe.
      if (method === "server/discover" && era === undefined && negotiated === undefined) {
        if (claimedVersion(params) === undefined) return missingEnvelope();
      }
      // MCP initializes a connection once; the SDK would negotiate again, changing the revision and the client's
      // capabilities under the requests in flight.
      if (method === "initialize" && negotiated !== undefined) {
        return {
          code: ProtocolErrorCode.InvalidRequest,
          message: `Already initialized: this connection negotiated ${negotiated} at its first initialize; ` +
            "initialize once per connection (start a new connection to negotiate again)",
        };
      }
      // The SDK decides the era on its own. Naming the revision `initialize` negotiated is no other era's request:
      // served as if unnamed. The transport's word first: a handshake answered before the SDK loaded is replayed to
      // it just before this request, and its handler has not run yet.
      const refusal = era === undefined ? undefined : claimRefusal(
        era,
        params,
        era === "legacy" ? negotiated ?? legacy?.server.getNegotiatedProtocolVersion() ?? "2025-11-25" : undefined,
      );
      return refusal ?? listCursor(method, params);
    },
    legacyServer: () => legacy?.server,
    modernPinned: () => pinned,
    parse: parseJSONRPCMessage,
    async close() {
      await core.close();
      await handle?.close().catch(() => {});
    },
  };
}
