/**
 * The answers a starting server gives before the SDK has loaded: `initialize`,
 * `notifications/initialized` and `tools/list` of the 2025 era, `server/discover` and
 * `tools/list` of the 2026 era, each exactly as the SDK answers it (the same
 * JSON, byte for byte: tests/front_test.ts compares them), from the
 * configuration and the listing file. The SDK, zod and the tool modules are a
 * large part of a cold start; a client's handshake need not wait for them.
 *
 * Only requests of the exact shapes below are answered here; any other
 * message (and every one after it) waits for the SDK, which then sees every
 * message in the order read (lib/server/transport.ts), so the connection's
 * state is the SDK's own. tools/call are answered before the SDK has loaded
 * too, through the pipeline (lib/server/early.ts): 2025-era ones with what
 * `initialize` declared, 2026-era ones of the plain shape, parked or not
 * ({@linkcode Front.modernCall}).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * const front = createFront(parseConfig([], {}));
 * front.early({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: {
 *   "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } });
 * ```
 */
import type { Config } from "../config.ts";
import { VERSION } from "../version.ts";
import { instructions } from "./instructions.ts";
import { listedTools } from "./listing_file.ts";
import type { Tool } from "../sdk.ts";
import { clientMetaKey } from "./transport.ts";

/** The server's name, title and version, as `initialize` and the 2026 `_meta` give them. */
export const SERVER_INFO = { name: "tmux-mcp", title: "tmux MCP server", version: VERSION } as const;

/**
 * How long a client may keep the tool list and the discover answer (2026 era): a server's tools and capabilities
 * are fixed for its life (they follow from its flags), so an hour; private, as another server started with other
 * flags serves another list.
 */
export const CACHE_HINT = { ttlMs: 3_600_000, cacheScope: "private" } as const;

/**
 * The 2026-era revisions the SDK serves, as its `server/discover` lists them (the SDK exports only the 2025 list,
 * `SUPPORTED_PROTOCOL_VERSIONS`, which `initialize` negotiates from).
 */
export const MODERN_VERSIONS: readonly string[] = ["2026-07-28"];

/** The 2025 revisions `initialize` answered here echoes (any other is the SDK's to negotiate). */
const LEGACY_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18"];

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
/** The 2026 `_meta` envelope's key of the client's capabilities. */
export const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
/** The key of the server's identity in a 2026 result's `_meta`. */
export const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
/** The keys of the 2026 `_meta` envelope answered here (the SDK lifts them out of a request's `_meta`). */
export const ENVELOPE_KEYS: readonly string[] = [VERSION_KEY, CAPABILITIES_KEY, CLIENT_INFO_KEY];

type Json = Record<string, unknown>;

const isObject = (x: unknown): x is Json => x !== null && typeof x === "object" && !Array.isArray(x);

/** Whether every key of `x` is one of `keys`. */
const only = (x: Json, keys: readonly string[]) => Object.keys(x).every((k) => keys.includes(k));

/**
 * Client capabilities of the plain shape every client sends: an object of objects, whose members are objects or
 * booleans (`roots.listChanged`, `elicitation.form`, …). Anything else is the SDK's schema to judge.
 */
function plainCapabilities(x: unknown): x is Json {
  const plain = (v: unknown, depth: number): boolean =>
    typeof v === "boolean" ? depth > 1 : isObject(v) && depth < 4 && Object.values(v).every((m) => plain(m, depth + 1));
  return isObject(x) && Object.values(x).every((v) => isObject(v) && plain(v, 1));
}

/**
 * Client capabilities (`plainCapabilities`) that the SDK's schema accepts, in either era (`initialize`'s, the 2026
 * envelope's): its known members of their types (`roots.listChanged` a boolean, `elicitation.form` an object, the
 * `experimental` and `extensions` entries objects, `tasks.list` an object, …); it drops others.
 */
function knownCapabilities(x: unknown): x is Json {
  if (!plainCapabilities(x)) return false;
  const { roots, sampling, elicitation, experimental, extensions, tasks } = x as Record<string, Json | undefined>;
  const optional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || ok(v);
  const bool = (v: unknown) => typeof v === "boolean";
  const requests = tasks?.requests;
  const asked = isObject(requests) ? requests : {};
  return optional(roots?.listChanged, bool) && optional(sampling?.context, isObject) &&
    optional(sampling?.tools, isObject) && optional(elicitation?.form, isObject) &&
    optional(elicitation?.url, isObject) && optional((elicitation?.form as Json | undefined)?.applyDefaults, bool) &&
    [experimental, extensions].every((r) => r === undefined || Object.values(r).every(isObject)) &&
    [tasks?.list, tasks?.cancel, requests, asked.sampling, asked.elicitation].every((v) => optional(v, isObject)) &&
    optional((asked.sampling as Json | undefined)?.createMessage, isObject) &&
    optional((asked.elicitation as Json | undefined)?.create, isObject);
}

/** A JSON-RPC request of `method` with an id and no other top-level key, or undefined. */
function request(json: unknown, method: string): { id: string | number; params: Json } | undefined {
  if (!isObject(json) || json.jsonrpc !== "2.0" || json.method !== method) return undefined;
  if (!only(json, ["jsonrpc", "id", "method", "params"])) return undefined;
  const id = json.id;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (json.params !== undefined && !isObject(json.params)) return undefined;
  return { id: id as string | number, params: (json.params ?? {}) as Json };
}

/** A client's name and version (`initialize`'s clientInfo, the envelope's), with a title at most. */
function plainClientInfo(info: unknown): boolean {
  return isObject(info) && only(info, ["name", "version", "title"]) && typeof info.name === "string" &&
    typeof info.version === "string" && (info.title === undefined || typeof info.title === "string");
}

