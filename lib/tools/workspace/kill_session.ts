import { defineKillTool } from "./kill.ts";

export default defineKillTool(
  "session",
  "Kills a session with all its windows, panes and programs (windows also linked into other sessions survive there).",
);
