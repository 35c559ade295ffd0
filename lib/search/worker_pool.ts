/**
 * The one regex-with-deadline service: every model-supplied regex (search-buffer
 * with or without near, search-panes, `wait` for text) runs in a worker that is
 * terminated at a deadline, so a pattern like `(a+)+$` stalls one call for
 * seconds instead of the whole server for minutes.
 *
 * Two kinds of job share the workers, the deadline rules and the message:
 * - {@linkcode RegexService.search}: `searchBuffers` (same offsets,
 *   pagination, errors) run in `lib/search/worker.ts`; buffers are read here,
 *   one at a time when the engine asks, and their bytes transferred;
 * - {@linkcode RegexService.lines}: lines matched against regexes (each
 *   line's first match), for search-panes and the waits.
 *
 * The deadline counts the work it bounds: the clock starts when the worker
 * has said it is loaded (`ready`) and the job is handed over, and pauses
 * while buffers are read from tmux and converted for matching. So worker
 * start-up (module loading, type stripping: seconds on a busy machine), slow
 * reads and the linear conversion never count, and a
 * catastrophic pattern is still stopped `baseMs` after it starts matching.
 * Each buffer handed to the worker adds room in proportion to its size
 * (`perMiBMs` per MiB) or, when more, `prepareFactor` times as long as the
 * worker took to validate and convert it: a linear pass over the same bytes
 * on the same thread, which a busy machine slows down as much as it slows the
 * matching. So a linear pattern is never stopped for the size of its input,
 * however loaded the machine; a pattern that backtracks is, and the message
 * names the construct that backtracks.
 *
 * Workers are long-lived: a finished job's worker goes back to the pool (the
 * JIT-warmed engine and compiled line regexes with it); one is terminated
 * (and a new one started by the next job) only when a job runs past its
 * deadline, is cancelled, or crashes. Concurrent jobs each get a worker.
 *
 * One per server, in its services (`services.regex`, closed at exit).
 *
 * @example
 * ```ts
 * import { compileMatcher } from "./matcher.ts";
 * const store = new Map([["log", new TextEncoder().encode("a".repeat(40) + "b")]]);
 * const regex = createSearchPool();
 * const r = await regex.search([{ name: "log" }], async (n) => store.get(n)!, {
 *   matcher: compileMatcher("(a+)+$", "regex", false),
 *   maxMatches: 50, maxScanBytes: 16 << 20, contextBytes: 64, includeSimilarity: false,
 * }); // rejects with a UserError "... took too long ..." about 3 s after matching began
 * const [[hits]] = await regex.lines([new RegExp("err", "i")], [["ok", "error: x"]]); // [{ line: 1, index: 0 }]
 * regex.close();
 * ```
 */
import { searchCancelled, UserError } from "../errors.ts";
import type { ReadBuffer, SearchOptions, SearchResult, SearchTarget } from "./search.ts";
import type { FromWorker, SearchRequest, ToWorker } from "./worker.ts";

/**
 * How long a job may match: `baseMs`, plus for each buffer handed to the
 * worker the larger of `perMiBMs × its MiB` and (from 1 MiB) `prepareFactor ×
 * the time its validation and conversion took`.
 */
export interface Deadline {
  baseMs: number;
  perMiBMs: number;
  /** Default: {@linkcode DEFAULT_DEADLINE}'s. */
  prepareFactor?: number;
}

/**
 * 3 s plus 100 ms per MiB (16 MiB, the default scan budget: 4.6 s; 256 MiB:
 * 28.6 s) or 50 times the conversion, when more. A plain regex needs a small
 * fraction of either (the slowest linear ones seen, such as `[a-z]+ [a-z]+ x`
 * on ASCII, about 11 times the conversion), so this leaves a slow but sane
 * pattern ample room on a loaded machine.
 */
export const DEFAULT_DEADLINE: Required<Deadline> = { baseMs: 3000, perMiBMs: 100, prepareFactor: 50 };

/** A line matching a regex: its index in its group and where the first match starts (UTF-16 units). */
export interface LineHit {
  line: number;
  index: number;
}

export interface LinesOptions {
  signal?: AbortSignal;
  /** How the caller asks for literal matching, for the deadline message (default `regex: false`). */
  literalHint?: string;
}

export interface RegexService {
  /** `searchBuffers` in a worker, bounded by the deadline; `read` hands over (transfers) its bytes. */
  search(targets: readonly SearchTarget[], read: ReadBuffer, o: SearchOptions): Promise<SearchResult>;
  /** For each regex, for each group of lines: the lines it matches, bounded by the deadline. */
  lines(
    regexes: readonly RegExp[],
    groups: readonly (readonly string[])[],
    o?: LinesOptions,
  ): Promise<LineHit[][][]>;
  /** Terminates the idle workers; busy ones end with their job. */
  close(): void;
}

/** Idle workers kept for reuse (the machine has few cores; more concurrent jobs start more). */
const MAX_IDLE = 2;

const MiB = 1024 * 1024;

const WORKER_URL = new URL("./worker.ts", import.meta.url);

