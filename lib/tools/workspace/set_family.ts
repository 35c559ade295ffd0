import { defineFamily } from "../family.ts";
import setOption from "./set_option.ts";
import setEnvironment from "./set_environment.ts";

/** set: one tool for set-option and set-environment (each still its own entry). */
export default defineFamily({
  name: "set",
  title: "Set a tmux option or environment variable",
  description: "Sets or unsets a tmux option (server/session/window/pane scope) or a session's environment " +
    "variable (for processes started later). Settings that run commands or code need --safety destructive.",
  members: { option: setOption, environment: setEnvironment },
  describe: { target: "option: pane; environment: session (omit: current)", global: "the global default/table" },
});
