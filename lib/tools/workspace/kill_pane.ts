import { defineKillTool } from "./kill.ts";

export default defineKillTool(
  "pane",
  "Kills one pane and the program in it; its window closes with its last pane.",
);
