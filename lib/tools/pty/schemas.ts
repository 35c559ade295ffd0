/**
 * Input pieces shared by the pty-* tools.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const input = z.object({ pty_id: ptyId, rows: rows.default(24), cols: cols.default(80) });
 * ```
 */
import { z } from "zod";
import { SESSION_ID_PATTERN } from "../../terminal/backend.ts";
import { HOST_NAME } from "../../tmux/hosts.ts";
import type { Services } from "../tool.ts";

/**
 * A pty session id, as returned by pty-launch: `ID`, or `HOST::ID` on a server with several hosts (`HOST::`
 * alone asks pty-launch for a new session on HOST). Checked in code, not as a schema pattern: the tool list
 * is every conversation's cost.
 */
export const ptyId = z.string()
  .refine(
    (s) => {
      const at = s.indexOf("::");
      if (at < 0) return SESSION_ID_PATTERN.test(s);
      const id = s.slice(at + 2);
      return HOST_NAME.test(s.slice(0, at)) && (id === "" || SESSION_ID_PATTERN.test(id));
    },
    "pty_id is 1-64 letters, digits, _ or -, starting with a letter or digit, after HOST:: on a server with " +
      "several hosts (as pty-launch returns it)",
  );

/** Terminal height in rows. */
export const rows = z.number().int().min(2).max(500);

/** Terminal width in columns. */
export const cols = z.number().int().min(10).max(1000);

/**
 * A pty tool's former snake_case name (`pty_launch` for `pty-launch`), for its `replaces`: a call to the
 * old name gets the new one in its error.
 */
export function formerName(name: string): Record<string, string> {
  return { [name.replaceAll("-", "_")]: name };
}

/** Where a server's pty sessions run and their files are: the tmux host for the tmux backend over ssh, else "local". */
export function runsOn(services: Pick<Services, "config" | "tmux">): string {
  return services.config.terminalBackend === "tmux" && services.tmux.remote !== undefined
    ? services.tmux.remote
    : "local";
}
