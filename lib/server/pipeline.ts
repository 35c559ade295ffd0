/**
 * The one path every tool call takes: look up → toolset and tier gate →
 * strict input validation → handler → output validation → result stages
 * (response budgets) → audit. Tools never see refused or malformed calls, and
 * no failure escapes as an exception: each becomes an `isError` result with
 * one line that says what to do.
 *
 * @example
 * ```ts
 * import { createAuditSink } from "./audit.ts";
 * declare const { tools, services }: PipelineOptions; // the tool table and the server's services
 * declare const extra: Parameters<Pipeline["call"]>[2]; // what the SDK hands a request handler
 * const pipeline = createPipeline({ tools, services, audit: createAuditSink(undefined) });
 * const result = await pipeline.call("list-buffers", {}, extra);
 * ```
 */
import type {
  CallToolResult,
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
} from "../sdk.ts";
import type { Answer, Asker } from "../ask.ts";
import { allowsTier, servesToolset, TIERS } from "../config.ts";
import type { AnyTool, PageBudget, Services, ToolContext, ToolOutput } from "../tools/tool.ts";
import { EnvironmentError, RefusedError, ServerStopping, UserError } from "../errors.ts";
import { TmuxError, TmuxTimeout } from "../tmux/executor.ts";
import { log } from "../log.ts";
import type { AuditOutcome, AuditSink } from "./audit.ts";
import { closest, describeIssues, omittable, parameterNames } from "../tools/closest.ts";
import { enter } from "../tools/declared.ts";
import { earlyRedactor, loadRedactor, redactFully, redactJson, type Redactor, RulesNeeded } from "../text/redact.ts";
import { answerWithin, hostAnswerMs } from "./hosts.ts";
import { cutAt, type PausableTimeout, pausableTimeout } from "./cut.ts";
import { bindCall, mergeOutputs, namesHost, placed } from "./host_routing.ts";
import { registriesOf } from "../budget/registry.ts";
import { defaultBudgetSettings, MAX_RESULT_BUFFERS, MAX_RESULT_BYTES } from "../budget/settings.ts";

/** What the pipeline needs from the SDK's per-request context. */
export interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  /**
   * The protocol era of the connection the call came on: `legacy` (2025, after `initialize`) or `modern`
   * (2026-07-28, stateless). Absent for calls the server makes itself (batch's inner calls).
   */
  era?: "legacy" | "modern";
  /**
   * What the client declared it can do: its `initialize` capabilities (legacy era) or the request's own
   * `_meta` envelope (modern era). Decides, for one, whether the server may ask the human (elicitation).
   */
  clientCapabilities?: ClientCapabilities;
  /**
   * 2025 era: asks the client's human (`elicitation/create`), for a client that declared elicitation. Absent in
   * the 2026 era, which has no server-to-client request: a tool answers with an input-required result there
   * (the SDK's `inputRequired`) and the client retries the call with `inputResponses` and `requestState`.
   */
  elicit?: (params: ElicitRequestFormParams | ElicitRequestURLParams) => Promise<ElicitResult>;
  /** 2026 era, a retried call: the client's answers to the input requests, by the keys the server gave them. */
  inputResponses?: Record<string, unknown>;
  /** 2026 era, a retried call: the `requestState` the input-required result carried, as the client echoed it. */
  requestState?: string;
  /**
   * performance.now() when the client's call began, for the calls the server makes itself (batch's inner calls):
   * they share the budget of the call they are part of (`--call-budget-ms`). Absent: now.
   */
  startedAt?: number;
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
  }): Promise<void>;
  /** The human through the client, when it can be asked (lib/server/ask.ts). */
  ask?: Asker;
}

/**
 * A stage applied to every successful result after validation (response
 * budgets live here). It may replace the result. `toolNamed` finds the tools
 * whose results a result holds (a batch's calls).
 */
export type ResultStage = (
  tool: AnyTool,
  result: CallToolResult,
  ctx: ToolContext,
  toolNamed: (name: string) => AnyTool | undefined,
) => Promise<CallToolResult>;

