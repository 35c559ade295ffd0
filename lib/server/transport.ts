/**
 * A newline-delimited JSON-RPC transport over byte streams (stdio) with
 * linear buffering and a hard message-size limit.
 *
 * Why not the SDK's `StdioServerTransport`: it re-concatenates and re-scans
 * the whole pending message on every chunk (time grows with the square of its size), and
 * closes itself on a message over 10 MiB, after which the server silently
 * stops answering. Here each byte is scanned once for the newline, chunks are
 * joined once per message, and an oversized message is discarded and answered
 * with a JSON-RPC error while the transport keeps serving. By default it
 * reads and writes the server's own stdin and stdout through
 * lib/server/stdio.ts (on the event loop when they are pipes or sockets).
 *
 * At the end of input (the client closed our stdin, perhaps right after its
 * last request) the transport does not close at once: the SDK aborts every
 * request in flight on close and drops its reply. It first waits until every
 * request already read is answered (or cancelled by the client) and written,
 * up to `drainMs`, then closes.
 *
 * Requests whose method `direct` names a handler for (tools/call: every call
 * of every tool, on a connection locked to the 2025 era) are answered here,
 * not by the SDK's dispatch: the SDK checks each message against several zod
 * schemas, some of them failing, before it finds a request's handler, a cost
 * every call paid for nothing. A direct request
 * gets what the SDK gives a handler that matters here — an AbortSignal that
 * `notifications/cancelled` and the transport's close abort, no reply once
 * cancelled, and an error's `code`/`message` as the JSON-RPC error — and
 * everything else still goes to the SDK. Envelopes of the common shape (a
 * request or notification without `_meta`) are recognised by a plain check;
 * any other is parsed by the SDK's schema.
 *
 * The transport can read before the SDK is connected ({@linkcode LinearStdioTransport.listen}), so a
 * starting server answers while the SDK loads: `early` answers the requests it knows exactly
 * (lib/server/front.ts: `initialize`, `server/discover`, `tools/list`), `direct` and `earlyCall` the calls they
 * take (never handed to the SDK); every other message waits. Once the SDK starts the transport, it is handed every message in the order read — those
 * answered early under an id of the transport's own, whose answer is dropped — so its state is as if it had
 * answered them itself.
 *
 * A message is decoded so that bytes which are not UTF-8 stay visible
 * ({@linkcode decodeKeepingInvalid}): the tool pipeline refuses a string
 * holding them, naming the parameter, instead of passing on U+FFFD. A UTF-8
 * byte order mark (which many Windows tools write) is dropped before the first
 * message only; a later line starting with one is answered with a parse error
 * saying so.
 *
 * @example
 * ```ts
 * import { McpServer } from "../sdk.ts";
 * declare const callTool: DirectHandler; // answers a tools/call
 * const transport = new LinearStdioTransport({
 *   maxMessageBytes: 64 * 1024 * 1024,
 *   direct: (method) => method === "tools/call" ? callTool : undefined,
 * });
 * await new McpServer({ name: "example", version: "0" }).connect(transport);
 * ```
 */
import type { JSONRPCMessage, Transport } from "../sdk.ts";
import { type ByteReader, byteReader } from "../byte_reader.ts";
import { isBrokenPipe, stdinReader, stdoutWriter } from "./stdio.ts";
import { joinChunks } from "../text/bytes.ts";
import { quotedForError } from "../errors.ts";

export interface LinearStdioTransportOptions {
  maxMessageBytes: number;
  /** Defaults to the server's stdin (lib/server/stdio.ts). */
  input?: ReadableStream<Uint8Array>;
  /** Defaults to writing the server's stdout fully (lib/server/stdio.ts). */
  write?: (bytes: Uint8Array) => Promise<void>;
  /** Called for protocol-level problems worth a log line (oversize, bad JSON). */
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
  /**
   * At the end of input: the longest time to wait for the requests already read to be answered before
   * closing (default: no limit; each request is bounded by its own timeout).
   */
  drainMs?: number;
  /**
   * The handler of a request method the transport answers itself, asked per request (see the module
   * documentation); undefined: the SDK answers it.
   */
  direct?: (method: string) => DirectHandler | undefined;
  /**
   * Asked for every request before anything answers it: an error to answer it with instead (a request of the
   * other protocol era than the connection's), or undefined. `negotiated`: the revision `initialize` agreed on, once
   * it was answered (here before the SDK loaded, or by the SDK), which the SDK may not know yet when it is handed
   * the request (the handshake it is replayed first is still being handled).
   */
  refuse?: (method: string, params: Record<string, unknown> | undefined, negotiated?: string) => Refusal | undefined;
  /**
   * Parses a message that is not of the common shape into a JSON-RPC message, or throws (the SDK's
   * `parseJSONRPCMessage`). Until it is set ({@linkcode LinearStdioTransport.configure}) such a message waits.
   */
  parse?: (json: unknown) => JSONRPCMessage;
  /**
   * Before start(): answers a request itself (its result), takes a notification (`taken`), or leaves the message
   * to wait for the SDK (undefined). Asked in order until it leaves one.
   */
  early?: (json: unknown) => { result: unknown } | "taken" | undefined;
  /**
   * The handler of a request the transport answers itself though `direct` does not take its method alone (a
   * 2026-era tools/call, judged by its whole message: lib/server/early.ts), or undefined; asked before start() and,
   * for what `direct` leaves, after it. Such a request is never handed to the SDK.
   */
  earlyCall?: (json: unknown) => DirectHandler | undefined;
  /** Called when a message is left waiting for the SDK (its first time): whoever loads the SDK should start. */
  onWaiting?: () => void;
}

