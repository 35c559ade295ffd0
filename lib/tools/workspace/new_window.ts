import { z } from "zod";
import { defineTool } from "../declared.ts";
import { formatLiteral } from "../../tmux/quote.ts";
import { createdShape, noted, shellCommand, spawnPane, startDir, windowName } from "./common.ts";
import { resolvedTarget } from "../declared.ts";
import { refuseGroupedOutOfView } from "../../tmux/scope.ts";

export default defineTool({
  name: "new-window",
  title: "Create a tmux window",
  description: "Adds a background window to the target's session and returns its window and pane ids.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "session",
  annotations: { openWorldHint: true },
  input: z.object({
    name: windowName.optional(),
    cwd: startDir.optional(),
    command: shellCommand.optional(),
  }),
  output: z.object(createdShape),
  secrets: ["command"],
  async handler({ name, cwd, command }, ctx) {
    const t = resolvedTarget(ctx);
    await refuseGroupedOutOfView(ctx.tmux, t.session_id, ctx.signal);
    const args = ["new-window", "-d", "-t", `${t.session_id}:`];
    if (name !== undefined) args.push("-n", formatLiteral(name));
    const { created, note } = await spawnPane(ctx, args, cwd, command);
    return noted(created, note);
  },
});
