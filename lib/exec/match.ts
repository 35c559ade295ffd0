/**
 * Matching output lines against wait-for-text's patterns and stop patterns.
 *
 * Literal patterns (the default) are matched with `includes`, inline.
 * Regular expressions come from a model and may backtrack catastrophically
 * (`(a+)+$`), which would freeze the whole server on its one thread; they run
 * in a worker that is terminated when a batch takes longer than a deadline.
 *
 * Within one batch of lines, a stop pattern wins over a pattern.
 *
 * @example
 * ```ts
 * const m = compileMatcher({ patterns: ["done"], stop: ["error"], regex: false, ignoreCase: true });
 * await m.check(["Build DONE"]); // { kind: "matched", pattern: "done", line: "Build DONE" }
 * m.close();
 * ```
 */
import { UserError } from "../errors.ts";

export interface MatchSpec {
  patterns: string[];
  stop: string[];
  regex: boolean;
  ignoreCase: boolean;
}

export interface Hit {
  kind: "matched" | "stopped";
  pattern: string;
  line: string;
}

export interface Matcher {
  /** The first hit in these lines (a stop hit anywhere in them wins), or undefined. */
  check(lines: readonly string[]): Hit | undefined | Promise<Hit | undefined>;
  close(): void;
}

/** How long one batch of lines may take in the regex worker. */
const REGEX_DEADLINE_MS = 2000;

function firstHit(
  lines: readonly string[],
  spec: MatchSpec,
  test: (pattern: number, stop: boolean, line: string) => boolean,
): Hit | undefined {
  for (const stop of [true, false]) {
    const list = stop ? spec.stop : spec.patterns;
    for (const line of lines) {
      for (let i = 0; i < list.length; i++) {
        if (test(i, stop, line)) return { kind: stop ? "stopped" : "matched", pattern: list[i], line };
      }
    }
  }
  return undefined;
}

// Runs in the worker; kept as source text so no extra module file has to be
// shipped (deno compile, remote imports).
const WORKER_SOURCE = `
let compiled;
self.onmessage = (e) => {
  const m = e.data;
  if (m.init) {
    compiled = { patterns: m.init.patterns.map((p) => new RegExp(p, m.init.flags)),
                 stop: m.init.stop.map((p) => new RegExp(p, m.init.flags)) };
    return;
  }
  for (const stop of [true, false]) {
    const list = stop ? compiled.stop : compiled.patterns;
    for (const line of m.lines) {
      for (let i = 0; i < list.length; i++) {
        if (list[i].test(line)) { self.postMessage({ id: m.id, hit: { stop, index: i, line } }); return; }
      }
    }
  }
  self.postMessage({ id: m.id, hit: null });
};`;

let workerUrl: string | undefined;

/** Validates and prepares the patterns; throws a UserError for an invalid regular expression. */
export function compileMatcher(spec: MatchSpec): Matcher {
  if (!spec.regex) {
    const fold = (s: string) => spec.ignoreCase ? s.toLowerCase() : s;
    const patterns = spec.patterns.map(fold);
    const stops = spec.stop.map(fold);
    return {
      check: (lines) => firstHit(lines, spec, (i, stop, line) => fold(line).includes((stop ? stops : patterns)[i])),
      close() {},
    };
  }
  const flags = spec.ignoreCase ? "i" : "";
  for (const p of [...spec.patterns, ...spec.stop]) {
    try {
      new RegExp(p, flags);
    } catch (e) {
      throw new UserError(
        `invalid regular expression ${JSON.stringify(p)}: ${(e as Error).message}; fix it, or pass regex: false ` +
          `to match it as plain text`,
      );
    }
  }
  workerUrl ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
  const worker = new Worker(workerUrl, { type: "module" });
  worker.postMessage({ init: { patterns: spec.patterns, stop: spec.stop, flags } });
  let seq = 0;
  let closed = false;
  return {
    check(lines) {
      const id = ++seq;
      return new Promise<Hit | undefined>((resolve, reject) => {
        const timer = setTimeout(() => {
          closed = true;
          worker.terminate();
          reject(
            new UserError(
              `a regular expression took over ${REGEX_DEADLINE_MS} ms on the pane's output (catastrophic ` +
                `backtracking, e.g. nested quantifiers like (a+)+): simplify the pattern or use regex: false`,
            ),
          );
        }, REGEX_DEADLINE_MS);
        worker.onmessage = (e: MessageEvent) => {
          if (e.data.id !== id) return;
          clearTimeout(timer);
          const h = e.data.hit as { stop: boolean; index: number; line: string } | null;
          resolve(
            h
              ? {
                kind: h.stop ? "stopped" : "matched",
                pattern: (h.stop ? spec.stop : spec.patterns)[h.index],
                line: h.line,
              }
              : undefined,
          );
        };
        worker.postMessage({ id, lines });
      });
    },
    close() {
      if (!closed) worker.terminate();
      closed = true;
    },
  };
}
