import { defineFamily } from "../family.ts";
import newSession from "./new_session.ts";
import newWindow from "./new_window.ts";
import splitWindow from "./split_window.ts";

/** new: one tool for new-session, new-window and split-window (each still its own entry). */
export default defineFamily({
  name: "new",
  title: "Create a session, window or pane",
  description:
    "Creates a detached session, a window in the target's session or a split of the target pane; returns the ids.",
  members: { session: newSession, window: newWindow, pane: splitWindow },
  describe: { target: "window: a session; pane: the pane to split" },
});
