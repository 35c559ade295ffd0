/**
 * What a tool is: one small declarative entry. The pipeline
 * (`lib/server/pipeline.ts`) applies tiers, validation, audit and response
 * budgets to every entry, so a tool only says what it is and does its work.
 *
 * @example
 * ```ts
 * export default defineTool({
 *   name: "delete-buffer",
 *   title: "Delete a tmux buffer",
 *   description: "Deletes one paste buffer. Next: list-buffers.",
 *   toolset: "buffers",
 *   tier: "mutating",
 *   annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
 *   input: z.object({ name: bufferName }),
 *   output: z.object({ deleted: z.string() }),
 *   async handler({ name }, ctx) {
 *     await ctx.buffers.delete(name);
 *     return { structured: { deleted: name } };
 *   },
 * });
 * ```
 */
import type { z } from "zod";
import type { CallToolResult } from "../sdk.ts";
import type { Config, Tier, Toolset } from "../config.ts";
import type { TmuxEngine } from "../tmux/engine.ts";
import type { BufferStore } from "../buffers/store.ts";
import type { TerminalBackend } from "../terminal/backend.ts";

export type { Tier, Toolset };

/** Long-lived services shared by all tools; built once per server. */
export interface Services {
  config: Config;
  /** Every connection to tmux (lib/tmux/engine.ts); tools call it as a TmuxExecutor. */
  tmux: TmuxEngine;
  buffers: BufferStore;
  /** The backend of the pty_* tools (internal PTY or tmux, per --terminal-backend). */
  terminal: TerminalBackend;
  /**
   * Registers cleanup to run when the server exits normally (kill sessions
   * it created, delete result buffers). Hooks run in reverse order.
   */
  atExit(fn: () => Promise<void>): void;
}

/** Per-call context handed to a tool's handler. */
export interface ToolContext extends Services {
  /** Fires when the client cancels the call. */
  signal: AbortSignal;
  /**
   * Sends an MCP progress notification when the client asked for progress
   * (sent a progressToken); a no-op otherwise.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Records the tmux objects this call resolved its target to, for the audit
   * line — also when the call then fails or is refused. Ids in the result
   * (session_id, window_id, pane_id) are recorded without this.
   */
  noteTarget(ids: Readonly<Record<string, string>>): void;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export type ContentBlock = CallToolResult["content"][number];

/** What a handler returns; the pipeline turns it into a CallToolResult. */
export interface ToolOutput<O> {
  /** The structured result; must satisfy the tool's output schema. */
  structured: O;
  /**
   * Content blocks for the model. Default: the structured result as JSON.
   * Tools returning a large text (a buffer slice, a screen) put it first here.
   */
  content?: ContentBlock[];
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** kebab-case, after tmux's own command names (pty tools keep their snake_case names). */
  name: string;
  title: string;
  /** Written for a model: what it is for, its limits, what to call next. */
  description: string;
  toolset: Toolset;
  tier: Tier;
  annotations: ToolAnnotations;
  input: I;
  output: O;
  /**
   * For response budgets: the field of the structured result that holds
   * terminal text, whose END is kept in previews (where errors and prompts are).
   */
  textField?: string;
  /**
   * For response budgets: tool-specific next calls suggested when a result
   * is over budget, e.g. `"pass max_lines: 100"`. Declarative text only; the
   * budget stage adds the paging and search calls for the result buffer.
   */
  refinements?: readonly string[];
  handler(args: z.infer<I>, ctx: ToolContext): Promise<ToolOutput<z.infer<O>>>;
}

/** A tool with its types erased, as the registry holds it. */
export type AnyTool = ToolDef<z.ZodObject, z.ZodObject>;

/** Identity with type inference, so an entry reads as a declaration. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): AnyTool {
  return def as unknown as AnyTool;
}

/** Annotation presets: most tools are one of these. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
