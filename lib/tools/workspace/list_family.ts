import { defineFamily } from "../family.ts";
import listSessions from "./list_sessions.ts";
import listWindows from "./list_windows.ts";
import listPanes from "./list_panes.ts";
import serverInfo from "./server_info.ts";

/** list: one tool for list-panes, list-windows, list-sessions and server-info (each still its own entry). */
export default defineFamily({
  name: "list",
  title: "List tmux sessions, windows or panes",
  description: "Lists panes, windows or sessions with ids and facts (panes: command, path, size, mode), or " +
    "the server's version and socket. Next: snapshot-pane {target: pane_id}.",
  members: { panes: listPanes, windows: listWindows, sessions: listSessions, server: serverInfo },
  describe: { target: "panes: a window or session; windows: a session" },
});
