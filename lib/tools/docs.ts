/**
 * Sentences the server instructions say once for many tools (how targets
 * match, how the searches work), answered with `initialize`. Plain text in a
 * module of its own: the schemas and code they describe load with the tools,
 * after `initialize` is answered (lib/server/server.ts).
 *
 * @example
 * ```ts
 * const parts: string[] = []; // the server instructions
 * parts.push(SEARCH_DOC, BUFFER_SEARCH_DOC);
 * ```
 */
import { DEFAULT_DEADLINE } from "../search/worker_pool.ts";

/**
 * What an omitted target means, said once in the server instructions rather
 * than in every target parameter (an optional parameter can be left out; the
 * listing's `required` says which). A target whose omission means something
 * else says so itself (`omit` in `targetParam`, lib/tools/schemas.ts).
 */
export const OMITTED_TARGET = "Omitted: the last used session's active pane.";

/**
 * How names in a target match, said once in the server instructions (tmux's
 * own rules: `cmd_find_get_session`/`cmd_find_get_window`; lib/tmux/target.ts).
 */
export const NAME_MATCHING = "Ids and =name match exactly; other names exactly, else as a unique prefix or an " +
  "fnmatch glob; a plain name is a session.";

/**
 * How an exact target (kill and respawn tools) is written, said with {@linkcode NAME_MATCHING}; `kill` is named only
 * where it is served (destructive).
 */
export function exactMatching(kill: boolean): string {
  return `${kill ? "kill and respawn-pane take" : "respawn-pane takes"} only ids, indexes and exact names.`;
}

/**
 * How the searches work, said once in the server instructions instead of in
 * each tool's description: what every search shares (search-buffer, with
 * or without near, and search-panes take the same query parameters with the
 * same defaults), then what only the buffer searches or only search-panes do,
 * each said when its toolset is served.
 */
export const SEARCH_DOC = "Searches: mode literal (default) or regex (JavaScript, u flag, stopped after " +
  `${DEFAULT_DEADLINE.baseMs / 1000} s + ${DEFAULT_DEADLINE.perMiBMs / 1000} s/MiB; ^ and $ match the ends of ` +
  "the text searched: use (?m:^…) for lines).";

/** What only the buffer searches do (paging, bounds), with {@linkcode SEARCH_DOC}. */
export const BUFFER_SEARCH_DOC = "search-buffer continues with its answer's resume_from_offset while " +
  "truncated_buffers is not empty.";
