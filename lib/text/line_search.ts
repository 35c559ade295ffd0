/**
 * Finding lines that match a literal or a model-supplied regular expression,
 * without letting a pathological regex freeze the server.
 *
 * V8 regexes backtrack: `(a+)+$` on forty "a"s runs for minutes, and the
 * whole MCP server (every other call) would stall with it. Regex matching
 * therefore runs in a worker that is terminated at a deadline (one per
 * search, or a {@linkcode regexRunner} kept by a caller that searches again
 * and again); literal matching runs inline.
 *
 * @example
 * ```ts
 * const hits = await searchLines([["ok", "error: x"]], { pattern: "error", regex: false, ignoreCase: true });
 * hits; // [[{ line: 1, index: 0 }]]
 * ```
 */
import { UserError } from "../errors.ts";

export interface LineQuery {
  pattern: string;
  regex: boolean;
  ignoreCase: boolean;
}

/** A matching line: its index in its group and where the first match starts (UTF-16 units). */
export interface LineHit {
  line: number;
  index: number;
}

export interface SearchOptions {
  /** Regex deadline in ms (default 3000). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

// Runs in the worker: every group's lines against each regex. Compiled
// regexes are kept, so a runner that searches repeatedly compiles once.
const WORKER_SOURCE = `const cache = new Map();
self.onmessage = (e) => {
  const { id, regexes, groups } = e.data;
  self.postMessage({ id, hits: regexes.map(({ source, flags }) => {
    const key = flags + "/" + source;
    let re = cache.get(key);
    if (!re) cache.set(key, re = new RegExp(source, flags));
    return groups.map((lines) => {
      const hits = [];
      for (let i = 0; i < lines.length; i++) {
        const m = re.exec(lines[i]);
        if (m) hits.push({ line: i, index: m.index });
      }
      return hits;
    });
  }) });
};`;

let workerUrl: string | undefined;

/** Compiles a model's regex or explains why it is not one. */
export function compileRegex(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? "iu" : "u");
  } catch (e) {
    throw new UserError(
      `invalid regex ${JSON.stringify(pattern)}: ${(e as Error).message}; fix it or pass regex: false for literal text`,
    );
  }
}

/** For each group of lines, the lines matching `q` (in order). */
export async function searchLines(
  groups: readonly (readonly string[])[],
  q: LineQuery,
  opts: SearchOptions = {},
): Promise<LineHit[][]> {
  if (!q.regex) return groups.map((lines) => literalHits(lines, q.pattern, q.ignoreCase));
  const re = compileRegex(q.pattern, q.ignoreCase);
  const runner = regexRunner();
  try {
    return (await runner.run([re], groups, opts))[0];
  } finally {
    runner.close();
  }
}

/** The lines of `lines` containing `pattern` (literally). */
export function literalHits(lines: readonly string[], pattern: string, ignoreCase: boolean): LineHit[] {
  const needle = ignoreCase ? pattern.toLowerCase() : pattern;
  const hits: LineHit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const index = (ignoreCase ? lines[i].toLowerCase() : lines[i]).indexOf(needle);
    if (index >= 0) hits.push({ line: i, index });
  }
  return hits;
}

/**
 * A worker running model-supplied regexes, for callers that search more than
 * once (wait-for-text checks every new batch of output). Each run has a
 * deadline; past it the worker is terminated and the run (and every later
 * one) fails with a UserError.
 */
export interface RegexRunner {
  /** For each regex, for each group of lines: its hits. */
  run(regexes: readonly RegExp[], groups: readonly (readonly string[])[], opts?: SearchOptions): Promise<LineHit[][][]>;
  /** Terminates the worker. */
  close(): void;
}

/** Starts a regex worker; close it when done. */
export function regexRunner(): RegexRunner {
  workerUrl ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
  const worker = new Worker(workerUrl, { type: "module" });
  let failed: Error | undefined;
  let seq = 0;
  return {
    run(regexes, groups, opts = {}) {
      if (failed) return Promise.reject(failed);
      const timeoutMs = opts.timeoutMs ?? 3000;
      const id = ++seq;
      const { promise, resolve, reject } = Promise.withResolvers<LineHit[][][]>();
      const fail = (e: Error) => {
        failed = e;
        finish();
        worker.terminate();
        reject(e);
      };
      const finish = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
      };
      const timer = setTimeout(() => {
        const shown = regexes.map((re) => JSON.stringify(re.source)).join(", ");
        fail(
          new UserError(
            `regex ${shown} took longer than ${timeoutMs} ms and was stopped (nested quantifiers such as (a+)+ ` +
              `backtrack exponentially): simplify it, search fewer lines, or pass regex: false`,
          ),
        );
      }, timeoutMs);
      const onAbort = () => fail(new UserError("search cancelled"));
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      worker.onmessage = (e: MessageEvent<{ id: number; hits: LineHit[][][] }>) => {
        if (e.data.id !== id) return;
        finish();
        resolve(e.data.hits);
      };
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        fail(new Error(`regex worker failed: ${e.message}`));
      };
      worker.postMessage({ id, regexes: regexes.map((re) => ({ source: re.source, flags: re.flags })), groups });
      return promise;
    },
    close() {
      worker.terminate();
    },
  };
}
