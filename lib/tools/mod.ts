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
import ptyLaunch from "./pty/pty_launch.ts";
import ptySendKeys from "./pty/pty_send_keys.ts";
import ptyGetScreen from "./pty/pty_get_screen.ts";
import ptyListSessions from "./pty/pty_list_sessions.ts";
import ptyKillSession from "./pty/pty_kill_session.ts";
import ptyGetCursorPosition from "./pty/pty_get_cursor_position.ts";
import ptyResize from "./pty/pty_resize.ts";
import ptyGetScrollback from "./pty/pty_get_scrollback.ts";
import ptyCaptureStart from "./pty/pty_capture_start.ts";
import ptyCaptureStop from "./pty/pty_capture_stop.ts";
import ptyRequestInput from "./pty/pty_request_input.ts";

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
  // pty
  ptyLaunch,
  ptySendKeys,
  ptyGetScreen,
  ptyListSessions,
  ptyKillSession,
  ptyGetCursorPosition,
  ptyResize,
  ptyGetScrollback,
  ptyCaptureStart,
  ptyCaptureStop,
  ptyRequestInput,
];
