import { defineFamily } from "../family.ts";
import listSessions from "./list_sessions.ts";
import listWindows from "./list_windows.ts";
import listPanes from "./list_panes.ts";
import serverInfo from "./server_info.ts";
import listHosts from "./list_hosts.ts";

/** list: one tool for list-panes, list-windows, list-sessions and server-info (each still its own entry). */
export default defineFamily({
  name: "list",
  title: "List sessions, windows or panes",
  description: "Lists panes, windows or sessions (ids, facts), the tmux server or the hosts.",
  members: { panes: listPanes, windows: listWindows, sessions: listSessions, server: serverInfo, hosts: listHosts },
  describe: { target: "panes: a window or session; windows: a session (omit: all)" },
});