/**
 * The one message for a regex stopped at its deadline: how long it matched (over how much input, when that
 * is large), what in the pattern backtracks, and what to do.
 */
export function regexTooLong(patterns: readonly string[], ms: number, literalHint: string, bytes = 0): UserError {
  const over = bytes >= MiB ? ` over ${(bytes / MiB).toFixed(bytes >= 10 * MiB ? 0 : 1)} MiB` : "";
  const causes = patterns.map(backtrackCause);
  const cause = causes.find((c) => c !== GENERIC_CAUSE) ?? GENERIC_CAUSE;
  return new UserError(
    `regex ${patterns.map((p) => JSON.stringify(p)).join(", ")} took too long and was stopped after ` +
      `${Math.round(ms)} ms of matching${over} (${cause}): rewrite that part, or use ${literalHint}`,
  );
}

const GENERIC_CAUSE = "quantifiers that can match the same characters, such as \\w+\\w+ or (a|ab)*, " +
  "retry every way of splitting a long run of them";

/**
 * What in `source` makes a regex backtrack: a quantified group that holds a quantifier of its own (`(a+)+`:
 * exponential), a quantified group with alternatives (`(a|ab)*`), or else the generic cause.
 */
export function backtrackCause(source: string): string {
  // Open groups: where each starts, and whether it holds a quantifier or an alternative so far.
  const open: { at: number; quantified: boolean; alternatives: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    const top = open.at(-1);
    if (c === "[") inClass = true;
    else if (c === "(") open.push({ at: i, quantified: false, alternatives: false });
    else if (c === "|" && top) top.alternatives = true;
    else if ((c === "*" || c === "+" || c === "{") && top) top.quantified = true;
    else if (c === ")" && top) {
      open.pop();
      const q = source[i + 1];
      const repeated = q === "*" || q === "+" || (q === "{" && /^\{\d*,\d*\}/.test(source.slice(i + 1)));
      const group = source.slice(top.at, i + 1) + (q === "{" ? source.slice(i + 1, source.indexOf("}", i) + 1) : q);
      if (repeated && top.quantified) {
        return `the repeated group ${group} holds a quantifier of its own: nested quantifiers backtrack exponentially`;
      }
      if (repeated && top.alternatives) {
        return `the repeated group ${group} has alternatives that can match the same text: each is retried`;
      }
      // A quantifier inside counts for the enclosing group too.
      if (open.length && (top.quantified || repeated)) open[open.length - 1].quantified = true;
    }
  }
  return GENERIC_CAUSE;
}

interface Slot {
  worker: Worker;
  /** Resolves at the worker's `ready` message; rejects when it fails to load. */
  ready: Promise<void>;
}

function spawn(): Slot {
  const worker = new Worker(WORKER_URL, { type: "module" });
  const ready = Promise.withResolvers<void>();
  worker.onmessage = ({ data }: MessageEvent<FromWorker>) => {
    if (data.type === "ready") ready.resolve();
  };
  worker.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    ready.reject(new Error(`search worker failed to start: ${e.message}`));
  };
  return { worker, ready: ready.promise };
}

/** What a job does with the worker's messages; `ctl` ends it or pauses its clock. */
interface Job<T> {
  request: ToWorker;
  patterns: readonly string[];
  literalHint: string;
  /** Input handed over with the request, in bytes (for the allowance). */
  bytes: number;
  signal?: AbortSignal;
  onMessage(data: FromWorker, ctl: JobControl<T>): void | Promise<void>;
  /** What the job answers when stopped at its deadline, if it has an answer by then (else it fails). */
  late?(): T | undefined;
}

interface JobControl<T> {
  post(m: ToWorker, transfer?: Transferable[]): void;
  /** Stops the deadline clock (reading from tmux, and the worker's conversion of what was read). */
  pause(): void;
  /** Restarts it, with room for `bytes` more input that took `openMs` to convert (see `Deadline`). */
  resume(bytes?: number, openMs?: number): void;
  /** Ends the job; the worker goes back to the pool. */
  resolve(v: T): void;
  reject(e: unknown, reusable: boolean): void;
  settled(): boolean;
}

