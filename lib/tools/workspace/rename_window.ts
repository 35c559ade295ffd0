import { z } from "zod";
import { defineTool } from "../declared.ts";
import { changeAnswer, changedShape, renameObject, resolvedShape, windowName } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

export default defineTool({
  name: "rename-window",
  title: "Rename a tmux window",
  description: "Renames the target's window (default: the active window of the latest session) and stops " +
    "tmux from renaming it automatically after the running command. Ids do not change. Returns the name " +
    "tmux stored (it escapes characters it cannot show as-is).",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "window",
  annotations: { idempotentHint: true },
  input: z.object({
    name: windowName,
  }),
  output: z.object({ ...resolvedShape, name: z.string().describe("the name as tmux stored it"), ...changedShape }),
  secrets: [],
  async handler({ name }, ctx) {
    const t = resolvedTarget(ctx);
    const r = await renameObject(ctx, "window", t.window_id, name);
    return changeAnswer({ ...t, ...r }, `named ${JSON.stringify(r.name)}`);
  },
});
