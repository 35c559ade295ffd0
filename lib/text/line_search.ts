/**
 * Finding lines that match a literal or a model-supplied regular expression,
 * without letting a pathological regex freeze the server.
 *
 * V8 regexes backtrack: `(a+)+$` on forty "a"s runs for minutes, and the
 * whole MCP server (every other call) would stall with it. Regex matching
 * therefore runs in a short-lived worker that is terminated at a deadline;
 * literal matching runs inline.
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

// Runs in the worker: every group's lines against one regex.
const WORKER_SOURCE = `self.onmessage = (e) => {
  const re = new RegExp(e.data.source, e.data.flags);
  self.postMessage(e.data.groups.map((lines) => {
    const hits = [];
    for (let i = 0; i < lines.length; i++) {
      const m = re.exec(lines[i]);
      if (m) hits.push({ line: i, index: m.index });
    }
    return hits;
  }));
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
  return await inWorker(groups, re, opts);
}

function literalHits(lines: readonly string[], pattern: string, ignoreCase: boolean): LineHit[] {
  const needle = ignoreCase ? pattern.toLowerCase() : pattern;
  const hits: LineHit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const index = (ignoreCase ? lines[i].toLowerCase() : lines[i]).indexOf(needle);
    if (index >= 0) hits.push({ line: i, index });
  }
  return hits;
}

function inWorker(groups: readonly (readonly string[])[], re: RegExp, opts: SearchOptions): Promise<LineHit[][]> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  workerUrl ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
  const worker = new Worker(workerUrl, { type: "module" });
  const { promise, resolve, reject } = Promise.withResolvers<LineHit[][]>();
  const finish = () => {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    worker.terminate();
  };
  const timer = setTimeout(() => {
    finish();
    reject(
      new UserError(
        `regex ${JSON.stringify(re.source)} took longer than ${timeoutMs} ms and was stopped (nested quantifiers ` +
          `such as (a+)+ backtrack exponentially): simplify it, search fewer lines, or pass regex: false`,
      ),
    );
  }, timeoutMs);
  const onAbort = () => {
    finish();
    reject(new UserError("search cancelled"));
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  worker.onmessage = (e: MessageEvent<LineHit[][]>) => {
    finish();
    resolve(e.data);
  };
  worker.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    finish();
    reject(new Error(`regex worker failed: ${e.message}`));
  };
  worker.postMessage({ source: re.source, flags: re.flags, groups });
  return promise;
}
