import { z } from "zod";
import { targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { COMMAND_SEPARATOR, type TmuxArg } from "../../tmux/executor.ts";
import { UserError } from "../../errors.ts";
import { parseRow, rowFormat, type RowSpec } from "../../tmux/rows.ts";
import { changeAnswer, changedShape, noted, resolvedShape } from "./common.ts";
import { resolve } from "../declared.ts";

/** The pane's size, and whether its window is zoomed and on which pane: a zoomed window shows its active pane. */
const SIZE = {
  width: ["pane_width", "int"],
  height: ["pane_height", "int"],
  windowZoomed: ["window_zoomed_flag", "bool"],
  active: ["pane_active", "bool"],
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
      const row = parseRow(SIZE, await ctx.tmux.run([...first, ...read], { signal: ctx.signal }));
      return { width: row.width, height: row.height, zoomed: row.windowZoomed && row.active, window: row.windowZoomed };
    };
    // Resizing unzooms the window in tmux, so resize first, then zoom if asked.
    const resize: TmuxArg[] = ["resize-pane", "-t", t.pane_id];
    if (width !== undefined) resize.push("-x", String(width));
    if (height !== undefined) resize.push("-y", String(height));
    const before = await run([]);
    const resized = resize.length > 3 ? await run([...resize, COMMAND_SEPARATOR]) : before;
    let size = resized;
    // `resize-pane -Z` toggles the window: on a window zoomed on another pane it unzooms, so zooming this pane
    // then takes a second one; unzoom (false) unzooms the window whichever pane it shows.
    const toggle: TmuxArg[] = ["resize-pane", "-Z", "-t", t.pane_id, COMMAND_SEPARATOR];
    if (zoom === true && !size.zoomed) size = await run(size.window ? [...toggle, ...toggle] : toggle);
    if (zoom === false && size.window) size = await run(toggle);
    const changed = size.width !== before.width || size.height !== before.height || size.zoomed !== before.zoomed ||
      size.window !== before.window;
    // tmux accepts a size it cannot give (a window's only pane fills the window) and says nothing; judged before
    // a zoom, which shows the pane at its window's size.
    const missed = (width !== undefined && resized.width !== width) ||
      (height !== undefined && resized.height !== height);
    // tmux does not zoom a window's only pane either, and says nothing.
    const unzoomable = zoom === true && !size.zoomed;
    const note = missed
      ? `${changed ? "" : "nothing changed: "}pane ${t.pane_id} is ${resized.width}x${resized.height}` +
        `${size.zoomed ? " unzoomed" : ""}; a pane cannot outgrow its window or shrink its neighbours below their ` +
        "minimum (a window's only pane fills it)"
      : unzoomable
      ? `${changed ? "" : "nothing changed: "}pane ${t.pane_id} is not zoomed: it is its window's only pane`
      : undefined;
    const structured = {
      ...t,
      width: size.width,
      height: size.height,
      zoomed: size.zoomed,
      changed,
      ...(note ? { note } : {}),
    };
    // A window zoomed on another pane shows that pane alone: tmux unzooms it to resize this one, and says nothing.
    const unzoomed = resize.length > 3 && zoom === undefined && before.window && !before.zoomed && !size.window
      ? `window ${t.window_id} was zoomed on another pane: tmux unzoomed it to resize pane ${t.pane_id}`
      : undefined;
    if (note || unzoomed) return noted(structured, unzoomed);
    return changeAnswer(
      structured,
      `${size.width}x${size.height}${size.zoomed ? ", zoomed" : zoom === false ? ", not zoomed" : ""}`,
    );
  },
});
