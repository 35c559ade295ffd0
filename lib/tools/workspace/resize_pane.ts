import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { COMMAND_SEPARATOR, type TmuxArg } from "../../tmux/executor.ts";
import { UserError } from "../../errors.ts";
import { parseRow, rowFormat, type RowSpec } from "../../tmux/rows.ts";
import { changeAnswer, changedShape, resolvedShape } from "./common.ts";
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
  output: z.object({
    ...resolvedShape,
    width: z.number().int(),
    height: z.number().int(),
    zoomed: z.boolean(),
    ...changedShape,
    note: z.string().optional().describe("present when a size or zoom was not reached"),
  }),
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
    const before = await run([]);
    let size = resize.length > 3 ? await run([...resize, COMMAND_SEPARATOR]) : before;
    if (zoom !== undefined && zoom !== size.zoomed) {
      size = await run(["resize-pane", "-Z", "-t", t.pane_id, COMMAND_SEPARATOR]);
    }
    const changed = size.width !== before.width || size.height !== before.height || size.zoomed !== before.zoomed;
    // tmux accepts a size it cannot give (a window's only pane fills the window) and says nothing.
    const missed = (width !== undefined && size.width !== width) || (height !== undefined && size.height !== height);
    // tmux does not zoom a window's only pane either, and says nothing.
    const unzoomable = zoom === true && !size.zoomed;
    const note = missed
      ? `${changed ? "" : "nothing changed: "}pane ${t.pane_id} is ${size.width}x${size.height}; a pane cannot ` +
        "outgrow its window or shrink its neighbours below their minimum (a window's only pane fills it)"
      : unzoomable
      ? `${changed ? "" : "nothing changed: "}pane ${t.pane_id} is not zoomed: it is its window's only pane`
      : undefined;
    const structured = { ...t, ...size, changed, ...(note ? { note } : {}) };
    if (note) return { structured };
    return changeAnswer(
      structured,
      `${size.width}x${size.height}${size.zoomed ? ", zoomed" : zoom === false ? ", not zoomed" : ""}`,
    );
  },
});