export interface PipelineOptions {
  tools: readonly AnyTool[];
  services: Services;
  audit?: AuditSink;
  stages?: readonly ResultStage[];
  /**
   * Shapes every error message before it is returned and audited (response
   * budgets trim one that is itself huge, to the budget of the tool called
   * when there is one). Default: unchanged.
   */
  errorText?: (message: string, tool?: string) => string;
  /** The response budget a natively paged tool fits its page to (lib/budget). Default: everything fits. */
  pageBudget?: (tool: AnyTool) => PageBudget;
  /** Keeps content in a result buffer of the host (lib/budget). Default: the default TTL and caps; undefined: not kept. */
  keepResult?: (svc: Services, content: Uint8Array) => Promise<string | undefined>;
}

export interface Pipeline {
  /** Tools served (listed) under the current toolsets and safety tier. */
  served: readonly AnyTool[];
  call(name: string, args: unknown, extra: CallExtra): Promise<CallToolResult>;
}

const ID_KEYS = ["session_id", "window_id", "pane_id", "buffer_id"] as const;

/** The JSON text of each structured result already written out (a result is not changed once built). */
const jsonTexts = new WeakMap<object, string>();

/**
 * `JSON.stringify(structured)`, written out once per object: the response budget, redaction and the result's
 * text block each need the same text of the same result.
 */
export function structuredJson(structured: object): string {
  let text = jsonTexts.get(structured);
  if (text === undefined) jsonTexts.set(structured, text = JSON.stringify(structured));
  return text;
}

/** A handler's output as the client receives it (before result stages). */
export function outputResult(out: ToolOutput<unknown>): CallToolResult {
  return {
    content: out.content ??
      [{
        type: "text",
        text: typeof out.structured === "object" && out.structured !== null
          ? structuredJson(out.structured)
          : JSON.stringify(out.structured),
      }],
    structuredContent: out.structured as Record<string, unknown>,
  };
}

/** The classes of Deno's errors for failed system operations (`Deno.errors.BrokenPipe`, …). */
const SYSTEM_ERRORS: readonly (new (...args: never[]) => Error)[] = Object.values(Deno.errors);

/** Whether `e` is a failed system operation rather than a bug of ours: by its class, not its text. */
function isSystemError(e: unknown): e is Error {
  return SYSTEM_ERRORS.some((c) => e instanceof c);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Deeper than any tool's arguments go: refused before anything walks them, as a deep enough nesting (arrays in
 * arrays, a few hundred thousand levels in one message) overflows the stack of whatever recurses into it.
 */
const MAX_ARGUMENT_DEPTH = 64;

/**
 * Whether every string in `x` (values and keys, at any depth) is well-formed, and `x` is nested at most
 * {@linkcode MAX_ARGUMENT_DEPTH} levels below `depth`: the common case, allocation-free.
 */
