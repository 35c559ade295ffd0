/**
 * The era adapters behind {@linkcode Asker} (lib/ask.ts), the interface a
 * tool's hand-off uses to ask the human through the client.
 *
 * - 2025 era (`initialize`): {@linkcode legacyAsker} sends a real
 *   `elicitation/create` request and awaits the client's answer, when the
 *   client declared the `elicitation` capability (an empty object means form
 *   mode only, as in 2025-06-18).
 * - 2026-07-28 era (stateless): a server may not send requests of its own;
 *   a tool call that needs input answers with an `InputRequiredResult` and
 *   the client retries the call with `inputResponses` and the `requestState`
 *   it was given. {@linkcode Parking} keeps the call running across those
 *   rounds: the handler awaits `ask.form(…)` as in the 2025 era; the question
 *   ends the round (an `input_required` answer, the call parked under a
 *   random one-shot `requestState`), and the retry carrying that state
 *   answers the question and waits for the call's next question or its
 *   result. The state is only a key to this process's memory (256 random
 *   bits, used once, forgotten after `ttlMs`): nothing the client could
 *   forge or alter means anything, which is the integrity the specification
 *   asks of `requestState`.
 *
 * @example
 * ```ts
 * declare const server: ElicitingServer; // the SDK's Server (McpServer.server)
 * const ask = legacyAsker(server); // undefined: the client cannot be asked
 * ```
 */
import type { Answer, Asker, FormQuestion, UrlQuestion } from "../ask.ts";
import { EnvironmentError, UserError } from "../errors.ts";
import { randomToken } from "../text/token.ts";

/** A result schema as the SDK's `request` takes one (a Standard Schema, https://standardschema.dev). */
export interface ResultSchema<T> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): { value: T; issues?: undefined } | { issues: readonly { message: string }[] };
  };
}

/** What the legacy adapter needs of the SDK's Server. */
export interface ElicitingServer {
  getClientCapabilities(): { elicitation?: { form?: object; url?: object } } | undefined;
  request<T>(
    request: { method: "elicitation/create"; params: Record<string, unknown> },
    resultSchema: ResultSchema<T>,
    options: { signal: AbortSignal; timeout: number },
  ): Promise<T>;
  notification(n: { method: "notifications/elicitation/complete"; params: { elicitationId: string } }): Promise<void>;
}

/** The client's answer to `elicitation/create` (the bare ElicitResult), as far as an {@linkcode Answer} reads it. */
interface ElicitReply {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x);

/** Whether `x` is an ElicitResult: an action of the three, content absent or an object; other keys pass. */
function isElicitReply(x: unknown): x is ElicitReply {
  return isObject(x) && (x.action === "accept" || x.action === "decline" || x.action === "cancel") &&
    (x.content === undefined || isObject(x.content));
}

/**
 * The result schema of `elicitation/create` (checked here, not by zod: the 2026-era parking, which shares it, is
 * part of the core a starting server serves from before zod has loaded).
 */
const ELICIT_RESULT: ResultSchema<ElicitReply> = {
  "~standard": {
    version: 1,
    vendor: "tmux-mcp",
    validate: (value) =>
      isElicitReply(value)
        ? { value }
        : { issues: [{ message: "expected an action (accept, decline or cancel) and content an object or absent" }] },
  },
};

/** Longest timer the platform keeps (a longer one fires at once): the question is bounded by its signal instead. */
const NO_TIMEOUT = 2 ** 31 - 1;

/** The wire `elicitation/create` params of a question. */
export function elicitParams(q: FormQuestion | UrlQuestion, withId: boolean): Record<string, unknown> {
  if ("url" in q) return { mode: "url", message: q.message, url: q.url, ...(withId ? { elicitationId: q.id } : {}) };
  return {
    mode: "form",
    message: q.message,
    requestedSchema: {
      type: "object",
      properties: { [q.field]: { type: q.type, ...(q.title ? { title: q.title } : {}) } },
      required: [q.field],
    },
  };
}

/**
 * A client's reply (an ElicitResult from any era) as an {@linkcode Answer};
 * a form's value must have the field's type. Anything else is a UserError
 * naming the problem (the client's fault, not the model's: it says so).
 */
