import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../tool.ts";
import { renameObject, resolve, resolvedShape, sessionName } from "./common.ts";

export default defineTool({
  name: "rename-session",
  title: "Rename a tmux session",
  description: "Renames the target's session (default: the most recently used session). Ids do not change. " +
    "Returns the name tmux stored (it escapes characters it cannot show as-is).",
  toolset: "workspace",
  tier: "mutating",
  annotations: { idempotentHint: true },
  input: z.object({
    target: targetParam("session").optional(),
    name: sessionName,
  }),
  output: z.object({ ...resolvedShape, name: z.string().describe("the name as tmux stored it") }),
  secrets: [],
  async handler({ target, name }, ctx) {
    const t = await resolve(ctx, target);
    return { structured: { ...t, name: await renameObject(ctx, "session", t.session_id, name) } };
  },
});
