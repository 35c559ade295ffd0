import { defineFamily } from "../family.ts";
import selectPane from "./select_pane.ts";
import selectWindow from "./select_window.ts";
import selectLayout from "./select_layout.ts";

/** select: one tool for select-pane, select-window and select-layout (each still its own entry). */
export default defineFamily({
  name: "select",
  title: "Select a pane, window or layout",
  description: "Makes a pane or window the active one (the default target), or sets a window's layout.",
  members: { pane: selectPane, window: selectWindow, layout: selectLayout },
  describe: {
    target: "pane or window",
    layout: "even-horizontal, even-vertical, main-horizontal, main-vertical, tiled or a window_layout",
  },
});
