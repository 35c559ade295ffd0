/**
 * Which file system a buffer file tool acts on. With a local tmux there is one; with a tmux on an ssh host the
 * path is on that host (tmux reads or writes it there, checked against --files-root by name), and a file moves
 * between the machines only when the call says `local_file: true`.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const input = z.object({ local_file: localFile });
 * ```
 */
import { z } from "zod";
import type { ToolContext } from "../tool.ts";
import { formatLiteral } from "../../tmux/quote.ts";
import { filePolicy, remotePath } from "../../policy/files.ts";

/**
 * The parameter that moves a file between this machine and an ssh host's tmux: true, the path is on the MCP
 * server's machine. Undescribed: its name says it, and the tool list is every conversation's cost.
 */
export const localFile = z.boolean().default(false);

/** Where a call's file is: "local" (the MCP server's machine), else the ssh destination of the tmux host. */
export function fileHost(ctx: ToolContext, local: boolean): string {
  return local || ctx.tmux.remote === undefined ? "local" : ctx.tmux.remote;
}

/** `path` on the tmux host as tmux's load-buffer/save-buffer take it: checked by name, `#` kept literal. */
export function tmuxHostPath(ctx: ToolContext, path: string): string {
  return formatLiteral(remotePath(path, filePolicy(ctx.config)));
}