/** Starts no worker yet: the first job does. */
export function createSearchPool(deadline: Deadline = DEFAULT_DEADLINE): RegexService {
  const prepareFactor = deadline.prepareFactor ?? DEFAULT_DEADLINE.prepareFactor;
  const idle: Slot[] = [];
  let closed = false;

  async function run<T>(job: Job<T>): Promise<T> {
    if (job.signal?.aborted) throw searchCancelled();
    const slot = idle.pop() ?? spawn();
    const { worker } = slot;
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    let settled = false;
    let allowance = deadline.baseMs + deadline.perMiBMs * job.bytes / MiB, spent = 0, since = 0;
    let handed = job.bytes;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const end = (reusable: boolean) => {
      settled = true;
      clearTimeout(timer);
      job.signal?.removeEventListener("abort", onAbort);
      worker.onmessage = worker.onerror = null;
      if (reusable && !closed && idle.length < MAX_IDLE) idle.push(slot);
      else worker.terminate();
    };
    const ctl: JobControl<T> = {
      post: (m, transfer = []) => worker.postMessage(m, transfer),
      pause() {
        clearTimeout(timer);
        spent += performance.now() - since;
      },
      resume(bytes = 0, openMs = 0) {
        // Under 1 MiB the conversion earns no room: it would be a few ms, noise beside the base.
        allowance += Math.max(deadline.perMiBMs * bytes / MiB, bytes >= MiB ? prepareFactor * openMs : 0);
        handed += bytes;
        since = performance.now();
        timer = setTimeout(() => {
          const late = job.late?.();
          if (late === undefined) {
            return ctl.reject(regexTooLong(job.patterns, allowance, job.literalHint, handed), false);
          }
          end(false); // still matching: not reusable
          resolve(late);
        }, Math.max(0, allowance - spent));
      },
      resolve(v) {
        end(true);
        resolve(v);
      },
      reject(e, reusable) {
        if (settled) return;
        end(reusable);
        reject(e);
      },
      settled: () => settled,
    };
    const onAbort = () => ctl.reject(searchCancelled(), false);
    job.signal?.addEventListener("abort", onAbort, { once: true });

    try {
      // Start-up is not matching: the clock starts once the worker is loaded.
      await Promise.race([slot.ready, promise.then(() => {}, () => {})]);
    } catch (e) {
      ctl.reject(e, false);
      return promise;
    }
    if (settled) return promise;
    worker.onmessage = ({ data }: MessageEvent<FromWorker>) => {
      if (!settled) void job.onMessage(data, ctl);
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      ctl.reject(new Error(`search worker failed: ${e.message}`), false);
    };
    ctl.post(job.request);
    ctl.resume();
    return promise;
  }

  function search(targets: readonly SearchTarget[], read: ReadBuffer, o: SearchOptions): Promise<SearchResult> {
    let readError: unknown;
    const request: SearchRequest = {
      type: "search",
      targets: [...targets],
      query: o.matcher.query,
      mode: o.matcher.mode,
      ignoreCase: o.matcher.ignoreCase,
      maxMatches: o.maxMatches,
      maxScanBytes: o.maxScanBytes,
      contextBytes: o.contextBytes,
      includeSimilarity: o.includeSimilarity,
      count: o.count,
    };
    // A count stopped at the deadline leaves the page, with its total partial.
    let page: SearchResult | undefined;
    return run<SearchResult>({
      request,
      patterns: [o.matcher.query],
      literalHint: 'mode "literal"',
      bytes: 0,
      signal: o.signal,
      late: () => page,
      async onMessage(data, ctl) {
        switch (data.type) {
          case "read": {
            // The deadline clock runs only while the worker has work: paused during reads.
            ctl.pause();
            let bytes: Uint8Array | undefined;
            try {
              bytes = await read(data.name);
            } catch (e) {
              readError = e;
            }
            if (ctl.settled()) return;
            try {
              // Transferred, not copied (a SharedArrayBuffer is shared anyway).
              if (bytes) ctl.post({ type: "buffer", bytes }, bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : []);
              else ctl.post({ type: "buffer" });
            } catch (e) {
              return ctl.reject(e instanceof Error ? e : new Error(String(e)), false);
            }
            // The clock stays paused until the worker has converted the bytes (`opened`) or failed (`error`).
            return;
          }
          case "opened":
            return ctl.resume(data.bytes, data.ms);
          case "progress":
            o.onBuffer?.(data.done, data.total);
            return;
          case "page":
            page = data.result;
            o.onPage?.(page);
            return;
          case "done":
            return ctl.resolve(data.result);
          case "error":
            // A failed read fails the search with the read's own error (a missing buffer, a tmux error).
            return ctl.reject(readError ?? workerError(data), true);
        }
      },
    });
  }

  function lines(
    regexes: readonly RegExp[],
    groups: readonly (readonly string[])[],
    o: LinesOptions = {},
  ): Promise<LineHit[][][]> {
    let chars = 0;
    for (const g of groups) for (const l of g) chars += l.length;
    return run<LineHit[][][]>({
      request: {
        type: "lines",
        regexes: regexes.map((re) => ({ source: re.source, flags: re.flags })),
        groups: groups.map((g) => [...g]),
      },
      patterns: regexes.map((re) => re.source),
      literalHint: o.literalHint ?? "regex: false",
      bytes: chars * 2,
      signal: o.signal,
      onMessage(data, ctl) {
        if (data.type === "lines") ctl.resolve(data.hits);
        else if (data.type === "error") ctl.reject(workerError(data), true);
      },
    });
  }

  return {
    search,
    lines,
    close() {
      closed = true;
      for (const s of idle.splice(0)) s.worker.terminate();
    },
  };
}

/** An engine error as the main thread would have thrown it: a UserError keeps its class and message. */
function workerError(data: Extract<FromWorker, { type: "error" }>): Error {
  const e = data.user ? new UserError(data.message) : new Error(data.message);
  if (data.stack) e.stack = data.stack;
  return e;
}
