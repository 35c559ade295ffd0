/**
 * The MCP SDK, typed. Under Deno the SDK's `*.js` subpaths resolve without
 * type declarations (its package.json maps `./*` types to `*.js.d.ts`, which
 * do not exist), so every value would silently be `any`. Types come from the
 * extension-less subpaths (type-only, erased at run time) and values from the
 * `.js` subpaths, joined here once.
 *
 * @example
 * ```ts
 * import { McpServer, type CallToolResult } from "./sdk.ts";
 * ```
 */
import {
  McpServer as McpServerJs,
  ResourceTemplate as ResourceTemplateJs,
} from "@modelcontextprotocol/sdk/server/mcp.js";
import type {
  McpServer as McpServerTyped,
  ResourceTemplate as ResourceTemplateTyped,
} from "@modelcontextprotocol/sdk/server/mcp";
import {
  CallToolRequestSchema as CallToolRequestSchemaJs,
  ErrorCode as ErrorCodeJs,
  JSONRPCMessageSchema as JSONRPCMessageSchemaJs,
  ListToolsRequestSchema as ListToolsRequestSchemaJs,
  McpError as McpErrorJs,
  ReadResourceRequestSchema as ReadResourceRequestSchemaJs,
} from "@modelcontextprotocol/sdk/types.js";
import type * as Types from "@modelcontextprotocol/sdk/types";
import { AjvJsonSchemaValidator as AjvJsonSchemaValidatorJs } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type { AjvJsonSchemaValidator as AjvJsonSchemaValidatorTyped } from "@modelcontextprotocol/sdk/validation/ajv-provider";

export type {
  CallToolRequest,
  CallToolResult,
  GetPromptResult,
  JSONRPCMessage,
  ReadResourceResult,
  Resource,
  ServerNotification,
  Tool,
} from "@modelcontextprotocol/sdk/types";
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
export type { jsonSchemaValidator as JsonSchemaValidatorProvider } from "@modelcontextprotocol/sdk/validation/types";

export const McpServer: typeof McpServerTyped = McpServerJs;
export type McpServer = McpServerTyped;
export const ResourceTemplate: typeof ResourceTemplateTyped = ResourceTemplateJs;
export type ResourceTemplate = ResourceTemplateTyped;
export const ReadResourceRequestSchema: typeof Types.ReadResourceRequestSchema = ReadResourceRequestSchemaJs;
export const CallToolRequestSchema: typeof Types.CallToolRequestSchema = CallToolRequestSchemaJs;
export const ListToolsRequestSchema: typeof Types.ListToolsRequestSchema = ListToolsRequestSchemaJs;
export const JSONRPCMessageSchema: typeof Types.JSONRPCMessageSchema = JSONRPCMessageSchemaJs;
export const McpError: typeof Types.McpError = McpErrorJs;
export type McpError = Types.McpError;
export const ErrorCode: typeof Types.ErrorCode = ErrorCodeJs;
export type ErrorCode = Types.ErrorCode;
export const AjvJsonSchemaValidator: typeof AjvJsonSchemaValidatorTyped = AjvJsonSchemaValidatorJs;
export type AjvJsonSchemaValidator = AjvJsonSchemaValidatorTyped;
