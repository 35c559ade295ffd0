import { defineFamily } from "../family.ts";
import showOptions from "./show_options.ts";
import showEnvironment from "./show_environment.ts";
import showHooks from "./show_hooks.ts";
import displayMessage from "./display_message.ts";

/** show: one tool for show-options, show-environment, show-hooks and display-message (each still its own entry). */
export default defineFamily({
  name: "show",
  title: "Show tmux settings or a format",
  description: "Shows tmux options, the environment (secrets withheld), hooks, or a format expanded for a pane.",
  members: { options: showOptions, environment: showEnvironment, hooks: showHooks, format: displayMessage },
  describe: { target: "options, format: a pane; environment, hooks: a session (omit: global)" },
});
