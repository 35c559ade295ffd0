import { defineFamily } from "../family.ts";
import listSessions from "./list_sessions.ts";
import listWindows from "./list_windows.ts";
import listPanes from "./list_panes.ts";

/** list: one tool for list-sessions, list-windows and list-panes (each still its own entry). */
export default defineFamily({
  name: "list",
  title: "List tmux sessions, windows or panes",
  description: "Lists sessions, windows or panes with their ids and facts (panes: command, path, size, mode, " +
    "cursor). No target: all of them. Next: snapshot-pane or capture-pane {target: pane_id}.",
  members: { panes: listPanes, windows: listWindows, sessions: listSessions },
  describe: { target: "panes: a window or session; windows: a session" },
});