/**
 * Answers one request: resolves with its result, or rejects with an error whose `code` (a JSON-RPC error code,
 * default -32603), `message` and `data` (if any) become the error reply, as the SDK makes it. `signal` aborts when the client cancels the request or
 * the transport closes; nothing is replied then.
 */
export type DirectHandler = (params: Record<string, unknown> | undefined, signal: AbortSignal) => Promise<unknown>;

/** A JSON-RPC error to answer a request with. */
export interface Refusal {
  code: number;
  message: string;
  data?: unknown;
}

const NEWLINE = 0x0a;
/** JSON-RPC's internal error code (the SDK's ProtocolErrorCode.InternalError). */
const INTERNAL_ERROR = -32603;
/** The error code of a request of ours the client can no longer answer (JSON-RPC's implementation-defined range). */
const CONNECTION_CLOSED = -32000;
// A U+FEFF is text like any other here (the default decoder drops one at the start of each decode): only the
// stream's first bytes may be a byte order mark (`#finishMessage`).
const laxUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** A UTF-8 byte order mark, accepted (and dropped) before the first message only: Windows tools write one. */
const BOM = [0xef, 0xbb, 0xbf];
/** The largest integer a JSON-RPC id may be and still come back exactly (JSON.parse holds no larger one). */
const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * Decodes UTF-8, turning each byte of an ill-formed sequence into a lone
 * low surrogate (U+DC80–U+DCFF, as Python's "surrogateescape") instead of
 * U+FFFD, so that a string made from bad bytes is not well-formed and can be
 * told from one that holds U+FFFD on purpose. Text without U+FFFD costs one
 * ordinary decode and a search (a strict decoder is 3–5 times slower).
 */
export function decodeKeepingInvalid(bytes: Uint8Array): string {
  const text = laxUtf8.decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    // Ill-formed somewhere: decode the well-formed runs, mark every other byte.
  }
  const parts: string[] = [];
  let run = 0;
  let i = 0;
  while (i < bytes.length) {
    const n = wellFormedLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    if (run < i) parts.push(strictUtf8.decode(bytes.subarray(run, i)));
    parts.push(String.fromCharCode(0xdc00 + bytes[i]));
    run = ++i;
  }
  if (run < bytes.length) parts.push(strictUtf8.decode(bytes.subarray(run)));
  return parts.join("");
}

