/**
 * What the exec code needs of a tool call: its cancellation and progress,
 * the tmux engine, the exec runtime and the `--ssh` setting. A tool's
 * context (`ToolContext`, lib/tools/tool.ts) is one, so exec tools hand
 * theirs over as it is; exec itself knows nothing of tools.
 *
 * @example
 * ```ts
 * declare const ctx: ExecContext; // a tool's context is one
 * ctx.signal.addEventListener("abort", () => console.log("the client cancelled"));
 * await ctx.progress(1, undefined, "still waiting for text in %3");
 * ```
 */
import type { Config } from "../config.ts";
import type { TmuxEngine } from "../tmux/engine.ts";
import type { ExecRuntime } from "./runtime.ts";

/** A call's cancellation and progress: what every wait needs. */
export interface CallControl {
  /** Fires when the client cancels the call. */
  signal: AbortSignal;
  /**
   * Sends an MCP progress notification when the client asked for progress
   * (sent a progressToken); a no-op otherwise.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

/** The long-lived services a pane run or wait uses. */
export interface ExecServices {
  /** Every connection to tmux (lib/tmux/engine.ts). */
  tmux: TmuxEngine;
  /** The exec tools' runs, pane locks and run scripts (lib/exec/runtime.ts). */
  exec: ExecRuntime;
  config: Pick<Config, "ssh">;
}

/** What a pane run or wait needs of a tool call. */
export interface ExecContext extends CallControl, ExecServices {}
