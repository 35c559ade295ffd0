import { defineFamily } from "../family.ts";
import selectPane from "./select_pane.ts";
import selectWindow from "./select_window.ts";
import selectLayout from "./select_layout.ts";

/** select: one tool for select-pane, select-window and select-layout (each still its own entry). */
export default defineFamily({
  name: "select",
  title: "Make a pane or window the active one",
  description: "Makes a pane or window the active one (what an omitted target means later), or arranges a " +
    "window's panes with a layout.",
  members: { pane: selectPane, window: selectWindow, layout: selectLayout },
  describe: { target: "pane or window (layout: omit: current)" },
});
