/**
 * Finding lines that match a literal or a model-supplied regular expression,
 * without letting a pathological regex freeze the server: regexes run in the
 * one regex-with-deadline service (`lib/search/worker_pool.ts`), literal
 * matching runs inline.
 *
 * @example
 * ```ts
 * declare const regex: Parameters<typeof searchLines>[0]; // the call's `ctx.regex`
 * const hits = await searchLines(regex, [["ok", "error: x"]], { pattern: "error", regex: false, ignoreCase: true });
 * hits; // [[{ line: 1, index: 0 }]]
 * ```
 */
import { UserError } from "../errors.ts";
import type { LineHit, RegexService } from "./worker_pool.ts";

export type { LineHit };

export interface LineQuery {
  pattern: string;
  regex: boolean;
  ignoreCase: boolean;
  /** How the caller's tool asks for literal matching, for errors (default `regex: false`). */
  literalHint?: string;
}

/** Inline flags other engines take at a pattern's start (PCRE, Python, Go): `(?i)`, `(?im)`. */
const INLINE_FLAGS = /^\(\?[a-zA-Z]+\)/;

/**
 * The one refusal of a model's pattern that JavaScript's engine does not take: the pattern, the engine's reason,
 * for inline flags (`(?i)`) the parameter that does their work, and how the calling tool searches literal text
 * (`literal`: `regex: false`, `mode "literal"`).
 *
 * @example
 * ```ts
 * invalidRegex("(?i)foo", new SyntaxError("Invalid regular expression: /(?i)foo/u: Invalid group"), 'mode "literal"');
 * // UserError: invalid regex "(?i)foo": Invalid group (JavaScript syntax, u flag); JavaScript has no inline flags like (?i): drop it and pass ignore_case: true; …
 * ```
 */
export function invalidRegex(pattern: string, e: unknown, literal: string, flags = "u"): UserError {
  const said = e instanceof Error ? e.message : String(e);
  const prefix = `Invalid regular expression: /${pattern}/${flags}: `;
  const why = said.startsWith(prefix) ? said.slice(prefix.length) : said;
  const inline = INLINE_FLAGS.exec(pattern)?.[0];
  const hint = !inline
    ? ""
    : `; JavaScript has no inline flags like ${inline}: drop it${
      inline.includes("i") ? " and pass ignore_case: true" : ""
    }`;
  return new UserError(
    `invalid regex ${JSON.stringify(pattern)}: ${why} (JavaScript syntax, u flag)${hint}; fix it or pass ${literal} ` +
      `for literal text`,
  );
}

/** Compiles a model's regex or explains why it is not one. */
export function compileRegex(pattern: string, ignoreCase: boolean, literalHint = "regex: false"): RegExp {
  const flags = ignoreCase ? "iu" : "u";
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    throw invalidRegex(pattern, e, literalHint, flags);
  }
}

/** For each group of lines, the lines matching `q` (in order); a regex runs in `regex` (the server's service). */
export async function searchLines(
  regex: RegexService,
  groups: readonly (readonly string[])[],
  q: LineQuery,
  opts: { signal?: AbortSignal } = {},
): Promise<LineHit[][]> {
  if (!q.regex) return groups.map((lines) => literalHits(lines, q.pattern, q.ignoreCase));
  const re = compileRegex(q.pattern, q.ignoreCase, q.literalHint);
  return (await regex.lines([re], groups, { ...opts, literalHint: q.literalHint }))[0];
}

/**
 * The lines of `lines` containing `pattern` (literally). Ignoring case is Unicode case folding, as a regex's `iu`
 * does (`ſ` is `s`); lower-casing would not be, and changes lengths (`İ`), so its index would not be the line's.
 */
export function literalHits(lines: readonly string[], pattern: string, ignoreCase: boolean): LineHit[] {
  const folded = ignoreCase ? new RegExp(RegExp.escape(pattern), "iu") : undefined;
  const hits: LineHit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const index = folded ? folded.exec(lines[i])?.index ?? -1 : lines[i].indexOf(pattern);
    if (index >= 0) hits.push({ line: i, index });
  }
  return hits;
}