export function toAnswer(q: FormQuestion | UrlQuestion, reply: unknown): Answer {
  if (!isElicitReply(reply)) {
    throw new UserError(
      "the client's answer to the elicitation was malformed: nothing was typed; ask the user in the chat, or call " +
        "request-input again",
    );
  }
  if (reply.action !== "accept") return { action: reply.action };
  if ("url" in q) return { action: "accept" };
  const value = reply.content?.[q.field];
  if (q.type === "boolean" ? typeof value !== "boolean" : typeof value !== "string") {
    throw new UserError(`the client answered the form without a ${q.type} "${q.field}": nothing was typed`);
  }
  return { action: "accept", value: value as string | boolean };
}

/** The modes a client's `elicitation` capability declares. */
export function elicitationModes(cap: { form?: object; url?: object } | undefined): { form: boolean; url: boolean } {
  if (!cap) return { form: false, url: false };
  // 2025-06-18 clients declared `elicitation: {}`, which means form mode.
  return { form: cap.form !== undefined || cap.url === undefined, url: cap.url !== undefined };
}

/** The 2025-era adapter: `elicitation/create` requests. Undefined when the client declared no elicitation. */
export function legacyAsker(server: ElicitingServer): Asker | undefined {
  const cap = server.getClientCapabilities()?.elicitation;
  if (!cap) return undefined;
  const modes = elicitationModes(cap);
  const send = async (q: FormQuestion | UrlQuestion, signal: AbortSignal): Promise<Answer> => {
    try {
      const reply = await server.request(
        { method: "elicitation/create", params: elicitParams(q, true) },
        ELICIT_RESULT,
        { signal, timeout: NO_TIMEOUT },
      );
      return toAnswer(q, reply);
    } catch (e) {
      if (!signal.aborted) {
        if (e instanceof UserError) throw e;
        // The client answered the request with an error (no UI, a failure of its own) or went away: not our bug.
        const why = (e instanceof Error ? e.message : String(e)).split("\n")[0].slice(0, 300);
        throw new EnvironmentError(
          `the client failed to ask the human (${why}): nothing was typed; ask the user in the chat, or call ` +
            "request-input again",
        );
      }
      return signal.reason === "timeout" ? { action: "timeout" } : { action: "cancel" };
    }
  };
  return {
    modes,
    form: send,
    url: send,
    async completed(id) {
      if (modes.url) {
        await server.notification({ method: "notifications/elicitation/complete", params: { elicitationId: id } });
      }
    },
  };
}

/** One embedded request of an `InputRequiredResult` (2026-07-28). */
export interface InputRequest {
  method: "elicitation/create";
  params: Record<string, unknown>;
}

/** How a round of a parked call ends: the call's result, or a question for the client. */
export type Round<R> =
  | { done: R }
  | { inputRequired: { inputRequests: Record<string, InputRequest>; requestState: string } };

/** Sends one progress notification to the request it belongs to. */
export type ProgressSink = (progress: number, total?: number, message?: string) => Promise<void>;

/**
 * The request following a parked call now (the first request until its round ends, then each retry until its own
 * round ends): the call's progress goes to it (none between rounds, since MCP allows no progress after a request's
 * result), and its cancellation cancels the call (`cancelled`, which the call's signal carries besides the first
 * request's own).
 */
export interface Following {
  now?: ProgressSink;
  /** Aborted when a retry following the call is cancelled. */
  cancelled: AbortController;
  /** Stops listening to the cancellation of the retry following now (its round ended). */
  release?: () => void;
}

/** Nobody follows the call until a retry resumes it (see {@linkcode Following}). */
function unfollow(following: Following): void {
  following.now = undefined;
  following.release?.();
  following.release = undefined;
}

interface Parked<R> {
  /** The question's key in `inputRequests`. */
  key: string;
  question: FormQuestion | UrlQuestion;
  /** Answers the question the parked call awaits (an Error: the client's answer could not be read). */
  answer(a: Answer | Error): void;
  /** The round that the retry waits for. */
  next: PromiseWithResolvers<Round<R>>;
  /** The tool name the call was made with (a retry must repeat it). */
  name: string;
  /** Where the call's progress goes (shared by its rounds). */
  following: Following;
  expiry: ReturnType<typeof setTimeout>;
  /**
   * The call stopped waiting for the answer (its own timeout or cancellation) before the retry came: the retry,
   * when it comes, gets the call's next round (its result) and its answer is ignored.
   */
  gaveUp?: boolean;
}

