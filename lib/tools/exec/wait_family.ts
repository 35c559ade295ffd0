import { defineFamily } from "../family.ts";
import waitForText from "./wait_for_text.ts";
import waitForQuiet from "./wait_for_quiet.ts";

/** wait: one tool for wait-for-text and wait-for-quiet (each still its own entry). */
export default defineFamily({
  name: "wait",
  title: "Wait for a pane",
  description:
    "Waits for a pattern in a pane's new output (what: text) or for quiet_ms of silence (what: quiet); returns the last screen lines.",
  members: { text: waitForText, quiet: waitForQuiet },
});
