/**
 * Every tool the server knows, one entry per tool. Tools live in
 * `lib/tools/<toolset>/<tool_name>.ts`; to add one, write its file, import it
 * here by name and add that name to the table, then run `deno task listing`: it
 * writes lib/tools/listing.json and lib/tools/modules.ts (each module by its
 * tool's name, for a starting server that imports one tool; static imports here
 * load the whole table faster than one dynamic import per tool) from this file,
 * and tests/tool_listing_test.ts fails while they are stale. A family (`*_family.ts`, lib/tools/family.ts) serves several
 * entries as one tool with a `what` parameter.
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
import list from "./workspace/list_family.ts";
import capturePane from "./workspace/capture_pane.ts";
import snapshotPane from "./workspace/snapshot_pane.ts";
import searchPanes from "./workspace/search_panes.ts";
import show from "./workspace/show_family.ts";
import newFamily from "./workspace/new_family.ts";
import rename from "./workspace/rename_family.ts";
import select from "./workspace/select_family.ts";
import resizePane from "./workspace/resize_pane.ts";
import sendKeys from "./workspace/send_keys.ts";
import pasteText from "./workspace/paste_text.ts";
import pipePane from "./workspace/pipe_pane.ts";
import set from "./workspace/set_family.ts";
import clearHistory from "./workspace/clear_history.ts";
import respawnPane from "./workspace/respawn_pane.ts";
import kill from "./workspace/kill_family.ts";
import ptyLaunch from "./pty/pty_launch.ts";
import ptySendKeys from "./pty/pty_send_keys.ts";
import ptyGetScreen from "./pty/pty_get_screen.ts";
import ptyListSessions from "./pty/pty_list_sessions.ts";
import ptyKillSession from "./pty/pty_kill_session.ts";
import ptyResize from "./pty/pty_resize.ts";
import ptyGetScrollback from "./pty/pty_get_scrollback.ts";
import ptyCapture from "./pty/pty_capture.ts";
import searchBuffer from "./buffers/search_buffer.ts";
import runCommand from "./exec/run_command.ts";
import captureSince from "./exec/capture_since.ts";
import wait from "./exec/wait_family.ts";
import requestInput from "./exec/request_input.ts";
import batch from "./batch.ts";

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
  // workspace, readonly
  list,
  capturePane,
  snapshotPane,
  searchPanes,
  show,
  // workspace: mutating
  newFamily,
  rename,
  select,
  resizePane,
  sendKeys,
  pasteText,
  pipePane,
  set,
  clearHistory,
  respawnPane,
  // workspace: destructive
  kill,
  // pty
  ptyLaunch,
  ptySendKeys,
  ptyGetScreen,
  ptyListSessions,
  ptyKillSession,
  ptyResize,
  ptyGetScrollback,
  ptyCapture,
  // exec
  runCommand,
  captureSince,
  wait,
  requestInput,
  // any toolset
  batch,
];
