import { z } from "zod";
import { defineTool } from "../declared.ts";
import { TmuxError } from "../../tmux/executor.ts";
import { refuseSelfKill } from "../../tmux/self.ts";
import { UserError } from "../../errors.ts";
import { paneSpawnArgs, shellCommand, startDir, targetIds } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

export default defineTool({
  name: "respawn-pane",
  title: "Restart a pane's program",
  description: "Restarts a pane's program (or command), keeping the pane.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "pane",
  exactTarget: true,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: z.object({
    kill: z.boolean().default(false).describe("end a live program first"),
    command: shellCommand.optional().describe("instead of the original"),
    cwd: startDir.optional(),
  }),
  output: z.object(targetIds),
  secrets: ["command"],
  async handler({ kill, command, cwd }, ctx) {
    const { defaulted: _given, ...t } = resolvedTarget(ctx);
    if (kill) await refuseSelfKill(ctx.tmux, "pane", t, { action: "respawn (kill: true)", signal: ctx.signal });
    const args = [
      "respawn-pane",
      ...(kill ? ["-k"] : []),
      "-t",
      t.pane_id,
      ...await paneSpawnArgs(cwd, command, ctx.tmux.remote),
    ];
    try {
      await ctx.tmux.run(args, { signal: ctx.signal });
    } catch (e) {
      if (e instanceof TmuxError && /still active/.test(e.message)) {
        throw new UserError(`pane ${t.pane_id} is still running its program: pass kill: true to kill it and respawn`);
      }
      throw e;
    }
    return { structured: t };
  },
});
