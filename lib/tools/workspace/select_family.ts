import { defineFamily } from "../family.ts";
import selectPane from "./select_pane.ts";
import selectWindow from "./select_window.ts";

/** select: one tool for select-pane and select-window (each still its own entry). */
export default defineFamily({
  name: "select",
  title: "Make a pane or window the active one",
  description: "Makes the target pane (or window) the active one: what an attached user sees, and what an " +
    "omitted target means later.",
  members: { pane: selectPane, window: selectWindow },
  describe: { target: "pane (%id or s:w.p) or window (@id or s:w)" },
});
