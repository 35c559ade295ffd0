/**
 * Searches whose matching could backtrack (model-supplied regexes), run in a
 * worker with a deadline, so a pattern like `(a+)+$` stalls one call for
 * seconds instead of the whole server for minutes.
 *
 * {@linkcode SearchPool.search} has the signature and results of
 * `searchBuffers` (same offsets, pagination, errors), but the engine runs in
 * `lib/search/worker.ts`. Buffers are still read here, in the main thread,
 * one at a time when the engine asks for them, and their bytes are
 * transferred to the worker, not copied. Workers are long-lived: one is
 * started on the first search and reused, so its startup and the JIT warm-up
 * of the engine are paid once; a worker is only terminated (and a new one
 * started by the next search) when a search runs past its deadline, is
 * cancelled, or crashes. Concurrent searches each get a worker of their own.
 *
 * The deadline counts matching time only (time the worker holds a buffer,
 * not time spent reading buffers from tmux): `baseMs` plus `perMiBMs` for
 * every MiB of buffer handed to the worker, so a legitimate search of a large
 * buffer (a few ms per MiB) has ample room and a catastrophic one on a small
 * buffer ends after `baseMs`.
 *
 * @example
 * ```ts
 * const pool = createSearchPool();
 * const r = await pool.search([{ name: "log" }], (n) => ctx.buffers.read(n), {
 *   matcher: compileMatcher("(a+)+$", "regex", false),
 *   maxMatches: 50, maxScanBytes: 16 << 20, contextBytes: 64, includeSimilarity: false,
 * }); // rejects with a UserError "... took too long ..." after about 3 s
 * pool.close();
 * ```
 */
import { UserError } from "../errors.ts";
import { cancelled, type ReadBuffer, type SearchOptions, type SearchResult, type SearchTarget } from "./search.ts";
import type { FromWorker, SearchRequest, ToWorker } from "./worker.ts";

/** How long a search may match: `baseMs + perMiBMs × MiB of buffers handed to the worker`. */
export interface Deadline {
  baseMs: number;
  perMiBMs: number;
}

/**
 * 3 s plus 100 ms per MiB (16 MiB, the default scan budget: 4.6 s; 256 MiB:
 * 28.6 s). The engine needs about 2-5 ms per MiB for a plain regex, so this
 * leaves a slow but sane pattern 20× room.
 */
export const DEFAULT_DEADLINE: Deadline = { baseMs: 3000, perMiBMs: 100 };

/** Idle workers kept for reuse (the machine has few cores; more concurrent searches start more). */
const MAX_IDLE = 2;

const MiB = 1024 * 1024;

const WORKER_URL = new URL("./worker.ts", import.meta.url);

export interface SearchPool {
  /** `searchBuffers` in a worker, bounded by the pool's deadline; `read` hands over (transfers) its bytes. */
  search(targets: readonly SearchTarget[], read: ReadBuffer, o: SearchOptions): Promise<SearchResult>;
  /** Terminates the idle workers; busy ones end with their search. */
  close(): void;
}

/** Starts no worker yet: the first search does. */
export function createSearchPool(deadline: Deadline = DEFAULT_DEADLINE): SearchPool {
  const idle: Worker[] = [];
  let closed = false;

  function search(targets: readonly SearchTarget[], read: ReadBuffer, o: SearchOptions): Promise<SearchResult> {
    if (o.signal?.aborted) return Promise.reject(cancelled());
    const worker = idle.pop() ?? new Worker(WORKER_URL, { type: "module" });
    const { promise, resolve, reject } = Promise.withResolvers<SearchResult>();
    const post = (m: ToWorker, transfer: Transferable[] = []) => worker.postMessage(m, transfer);

    // The deadline clock runs only while the worker has work: paused during reads.
    let allowance = deadline.baseMs, spent = 0, since = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const resume = () => {
      since = performance.now();
      timer = setTimeout(onDeadline, Math.max(0, allowance - spent));
    };
    const pause = () => {
      clearTimeout(timer);
      spent += performance.now() - since;
    };

    let settled = false;
    /** Ends this search; a worker that finished normally goes back to the pool. */
    const end = (reusable: boolean) => {
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      worker.onmessage = worker.onerror = null;
      if (reusable && !closed && idle.length < MAX_IDLE) idle.push(worker);
      else worker.terminate();
    };
    const fail = (e: Error) => {
      end(false);
      reject(e);
    };
    function onDeadline() {
      fail(
        new UserError(
          `regex ${JSON.stringify(o.matcher.query)} took too long and was stopped after ${Math.round(allowance)} ms ` +
            `of matching (nested quantifiers such as (a+)+ backtrack exponentially): simplify the pattern, avoid ` +
            `nested quantifiers, or use mode "literal"`,
        ),
      );
    }
    const onAbort = () => fail(cancelled());

    let readError: unknown;
    worker.onmessage = async ({ data }: MessageEvent<FromWorker>) => {
      switch (data.type) {
        case "read": {
          pause();
          let bytes: Uint8Array | undefined;
          try {
            bytes = await read(data.name);
          } catch (e) {
            readError = e;
          }
          if (settled) return;
          try {
            if (bytes) {
              allowance += deadline.perMiBMs * bytes.length / MiB;
              // Transferred, not copied (a SharedArrayBuffer is shared anyway).
              post({ type: "buffer", bytes }, bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : []);
            } else post({ type: "buffer" });
          } catch (e) {
            return fail(e instanceof Error ? e : new Error(String(e)));
          }
          resume();
          return;
        }
        case "progress":
          o.onBuffer?.(data.done, data.total);
          return;
        case "done":
          end(true);
          resolve(data.result);
          return;
        case "error":
          end(true);
          // A failed read fails the search with the read's own error (a missing buffer, a tmux error).
          reject(readError ?? workerError(data));
      }
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      fail(new Error(`search worker failed: ${e.message}`));
    };
    o.signal?.addEventListener("abort", onAbort, { once: true });
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
    };
    post(request);
    resume();
    return promise;
  }

  return {
    search,
    close() {
      closed = true;
      for (const w of idle.splice(0)) w.terminate();
    },
  };
}

/** An engine error as the main thread would have thrown it: a UserError keeps its class and message. */
function workerError(data: Extract<FromWorker, { type: "error" }>): Error {
  const e = data.user ? new UserError(data.message) : new Error(data.message);
  if (data.stack) e.stack = data.stack;
  return e;
}

let shared: SearchPool | undefined;

/** `searchBuffers` in the server's shared pool (created on first use), with the default deadline. */
export function searchInWorker(
  targets: readonly SearchTarget[],
  read: ReadBuffer,
  o: SearchOptions,
): Promise<SearchResult> {
  shared ??= createSearchPool();
  return shared.search(targets, read, o);
}
