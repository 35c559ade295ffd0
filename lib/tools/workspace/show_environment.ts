import { z } from "zod";
import { defineTool } from "../declared.ts";
import { sessionOrGlobal } from "./shapes.ts";
import { showFor } from "./scoped.ts";

// Values of variables with these words in their name never reach the model.
const SECRET = /SECRET|TOKEN|PASSW|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE|CREDENTIAL|AUTH|COOKIE|SESSION_?KEY/i;
const NAME = /^-?[A-Za-z_][A-Za-z0-9_]*(=|$)/;

export default defineTool({
  name: "show-environment",
  title: "Show tmux environment",
  description: "Environment tmux gives new panes: the global environment, or with a target the session's own " +
    "(which overrides the global one). removed: true means the variable is removed from new panes. Values of " +
    "variables whose names look secret (TOKEN, SECRET, PASSWORD, API_KEY, …) are withheld: value null, " +
    "redacted: true.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({ target: sessionOrGlobal }),
  output: z.object({
    session_id: z.string().nullable().describe("null for the global environment"),
    variables: z.array(z.object({
      name: z.string(),
      value: z.string().nullable(),
      removed: z.boolean(),
      redacted: z.boolean(),
    })),
  }),
  secrets: [],
  async handler({ target }, ctx) {
    const r = await showFor(ctx, target, (t) => ["show-environment", "-t", t], ["show-environment", "-g"]);
    const variables: { name: string; value: string | null; removed: boolean; redacted: boolean }[] = [];
    for (const line of r.lines) {
      const last = variables.at(-1);
      // tmux prints values raw: a line that does not start a variable continues a multi-line value.
      if (!NAME.test(line) && last && !last.removed) {
        if (!last.redacted) last.value += "\n" + line;
        continue;
      }
      if (line.startsWith("-")) {
        variables.push({ name: line.slice(1), value: null, removed: true, redacted: false });
        continue;
      }
      const eq = line.indexOf("=");
      const name = eq < 0 ? line : line.slice(0, eq);
      const redacted = SECRET.test(name);
      variables.push({ name, value: redacted ? null : line.slice(eq + 1), removed: false, redacted });
    }
    return { structured: { session_id: r.session_id, variables } };
  },
});
