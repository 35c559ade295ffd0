import { z } from "zod";
import { defineTool } from "../declared.ts";
import { sessionOrGlobal } from "./shapes.ts";
import { showFor } from "./scoped.ts";

export default defineTool({
  name: "show-hooks",
  title: "Show tmux hooks",
  description: "Hooks that are set (commands tmux runs on events such as after-new-window or pane-exited): " +
    "the global hooks, or with a target the session's own hooks. Hooks without a command are not listed.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({ target: sessionOrGlobal }),
  output: z.object({
    session_id: z.string().nullable().describe("null for the global hooks"),
    hooks: z.array(z.object({ name: z.string(), command: z.string() })),
  }),
  secrets: [],
  async handler({ target }, ctx) {
    const r = await showFor(ctx, target, (t) => ["show-hooks", "-t", t], ["show-hooks", "-g"]);
    const hooks = [];
    for (const line of r.lines) {
      const space = line.indexOf(" ");
      if (space > 0) hooks.push({ name: line.slice(0, space), command: line.slice(space + 1) });
    }
    return { structured: { session_id: r.session_id, hooks } };
  },
});
