/**
 * A page of search results cut to fit: what the buffer search tools and the merge of several hosts' searches
 * (lib/server/host_routing.ts) share, without zod or the search code, which a call to another tool does not
 * load.
 *
 * @example
 * ```ts
 * declare const out: import("./search_schemas.ts").SearchOutput; // a search's response
 * const page = firstMatches(out, 10); // its first 10 matches, resuming after them
 * ```
 */
import type { SearchOutput } from "./search_schemas.ts";
import { round4 } from "../search/round.ts";

/** Most buffers one call names (in `buffers`, `resume_from_offset`, or by omission). */
export const MAX_BUFFERS = 1024;

/** `max_similarity` and `avg_similarity` of a page's matches (null when there are none). */
export function similarityStats(matches: readonly { similarity?: number }[]) {
  const scores = matches.map((m) => m.similarity ?? 0);
  return {
    max_similarity: scores.length ? Math.max(...scores) : null,
    avg_similarity: scores.length ? round4(scores.reduce((a, b) => a + b, 0) / scores.length) : null,
  };
}

/**
 * A response cut to its first `k` matches. The search resumes at a match
 * start (as when max_matches is reached), so each buffer with left-out
 * matches resumes at its first left-out match: between where it was
 * scanned from and that match there is none. Buffers before those keep
 * their state; truncated_buffers stays in scan order.
 */
export function firstMatches(out: SearchOutput, k: number): SearchOutput {
  return k >= out.matches.length ? out : { ...keepMatches(out, k), truncated_by_budget: true };
}

/**
 * A response cut to its first `k` matches as {@linkcode firstMatches} cuts it, without saying that a budget
 * cut it: the page of several searches' matches together (one per host) is cut to `max_matches` so.
 */
export function keepMatches(out: SearchOutput, k: number): SearchOutput {
  if (k >= out.matches.length) return out;
  const resume = new Map(Object.entries(out.resume_from_offset));
  const cutAt = new Map<string, number>();
  for (const m of out.matches.slice(k)) if (!cutAt.has(m.buffer)) cutAt.set(m.buffer, m.offset_bytes);
  for (const [name, offset] of cutAt) resume.set(name, offset);
  const truncated = out.buffers.filter((b) => resume.has(b));
  const matches = out.matches.slice(0, k);
  return {
    ...out,
    matches,
    truncated_buffers: truncated,
    resume_from_offset: Object.fromEntries(truncated.map((b) => [b, resume.get(b)!])),
    ...(out.include_similarity ? similarityStats(matches) : {}),
  };
}
