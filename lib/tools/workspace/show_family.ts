import { defineFamily } from "../family.ts";
import showOptions from "./show_options.ts";
import showEnvironment from "./show_environment.ts";
import showHooks from "./show_hooks.ts";

/** show: one tool for show-options, show-environment and show-hooks (each still its own entry). */
export default defineFamily({
  name: "show",
  title: "Show tmux options, environment or hooks",
  description: "Shows tmux options (of a scope), the environment new panes get, or the hooks set. Secret-looking " +
    "variables are withheld (redacted: true). inherited: true marks an option set in a parent table.",
  members: { options: showOptions, environment: showEnvironment, hooks: showHooks },
  describe: { target: "options: pane (omit: the latest session's active pane); else a session (omit: global)" },
});
