import { defineFamily } from "../family.ts";
import killPane from "./kill_pane.ts";
import killWindow from "./kill_window.ts";
import killSession from "./kill_session.ts";
import killServer from "./kill_server.ts";

/** kill: one tool for kill-pane, kill-window, kill-session and kill-server (each still its own entry). */
export default defineFamily({
  name: "kill",
  title: "Kill a tmux pane, window, session or the server",
  description: "Kills a pane, a window (all its panes), a session (all its windows) or the whole tmux server, " +
    "with the programs in them. target must be exact; refused for what tmux-mcp itself runs in.",
  members: { pane: killPane, window: killWindow, session: killSession, server: killServer },
  describe: { target: "what to kill: %pane, @window or $session id, or an exact name" },
});
