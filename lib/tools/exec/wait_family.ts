import { defineFamily } from "../family.ts";
import waitForText from "./wait_for_text.ts";
import waitForQuiet from "./wait_for_quiet.ts";

/** wait: one tool for wait-for-text and wait-for-quiet (each still its own entry). */
export default defineFamily({
  name: "wait",
  title: "Wait for a pane",
  description: "Waits until a pane's or pty's screen shows a pattern (what: text) or is quiet (what: quiet).",
  members: { text: waitForText, quiet: waitForQuiet },
});
