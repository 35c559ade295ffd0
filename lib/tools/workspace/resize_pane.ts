import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { COMMAND_SEPARATOR, type TmuxArg } from "../../tmux/executor.ts";
import { UserError } from "../../errors.ts";
import { parseRow, rowFormat, type RowSpec } from "../../tmux/rows.ts";
import { resolvedShape } from "./common.ts";
import { resolve } from "../declared.ts";

const SIZE = {
  width: ["pane_width", "int"],
  height: ["pane_height", "int"],
  zoomed: ["window_zoomed_flag", "bool"],
} as const satisfies RowSpec;

export default defineTool({
  name: "resize-pane",
  title: "Resize or zoom a pane",
  description: "Sets a pane's width or height, or zooms it.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  annotations: { idempotentHint: true },
  input: z.object({
    target: targetParam("pane").optional(),
    width: z.number().int().min(1).max(10_000).optional(),
    height: z.number().int().min(1).max(10_000).optional(),
    zoom: z.boolean().optional().describe("false: unzoom"),
  }),
  output: z.object({ ...resolvedShape, width: z.number().int(), height: z.number().int(), zoomed: z.boolean() }),
  secrets: [],
  async handler({ target, width, height, zoom }, ctx) {
    if (width === undefined && height === undefined && zoom === undefined) {
      throw new UserError("nothing to do: give width, height or zoom");
    }
    const t = await resolve(ctx, target);
    const read: TmuxArg[] = ["display-message", "-p", "-t", t.pane_id, rowFormat(SIZE)];
    const run = async (first: TmuxArg[]) => {
      return parseRow(SIZE, await ctx.tmux.run([...first, ...read], { signal: ctx.signal }));
    };
    // Resizing unzooms the window in tmux, so resize first, then zoom if asked.
    const resize: TmuxArg[] = ["resize-pane", "-t", t.pane_id];
    if (width !== undefined) resize.push("-x", String(width));
    if (height !== undefined) resize.push("-y", String(height));
    let size = await run(resize.length > 3 ? [...resize, COMMAND_SEPARATOR] : []);
    if (zoom !== undefined && zoom !== size.zoomed) {
      size = await run(["resize-pane", "-Z", "-t", t.pane_id, COMMAND_SEPARATOR]);
    }
    return { structured: { ...t, ...size } };
  },
});
