import { defineFamily } from "../family.ts";
import waitForText from "./wait_for_text.ts";
import waitForQuiet from "./wait_for_quiet.ts";

/** wait: one tool for wait-for-text and wait-for-quiet (each still its own entry). */
export default defineFamily({
  name: "wait",
  title: "Wait for text or quiet in a pane",
  description: "Waits until new output of a pane contains a pattern (what: text; stop texts end it first) or " +
    "until it prints nothing for quiet_ms (what: quiet), the timeout passes or the program exits. Returns the " +
    "screen's last lines.",
  members: { text: waitForText, quiet: waitForQuiet },
});
