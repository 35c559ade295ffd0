import { z } from "zod";
import { defineTool } from "../declared.ts";
import { COMMAND_SEPARATOR } from "../../tmux/executor.ts";
import { noted, resolvedShape } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

export default defineTool({
  name: "clear-history",
  title: "Clear a pane's scrollback",
  description: "Deletes a pane's scrollback; the screen stays.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "pane",
  annotations: { destructiveHint: true, idempotentHint: true },
  input: z.object({}),
  output: z.object({ ...resolvedShape, lines_cleared: z.number().int() }),
  secrets: [],
  async handler(_args, ctx) {
    const t = resolvedTarget(ctx);
    const out = await ctx.tmux.text([
      "display-message",
      "-p",
      "-t",
      t.pane_id,
      "#{history_size} #{pane_mode}",
      COMMAND_SEPARATOR,
      "clear-history",
      "-t",
      t.pane_id,
    ], { signal: ctx.signal });
    const [lines, mode] = out.trim().split(" ");
    // tmux 3.3a leaves every mode of the pane to clear its history (a copy mode shows that history).
    return noted(
      { ...t, lines_cleared: Number(lines) || 0 },
      mode ? `pane ${t.pane_id} was in ${mode}: tmux left it to clear the history` : undefined,
    );
  },
});
