import { z } from "zod";
import { defineTool } from "../declared.ts";
import { createdShape, noted, shellCommand, spawnPane, startDir } from "./common.ts";
import { resolvedTarget } from "../declared.ts";
import { TmuxError } from "../../tmux/executor.ts";
import { UserError } from "../../errors.ts";

const DIRECTION_FLAGS = {
  right: ["-h"],
  left: ["-h", "-b"],
  down: ["-v"],
  up: ["-v", "-b"],
} as const;

export default defineTool({
  name: "split-window",
  title: "Split a pane",
  description: "Splits the target pane, putting a new (inactive) pane on the given side; returns its ids.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "pane",
  // Whether the window is zoomed, read with the target: tmux unzooms it to split, and says nothing.
  targetRead: (t) => ["display-message", "-p", "-t", t, "#{window_zoomed_flag}"],
  annotations: { openWorldHint: true },
  input: z.object({
    direction: z.enum(["left", "right", "up", "down"]).describe("side of the new pane"),
    size_percent: z.number().int().min(1).max(99).optional().describe("default 50"),
    cwd: startDir.optional(),
    command: shellCommand.optional(),
  }),
  output: z.object(createdShape),
  secrets: ["command"],
  async handler({ direction, size_percent, cwd, command }, ctx) {
    const t = resolvedTarget(ctx);
    const args = ["split-window", "-d", ...DIRECTION_FLAGS[direction], "-t", t.pane_id];
    if (size_percent !== undefined) args.push("-l", `${size_percent}%`);
    try {
      const { created, note } = await spawnPane(ctx, args, cwd, command);
      const zoomed = new TextDecoder().decode(t.read?.output).trim() === "1"
        ? `window ${t.window_id} was zoomed: tmux unzoomed it to split pane ${t.pane_id}`
        : undefined;
      return noted(created, [zoomed, note].filter(Boolean).join("; ") || undefined);
    } catch (e) {
      // tmux's bare line: the pane is at its minimum size that way (or the share asked for leaves it no room).
      if (!(e instanceof TmuxError) || !/no space for new pane/.test(e.message)) throw e;
      throw new UserError(
        `pane ${t.pane_id} has no room to split ${direction} (tmux: no space for new pane): split a larger pane, ` +
          `give this one room (resize-pane, or a layout with select (what: "layout")), or split the other way`,
      );
    }
  },
});
