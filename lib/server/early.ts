/**
 * tools/call answered before the SDK has loaded. 2025 era: once the handshake
 * was answered without it (lib/server/front.ts), each call goes through the
 * pipeline (lib/server/core.ts `toolsCall`) as the SDK's direct path takes it
 * (lib/server/server.ts `direct`), with the capabilities `initialize`
 * declared. What needs the SDK — asking the human (elicitation), progress
 * notifications — waits for it to load and to have seen that `initialize`.
 * 2026 era: a call the front takes ({@linkcode Front.modernCall}: no
 * elicitation, no progress token) goes through the pipeline as the SDK's
 * fallback handler takes it, and its result is stamped as the SDK stamps a
 * 2026 result (`resultType`, the server's identity in `_meta`): the same
 * bytes (tests/front_test.ts).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * import { createCore } from "./core.ts";
 * import { createFront } from "./front.ts";
 * const config = parseConfig([], {});
 * const core = await createCore(config);
 * const early = createEarlyCalls(core, createFront(config), () => Promise.resolve(undefined));
 * early.direct("tools/call"); // a handler once the front has answered initialize
 * ```
 */
import type { ClientCapabilities, McpServer } from "../sdk.ts";
import type { Core } from "./core.ts";
import { toolsCall } from "./core.ts";
import { CAPABILITIES_KEY, type Front, SERVER_INFO, SERVER_INFO_KEY } from "./front.ts";
import type { DirectHandler } from "./transport.ts";
import type { ElicitingServer } from "./ask.ts";
import type { CallExtra } from "./pipeline.ts";

type SdkServer = McpServer["server"];

/** The direct handlers for calls answered before the SDK has loaded. */
export interface EarlyCalls {
  /** tools/call once the front answered the 2025 handshake; undefined otherwise (lib/server/transport.ts `direct`). */
  direct(method: string): DirectHandler | undefined;
  /** The handler of a 2026-era tools/call the front takes, else undefined (lib/server/transport.ts `earlyCall`). */
  modern(json: unknown): DirectHandler | undefined;
}

/**
 * A tools/call result as the SDK encodes it for the 2026 era: `resultType` stamped `complete` unless the result
 * has one, then the server's identity added to its `_meta` (unless there, or `_meta` is not an object).
 */
export function stampModern(result: Record<string, unknown>): Record<string, unknown> {
  const stamped = result.resultType === undefined ? { ...result, resultType: "complete" } : result;
  const meta = stamped._meta;
  if (meta === undefined) return { ...stamped, _meta: { [SERVER_INFO_KEY]: { ...SERVER_INFO } } };
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return stamped;
  if ((meta as Record<string, unknown>)[SERVER_INFO_KEY] !== undefined) return stamped;
  return { ...stamped, _meta: { ...meta, [SERVER_INFO_KEY]: { ...SERVER_INFO } } };
}

/** See the module documentation. `server`: the SDK's 2025-era server, once it has loaded (loads it). */
export function createEarlyCalls(
  core: Core,
  front: Front,
  server: () => Promise<SdkServer | undefined>,
): EarlyCalls {
  const sdk = async (): Promise<SdkServer> => {
    const s = await server();
    if (!s) throw new Error("the MCP SDK has not seen this connection's initialize");
    return s;
  };
  // As the transport answers a rejection: its code and message.
  const fail = (code: number, message: string) => Object.assign(new Error(message), { code });
  const callTool: DirectHandler = async (params, signal) => {
    const capabilities = front.handshake!.capabilities as ClientCapabilities;
    let ask: CallExtra["ask"];
    if (capabilities.elicitation) {
      // The human, through the client (elicitation/create), as lib/server/server.ts asks.
      const { legacyAsker } = await import("./ask.ts");
      ask = legacyAsker({
        getClientCapabilities: () => capabilities,
        request: (request, schema, options) => sdk().then((s) => s.request(request, schema, options)),
        notification: (n) => sdk().then((s) => s.notification(n)),
      } as ElicitingServer);
    }
    return toolsCall(
      { method: "tools/call", params },
      {
        signal,
        _meta: params?._meta as CallExtra["_meta"],
        era: "legacy",
        clientCapabilities: capabilities,
        elicit: (p) => sdk().then((s) => s.elicitInput(p, { signal })),
        // As the SDK's notify: nothing once the call is cancelled.
        sendNotification: (n) => signal.aborted ? Promise.resolve() : sdk().then((s) => s.notification(n)),
        ask,
      },
      core.calls.call,
      fail,
    );
  };
  // As lib/server/server.ts's fallback handler takes a 2026 call without elicitation: no asker, no progress token
  // (so no notification), the envelope's capabilities; the SDK lifts the envelope out of `_meta`, leaving none.
  const callModern: DirectHandler = async (params, signal) => {
    const { _meta: meta, ...rest } = params ?? {};
    const capabilities = (meta as Record<string, unknown>)[CAPABILITIES_KEY] as ClientCapabilities;
    const result = await toolsCall(
      { method: "tools/call", params: rest },
      {
        signal,
        era: "modern",
        clientCapabilities: capabilities,
        sendNotification: () => Promise.resolve(),
      },
      core.calls.call,
      fail,
    );
    return stampModern(result);
  };
  return {
    direct: (method) => method === "tools/call" && front.handshake ? callTool : undefined,
    modern: (json) => front.modernCall(json) ? callModern : undefined,
  };
}
