import { defineFamily } from "../family.ts";
import killPane from "./kill_pane.ts";
import killWindow from "./kill_window.ts";
import killSession from "./kill_session.ts";
import killServer from "./kill_server.ts";

/** kill: one tool for kill-pane, kill-window, kill-session and kill-server (each still its own entry). */
export default defineFamily({
  name: "kill",
  title: "Kill a pane, window, session or server",
  description: "Kills a pane, window, session or the tmux server with their programs; refused for tmux-mcp's own.",
  members: { pane: killPane, window: killWindow, session: killSession, server: killServer },
  describe: { target: "exact pane, window or session" },
});
