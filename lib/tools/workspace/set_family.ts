import { defineFamily } from "../family.ts";
import setOption from "./set_option.ts";
import setEnvironment from "./set_environment.ts";

/** set: one tool for set-option and set-environment (each still its own entry). */
export default defineFamily({
  name: "set",
  title: "Set a tmux option or variable",
  description: "Sets or unsets a tmux option or a session's environment variable.",
  members: { option: setOption, environment: setEnvironment },
  describe: {
    target: "option: pane; environment: session",
    global: "the global table",
    name: "option (e.g. mouse) or variable",
  },
});