function wellFormed(x: unknown, depth = 0): boolean {
  if (typeof x === "string") return x.isWellFormed();
  if (x === null || typeof x !== "object") return true;
  if (depth >= MAX_ARGUMENT_DEPTH) return false;
  for (const key in x) {
    if (!key.isWellFormed() || !wellFormed((x as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function describeMalformed(where: string, s: string): string {
  const i = LONE_SURROGATE.exec(s)!.index;
  const code = s.charCodeAt(i);
  const what = code >= 0xdc80 && code <= 0xdcff
    ? `a byte that is not UTF-8 (or a lone surrogate \\u${code.toString(16)})`
    : `a lone surrogate \\u${code.toString(16)}`;
  return `${where}: holds ${what} at position ${i}; send text as valid UTF-8`;
}

/**
 * The first string in `args` (a value or an object key, at any depth) that is
 * not well-formed Unicode — a lone surrogate, or a byte that was not UTF-8
 * (the transport keeps those as lone surrogates) — as one line naming the
 * parameter, or undefined. tmux would store such a string as U+FFFD. A value nested deeper than
 * {@linkcode MAX_ARGUMENT_DEPTH} levels is named too.
 */
export function malformedText(args: unknown, path = "", depth = 0): string | undefined {
  if (wellFormed(args, depth)) return undefined;
  if (typeof args === "string") return describeMalformed(path || "arguments", args);
  if (depth >= MAX_ARGUMENT_DEPTH) {
    const top = path.split(".")[0] || "arguments";
    return `${top}: nested more than ${MAX_ARGUMENT_DEPTH} levels deep, which no parameter is: send its value as ` +
      "the tool's schema gives it";
  }
  for (const key in args as object) {
    if (!key.isWellFormed()) return describeMalformed(`${path || "arguments"} (a parameter name)`, key);
    const bad = malformedText((args as Record<string, unknown>)[key], path === "" ? key : `${path}.${key}`, depth + 1);
    if (bad) return bad;
  }
  return undefined;
}

/**
 * Where `args` holds a key named `__proto__` (JSON.parse makes it a key like any other), as one line, or undefined.
 * zod builds a record or an object by assignment, where that key sets the prototype instead: its value would be
 * dropped without a word (an environment variable, a buffer's resume offset, a batch call's arguments).
 */
export function prototypeKey(args: unknown, path = ""): string | undefined {
  if (args === null || typeof args !== "object") return undefined;
  for (const [key, value] of Object.entries(args)) {
    if (key === "__proto__") {
      return `${path || "arguments"}: a key named "__proto__" cannot be taken (JavaScript would read it as the ` +
        `object's prototype and lose it): use another name (rename-buffer a buffer named so)`;
    }
    const inner = prototypeKey(value, path === "" ? key : `${path}.${key}`);
    if (inner) return inner;
  }
  return undefined;
}

/** A handler's result that its own output schema refuses: our bug, said as such. */
class OutputMismatch extends Error {}

const NO_NOTIFICATIONS: CallExtra["sendNotification"] = () => Promise.resolve();

/**
 * How long after `--call-budget-ms` a call still going is answered with an error (its work cancelled): the waits and
 * runs answer `running` at the budget itself, and need a moment to say so. An inner call of a batch is cut half as
 * late, so that the batch can still answer with the calls it made.
 */
const CUT_AFTER_BUDGET_MS = 2000;

/** `ask` with `cut`'s clock stopped while a question waits for the human (a 2026-era round: between requests). */
function pausedWhileAsking(ask: Asker, cut: PausableTimeout): Asker {
  const paused = <Q>(f: (q: Q, signal: AbortSignal) => Promise<Answer>) => (q: Q, signal: AbortSignal) => {
    const resume = cut.pause();
    return f(q, signal).finally(resume);
  };
  return { ...ask, form: paused(ask.form.bind(ask)), url: paused(ask.url.bind(ask)) };
}

/**
 * The arguments a call with `continue` gives besides it (and a family's `what`), or undefined: a continuation
 * resumes a work with the arguments it started with, so any others would be ignored without a word.
 */
function continuationExtras(args: unknown): string[] | undefined {
  if (args === null || typeof args !== "object" || !Object.hasOwn(args, "continue")) return undefined;
  const extra = Object.keys(args).filter((k) => k !== "continue" && k !== "what");
  return extra.length > 0 ? extra : undefined;
}

/**
 * The error of a call whose tmux command tmux did not answer within its bound ({@linkcode TmuxTimeout}'s
 * `stall`): it names the tool the model called, not the tmux command it was waiting on, and what to do.
 */
/** A call's message when the server's stop ended it (`ServerStopping`): said so, not as the client's cancel. */
function stopped(signal: AbortSignal, text: string): string {
  const reason = signal.aborted ? signal.reason : undefined;
  return reason instanceof ServerStopping ? `${reason.message}: ${text.replace(" by the client", "")}` : text;
}

function stalledCall(name: string, stall: { where: string; bound: string }, tier: string | undefined): string {
  const sent = tier === "readonly"
    ? "call it again in a moment"
    : "what it sent may still run once tmux goes on: check before calling it again";
  return `${name} did not finish: ${stall.where} did not answer within ${stall.bound} (stopped or overloaded?); ` +
    `${sent} (list {what: "hosts"} shows a host's last error)`;
}

/** The error of a call cut at its budget: `why` (what did not answer), and what may have happened. */
function overBudget(name: string, budgetMs: number, why: string, tier: string, follow?: string): UserError {
  const sent = follow !== undefined
    ? `; what it runs or waits for goes on: call ${name} with ${follow} to follow it`
    : tier === "readonly"
    ? ""
    : "; a command it had sent may still have run: check before calling it again";
  return new UserError(`${name} did not finish within the call budget (--call-budget-ms ${budgetMs}): ${why}${sent}`);
}
// Never too small: everything fits.
/** Result buffers of a pipeline made without budgets: the default TTL and caps. */
const defaultResults = registriesOf({
  ttlMs: defaultBudgetSettings().bufferTTL,
  maxCount: MAX_RESULT_BUFFERS,
  maxBytes: MAX_RESULT_BYTES,
});
const UNLIMITED: PageBudget = { fits: () => true, tooSmall: (what) => new UserError(`${what} does not fit`) };

function targetOf(structured: unknown): Record<string, string> | undefined {
  if (!structured || typeof structured !== "object") return undefined;
  const s = structured as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const k of ID_KEYS) if (typeof s[k] === "string") out[k] = s[k] as string;
  return Object.keys(out).length ? out : undefined;
}

/**
 * A result with the secrets in its text redacted: structured content and
 * text blocks (a block that is the structured result as JSON, or the JSON of
 * its facts beside a text block — the structured result without the field
 * that block carries — is rebuilt from the redacted result, so an escaped
 * multi-line secret is found too, and the facts are not scanned twice).
 * Image blocks are drawn from redacted screens by their tools. Numbers, such
 * as byte offsets into a buffer, stay as they are: true to the source.
 */
export function redactResult(result: CallToolResult, redactor: Redactor): CallToolResult {
  // The same text is often both a structured field and a content block: scanned once.
  const seen = new Map<string, string>();
  const once: Redactor = {
    find: redactor.find,
    mark: redactor.mark,
    redact(text) {
      let out = seen.get(text);
      if (out === undefined) seen.set(text, out = redactor.redact(text));
      return out;
    },
  };
  return redactWith(result, once);
}

/** An object without its field `key` (the other fields in their order). */
function without(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _, ...rest } = o;
  return rest;
}

/** The structured field whose string a text block of the result is (a text tool's text), if any. */
function blockField(result: CallToolResult, structured: Record<string, unknown>): string | undefined {
  for (const key in structured) {
    const v = structured[key];
    if (typeof v === "string" && result.content.some((b) => b.type === "text" && b.text === v)) return key;
  }
  return undefined;
}

function redactWith(result: CallToolResult, redactor: Redactor): CallToolResult {
  const structured = result.structuredContent;
  const json = structured === undefined ? undefined : structuredJson(structured);
  const redacted = structured === undefined ? undefined : redactJson(structured, redactor);
  const field = structured === undefined ? undefined : blockField(result, structured);
  const factsJson = field === undefined ? undefined : JSON.stringify(without(structured!, field));
  let changed = redacted !== structured;
  const content = result.content.map((block) => {
    if (block.type !== "text") return block;
    const text = block.text === json
      ? (redacted === structured ? json : structuredJson(redacted!))
      : block.text === factsJson
      ? (redacted === structured ? factsJson : JSON.stringify(without(redacted!, field!)))
      : redactor.redact(block.text);
    if (text === block.text) return block;
    changed = true;
    return { ...block, text };
  });
  return changed ? { ...result, content, ...(redacted === undefined ? {} : { structuredContent: redacted }) } : result;
}

/**
 * A call of this process has waited for the redaction rule preset (it is the process's, as are the calls' order):
 * every call from then on does (see `createPipeline`'s `call`), whichever pipeline (one per first-called tool while
 * a server starts, lib/server/core.ts) it goes through.
 */
let rulesAwaited = false;

/** Builds the pipeline for a server's tool table and configuration. */
export function createPipeline(opts: PipelineOptions): Pipeline {
  const { services } = opts;
  const cfg = services.config;
  const byName = new Map(opts.tools.map((t) => [t.name, t]));
  // Strict once per tool, not per call: unknown parameters are a mistake worth telling.
  const strictInput = new Map(opts.tools.map((t) => [t.name, t.input.strict()]));
  // For the audit: what each entry declares secret, and its parameter names (anything else is hidden).
  const known = new Map(opts.tools.map((t) => [t.name, Object.keys(t.input.shape)]));
  const shapeError = opts.errorText ?? ((m: string) => m);
  const keepResult = opts.keepResult ?? ((svc: Services, content: Uint8Array) => defaultResults(svc).store(content));
  // Former names of merged tools → how to call them now.
  const replaced = new Map(opts.tools.flatMap((t) => Object.entries(t.replaces ?? {})));

  function refusal(tool: AnyTool): string | undefined {
    if (!servesToolset(cfg, tool.toolset)) {
      return `tool ${tool.name} belongs to the "${tool.toolset}" toolset, which this server does not serve ` +
        `(--toolsets ${cfg.toolsets.join(",")}); add it to --toolsets to use it`;
    }
    if (!TIERS.includes(tool.tier)) return `tool ${tool.name} has no safety tier and is refused`; // fail closed
    if (!allowsTier(cfg, tool.tier)) {
      return `tool ${tool.name} is ${tool.tier}; this server runs with --safety ${cfg.safety}: ` +
        `ask the user to restart it with --safety ${tool.tier} to allow such tools`;
    }
    return undefined;
  }

  const served = opts.tools.filter((t) => refusal(t) === undefined);
  // Suggestions for a mistyped tool: a served one first, else one this server could be started to serve.
  const servedNames = served.map((t) => t.name);
  const unservedNames = opts.tools.filter((t) => !served.includes(t)).map((t) => t.name);

  async function call(name: string, args: unknown, extra: CallExtra): Promise<CallToolResult> {
    const started = performance.now();
    const startedAt = extra.startedAt ?? started;
    let outcome: AuditOutcome = "ok";
    let message: string | undefined;
    let target: Record<string, string> | undefined;
    /** The token of a work this call left running, once its handler has one (ToolContext.noteContinue). */
    let continuing: string | undefined;
    const errorResult = (text: string): CallToolResult => {
      message = shapeError(text, tool?.name);
      return { content: [{ type: "text", text: message }], isError: true };
    };
    const tool = byName.get(name);
    /** This call's redactor; undefined when redaction is off (the flag, or the call's own opt-out). */
    let redactor: Redactor | undefined;
    /** Progress notifications of this call still being handed to the transport. */
    const progressSent = new Set<Promise<void>>();
    /** The cut of this call past its budget, once it runs. */
    let cut: PausableTimeout | undefined;
    try {
      if (!tool) {
        outcome = "invalid";
        const moved = replaced.get(name);
        // A former name of a tool this server refuses (its tier, its toolset) is refused as that tool is: the
        // call is audited as refused, and its one line says what to change instead of naming a call that fails.
        const now = moved === undefined ? undefined : byName.get(moved.split(" ")[0]);
        const nowRefused = now && refusal(now);
        if (nowRefused) {
          outcome = "refused";
          message = `unknown tool ${JSON.stringify(name)}: it is now ${moved}, and ${nowRefused}`;
          return errorResult(message);
        }
        const near = closest(name, servedNames) ?? closest(name, unservedNames) ?? closest(name, replaced.keys());
        const nearMoved = near === undefined ? undefined : replaced.get(near);
        message = `unknown tool ${JSON.stringify(name)}: ` +
          (moved ? `it is now ${moved}. ` : near ? `did you mean ${nearMoved ?? near}? ` : "") +
          "call tools/list to see the tools this server offers";
        return errorResult(message);
      }
      const refused = refusal(tool);
      if (refused) {
        outcome = "refused";
        message = refused;
        return errorResult(message);
      }
      const malformed = malformedText(args) ?? prototypeKey(args);
      if (malformed) {
        outcome = "invalid";
        message = `invalid arguments for ${name}: ${malformed}`;
        return errorResult(message);
      }
      // `redact: false` on any call: this call's results as they are, for a server that allows everything.
      let callArgs = args;
      let optedOut = false;
      if (args !== null && typeof args === "object" && !Array.isArray(args) && "redact" in args) {
        const { redact: flag, ...rest } = args as Record<string, unknown>;
        if (flag !== false) {
          outcome = "invalid";
          return errorResult(`invalid arguments for ${name}: redact takes only false (results with secrets shown)`);
        }
        if (!allowsTier(cfg, "destructive")) {
          outcome = "refused";
          return errorResult(
            `redact: false shows secrets unredacted and needs --safety destructive (this server runs with ` +
              `--safety ${cfg.safety}); call without it`,
          );
        }
        callArgs = rest;
        optedOut = true;
      }
      // Until the rule preset has loaded (lib/text/redact.ts earlyRedactor), a read-only tool runs without it and
      // runs again once it has, should its handler give the redactor text the preset must see; a tool that
      // changes something waits for the preset first, as it must not run twice. Once a call waits for it, the
      // calls after it wait too: none overtakes a call read before it (a set-buffer, then a show-buffer).
      const redacting = cfg.redact !== false && !optedOut;
      if (redacting && (tool.tier !== "readonly" || rulesAwaited)) rulesAwaited = true;
      redactor = !redacting ? undefined : rulesAwaited ? await loadRedactor() : earlyRedactor();
      const parsed = strictInput.get(name)!.safeParse(callArgs ?? {});
      if (!parsed.success) {
        outcome = "invalid";
        message = tool.inputError?.(callArgs ?? {}) ??
          `invalid arguments for ${name}: ${
            describeIssues(
              parsed.error,
              (p) => parameterNames(tool.input, p),
              callArgs ?? {},
              (p) => omittable(tool.input, p),
            )
          }`;
        return errorResult(message);
      }
      const ignored = continuationExtras(callArgs);
      if (ignored && known.get(name)?.includes("continue")) {
        outcome = "invalid";
        return errorResult(
          `invalid arguments for ${name}: continue resumes the call that returned it as that call began, so ` +
            `${ignored.join(", ")} would be ignored: call with only continue${
              known.get(name)?.includes("what") ? " (and what)" : ""
            }, or make a new call without continue to wait or run differently`,
        );
      }
      const progressToken = extra._meta?.progressToken;
      // No call blocks past its budget: one that tmux (or the route to a host) leaves waiting is cut and says so.
      // The time a 2026-era call spends parked on a question to the human is between requests: it does not count.
      const budgetCut = cut = pausableTimeout(
        startedAt + cfg.callBudgetMs + CUT_AFTER_BUDGET_MS / (extra.startedAt === undefined ? 1 : 2) -
          performance.now(),
      );
      const ask = extra.ask?.parks ? pausedWhileAsking(extra.ask, budgetCut) : extra.ask;
      // MCP wants a request's progress to increase: a batch's calls each count their own from zero.
      let lastProgress = -Infinity;
      const progress = (value: number, total?: number, msg?: string): Promise<void> => {
        if (progressToken === undefined) return Promise.resolve();
        lastProgress = Math.max(value, lastProgress + 1);
        const sent = extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress: lastProgress, total, message: msg },
        }).catch(() => {});
        progressSent.add(sent);
        void sent.finally(() => progressSent.delete(sent));
        return sent;
      };
      // An inner call of a batch reports through the batch's request (its waits' ticks keep the client's idle
      // timeout from running out); its total is its own, not the batch's.
      const innerProgress: CallExtra["sendNotification"] = (n) =>
        progress(n.params.progress, undefined, n.params.message);
      const given = new Set(callArgs !== null && typeof callArgs === "object" ? Object.keys(callArgs) : []);
      const contextFor = (svc: Services, signal = extra.signal): ToolContext => ({
        ...svc,
        signal,
        startedAt,
        given,
        progress,
        noteTarget: (ids) => {
          target = { ...target, ...ids };
        },
        noteContinue: (token) => continuing = token,
        budget: opts.pageBudget?.(tool) ?? UNLIMITED,
        keepResult: (content) => keepResult(svc, content),
        redactor,
        ask,
        call: (inner, innerArgs) =>
          call(inner, innerArgs, {
            signal: extra.signal,
            ...(progressToken === undefined
              ? { sendNotification: NO_NOTIFICATIONS }
              : { sendNotification: innerProgress, _meta: { progressToken } }),
            ask,
            startedAt,
          }),
      });
      /** The handler on one host's services, cut past the call budget, its output checked against the schema. */
      const run = (svc: Services, data: Record<string, unknown>, signal = extra.signal) =>
        cutAt(signal, budgetCut.signal, (s) => handle(svc, data, s), () => {
          const named = svc.host !== undefined && cfg.hosts.length > 0;
          // A slow login has a bound of its own (--connect-timeout-ms), and is no fault.
          const why = svc.tmux.loggingIn
            ? `the login on ${named ? `host "${svc.host}"` : `ssh host "${svc.tmux.remote}"`} is still running ` +
              "(it may take up to --connect-timeout-ms): call again in a moment"
            // No tmux answers a pty session of the internal backend: its reader was behind the program's output.
            : cfg.terminalBackend === "pty" && typeof (data as { pty_id?: unknown }).pty_id === "string"
            ? "the internal pty backend was still parsing the session's output (a program flooding its terminal? " +
              "pty-kill-session ends it)"
            : `${named ? `tmux on host "${svc.host}" (or the connection to it)` : "tmux"} may be stuck or ` +
              `overloaded (list {what: "hosts"} shows a host's last error)`;
          // A work left running under a token goes on: the call that follows it names the same `what` (a family's).
          const what = (data as { what?: unknown }).what;
          const follow = continuing === undefined
            ? undefined
            : `{${typeof what === "string" ? `what: ${JSON.stringify(what)}, ` : ""}continue: ${
              JSON.stringify(continuing)
            }}`;
          return overBudget(name, cfg.callBudgetMs, why, tool.tier, follow);
        });
      const handle = async (
        svc: Services,
        data: Record<string, unknown>,
        signal: AbortSignal,
      ): Promise<ToolOutput<unknown>> => {
        const ready = await enter(tool, data, contextFor(svc, signal));
        // Cancelled before its handler began (a batch's later call, a call that waited for the redaction rules or
        // its target): it changes nothing, as the client that gave up on it expects.
        if (signal.aborted) throw new UserError(`${name} not run: cancelled by the client before it began`);
        const out = await tool.handler(data, ready);
        const checked = tool.output.safeParse(out.structured);
        if (!checked.success) {
          throw new OutputMismatch(
            `internal error: ${name} produced a result that does not match its output schema ` +
              `(${describeIssues(checked.error)}); please report this`,
          );
        }
        return out;
      };
      const hosts = services.hosts;
      let out: ToolOutput<unknown>;
      let ctx: ToolContext;
      // One host and no HOST:: in the call: it runs as it did before hosts existed.
      if (hosts === undefined || (!hosts.several && !namesHost(tool, parsed.data))) {
        ctx = contextFor(services);
        try {
          out = placed(tool, services, await run(services, parsed.data));
        } catch (e) {
          if (!(e instanceof RulesNeeded)) throw e;
          rulesAwaited = true;
          redactor = await loadRedactor();
          ctx = contextFor(services);
          out = placed(tool, services, await run(services, parsed.data));
        }
      } else {
        // The host the target names (or every host, for a listing): lib/server/hosts.ts. With the preset: a
        // handler's RulesNeeded would read as that host's failure.
        if (redactor) redactor = await loadRedactor();
        const bindings = bindCall(hosts, tool, parsed.data);
        // The audit line names the host a call acts on: its ids alone (a bare %3 is the first host's) do not.
        if (hosts.several && bindings.length === 1) target = { host: bindings[0].host, ...target };
        ctx = contextFor(bindings[0].services);
        // A listing of every host waits for each one a bounded time only (a stalled host is named, not awaited).
        const settled = await Promise.allSettled(
          bindings.length === 1 ? [run(bindings[0].services, bindings[0].args)] : bindings.map((b) =>
            answerWithin(
              b.host,
              hostAnswerMs(startedAt + cfg.callBudgetMs),
              extra.signal,
              (signal) => run(b.services, b.args, signal),
              () => b.services.tmux.loggingIn === true,
            )
          ),
        );
        settled.forEach((r, i) => hosts.noteOutcome(bindings[i].host, r.status === "rejected" ? r.reason : undefined));
        const mismatch = settled.find((r) => r.status === "rejected" && r.reason instanceof OutputMismatch);
        if (mismatch) throw (mismatch as PromiseRejectedResult).reason;
        out = mergeOutputs(hosts, tool, parsed.data, bindings, settled, ctx.budget);
        // A result over budget is kept on the host of this context: for a listing of every host, the first one that
        // answered (the first host may be the one down or stalled).
        const answered = settled.findIndex((r) => r.status === "fulfilled");
        if (answered > 0) ctx = contextFor(bindings[answered].services);
      }
      target = { ...target, ...targetOf(out.structured) };
      // A batch stopped midway (the client cancelled it, or the server is stopping) answers with its later calls
      // not run: its line says so, not ok.
      if (tool.innerResults && extra.signal.aborted) {
        const total = (parsed.data as { calls: unknown[] }).calls.length;
        const { completed } = out.structured as { completed: number };
        if (completed < total) {
          outcome = "error";
          message = stopped(extra.signal, `cancelled: ${completed} of its ${total} calls completed`);
        }
      }
      let result = outputResult(out);
      if (redactor) result = await redactFully(redactor, (r) => redactResult(result, r));
      for (const stage of opts.stages ?? []) result = await stage(tool, result, ctx, (n) => byName.get(n));
      // MCP: no progress after the result. Waits send theirs without awaiting them; they go out first.
      if (progressSent.size > 0) await Promise.all(progressSent);
      return result;
    } catch (e) {
      if (progressSent.size > 0) await Promise.all(progressSent);
      outcome = e instanceof RefusedError ? "refused" : "error";
      if (e instanceof OutputMismatch) {
        message = e.message;
        log("error", message);
      } else if (e instanceof TmuxTimeout && e.stall) {
        message = stalledCall(name, e.stall, tool?.tier);
      } else if (e instanceof UserError || e instanceof TmuxError || e instanceof EnvironmentError) {
        message = e.message;
      } else if (isSystemError(e)) {
        // The operating system refused something (a pipe closed, a file gone, a limit hit): a fault of the machine.
        message = `${name} failed: the system reported ${e.name} (${
          e.message.split("\n")[0]
        }): check the machine (tmux server, disk, process and file limits), then retry`;
        log("warn", message);
      } else {
        message = `internal error in ${name}: ${e instanceof Error ? e.message : String(e)}`;
        log("error", message, { stack: e instanceof Error ? e.stack : undefined });
      }
      message = stopped(extra.signal, message);
      // A tool's error can quote what a pane or a command printed: not shown unless redacted.
      const shown = redactor
        ? await redactFully(redactor, (r) => r.redact(message!)).catch(() =>
          `${name} failed; its error is not shown, as the secret-redaction rules could not be loaded`
        )
        : message;
      return errorResult(shown);
    } finally {
      cut?.clear();
      // A call that answered as the server stopped (a question to the human left unanswered): its line says why.
      const reason = extra.signal.aborted ? extra.signal.reason : undefined;
      if (message === undefined && reason instanceof ServerStopping) message = reason.message;
      opts.audit?.({
        tool: name,
        outcome,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        args: tool?.auditArgs ? tool.auditArgs(args ?? {}, (n) => byName.has(n)) : args ?? {},
        ...(target && Object.keys(target).length ? { target } : {}),
        ...(message ? { message } : {}),
        secrets: tool?.secretsOf?.(args) ?? tool?.secrets,
        known: known.get(name),
      });
    }
  }

  return { served, call };
}
