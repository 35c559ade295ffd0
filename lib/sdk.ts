/**
 * The MCP SDK (v2: `@modelcontextprotocol/server`), the one place the server
 * imports it from. v2 serves both protocol eras: the 2025 one (`initialize`,
 * 2025-06-18 and 2025-11-25) and the stateless 2026-07-28 one
 * (`server/discover`, a `_meta` envelope on every request), each stdio
 * connection locked to the era it opened with (`serveStdio`).
 *
 * @example
 * ```ts
 * import { McpServer, type CallToolResult } from "./sdk.ts";
 * ```
 */
export {
  type CacheHint,
  type CallToolRequest,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type GetPromptResult,
  inputRequired,
  type JSONRPCMessage,
  type jsonSchemaValidator as JsonSchemaValidatorProvider,
  McpServer,
  parseJSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceTemplate,
  type ServerContext,
  type ServerNotification,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/server";
export { serveStdio, type StdioServerHandle } from "@modelcontextprotocol/server/stdio";
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import type { ContentBlock } from "@modelcontextprotocol/server";

/** A tools/call result as our tools make it: content blocks, and an object as the structured content. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}
