import { z } from "zod";
import { defineTool } from "../declared.ts";
import {
  changeAnswer,
  changedShape,
  noted,
  renameObject,
  resolvedShape,
  sessionName,
  storedNameNote,
} from "./common.ts";
import { resolvedTarget } from "../declared.ts";
import { refuseRenameOutOfView } from "../../tmux/scope.ts";

export default defineTool({
  name: "rename-session",
  title: "Rename a tmux session",
  description: "Renames the target's session (default: the most recently used session). Ids do not change. " +
    "Returns the name tmux stored (it escapes characters it cannot show as-is).",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "session",
  annotations: { idempotentHint: true },
  input: z.object({
    name: sessionName,
  }),
  output: z.object({ ...resolvedShape, name: z.string().describe("the name as tmux stored it"), ...changedShape }),
  secrets: [],
  async handler({ name }, ctx) {
    const t = resolvedTarget(ctx);
    await refuseRenameOutOfView(ctx.tmux, t.session_id, name, ctx.signal);
    const r = await renameObject(ctx, "session", t.session_id, name);
    const stored = storedNameNote(name, r.name);
    if (stored) return noted({ ...t, ...r }, stored);
    return changeAnswer({ ...t, ...r }, `named ${JSON.stringify(r.name)}`);
  },
});
