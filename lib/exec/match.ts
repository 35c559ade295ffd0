/**
 * Matching output lines against the patterns and stop patterns of `wait` (what: text),
 * batch by batch as the output arrives. Literal patterns are matched inline;
 * regular expressions run in the regex-with-deadline service (see
 * `lib/search/worker_pool.ts`: a catastrophic pattern fails the call instead
 * of freezing the server).
 *
 * Within one batch of lines, a stop pattern wins over a pattern.
 *
 * @example
 * ```ts
 * declare const regex: Parameters<typeof compileMatcher>[1]; // the call's `ctx.regex`
 * const m = compileMatcher({ patterns: ["done"], stop: ["error"], regex: false, ignoreCase: true }, regex);
 * await m.check(["Build DONE"]); // { kind: "matched", pattern: "done", line: "Build DONE" }
 * m.close();
 * ```
 */
import { compileRegex, type LineHit, literalHits } from "../search/line_search.ts";
import type { RegexService } from "../search/worker_pool.ts";
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
  check(lines: readonly string[]): Promise<Hit | undefined>;
  /** The first line a pattern (not a stop pattern) matches in these lines, or undefined. */
  shows(lines: readonly string[]): Promise<string | undefined>;
  close(): void;
}

/** The earliest hit of the stops, else of the patterns; `hits[i]` are the hits of pattern i (stops first). */
function firstHit(spec: MatchSpec, lines: readonly string[], hits: readonly LineHit[][]): Hit | undefined {
  const lists = [{ kind: "stopped", list: spec.stop, offset: 0 }, {
    kind: "matched",
    list: spec.patterns,
    offset: spec.stop.length,
  }] as const;
  for (const { kind, list, offset } of lists) {
    let best: { line: number; pattern: string } | undefined;
    list.forEach((pattern, i) => {
      const first = hits[offset + i][0];
      if (first && (!best || first.line < best.line)) best = { line: first.line, pattern };
    });
    if (best) return { kind, pattern: best.pattern, line: lines[best.line] };
  }
  return undefined;
}

/**
 * Whether a regex needs a line break to match: a `\n` or `\r` (or the character) that is a term of the pattern's own
 * sequence (in no group or class, not optional: no `?`, `*`, `{0` after it) with no `|` that could go round it.
 * Lines never hold one. Inside a group it may be optional or negated (`(\r?\n)?`, `(?!\n)`): left alone.
 */
function needsLineBreak(source: string): boolean {
  if (source.includes("|")) return false;
  let inClass = false;
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    let br = c === "\n" || c === "\r";
    if (c === "\\") br = source[++i] === "n" || source[i] === "r";
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    if (br && !inClass && depth === 0 && !/^(?:[?*]|\{0)/.test(source.slice(i + 1))) return true;
  }
  return false;
}

/**
 * Validates and prepares the patterns (regexes run in `regex`, the server's service); throws a UserError for an
 * invalid regular expression.
 */
export function compileMatcher(spec: MatchSpec, regex: RegexService): Matcher {
  const all = [...spec.stop, ...spec.patterns];
  // Output is matched line by line, so a line break in a pattern could never match: the wait would run to its timeout.
  const broken = all.find((p) => spec.regex ? needsLineBreak(p) : /[\r\n]/.test(p));
  if (broken !== undefined) {
    throw new UserError(
      `pattern ${JSON.stringify(broken)} contains a line break, but patterns match within one line: ` +
        "wait for the text of one of its lines",
    );
  }
  // Patterns only: their hits, as if there were no stop patterns.
  const patternsOnly = { ...spec, stop: [] };
  const shown = (hit: Hit | undefined) => hit?.line;
  if (!spec.regex) {
    const hitsOf = (s: MatchSpec, lines: readonly string[]) =>
      firstHit(s, lines, [...s.stop, ...s.patterns].map((p) => literalHits(lines, p, spec.ignoreCase)));
    return {
      check: (lines) => Promise.resolve(hitsOf(spec, lines)),
      shows: (lines) => Promise.resolve(shown(hitsOf(patternsOnly, lines))),
      close() {},
    };
  }
  const regexes = all.map((p) => compileRegex(p, spec.ignoreCase));
  let failed: Error | undefined;
  return {
    async check(lines) {
      // A regex stopped at its deadline fails this wait for good (later batches would stall the same way).
      if (failed) throw failed;
      try {
        const hits = await regex.lines(regexes, [lines]);
        return firstHit(spec, lines, hits.map((perGroup) => perGroup[0]));
      } catch (e) {
        throw failed = e instanceof Error ? e : new Error(String(e));
      }
    },
    async shows(lines) {
      // Not the stops: a slow one would fail an answer that only asks whether a pattern is on screen.
      const patterns = regexes.slice(spec.stop.length);
      if (failed) throw failed;
      const hits = await regex.lines(patterns, [lines]);
      return shown(firstHit(patternsOnly, lines, hits.map((perGroup) => perGroup[0])));
    },
    close() {},
  };
}