/**
 * Whether `params` is exactly a 2026-07-28 `_meta` envelope of the plain shape and nothing else; `call`: its
 * `_meta` may hold a progress token too (a string or an integer, as the SDK's schema takes one) and the client's own
 * keys (lib/server/transport.ts `clientMetaKey`).
 */
function enveloped(params: Json, call = false): boolean {
  const meta = params._meta;
  if (!only(params, ["_meta"]) || !isObject(meta)) return false;
  const token = meta.progressToken;
  const known = (k: string) => ENVELOPE_KEYS.includes(k) || (call && (k === "progressToken" || clientMetaKey(k)));
  return Object.keys(meta).every(known) &&
    (token === undefined || typeof token === "string" || Number.isSafeInteger(token)) &&
    meta[VERSION_KEY] === MODERN_VERSIONS[0] && knownCapabilities(meta[CAPABILITIES_KEY]) &&
    (meta[CLIENT_INFO_KEY] === undefined || plainClientInfo(meta[CLIENT_INFO_KEY]));
}

/** What `initialize` declared, for the calls answered before the SDK has loaded. */
export interface Handshake {
  protocolVersion: string;
  capabilities: Json;
}

/** See the module documentation. */
export interface Front {
  /** For lib/server/transport.ts `early`: a result, `taken` (a notification), or undefined (the SDK's). */
  early(json: unknown): { result: unknown } | "taken" | undefined;
  /**
   * Whether `json` is a 2026-era tools/call to answer without the SDK's dispatch (lib/server/early.ts): on a
   * connection locked to that era (by this front, or by the SDK: `pinned`), a name and arguments, an envelope of
   * the plain shape (and a progress token, if any), and the retry fields of a parked call (lib/server/ask.ts), if
   * any: a string `requestState`, an object of `inputResponses`.
   */
  modernCall(json: unknown, pinned?: boolean): boolean;
  /** The 2025 handshake answered here, once it was. */
  readonly handshake: Handshake | undefined;
  /** The era this connection is locked to by what was answered here, if any. */
  readonly era: "legacy" | "modern" | undefined;
}

/**
 * The capabilities both the SDK's server (its options) and this front declare. No list changes while the server
 * runs, except resources (tmux sessions come and go) for which no `list_changed` is sent: so none is promised, and
 * clients re-read `resources/list`. Resources and prompts come with the workspace toolset.
 */
export function declaredCapabilities(config: Config): Record<string, { listChanged: boolean }> {
  const fixed = { listChanged: false };
  return config.toolsets.includes("workspace") ? { tools: fixed, resources: fixed, prompts: fixed } : { tools: fixed };
}

/**
 * The answers for a configuration. `tools`: the listing the server serves (default: from the listing file);
 * it must have resolved before a tools/list is answered here (until then tools/list waits for the SDK).
 */
export function createFront(config: Config, tools: Promise<Tool[]> = listedTools(config)): Front {
  const capabilities: Json = declaredCapabilities(config);
  const text = instructions(config);
  let listing: Tool[] | undefined;
  void tools.then((t) => listing = t, () => {});
  let handshake: Handshake | undefined;
  let initialized = false;
  let era: "legacy" | "modern" | undefined;
  const modernMeta = () => ({ ...CACHE_HINT, _meta: { [SERVER_INFO_KEY]: { ...SERVER_INFO } } });

  return {
    get handshake() {
      return handshake;
    },
    get era() {
      return era;
    },
    modernCall(json, pinned = false) {
      const call = era === "modern" || pinned ? request(json, "tools/call") : undefined;
      if (!call) return false;
      const { _meta, name, arguments: args, requestState, inputResponses, ...rest } = call.params;
      return Object.keys(rest).length === 0 && typeof name === "string" && (args === undefined || isObject(args)) &&
        (requestState === undefined || typeof requestState === "string") &&
        (inputResponses === undefined || isObject(inputResponses)) && enveloped({ _meta }, true);
    },
    early(json) {
      if (era === undefined && !handshake) {
        const init = request(json, "initialize");
        if (init) {
          const p = init.params;
          if (
            !only(p, ["protocolVersion", "capabilities", "clientInfo"]) || typeof p.protocolVersion !== "string" ||
            !LEGACY_VERSIONS.includes(p.protocolVersion) || !knownCapabilities(p.capabilities) ||
            !plainClientInfo(p.clientInfo)
          ) return undefined;
          handshake = { protocolVersion: p.protocolVersion, capabilities: p.capabilities };
          era = "legacy";
          return {
            result: {
              protocolVersion: p.protocolVersion,
              capabilities,
              serverInfo: { ...SERVER_INFO },
              instructions: text,
            },
          };
        }
      }
      if (era === "legacy") {
        if (
          !initialized && isObject(json) && json.jsonrpc === "2.0" && json.method === "notifications/initialized" &&
          only(json, ["jsonrpc", "method", "params"]) && (json.params === undefined || isObject(json.params)) &&
          (json.params === undefined || Object.keys(json.params).length === 0)
        ) {
          initialized = true;
          return "taken";
        }
        const list = request(json, "tools/list");
        if (list && listing && Object.keys(list.params).length === 0) return { result: { tools: listing } };
        return undefined;
      }
      // 2026 era: a discover probe locks nothing; an enveloped tools/list locks the connection.
      const discover = request(json, "server/discover");
      if (discover && enveloped(discover.params)) {
        return {
          result: {
            supportedVersions: [...MODERN_VERSIONS],
            capabilities,
            instructions: text,
            resultType: "complete",
            ...modernMeta(),
          },
        };
      }
      const list = request(json, "tools/list");
      if (list && listing && enveloped(list.params)) {
        era = "modern";
        return { result: { tools: listing, resultType: "complete", ...modernMeta() } };
      }
      return undefined;
    },
  };
}
