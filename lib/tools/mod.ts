/**
 * Every tool the server knows, one entry per tool. Tools live in
 * `lib/tools/<toolset>/<tool_name>.ts`; to add one, write its file and add it
 * to this table.
 */
import type { AnyTool } from "./tool.ts";
import listBuffers from "./buffers/list_buffers.ts";
import showBuffer from "./buffers/show_buffer.ts";
import setBuffer from "./buffers/set_buffer.ts";
import appendBuffer from "./buffers/append_buffer.ts";
import deleteBuffer from "./buffers/delete_buffer.ts";
import renameBuffer from "./buffers/rename_buffer.ts";
import saveBuffer from "./buffers/save_buffer.ts";
import loadBuffer from "./buffers/load_buffer.ts";
import searchBuffer from "./buffers/search_buffer.ts";
import subsearchBuffer from "./buffers/subsearch_buffer.ts";

export const TOOLS: readonly AnyTool[] = [
  // buffers
  listBuffers,
  showBuffer,
  setBuffer,
  appendBuffer,
  deleteBuffer,
  renameBuffer,
  saveBuffer,
  loadBuffer,
  searchBuffer,
  subsearchBuffer,
];
