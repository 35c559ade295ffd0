/**
 * 2025-era tools/call answered before the SDK has loaded: once the handshake
 * was answered without it (lib/server/front.ts), each call goes through the
 * pipeline (lib/server/core.ts `toolsCall`) as the SDK's direct path takes it
 * (lib/server/server.ts `direct`), with the capabilities `initialize`
 * declared. What needs the SDK — asking the human (elicitation), progress
 * notifications — waits for it to load and to have seen that `initialize`.
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
import type { Front } from "./front.ts";
import type { DirectHandler } from "./transport.ts";
import type { ElicitingServer } from "./ask.ts";
import type { CallExtra } from "./pipeline.ts";

type SdkServer = McpServer["server"];

/** The direct handlers for calls answered before the SDK has loaded. */
export interface EarlyCalls {
  /** tools/call once the front answered the 2025 handshake; undefined otherwise (lib/server/transport.ts `direct`). */
  direct(method: string): DirectHandler | undefined;
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
  return { direct: (method) => method === "tools/call" && front.handshake ? callTool : undefined };
}
