/**
 * Sentences the server instructions say once for many tools (how targets
 * match, how the searches work), answered with `initialize`. Plain text in a
 * module of its own: the schemas and code they describe load with the tools,
 * after `initialize` is answered (lib/server/server.ts).
 *
 * @example
 * ```ts
 * const parts: string[] = []; // the server instructions
 * parts.push(SEARCH_DOC, PANE_SEARCH_DOC);
 * ```
 */
import { DEFAULT_DEADLINE } from "../search/worker_pool.ts";

/**
 * What an omitted target means, said once in the server instructions rather
 * than in every target parameter (an optional parameter can be left out; the
 * listing's `required` says which). A target whose omission means something
 * else says so itself (`omit` in `targetParam`, lib/tools/schemas.ts).
 */
export const OMITTED_TARGET =
  'An omitted target ("current") is the most recently used session\'s active window and pane.';

/**
 * How names in a target match, said once in the server instructions (tmux's
 * own rules: `cmd_find_get_session`/`cmd_find_get_window`; lib/tmux/target.ts).
 */
export const NAME_MATCHING = "Ids ($1, @2, %3) and =name match exactly; a plain name matches a session or window " +
  "of exactly that name, else tmux takes a unique name prefix or an fnmatch glob (kill and respawn tools refuse " +
  "prefixes and globs: they need an id or an exact name).";

/** How an exact target (kill and respawn tools) is written, said with {@linkcode NAME_MATCHING}. */
export const EXACT_MATCHING = "Only ids ($1, @2, %3), window/pane indexes and exact names (name or =name) are " +
  "accepted: a bare name is a session name, a window is session:window; prefixes and globs are refused.";

/**
 * How the searches work, said once in the server instructions instead of in
 * each tool's description: what every search shares (search-buffer,
 * subsearch-buffer and search-panes take the same query parameters with the
 * same defaults), then what only the buffer searches or only search-panes do,
 * each said when its toolset is served.
 */
export const SEARCH_DOC = "Searches share their parameters: query; mode literal (default) finds the exact text, " +
  "non-overlapping; mode regex takes a JavaScript (V8) regex source without slashes, always with the u flag (and i " +
  `with ignore_case), stopped after ${DEFAULT_DEADLINE.baseMs / 1000} s + ${DEFAULT_DEADLINE.perMiBMs / 1000} s per ` +
  "MiB searched; ^ and $ match the start and end of the text searched (a buffer, a window of one, a pane's line), " +
  "use (?m:^...) for line starts; ignore_case (default false); max_matches (default 50).";

/** What only the buffer searches do (paging, bounds), with {@linkcode SEARCH_DOC}. */
export const BUFFER_SEARCH_DOC = "Buffers must hold valid UTF-8. A buffer search scans at most max_scan_bytes and " +
  "returns at most max_matches (fewer with truncated_by_budget when they would not fit the response budget); while " +
  "truncated_buffers is not empty, call again with the same arguments plus resume_from_offset from the response: " +
  "you get exactly the remaining matches. A snippet shows at most 4096 bytes of a longer match. subsearch-buffer " +
  "searches its window as if it were the whole text; offsets stay absolute.";

/** What only search-panes does, with {@linkcode SEARCH_DOC}. */
export const PANE_SEARCH_DOC = "search-panes pages with offset = next_offset.";

/** How include_similarity scores, said once in the server instructions. */
export const SIMILARITY_DOC = "include_similarity scores each match in [0, 1]: similarity = (|m| / |w|) × (1 − d/2), " +
  "where m is the matched text, w is m widened to the whole word(s) it cuts into (letters, marks, digits, _; at " +
  "most 64 characters each side), lengths in characters, and d = 0 for an exact-case hit, for literal the fraction " +
  "of characters whose case differs from the query, for regex 1 when it matches only with ignore_case. So an exact " +
  "whole-word same-case hit scores 1.0, a hit inside a longer word or in another case less, an empty match 0. " +
  "Matches stay in buffer order.";
