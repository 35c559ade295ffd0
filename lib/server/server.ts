/**
 * Builds the MCP server: services from the configuration, every served tool
 * registered with the SDK's `registerTool` (so `tools/list` carries its
 * schemas and annotations), and `tools/call` routed through the one
 * pipeline, which also answers calls to tools that are not served with a
 * clear refusal instead of a bare "not found".
 *
 * @example
 * ```ts
 * const app = createApp(config);
 * await app.mcp.connect(transport);
 * // ... on exit:
 * await app.close();
 * ```
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type CallToolRequest, CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Config } from "../config.ts";
import { createSpawnExecutor } from "../tmux/executor.ts";
import { createBufferStore } from "../buffers/store.ts";
import { createTerminalBackend } from "../terminal/mod.ts";
import { TOOLS } from "../tools/mod.ts";
import type { AnyTool, Services } from "../tools/tool.ts";
import { VERSION } from "../version.ts";
import { log } from "../log.ts";
import { createAuditSink } from "./audit.ts";
import { type CallExtra, createPipeline, type Pipeline } from "./pipeline.ts";

export interface App {
  mcp: McpServer;
  services: Services;
  pipeline: Pipeline;
  /** Releases what the server holds (run on normal exit). */
  close(): Promise<void>;
}

const INSTRUCTIONS = "tmux-mcp drives tmux. Paste buffers are a scratch space: set-buffer/append-buffer to " +
  "store text, show-buffer to page through it, list-buffers to see what exists. Every tool result is bounded; " +
  "errors say what to do next.";

/** Long-lived services for a configuration, plus the exit hooks they registered. */
export function createServices(config: Config): { services: Services; runExitHooks(): Promise<void> } {
  const tmux = createSpawnExecutor({
    bin: config.tmuxBin,
    socketName: config.socketName,
    socketPath: config.socketPath,
    maxConcurrency: config.maxConcurrency,
  });
  const hooks: Array<() => Promise<void>> = [];
  const terminal = createTerminalBackend(config, tmux);
  const services: Services = {
    config,
    tmux,
    buffers: createBufferStore(tmux),
    terminal,
    atExit: (fn) => void hooks.push(fn),
  };
  // Kills the pty_* sessions this server created (the tmux backend keeps them with --keep-sessions).
  services.atExit(() => terminal.close());
  return {
    services,
    async runExitHooks() {
      for (const fn of hooks.reverse()) {
        await fn().catch((e) => log("warn", `cleanup failed: ${e instanceof Error ? e.message : String(e)}`));
      }
    },
  };
}

/** Builds the server for a configuration; `tools` defaults to every tool. */
export function createApp(config: Config, tools: readonly AnyTool[] = TOOLS): App {
  const { services, runExitHooks } = createServices(config);
  const pipeline = createPipeline({ tools, services, audit: createAuditSink(config.auditLog) });
  const mcp = new McpServer(
    { name: "tmux-mcp", title: "tmux MCP server", version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  for (const tool of pipeline.served) {
    mcp.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations },
      },
      (args: unknown, extra: CallExtra) => pipeline.call(tool.name, args, extra),
    );
  }
  // Replace the SDK's tools/call with the pipeline: it gates, validates and
  // audits every call, including calls to tools that are not listed.
  mcp.server.setRequestHandler(
    CallToolRequestSchema,
    (request: CallToolRequest, extra: CallExtra) => pipeline.call(request.params.name, request.params.arguments, extra),
  );
  return {
    mcp,
    services,
    pipeline,
    async close() {
      await runExitHooks();
      await mcp.close().catch(() => {});
    },
  };
}
