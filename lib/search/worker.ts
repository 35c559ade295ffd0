/**
 * The search worker's entry module: runs {@linkcode searchBuffers} off the
 * main thread, so a regex that backtracks for minutes stalls only this
 * worker, which `lib/search/worker_pool.ts` terminates at a deadline.
 *
 * The worker keeps no buffers: it asks the main thread for each one when the
 * engine reaches it (one `read` message, answered by a `buffer` message whose
 * bytes are transferred), so a search that stops early fetches no more than
 * it would in the main thread. One search at a time; each ends with exactly
 * one `done` or `error` message. It also matches lines against regexes
 * (`lines`, answered by one `lines` or `error` message) for search-panes and
 * the waits, and says `ready` once loaded, so start-up (module loading, type
 * stripping) never counts against a deadline.
 *
 * @example
 * ```ts
 * // main thread (see worker_pool.ts):
 * const w = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
 * const request: SearchRequest = { type: "search", targets: [{ name: "log" }], query: "e+", mode: "regex",
 *   ignoreCase: false, maxMatches: 50, maxScanBytes: 16 << 20, contextBytes: 40, includeSimilarity: false };
 * w.postMessage(request);
 * // ← { type: "read", name: "log" }   → { type: "buffer", bytes } (transfer [bytes.buffer])
 * // ← { type: "progress", done: 1, total: 1 }   ← { type: "done", result }
 * ```
 */
import { UserError } from "../errors.ts";
import { fullCollector } from "../host/gc.ts";
import { bytePattern } from "./byte_pattern.ts";
import { compileMatcher, type SearchMode } from "./matcher.ts";
import { searchBuffers, type SearchResult, type SearchTarget } from "./search.ts";

/** Starts a search: `SearchOptions` with the matcher as its query (functions cannot cross threads). */
export interface SearchRequest {
  type: "search";
  targets: SearchTarget[];
  query: string;
  mode: SearchMode;
  ignoreCase: boolean;
  maxMatches: number;
  maxScanBytes: number;
  contextBytes: number;
  includeSimilarity: boolean;
  count?: boolean;
}

/**
 * Matches lines against regexes (search-panes, `wait` for text): for each regex,
 * for each group of lines, the lines that match and where (UTF-16 index).
 */
export interface LinesRequest {
  type: "lines";
  regexes: { source: string; flags: string }[];
  groups: string[][];
}

/** The answer to a `read`: the buffer's bytes, or none when reading it failed (the main thread keeps the error). */
export interface BufferReply {
  type: "buffer";
  bytes?: Uint8Array;
}

export type ToWorker = SearchRequest | LinesRequest | BufferReply;

export type FromWorker =
  | { type: "ready" }
  | { type: "read"; name: string }
  | { type: "opened"; bytes: number; ms: number }
  | { type: "progress"; done: number; total: number }
  | { type: "page"; result: SearchResult }
  | { type: "done"; result: SearchResult }
  | { type: "lines"; hits: { line: number; index: number }[][][] }
  | { type: "error"; message: string; user: boolean; stack?: string };

/** The parts of the worker global scope used here (Deno's lib types `self` as a window). */
interface WorkerScope {
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker): void;
}

const scope = self as unknown as WorkerScope;

let pending: PromiseWithResolvers<Uint8Array> | undefined;

function read(name: string): Promise<Uint8Array> {
  pending = Promise.withResolvers();
  scope.postMessage({ type: "read", name });
  return pending.promise;
}

/**
 * Input at or above which a search ends with a full collection: the worker
 * allocates little else, so V8 would keep a large search's text (and the
 * bytes behind it) until some later job, holding the worker's memory at its
 * peak between searches and doubling the next one's.
 */
const COLLECT_AFTER_BYTES = 16 * 1024 * 1024;

let gc: (() => void) | undefined | null = null;

async function run(req: SearchRequest): Promise<void> {
  let handled = 0;
  try {
    const result = await searchBuffers(req.targets, read, {
      // Rewritten for the byte string where it can be, so non-ASCII content is not decoded (byte_pattern.ts).
      matcher: compileMatcher(req.query, req.mode, req.ignoreCase, { bytePattern }),
      maxMatches: req.maxMatches,
      maxScanBytes: req.maxScanBytes,
      contextBytes: req.contextBytes,
      includeSimilarity: req.includeSimilarity,
      count: req.count,
      onPage: (result) => scope.postMessage({ type: "page", result }),
      onOpened: (bytes, ms) => {
        handled += bytes;
        scope.postMessage({ type: "opened", bytes, ms });
      },
      onBuffer: (done, total) => scope.postMessage({ type: "progress", done, total }),
    });
    scope.postMessage({ type: "done", result });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    scope.postMessage({ type: "error", message: err.message, user: err instanceof UserError, stack: err.stack });
  }
  if (handled >= COLLECT_AFTER_BYTES) {
    if (gc === null) gc = await fullCollector();
    gc?.();
  }
}

// Compiled line regexes, kept: a wait checks every batch of output against the same ones.
const compiled = new Map<string, RegExp>();

function lines(req: LinesRequest): void {
  try {
    const hits = req.regexes.map(({ source, flags }) => {
      const key = flags + "/" + source;
      let re = compiled.get(key);
      if (!re) {
        if (compiled.size >= 64) compiled.clear();
        compiled.set(key, re = new RegExp(source, flags));
      }
      return req.groups.map((group) => {
        const found: { line: number; index: number }[] = [];
        for (let i = 0; i < group.length; i++) {
          const m = re.exec(group[i]);
          if (m) found.push({ line: i, index: m.index });
        }
        return found;
      });
    });
    scope.postMessage({ type: "lines", hits });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    scope.postMessage({ type: "error", message: err.message, user: false, stack: err.stack });
  }
}

scope.onmessage = ({ data }) => {
  if (data.type === "search") {
    void run(data);
    return;
  }
  if (data.type === "lines") {
    lines(data);
    return;
  }
  const p = pending;
  pending = undefined;
  if (data.bytes) p?.resolve(data.bytes);
  else p?.reject(new Error("reading the buffer failed"));
};

// Loaded and ready: the pool starts a job's deadline clock only from here.
scope.postMessage({ type: "ready" });