/** The length of the well-formed UTF-8 sequence at `i` (Unicode table 3-7), or 0. */
function wellFormedLength(b: Uint8Array, i: number): number {
  const lead = b[i];
  if (lead < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi;
  if (lead >= 0xc2 && lead <= 0xdf) return cont(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const [lo, hi] = lead === 0xe0 ? [0xa0, 0xbf] : lead === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const [lo, hi] = lead === 0xf0 ? [0x90, 0xbf] : lead === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}
/** How much of an oversized message is kept to recover its id. */
const EDGE_BYTES = 512;

type RequestId = string | number;

/**
 * Recovers the `id` of a JSON-RPC message from its first and last bytes.
 * The SDK puts `id` last (`...,"jsonrpc":"2.0","id":7}`); other clients put it
 * first (`{"jsonrpc":"2.0","id":7,...`), or after the method
 * (`{"jsonrpc":"2.0","method":"tools/call","id":7,...`). Only these top-level
 * positions are trusted (before the id, only the string members `jsonrpc` and
 * `method`), so an `"id"` nested in params is never mistaken for the request's.
 */
export function recoverId(head: string, tail: string): RequestId | undefined {
  const raw = recoverRawId(head, tail);
  if (raw === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === "number" || typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The text of the id {@linkcode recoverId} finds, as the client wrote it. */
function recoverRawId(head: string, tail: string): string | undefined {
  const idValue = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
  const atEnd = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${idValue}\s*\}\s*$`).exec(tail);
  const atStart = new RegExp(
    String.raw`^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*){0,2}"id"\s*:\s*${idValue}\s*,`,
  ).exec(head);
  return atEnd?.[1] ?? atStart?.[1];
}

/**
 * An id to answer with, from its text as the client wrote it: a number JSON.parse cannot hold exactly (over
 * {@linkcode MAX_ID}, or with a fraction or exponent) stays its text, written back as it came.
 */
type AnswerId = RequestId | null | { raw: string };

function answerId(raw: string | undefined): AnswerId {
  if (raw === undefined) return null;
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === "number" && !Number.isSafeInteger(v)) return { raw };
    return typeof v === "number" || typeof v === "string" ? v : null;
  } catch {
    return null;
  }
}

/**
 * Whether `item` is a request (or a message that is no answer) whose id JSON.parse could not hold exactly: a number
 * that is not an integer of at most {@linkcode MAX_ID} in magnitude. An answer (no method) is left alone: ours have
 * small integer ids, so it answers nothing of ours.
 */
function inexact(item: unknown): boolean {
  return isObject(item) && typeof item.id === "number" && !Number.isSafeInteger(item.id) &&
    ("method" in item || !("result" in item || "error" in item));
}

/** `text` parsed again, with the text of each object's numeric `id` member as written (source text access). */
function withIdTexts(text: string): { json: unknown; ids: Map<unknown, string> } {
  const ids = new Map<unknown, string>();
  const json: unknown = JSON.parse(text, function (this: unknown, key, value, context?: { source?: string }) {
    if (key === "id" && typeof value === "number" && context?.source !== undefined) ids.set(this, context.source);
    return value;
  });
  return { json, ids };
}

/** The text of the top-level id of message `json` (parsed from `text`) when it is {@linkcode inexact}. */
function inexactId(json: unknown, text: string): string | undefined {
  if (!inexact(json)) return undefined;
  const again = withIdTexts(text);
  return again.ids.get(again.json);
}

/** The -32600 answer, as a line's text, to a request whose id is {@linkcode inexact} (`raw`: the id as written). */
function inexactIdAnswer(raw: string): string {
  const message = `Request id ${raw} is not an integer of at most ${MAX_ID} in magnitude, which JSON-RPC cannot ` +
    `carry exactly: send a string id or a smaller integer`;
  return `{"jsonrpc":"2.0","id":${raw},"error":${JSON.stringify({ code: -32600, message })}}`;
}

const ENVELOPE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x);

/**
 * Whether `json` is a JSON-RPC request or notification the SDK's schema
 * accepts as it is, by a plain check: "2.0", a string method, an id that is
 * a string or an integer, params absent or an object without `_meta`, and no
 * other key. False means "not sure", not "invalid": the schema decides.
 */
function isPlainCall(json: unknown): json is JSONRPCMessage {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return false;
  const m = json as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string") return false;
  for (const k in m) if (!ENVELOPE_KEYS.has(k)) return false;
  if ("id" in m && typeof m.id !== "string" && !Number.isSafeInteger(m.id)) return false;
  const p = m.params;
  return p === undefined || (p !== null && typeof p === "object" && !Array.isArray(p) && !("_meta" in p));
}

/**
 * Whether a request's `_meta` key is a client's own, which the SDK's schema passes through unchecked (Claude Code's
 * `claudecode/toolUseId`, Codex's `callId`): any key but `progressToken` whose prefix (before a `/`) has no label
 * `modelcontextprotocol` or `mcp`, which the protocol reserves (`io.modelcontextprotocol/related-task`, …).
 *
 * @example
 * ```ts
 * clientMetaKey("claudecode/toolUseId"); // true
 * clientMetaKey("io.modelcontextprotocol/related-task"); // false
 * ```
 */
export function clientMetaKey(key: string): boolean {
  if (key === "progressToken") return false;
  const slash = key.lastIndexOf("/");
  return slash < 0 || !key.slice(0, slash).split(/[./]/).some((l) => l === "modelcontextprotocol" || l === "mcp");
}

/**
 * A plain call ({@linkcode isPlainCall}), or a request whose params' `_meta` holds a progress token and the client's
 * own keys ({@linkcode clientMetaKey}): the calls the transport answers directly before the SDK (and its parser) has
 * loaded.
 */
function isDirectCall(json: unknown): json is JSONRPCMessage & { id: RequestId; method: string } {
  if (json === null || typeof json !== "object" || !("id" in json)) return false;
  const params = (json as { params?: unknown }).params;
  if (params === null || typeof params !== "object" || !("_meta" in params)) return isPlainCall(json);
  const { _meta: meta, ...rest } = params as Record<string, unknown>;
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return false;
  const token = (meta as { progressToken?: unknown }).progressToken;
  return (token === undefined || typeof token === "string" || Number.isSafeInteger(token)) &&
    Object.keys(meta).every((k) => k === "progressToken" || clientMetaKey(k)) && isPlainCall({ ...json, params: rest });
}

/**
 * Whether a request of `method` counts as unanswered until its answer: not a `subscriptions/listen` (2026 era), a
 * stream of notifications that ends only when the client cancels it or the connection closes, so neither the end
 * of input nor a signal waits for it (the server would otherwise outlive its client).
 */
function awaitsAnswer(method: unknown): boolean {
  return method !== "subscriptions/listen";
}

/** The top-level `id` of a parsed message, when it is a valid JSON-RPC id. */
function idOf(json: unknown): RequestId | undefined {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return undefined;
  const id = (json as { id?: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined;
}

/**
 * Why a message the SDK's parser refused is not a JSON-RPC 2.0 request or notification of MCP, and what to send
 * instead: the first of its top-level faults, else the shape it must have.
 */
function whyNotJsonRpc(json: unknown, inBatch = false): string {
  if (!isObject(json)) {
    return inBatch ? "each item of a batch must be a JSON object" : "send a JSON object, one per line";
  }
  if (json.jsonrpc !== "2.0") return 'its "jsonrpc" must be "2.0"';
  if (!("method" in json)) return 'send a request or notification with a "method"';
  if (typeof json.method !== "string") return 'its "method" must be a string';
  const id = json.id;
  if ("id" in json && typeof id !== "string" && !Number.isSafeInteger(id)) {
    return 'its "id" must be a string or an integer (a notification has none)';
  }
  if (json.params !== undefined && !isObject(json.params)) return 'its "params" must be an object';
  // JSON.parse rounded it: progress would go out under another token than the client's.
  const meta = isObject(json.params) ? json.params._meta : undefined;
  const token = isObject(meta) ? meta.progressToken : undefined;
  if (typeof token === "number" && Number.isInteger(token) && !Number.isSafeInteger(token)) {
    return `its progressToken is an integer over ${MAX_ID} in magnitude, which JSON-RPC cannot carry exactly: ` +
      "send a string token or a smaller integer";
  }
  return 'its "params" must be of the shape the MCP schema gives (a "_meta" an object, a progressToken a string or integer)';
}

/**
 * An answer, with the SDK's bare "Method not found" (no handler for a request's method, or a method the
 * connection's protocol revision does not have: `ping` and `logging/setLevel` in 2026-07-28) made to name the
 * method and where to see what is served; and its "Prompt NAME not found" to quote the name (sent by the client,
 * newlines and all) and say where to see the prompts.
 */
function withMethodNamed(message: JSONRPCMessage, method: string | undefined): JSONRPCMessage {
  const error = (message as { error?: { code?: unknown; message?: unknown } }).error;
  // The SDK's prompts/get of a name it does not know: the name as sent (newlines and all), and no way on.
  const prompt = method === "prompts/get" && error?.code === -32602 && typeof error.message === "string"
    ? /^Prompt (.*) not found$/s.exec(error.message)
    : null;
  // Its arguments the prompt's schema refuses: zod's words for a missing one ("received undefined") made plain.
  const args = method === "prompts/get" && error?.code === -32602 && typeof error.message === "string"
    ? /^Invalid arguments for prompt (.*?): (.*)$/s.exec(error.message)
    : null;
  if (args) {
    const issues = args[2].replace(/Invalid input: expected (\w+), received undefined/g, "missing ($1)")
      .replace(/\s+/g, " ");
    return {
      ...message,
      error: {
        ...error,
        message: `Invalid arguments for prompt ${quotedForError(args[1])}: ${issues}: call prompts/list to see ` +
          "the arguments it takes",
      },
    } as JSONRPCMessage;
  }
  if (prompt) {
    const name = quotedForError(prompt[1]);
    return {
      ...message,
      error: { ...error, message: `Prompt ${name} not found: call prompts/list to see the prompts this server offers` },
    } as JSONRPCMessage;
  }
  if (method === undefined || error?.code !== -32601 || error.message !== "Method not found") return message;
  const named = quotedForError(method);
  return {
    ...message,
    error: {
      ...error,
      message: `Method not found: this server does not serve ${named} on this connection; the capabilities in ` +
        "its initialize (or server/discover) answer say what it serves",
    },
  } as JSONRPCMessage;
}

/** The JSON-RPC error code of a request naming a protocol revision the connection does not serve. */
const UNSUPPORTED_VERSION = -32022;

/**
 * An answer, with an unsupported-revision error (-32022, the SDK's or ours: `Unsupported protocol version: X`) made
 * to quote the revision the client named (a line break in it stays on the one line, a long one is cut) and to say
 * which revisions the connection serves (its `data.supported`).
 */
function withVersionQuoted(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { code?: unknown; data?: unknown } }).error;
  if (error?.code !== UNSUPPORTED_VERSION || !isObject(error.data)) return message;
  const { requested, supported } = error.data;
  if (!Array.isArray(supported) || !supported.every((v) => typeof v === "string")) return message;
  const named = quotedForError(typeof requested === "string" ? requested : JSON.stringify(requested) ?? "");
  return {
    ...message,
    error: {
      ...error,
      message: `Unsupported protocol version ${named}: this connection serves ${supported.join(", ")}; name ` +
        `${supported.length > 1 ? "one of them" : "it"} in the request's _meta`,
    },
  } as JSONRPCMessage;
}