export interface ParkingOptions {
  /** How long a parked call waits for the client's retry; then its question is answered with `timeout`. */
  ttlMs: number;
  /** The modes the request's declared client capabilities allow. */
  modes?: { form: boolean; url: boolean };
}

/**
 * The error for a retry whose `requestState` names no parked call: the JSON-RPC error the SDK answers for a
 * requestState it rejects (-32602, `data.reason` "invalid_request_state", which tells a 2026 client to start the
 * call over), in one line that says so.
 */
export function unknownState(): UserError & { code: number; data: { reason: string } } {
  const e = new UserError(
    "Invalid or expired requestState: the call it belonged to has finished, expired or was already resumed; " +
      "make the call again without requestState",
  );
  return Object.assign(e, { code: -32602, data: { reason: "invalid_request_state" } });
}

/**
 * Calls that wait for the client's retry (see the module documentation).
 * `R` is the call's result type (a CallToolResult for tools/call).
 */
export class Parking<R> {
  #parked = new Map<string, Parked<R>>();
  #opts: ParkingOptions;

  constructor(opts: ParkingOptions) {
    this.#opts = opts;
  }

  /** Calls parked now. */
  get size(): number {
    return this.#parked.size;
  }

  /**
   * Runs `work` (a tool call, `name`) with an asker for the 2026 era;
   * resolves with its result, or with the input-required round of its
   * first question. `following` routes the call's progress: the round's end detaches the request it ended
   * ({@linkcode resume} attaches the retry).
   */
  start(
    name: string,
    work: (ask: Asker) => Promise<R>,
    modes = this.#opts.modes,
    following: Following = { cancelled: new AbortController() },
  ): Promise<Round<R>> {
    let round = Promise.withResolvers<Round<R>>();
    let asked = 0;
    const ask = (q: FormQuestion | UrlQuestion, signal: AbortSignal): Promise<Answer> => {
      const pending = Promise.withResolvers<Answer>();
      const state = randomToken();
      const key = `q${++asked}`;
      const onAbort = () => {
        const parked = this.#parked.get(state);
        if (parked === undefined || parked.gaveUp) return;
        // Kept until the retry (or the expiry): a 2026 client learns the outcome only when it retries.
        parked.gaveUp = true;
        pending.resolve(signal.reason === "timeout" ? { action: "timeout" } : { action: "cancel" });
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const parked: Parked<R> = {
        key,
        question: q,
        name,
        following,
        answer: (a) => {
          signal.removeEventListener("abort", onAbort);
          if (a instanceof Error) pending.reject(a);
          else pending.resolve(a);
        },
        next: Promise.withResolvers<Round<R>>(),
        expiry: setTimeout(() => {
          if (this.#drop(state)) parked.answer({ action: "timeout" });
        }, this.#opts.ttlMs),
      };
      // A round nobody waits for any more (the retry never came) may still fail: not an unhandled rejection.
      parked.next.promise.catch(() => {});
      this.#parked.set(state, parked);
      // The round in progress ends with this question; the retry waits on the next one.
      const current = round;
      round = parked.next;
      unfollow(following); // the request this round answers gets no progress after its result
      current.resolve({
        inputRequired: {
          inputRequests: { [key]: { method: "elicitation/create", params: elicitParams(q, false) } },
          requestState: state,
        },
      });
      if (signal.aborted) onAbort();
      return pending.promise;
    };
    const asker: Asker = {
      modes: modes ?? { form: true, url: true },
      form: ask,
      url: ask,
      completed: () => Promise.resolve(), // the 2026 era has no completion notice: the retry's answer is the end
      parks: true,
    };
    const first = round.promise; // taken before the work runs: its first question moves `round` on
    work(asker).then((r) => round.resolve({ done: r }), (e) => round.reject(e));
    return first;
  }

  /**
   * The retry of a parked call: answers its question from `responses` (a
   * missing or malformed entry fails the question with a UserError saying so) and resolves with the
   * call's next round. One-shot: the state is forgotten at once. `progress` and `signal`: the retry's own; until
   * that round ends the call's progress goes to it, and its cancellation cancels the call.
   */
  resume(
    name: string,
    state: unknown,
    responses: Record<string, unknown> | undefined,
    progress?: ProgressSink,
    signal?: AbortSignal,
  ): Promise<Round<R>> {
    const parked = typeof state === "string" ? this.#parked.get(state) : undefined;
    if (!parked || parked.name !== name) return Promise.reject(unknownState());
    this.#drop(state as string);
    const following = parked.following;
    following.now = progress;
    if (signal) {
      const cancel = () => following.cancelled.abort(signal.reason);
      if (signal.aborted) cancel();
      else {
        signal.addEventListener("abort", cancel, { once: true });
        const release = following.release = () => signal.removeEventListener("abort", cancel);
        // The round's end (the call's result or next question) releases it too.
        void parked.next.promise.finally(() => {
          if (following.release === release) unfollow(following);
        }).catch(() => {});
      }
    }
    if (parked.gaveUp) return parked.next.promise;
    // A missing or malformed answer is the client's failure, said as such: not the human's cancel.
    const reply = responses?.[parked.key];
    let a: Answer | Error;
    try {
      a = reply === undefined
        ? new UserError(
          `the client's retry carried no answer to the question (inputResponses has no "${parked.key}"): nothing ` +
            "was typed; ask the user in the chat, or call request-input again",
        )
        : toAnswer(parked.question, reply);
    } catch (e) {
      a = e instanceof Error ? e : new UserError(String(e));
    }
    parked.answer(a);
    return parked.next.promise;
  }

  #drop(state: string): boolean {
    const parked = this.#parked.get(state);
    if (!parked) return false;
    clearTimeout(parked.expiry);
    this.#parked.delete(state);
    return true;
  }

  /** Answers every parked question with `cancel` (server shutdown). */
  close(): void {
    for (const [state, parked] of [...this.#parked]) {
      this.#drop(state);
      parked.answer({ action: "cancel" });
    }
  }
}

/**
 * The entries of a retry's `inputResponses` that the SDK hands a handler (its `ctx.mcpReq.inputResponses`): the
 * bare results (objects without `method` or `result`); a wrapped or non-object entry counts as no answer. Checked
 * here too, for the calls answered before the SDK has loaded (lib/server/early.ts); on what the SDK has checked it
 * changes nothing.
 */
export function acceptedResponses(raw: unknown): Record<string, unknown> {
  const accepted: Record<string, unknown> = {};
  if (!isObject(raw)) return accepted;
  for (const [key, entry] of Object.entries(raw)) {
    if (isObject(entry) && !("method" in entry) && !("result" in entry)) accepted[key] = entry;
  }
  return accepted;
}

/** A tools/call answer of the 2026 era that asks for input (the wire `InputRequiredResult`). */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests: Record<string, InputRequest>;
  requestState: string;
}

/**
 * tools/call in the 2026-07-28 era: a call carrying `requestState` is the
 * retry of a parked call and resumes it with its `inputResponses`; any other
 * call runs (`run(ask)`, the pipeline with `ask` in its context), parked
 * across rounds when the client declared elicitation in the request's
 * `_meta` capabilities (`elicitation`), or without an asker otherwise.
 * `progress` and `signal` are this request's: a parked call reports through
 * `run`'s `following`, which points at the request that follows the call now
 * and whose cancellation cancels it.
 *
 * @example
 * ```ts
 * import type { CallToolResult } from "../sdk.ts";
 * import type { Asker } from "../ask.ts";
 * declare const parking: Parking<CallToolResult>;
 * declare const params: { name: string; requestState?: string; inputResponses?: Record<string, unknown> };
 * declare const run: (ask?: Asker) => Promise<CallToolResult>; // pipeline.call(name, args, { ...extra, ask })
 * const r = await modernToolsCall(parking, params, { form: {}, url: {} }, run);
 * ```
 */
export async function modernToolsCall<R>(
  parking: Parking<R>,
  params: { name: string; requestState?: unknown; inputResponses?: unknown },
  elicitation: { form?: object; url?: object } | undefined,
  run: (ask?: Asker, following?: Following) => Promise<R>,
  progress?: ProgressSink,
  signal?: AbortSignal,
): Promise<R | InputRequiredResult> {
  const responses = params.inputResponses === undefined ? undefined : acceptedResponses(params.inputResponses);
  const following: Following = { now: progress, cancelled: new AbortController() };
  const round = params.requestState !== undefined
    ? await parking.resume(params.name, params.requestState, responses, progress, signal)
    : elicitation
    ? await parking.start(params.name, (ask) => run(ask, following), elicitationModes(elicitation), following)
    : { done: await run(undefined) };
  return "done" in round ? round.done : { resultType: "input_required", ...round.inputRequired };
}
