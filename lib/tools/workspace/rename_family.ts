import { defineFamily } from "../family.ts";
import renameSession from "./rename_session.ts";
import renameWindow from "./rename_window.ts";

/** rename: one tool for rename-session and rename-window (each still its own entry). */
export default defineFamily({
  name: "rename",
  title: "Rename a session or window",
  description: "Renames a session or window; ids stay.",
  members: { session: renameSession, window: renameWindow },
  describe: { target: "session or window" },
});
