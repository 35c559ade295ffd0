/**
 * tools/call answered before the SDK has loaded. 2025 era: once the handshake
 * was answered without it (lib/server/front.ts), each call goes through the
 * pipeline (lib/server/core.ts `toolsCall`) as the SDK's direct path takes it
 * (lib/server/server.ts `direct`), with the capabilities `initialize`
 * declared; its progress notifications are written as the SDK writes them.
 * Only a question to the human (`elicitation/create`) waits for the SDK to
 * load and to have seen that `initialize`: the client's answer comes back
 * through it. 2026 era: a call the front takes ({@linkcode Front.modernCall}:
 * the plain envelope, with or without elicitation declared, a progress token
 * or the retry fields of a parked call) goes through the core's 2026 calls
 * (lib/server/core.ts `modernCall`, parked across input-required rounds) as
 * the SDK's fallback handler takes it, and its result is stamped as the SDK
 * stamps a 2026 result (`resultType`, the server's identity in `_meta`): the
 * same bytes (tests/front_test.ts).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * import { createCore } from "./core.ts";
 * import { createFront } from "./front.ts";
 * const config = parseConfig([], {});
 * const core = await createCore(config);
 * const write = (_message: unknown) => Promise.resolve(); // the transport's send
 * const early = createEarlyCalls(core, createFront(config), () => Promise.resolve(undefined), write);
 * early.direct("tools/call"); // a handler once the front has answered initialize
 * ```
 */
import type { ClientCapabilities, JSONRPCMessage, McpServer } from "../sdk.ts";
import type { Core } from "./core.ts";
import { toolsCall } from "./core.ts";
import { CAPABILITIES_KEY, ENVELOPE_KEYS, type Front, SERVER_INFO, SERVER_INFO_KEY } from "./front.ts";
import type { DirectHandler } from "./transport.ts";
import { type ElicitingServer, legacyAsker } from "./ask.ts";
import type { CallExtra } from "./pipeline.ts";

type SdkServer = McpServer["server"];

/** The direct handlers for calls answered before the SDK has loaded. */
export interface EarlyCalls {
  /** tools/call once the front answered the 2025 handshake; undefined otherwise (lib/server/transport.ts `direct`). */
  direct(method: string): DirectHandler | undefined;
  /**
   * The handler of a 2026-era tools/call the front takes, else undefined (lib/server/transport.ts `earlyCall`);
   * `pinned`: the SDK has pinned the connection to that era (`App.modernPinned`).
   */
  modern(json: unknown, pinned?: boolean): DirectHandler | undefined;
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

/**
 * See the module documentation. `server`: the SDK's 2025-era server, once it has loaded (loads it). `send`: writes a
 * message to the client (the transport's send), for progress notifications.
 */
export function createEarlyCalls(
  core: Core,
  front: Front,
  server: () => Promise<SdkServer | undefined>,
  send: (message: JSONRPCMessage) => Promise<void>,
): EarlyCalls {
  const sdk = async (): Promise<SdkServer> => {
    const s = await server();
    if (!s) throw new Error("the MCP SDK has not seen this connection's initialize");
    return s;
  };
  // As the transport answers a rejection: its code and message.
  const fail = (code: number, message: string) => Object.assign(new Error(message), { code });
  // A notification as the SDK writes one in either era (no envelope of the server's own).
  const notify: CallExtra["sendNotification"] = (n) => send({ jsonrpc: "2.0", ...n } as JSONRPCMessage);
  const callTool: DirectHandler = (params, signal) => {
    const capabilities = front.handshake!.capabilities as ClientCapabilities;
    // The human, through the client (elicitation/create), as lib/server/server.ts asks: a question waits for the
    // SDK, which matches the client's answer to it.
    const ask = legacyAsker({
      getClientCapabilities: () => capabilities,
      request: (request, schema, options) => sdk().then((s) => s.request(request, schema, options)),
      notification: (n) => sdk().then((s) => s.notification(n)),
    } as ElicitingServer);
    return toolsCall(
      { method: "tools/call", params },
      {
        signal,
        _meta: params?._meta as CallExtra["_meta"],
        era: "legacy",
        clientCapabilities: capabilities,
        elicit: (p) => sdk().then((s) => s.elicitInput(p, { signal })),
        // As lib/server/server.ts's direct path: nothing once the call is cancelled.
        sendNotification: (n) => signal.aborted ? Promise.resolve() : notify(n),
        ask,
      },
      core.calls.call,
      fail,
    );
  };
  // As lib/server/server.ts's fallback handler takes a 2026 call: the SDK lifts the envelope out of `_meta` (what
  // is left, a progress token, stays) and the retry fields out of the params, and hands them to the handler.
  const callModern: DirectHandler = async (params, signal) => {
    const { _meta: meta, requestState, inputResponses, ...rest } = params ?? {};
    const envelope = meta as Record<string, unknown>;
    const left = Object.fromEntries(Object.entries(envelope).filter(([k]) => !ENVELOPE_KEYS.includes(k)));
    const _meta = Object.keys(left).length > 0 ? left as CallExtra["_meta"] : undefined;
    const result = await core.modernCall(
      { method: "tools/call", params: _meta ? { ...rest, _meta } : rest },
      {
        signal,
        _meta,
        era: "modern",
        clientCapabilities: envelope[CAPABILITIES_KEY] as ClientCapabilities,
        sendNotification: notify,
        ...(inputResponses !== undefined ? { inputResponses: inputResponses as Record<string, unknown> } : {}),
        ...(requestState !== undefined ? { requestState: requestState as string } : {}),
      },
      fail,
    );
    return stampModern(result as unknown as Record<string, unknown>);
  };
  return {
    direct: (method) => method === "tools/call" && front.handshake ? callTool : undefined,
    modern: (json, pinned) => front.modernCall(json, pinned) ? callModern : undefined,
  };
}