/**
 * An answer, with an internal error (-32603) whose message is a schema's list of issues (the SDK checks a
 * request's params against the method's schema in its handler and answers a failure as an internal error, the
 * issues as pretty-printed JSON over many lines) made the invalid-params error it is (-32602), in one line: each
 * issue's path and message ("params.uri: expected string, received number").
 */
function withParamsIssues(message: JSONRPCMessage, method: string | undefined): JSONRPCMessage {
  const error = (message as { error?: { code?: unknown; message?: unknown } }).error;
  if (error?.code !== -32603 || typeof error.message !== "string" || !error.message.startsWith("[")) return message;
  let issues: unknown;
  try {
    issues = JSON.parse(error.message);
  } catch {
    return message;
  }
  // Issues of the request's params only: one of a result the server made is its own fault, left as it is.
  const isIssue = (i: unknown): i is { path: unknown[]; message: string } =>
    isObject(i) && Array.isArray(i.path) && i.path[0] === "params" && typeof i.message === "string";
  if (!Array.isArray(issues) || issues.length === 0 || !issues.every(isIssue)) return message;
  // Keys come from the request: each is written as JSON unless a plain name or index, so the line stays one.
  const segment = (k: unknown) =>
    typeof k === "number"
      ? `[${k}]`
      : /^[A-Za-z_][\w-]{0,63}$/.test(String(k))
      ? `.${k}`
      : `[${JSON.stringify(String(k).slice(0, 64))}]`;
  const described = issues.slice(0, 3).map((i) => {
    const path = i.path.map(segment).join("").replace(/^\./, "") || "params";
    const said = i.message.replace(/^Invalid input: /, "").replace(
      /^expected (\w+), received undefined$/,
      "missing ($1)",
    );
    return `${path}: ${JSON.stringify(said).slice(1, -1)}`;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : "";
  const of = method === undefined ? "" : ` of ${JSON.stringify(method.slice(0, 100))}`;
  return {
    ...message,
    error: {
      code: -32602,
      message: `Invalid params${of}: ${described.join("; ")}${more}: send them as the MCP schema gives`,
    },
  } as JSONRPCMessage;
}

/** The one MCP revision whose clients may send JSON-RPC batches (2025-06-18 removed them). */
const BATCH_VERSION = "2025-03-26";

/** A JSON-RPC batch's requests: their ids in order, those still unanswered, and the answers so far. */
interface Batch {
  order: RequestId[];
  waiting: Set<RequestId>;
  replies: Map<RequestId, unknown>;
}

/** See the module documentation. */
export class LinearStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #opts: LinearStdioTransportOptions;
  #reader?: ByteReader;
  #writeOut?: (bytes: Uint8Array) => Promise<void>;
  #writeChain: Promise<void> = Promise.resolve();
  #closed = false;
  /** No line has been read yet: a byte order mark may start the next. */
  #streamStart = true;
  #encoder = new TextEncoder();
  #decoder = new TextDecoder();
  /** Requests read and not answered yet (nor cancelled by the client). */
  #unanswered = new Set<RequestId>();
  #allAnswered?: PromiseWithResolvers<void>;
  /** The method of each request read and not answered yet (for the one line of a "Method not found"). */
  #methods = new Map<RequestId, string>();
  /** Direct requests in flight: what cancels each. */
  #directCalls = new Map<RequestId, AbortController>();
  #listening = false;
  #started = false;
  /** Messages read before start(), in order; `early`: answered or taken here, handed to the SDK all the same. */
  #held: { json: unknown; early: boolean }[] = [];
  /** A message is waiting for the SDK: every later one but direct calls waits too. */
  #waiting = false;
  /** The ids under which messages answered early were handed to the SDK: its answers are dropped. */
  #replayed = new Set<string>();
  /** The protocol revision the SDK negotiated at `initialize` (it tells its transport), once it has. */
  #version?: string;
  /** Requests of a JSON-RPC batch not answered yet, each with its batch (see {@linkcode BATCH_VERSION}). */
  #batchOf = new Map<RequestId, Batch>();
  /** The batch item being dispatched that has no id of its own there, and its place among the batch's answers. */
  #batchSlot?: { batch: Batch; key: string };
  /** The ids of the server's own requests to the client (2025 era: `elicitation/create`) not answered yet. */
  #asked = new Set<RequestId>();
  /** The client closed our input: it cannot answer a request of ours any more. */
  #inputEnded = false;

  // The message being assembled: chunks not yet joined.
  #chunks: Uint8Array[] = [];
  #pending = 0;
  // Discard mode (message over the limit): keep only its edges.
  #discarding = false;
  #head: Uint8Array = new Uint8Array(0);
  #tail: Uint8Array = new Uint8Array(0);

  constructor(opts: LinearStdioTransportOptions) {
    this.#opts = opts;
  }

  /** Sets options later (the SDK's parser and handlers, once it has loaded). */
  configure(opts: Partial<LinearStdioTransportOptions>): void {
    this.#opts = { ...this.#opts, ...opts };
  }

  /** Starts reading before the SDK connects: see `early` and the module documentation. */
  listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#reader = this.#opts.input ? byteReader(this.#opts.input) : stdinReader();
    void this.#readLoop();
  }

  /** Called by the SDK: hands it what was read before, then every message as it is read. */
  start(): Promise<void> {
    this.#started = true;
    const held = this.#held;
    this.#held = [];
    let n = 0;
    for (const { json, early } of held) {
      if (!early) {
        this.#dispatch(json);
        continue;
      }
      const m = json as { id?: RequestId };
      if (m.id === undefined) {
        this.onmessage?.(json as JSONRPCMessage);
        continue;
      }
      // Under an id no client request has (ids of its own are numbers or its own strings): the answer is dropped.
      const id = `\u0000early-${n++}`;
      this.#replayed.add(id);
      this.onmessage?.({ ...m, id } as JSONRPCMessage);
    }
    this.listen();
    return Promise.resolve();
  }

  async #readLoop(): Promise<void> {
    const reader = this.#reader!;
    try {
      while (true) {
        const value = await reader.read();
        if (value === undefined) break;
        if (value.length > 0) this.#consume(value);
      }
      // The last message may end with the input instead of a newline (`printf '%s' "$request" | tmux-mcp`): it is
      // whole, and answered like the others (a cut-off one gets the parse error, under its id if it is there).
      if (this.#pending > 0 || this.#discarding) this.#consume(new Uint8Array([NEWLINE]));
    } catch (e) {
      if (!this.#closed) this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
    // The client may close its end right after its last request: answer what was asked first. What it was asked
    // (the server's own requests) it can no longer answer: those fail now, not at their timeouts.
    this.#inputEnded = true;
    for (const id of [...this.#asked]) this.#unanswerable(id);
    const drainMs = this.#opts.drainMs;
    // The requests waiting for the SDK count as unanswered: whoever loads it was told (onWaiting).
    if (!this.#closed) await this.settled(drainMs === undefined ? undefined : AbortSignal.timeout(drainMs));
    void this.close();
  }

  /** How many requests were read and are not answered yet. */
  get unanswered(): number {
    return this.#unanswered.size;
  }

  /**
   * Resolves once every request read so far is answered (or was cancelled
   * by the client) and every reply written — or when `bound` fires.
   */
  async settled(bound?: AbortSignal): Promise<void> {
    const expired = new Promise<void>((r) => {
      if (bound?.aborted) r();
      else bound?.addEventListener("abort", () => r(), { once: true });
    });
    while (this.#unanswered.size > 0 && !bound?.aborted) {
      this.#allAnswered ??= Promise.withResolvers();
      await Promise.race([this.#allAnswered.promise, expired]);
    }
    await Promise.race([this.#writeChain, expired]);
  }

  /** Keeps count of requests in and replies out (the SDK answers every request it does not see cancelled). */
  #track(message: JSONRPCMessage, incoming: boolean): void {
    if (incoming) {
      if (!("method" in message) && "id" in message) this.#asked.delete(message.id as RequestId);
      if ("method" in message) {
        if ("id" in message) {
          if (awaitsAnswer(message.method)) this.#unanswered.add(message.id);
          this.#methods.set(message.id, message.method);
        } else if (message.method === "notifications/cancelled") {
          const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
          this.#answered(id);
          if (id !== undefined) this.#methods.delete(id);
          // A cancelled request gets no answer (the SDK sends none): its batch goes out without it.
          if (id !== undefined) this.#toBatch(id);
        }
      }
    } else if ("id" in message && !("method" in message)) this.#answered(message.id);
  }

  #answered(id: RequestId | undefined): void {
    if (id === undefined || !this.#unanswered.delete(id) || this.#unanswered.size > 0) return;
    this.#allAnswered?.resolve();
    this.#allAnswered = undefined;
  }

  #consume(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      this.#append(chunk.subarray(start, end));
      if (nl === -1) return;
      try {
        this.#finishMessage();
      } catch (e) {
        // One message's failure must not end the input (and with it the connection): the next is read as usual.
        this.#opts.onWarning?.("failed to handle a message", { error: e instanceof Error ? e.message : String(e) });
      }
      start = nl + 1;
    }
  }

  #append(part: Uint8Array): void {
    if (part.length === 0) return;
    if (!this.#discarding && this.#pending + part.length > this.#opts.maxMessageBytes) {
      // Switch to discard mode: keep the head for id recovery, drop the rest.
      const joined = joinChunks(this.#chunks, this.#pending);
      this.#head = joined.slice(0, EDGE_BYTES);
      this.#tail = new Uint8Array(0);
      this.#chunks = [];
      this.#discarding = true;
    }
    this.#pending += part.length;
    if (this.#discarding) {
      if (this.#head.length < EDGE_BYTES) {
        this.#head = concat2(this.#head, part.subarray(0, EDGE_BYTES - this.#head.length));
      }
      this.#tail = part.length >= EDGE_BYTES
        ? part.slice(part.length - EDGE_BYTES)
        : concat2(this.#tail, part).slice(-EDGE_BYTES);
    } else {
      // Copy: the reader may reuse its buffer.
      this.#chunks.push(part.slice());
    }
  }

  #finishMessage(): void {
    const size = this.#pending;
    const streamStart = this.#streamStart;
    this.#streamStart = false;
    if (this.#discarding) {
      const head = this.#decoder.decode(this.#head);
      const tail = this.#decoder.decode(this.#tail);
      this.#reset();
      this.#rejectOversized(size, head, tail);
      return;
    }
    let bytes = joinChunks(this.#chunks, size);
    this.#reset();
    if (size === 0) return;
    // A byte order mark: dropped at the stream's start, a parse error (saying so) anywhere else.
    const bom = BOM.every((b, i) => bytes[i] === b);
    if (bom && streamStart) bytes = bytes.subarray(BOM.length);
    const strayBom = bom && !streamStart;
    let text = decodeKeepingInvalid(bytes);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#opts.onWarning?.("discarded a message that is not valid JSON", { bytes: size });
      const head = text.slice(strayBom ? 1 : 0, EDGE_BYTES);
      const id = answerId(recoverRawId(head, text.slice(-EDGE_BYTES)));
      const message = strayBom
        ? "Message starts with a byte order mark (U+FEFF), which only the first line may: send JSON lines without it"
        : "Message is not valid JSON";
      void this.#sendError(id, -32700, message);
      return;
    }
    const inexact = inexactId(json, text);
    if (inexact !== undefined) {
      this.#opts.onWarning?.("refused a request id that would not come back exactly", { bytes: size });
      void this.#write(inexactIdAnswer(inexact) + "\n").catch(() => {});
      return;
    }
    if (Array.isArray(json)) return this.#batch(json, size, text);
    if (this.#started) return this.#dispatch(json, size);
    this.#early(json);
  }

  /** Called by the SDK once `initialize` has negotiated the protocol revision. */
  setProtocolVersion(version: string): void {
    this.#version = version;
  }

  /**
   * A JSON-RPC batch: on a connection at {@linkcode BATCH_VERSION} each message is handled as if it came alone and
   * the answers to its requests go out together, as one array in the batch's order (none for notifications only);
   * refused in one line otherwise.
   */
  #batch(items: unknown[], size: number, text: string): void {
    // Answered in a batch only once the SDK serves (2025-03-26's handshake is its own, never answered early).
    if (this.#version !== BATCH_VERSION || !this.#started) {
      this.#opts.onWarning?.("refused a JSON-RPC batch", { bytes: size });
      void this.#sendError(
        null,
        -32600,
        `JSON-RPC batches are part of MCP ${BATCH_VERSION} only${
          this.#version ? ` (this connection: ${this.#version})` : ""
        }: send one message per line`,
      );
      return;
    }
    if (items.length === 0) {
      return void this.#sendError(null, -32600, "Empty JSON-RPC batch: send at least one message");
    }
    const batch: Batch = { order: [], waiting: new Set(), replies: new Map() };
    // Requests whose ids JSON.parse rounded: answered in the batch under the ids as written, not dispatched.
    let ids = new Map<unknown, string>();
    if (items.some(inexact)) {
      ({ json: items, ids } = withIdTexts(text) as { json: unknown[]; ids: Map<unknown, string> });
    }
    const refused = new Set<unknown>();
    const slots = new Map<unknown, string>();
    for (const item of items) {
      const raw = inexact(item) ? ids.get(item) : undefined;
      if (raw !== undefined) {
        const key = `\u0000inexact-${batch.order.length}`;
        batch.order.push(key);
        batch.replies.set(key, { line: inexactIdAnswer(raw) });
        refused.add(item);
        continue;
      }
      const id = idOf(item);
      const method = isObject(item) ? item.method : undefined;
      if (id !== undefined && method !== undefined && (this.#batchOf.has(id) || this.#unanswered.has(id))) {
        // Its answer could not be told from the other's (and would go out apart from its batch): not run.
        const key = `\u0000duplicate-${batch.order.length}`;
        batch.order.push(key);
        const message = `Request id ${JSON.stringify(id)} is already used by another request of this batch or ` +
          "one still unanswered: give each request its own id";
        batch.replies.set(key, { jsonrpc: "2.0", id, error: { code: -32600, message } });
        refused.add(item);
        continue;
      }
      if (id === undefined || method === undefined) {
        // A notification gets no answer; an item that is no valid message gets its error here, in its place.
        const key = `\u0000item-${batch.order.length}`;
        batch.order.push(key);
        slots.set(item, key);
        continue;
      }
      batch.order.push(id);
      batch.waiting.add(id);
      this.#batchOf.set(id, batch);
    }
    for (const item of items) {
      if (refused.has(item)) continue;
      this.#batchSlot = slots.get(item) === undefined ? undefined : { batch, key: slots.get(item)! };
      try {
        this.#dispatch(item, 0);
      } finally {
        this.#batchSlot = undefined;
      }
    }
    this.#flush(batch);
  }

  /** A batch's answer for request `id` (undefined: it was cancelled and gets none); true if `id` is a batch's. */
  #toBatch(id: RequestId, reply?: unknown): boolean {
    const batch = this.#batchOf.get(id);
    if (!batch) return false;
    this.#batchOf.delete(id);
    batch.waiting.delete(id);
    if (reply !== undefined) batch.replies.set(id, reply);
    this.#flush(batch);
    return true;
  }

  #flush(batch: Batch): void {
    if (batch.waiting.size > 0 || batch.order.length === 0) return;
    const replies = batch.order.map((id) => batch.replies.get(id)).filter((r) => r !== undefined);
    batch.order = [];
    // An answer under an id as written ({@linkcode inexactIdAnswer}) is its own text already.
    const line = (r: unknown) => isObject(r) && typeof r.line === "string" ? r.line : JSON.stringify(r);
    if (replies.length > 0) void this.#write(`[${replies.map(line).join(",")}]\n`).catch(() => {});
  }

  /** A message read before start(): answered early, a direct call, or held for the SDK (see `early`). */
  #early(json: unknown): void {
    if (isDirectCall(json) && this.#opts.direct?.(json.method)) {
      // Its `_meta` (a progress token) is the SDK parser's to check once it is there: this one was checked here.
      if (!isPlainCall(json)) return this.#dispatch(json, 0, json);
      return this.#dispatch(json);
    }
    const early = this.#opts.earlyCall?.(json);
    if (early) {
      const m = json as JSONRPCMessage & { id: RequestId; params?: Record<string, unknown> };
      this.#track(m, true);
      return void this.#answerDirect(m.id, m.params, early);
    }
    // Of any shape (a 2026 one carries the `_meta` envelope): a call answered here stops now, not once the SDK has
    // loaded and parsed the notification.
    const m = json as { jsonrpc?: unknown; method?: unknown } | null;
    if (typeof m === "object" && m?.jsonrpc === "2.0" && m.method === "notifications/cancelled" && !("id" in m)) {
      this.#cancelDirect(json as JSONRPCMessage);
    }
    const answer = this.#waiting ? undefined : this.#opts.early?.(json);
    if (answer === undefined) {
      // Counted unanswered now: an end of input drains it once the SDK has answered.
      const id = idOf(json);
      const method = isObject(json) ? json.method : undefined;
      if (id !== undefined && method !== undefined && awaitsAnswer(method)) this.#unanswered.add(id);
      this.#held.push({ json, early: false });
      if (!this.#waiting) this.#waiting = true, this.#opts.onWaiting?.();
      return;
    }
    this.#held.push({ json, early: true });
    if (answer === "taken") return;
    const version = (answer.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if ((json as { method?: unknown }).method === "initialize" && typeof version === "string") this.#version = version;
    const id = (json as { id: RequestId }).id;
    this.#unanswered.add(id);
    void this.send({ result: answer.result, jsonrpc: "2.0", id } as JSONRPCMessage).catch(() => {});
  }

  #cancelDirect(message: JSONRPCMessage): void {
    const id = (message as { params?: { requestId?: RequestId } }).params?.requestId;
    if (id !== undefined) this.#directCalls.get(id)?.abort(new Error("cancelled by the client"));
  }

  /** A message, to the SDK or answered here. `size`: its bytes, for a warning. */
  #dispatch(json: unknown, size = 0, checked?: JSONRPCMessage): void {
    // A call `earlyCall` takes was judged whole by a check stricter than the SDK's parser: not parsed again.
    const taken = checked ? undefined : this.#opts.earlyCall?.(json);
    let message: JSONRPCMessage;
    try {
      if (checked) message = checked;
      else if (taken || isPlainCall(json)) message = json as JSONRPCMessage;
      else if (this.#opts.parse) message = this.#opts.parse(json);
      else throw new Error("no parser for a message that is not of the common shape");
    } catch {
      this.#opts.onWarning?.("discarded a message that is not a JSON-RPC 2.0 message", { bytes: size });
      // Valid JSON (a wrong "jsonrpc" version, a missing method…): its own top-level id, so the
      // client's request fails at once instead of waiting for its timeout.
      const id = idOf(json);
      if (isObject(json) && !("method" in json)) {
        // No method: the client's answer to a request of ours, not a request. An answer is never answered (its id
        // is ours, which may be one of the client's own requests' too); the request it answers fails at once
        // instead of waiting for its timeout, saying why.
        if (id !== undefined && this.#asked.delete(id)) {
          const error = { code: -32600, message: "its answer was not a valid JSON-RPC 2.0 response" };
          this.onmessage?.({ jsonrpc: "2.0", id, error } as JSONRPCMessage);
          return;
        }
        if ("result" in json || "error" in json) return;
      }
      // A message held before start() was counted unanswered: this is its answer.
      if (id !== undefined) this.#answered(id);
      const slot = this.#batchSlot;
      const message = `Message is not a JSON-RPC 2.0 message: ${whyNotJsonRpc(json, slot !== undefined)}`;
      // In a batch, its error is one of the batch's answers (JSON-RPC answers `[1]` with `[{…error…}]`).
      if (slot) {
        return void slot.batch.replies.set(slot.key, {
          jsonrpc: "2.0",
          id: id ?? null,
          error: { code: -32600, message },
        });
      }
      void this.#sendError(id ?? null, -32600, message);
      return;
    }
    this.#track(message, true);
    if ("method" in message) {
      if ("id" in message) {
        const refusal = this.#opts.refuse?.(message.method, message.params, this.#version);
        if (refusal) {
          const error = { code: refusal.code, message: refusal.message, data: refusal.data };
          return void this.send({ jsonrpc: "2.0", id: message.id, error } as JSONRPCMessage).catch(() => {});
        }
        const handler = this.#opts.direct?.(message.method) ?? taken;
        if (handler) return void this.#answerDirect(message.id as RequestId, message.params, handler);
      } else if (message.method === "notifications/cancelled") this.#cancelDirect(message);
    }
    this.onmessage?.(message);
  }

  async #answerDirect(
    id: RequestId,
    params: Record<string, unknown> | undefined,
    handler: DirectHandler,
  ): Promise<void> {
    const cancel = new AbortController();
    this.#directCalls.set(id, cancel);
    let reply: JSONRPCMessage;
    try {
      // The SDK's order of the keys: the same bytes as its answer.
      reply = { result: await handler(params, cancel.signal), jsonrpc: "2.0", id } as JSONRPCMessage;
    } catch (e) {
      const { code, message, data } = (e ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
      reply = {
        jsonrpc: "2.0",
        id,
        error: {
          code: Number.isSafeInteger(code) ? code as number : INTERNAL_ERROR,
          message: typeof message === "string" ? message : "Internal error",
          ...(data !== undefined ? { data } : {}),
        },
      };
    } finally {
      // Only its own: a later request under the same id (a client's mistake) stays cancellable, as in the SDK.
      if (this.#directCalls.get(id) === cancel) this.#directCalls.delete(id);
    }
    // Cancelled: the client expects no reply (as the SDK does); #track has counted it answered.
    if (!cancel.signal.aborted) await this.send(reply).catch(() => {});
  }

  /** Fails the server's own request `id` with an error answer: the client closed our input before answering it. */
  #unanswerable(id: RequestId): void {
    this.#asked.delete(id);
    const error = { code: CONNECTION_CLOSED, message: "the client closed its end of the connection before answering" };
    this.onmessage?.({ jsonrpc: "2.0", id, error } as JSONRPCMessage);
  }

  #rejectOversized(size: number, head: string, tail: string): void {
    const max = this.#opts.maxMessageBytes;
    const raw = recoverRawId(head.replace(/^\uFEFF/, ""), tail);
    const id = answerId(raw);
    const logged = id !== null && typeof id === "object" ? id.raw : id;
    this.#opts.onWarning?.("discarded an oversized message", { bytes: size, max_message_bytes: max, id: logged });
    if (id === null) return;
    void this.#sendError(
      id,
      -32600,
      `Message of ${size} bytes exceeds the server's limit of ${max} bytes (--max-message-bytes): ` +
        `send the content in smaller pieces, e.g. several append-buffer calls`,
    );
  }

  #reset(): void {
    this.#chunks = [];
    this.#pending = 0;
    this.#discarding = false;
    this.#head = new Uint8Array(0);
    this.#tail = new Uint8Array(0);
  }

  #sendError(id: AnswerId, code: number, message: string): Promise<void> {
    if (id !== null && typeof id === "object") {
      // Its own text: JSON.stringify would write the number JSON.parse rounded it to.
      return this.#write(`{"jsonrpc":"2.0","id":${id.raw},"error":${JSON.stringify({ code, message })}}\n`);
    }
    if (id !== null && this.#toBatch(id, { jsonrpc: "2.0", id, error: { code, message } })) return Promise.resolve();
    // id null is valid JSON-RPC for errors whose request id is unknown.
    return this.#write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n");
  }

  send(message: JSONRPCMessage): Promise<void> {
    if ("id" in message && !("method" in message) && this.#replayed.delete(message.id as string)) {
      return Promise.resolve(); // the SDK's answer to a request answered early
    }
    if ("id" in message && !("method" in message)) {
      const method = this.#methods.get(message.id as RequestId);
      this.#methods.delete(message.id as RequestId);
      message = withVersionQuoted(withParamsIssues(withMethodNamed(message, method), method));
    }
    if ("method" in message) {
      if ("id" in message) {
        if (this.#inputEnded) {
          // Nobody can answer it: it fails at once (not written), as those in flight at the end of input did.
          const id = message.id;
          queueMicrotask(() => this.#unanswerable(id));
          return Promise.resolve();
        }
        this.#asked.add(message.id);
      } else if (message.method === "notifications/cancelled") {
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined) this.#asked.delete(id);
      }
    }
    this.#track(message, false);
    if ("id" in message && !("method" in message) && this.#toBatch(message.id as RequestId, message)) {
      return Promise.resolve();
    }
    return this.#write(JSON.stringify(message) + "\n");
  }

  #write(text: string): Promise<void> {
    const bytes = this.#encoder.encode(text);
    this.#writeOut ??= this.#opts.write ?? stdoutWriter();
    const write = this.#writeOut;
    // Chain writes so that concurrent sends never interleave their bytes.
    const next = this.#writeChain.then(() => write(bytes));
    this.#writeChain = next.catch((e) => {
      // Nobody reads our replies any more: there is nothing left to answer for.
      if (isBrokenPipe(e)) void this.close();
    });
    return next;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // As the SDK does with the requests it dispatched: nobody is left to answer.
    for (const cancel of this.#directCalls.values()) cancel.abort(new Error("the connection closed"));
    try {
      await this.#reader?.cancel();
    } catch {
      // already closed
    }
    this.onclose?.();
  }
}

function concat2(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
