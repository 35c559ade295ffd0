import { defineKillTool } from "./kill.ts";

export default defineKillTool(
  "window",
  "Kills a window with all its panes and programs, in every session it is linked into.",
);
