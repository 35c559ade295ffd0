/**
 * Each tool's module by the tool's name, in the table's order (lib/tools/mod.ts): a starting server imports only
 * the module of the tool its first call names, before the whole table has loaded (most of the server's modules
 * are the tools'). Generated from the table by `deno task listing` (lib/server/write_listing.ts): do not edit;
 * tests/tool_listing_test.ts checks it is up to date.
 */
import type { AnyTool } from "./tool.ts";

/** Imports one tool's module; its default export is the tool. */
export type ToolModule = () => Promise<{ default: AnyTool }>;

/** Each tool's module by the tool's name. */
export const TOOL_MODULES: Readonly<Record<string, ToolModule>> = {
  // buffers
  "list-buffers": () => import("./buffers/list_buffers.ts"),
  "show-buffer": () => import("./buffers/show_buffer.ts"),
  "set-buffer": () => import("./buffers/set_buffer.ts"),
  "append-buffer": () => import("./buffers/append_buffer.ts"),
  "delete-buffer": () => import("./buffers/delete_buffer.ts"),
  "rename-buffer": () => import("./buffers/rename_buffer.ts"),
  "save-buffer": () => import("./buffers/save_buffer.ts"),
  "load-buffer": () => import("./buffers/load_buffer.ts"),
  "search-buffer": () => import("./buffers/search_buffer.ts"),
  // workspace, readonly
  "list": () => import("./workspace/list_family.ts"),
  "capture-pane": () => import("./workspace/capture_pane.ts"),
  "snapshot-pane": () => import("./workspace/snapshot_pane.ts"),
  "search-panes": () => import("./workspace/search_panes.ts"),
  "show": () => import("./workspace/show_family.ts"),
  // workspace: mutating
  "new": () => import("./workspace/new_family.ts"),
  "rename": () => import("./workspace/rename_family.ts"),
  "select": () => import("./workspace/select_family.ts"),
  "resize-pane": () => import("./workspace/resize_pane.ts"),
  "send-keys": () => import("./workspace/send_keys.ts"),
  "paste-text": () => import("./workspace/paste_text.ts"),
  "pipe-pane": () => import("./workspace/pipe_pane.ts"),
  "set": () => import("./workspace/set_family.ts"),
  "clear-history": () => import("./workspace/clear_history.ts"),
  "respawn-pane": () => import("./workspace/respawn_pane.ts"),
  // workspace: destructive
  "kill": () => import("./workspace/kill_family.ts"),
  // pty
  "pty-launch": () => import("./pty/pty_launch.ts"),
  "pty-send-keys": () => import("./pty/pty_send_keys.ts"),
  "pty-get-screen": () => import("./pty/pty_get_screen.ts"),
  "pty-list-sessions": () => import("./pty/pty_list_sessions.ts"),
  "pty-kill-session": () => import("./pty/pty_kill_session.ts"),
  "pty-resize": () => import("./pty/pty_resize.ts"),
  "pty-get-scrollback": () => import("./pty/pty_get_scrollback.ts"),
  "pty-capture": () => import("./pty/pty_capture.ts"),
  // exec
  "run-command": () => import("./exec/run_command.ts"),
  "capture-since": () => import("./exec/capture_since.ts"),
  "wait": () => import("./exec/wait_family.ts"),
  "request-input": () => import("./exec/request_input.ts"),
  // any toolset
  "batch": () => import("./batch.ts"),
};
