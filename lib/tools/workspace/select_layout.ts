import { z } from "zod";
import { defineTool } from "../declared.ts";
import { COMMAND_SEPARATOR, type TmuxArg, TmuxError } from "../../tmux/executor.ts";
import type { ToolContext } from "../tool.ts";
import { UserError } from "../../errors.ts";
import { changeAnswer, changedShape, resolvedShape } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

const PRESETS = ["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"];

/**
 * A size in a layout string as tmux writes one: 1 to 10000 (its window limits). tmux 3.3a applies a checksummed
 * layout with a 0 size (panes 0 wide, a window 0 high) and its server then crashes (select-layout tiled after it);
 * larger numbers wrap around in its parser.
 */
const fits = (n: string) => Number(n) >= 1 && Number(n) <= 10_000;

/**
 * Whether every `{…}` and `[…]` of a layout string holds at least two cells, as tmux writes them (it removes a
 * split left with one). tmux 3.3a applies a checksummed layout with a one-cell split, and its server then crashed
 * on the next resize-pane -x of the pane.
 */
function splitsHoldTwo(s: string): boolean {
  const counts: number[] = [];
  const size = /\d+x/y;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "{" || c === "[") counts.push(0);
    else if (c === "}" || c === "]") {
      if ((counts.pop() ?? 0) < 2) return false;
    } else if (counts.length > 0 && "{[,".includes(s[i - 1])) {
      size.lastIndex = i;
      if (size.test(s)) counts[counts.length - 1]++; // a cell starts: WxH after an opening bracket or a comma
    }
  }
  return true;
}

/** A preset name, or a layout string as list-windows reports it (checksum,WxH,X,Y{…} / […]). */
const layout = z.string()
  .max(8192, "layout is longer than 8192 characters")
  .refine(
    (s) => PRESETS.includes(s) || /^[0-9a-f]{4},\d+x\d+,\d+,\d+[0-9x,{}[\]]*$/.test(s),
    `layout must be one of ${PRESETS.join(", ")} or a window_layout string from list (what: windows)`,
  )
  .refine(
    (s) => PRESETS.includes(s) || [...s.matchAll(/(\d+)x(\d+)/g)].every(([, w, h]) => fits(w) && fits(h)),
    "a layout's widths and heights must be 1 to 10000 (tmux's server crashes on panes of size 0): pass a preset " +
      "or a window_layout string copied unchanged from list (what: windows)",
  )
  .refine(
    (s) => PRESETS.includes(s) || splitsHoldTwo(s),
    "every {…} and […] of a layout must hold at least two cells, as tmux writes them (tmux's server crashes on " +
      "one cell): pass a preset or a window_layout string copied unchanged from list (what: windows)",
  )
  .describe(`${PRESETS.join(", ")} or a window_layout`);

/**
 * tmux 3.3a's bare "invalid layout: …" (checksum or shape wrong), "have N panes but need M: …" (a layout of
 * fewer panes than the window has) or "size mismatch after applying layout: …" (cells whose sizes do not add up to
 * their parent's) as one line that names the value and says what to pass instead; the window is
 * unchanged. Other failures pass through.
 */
function refusedLayout(e: TmuxError, layout: string, windowId: string): Error {
  const why = /^(invalid layout|have \d+ panes but need \d+|size mismatch after applying layout)\b/.exec(e.message)
    ?.[1];
  if (!why) return e;
  const shown = JSON.stringify(layout.length > 80 ? `${layout.slice(0, 80)}…` : layout);
  return new UserError(
    `layout ${shown} is not one tmux can apply to window ${windowId} (tmux: ${why}); nothing changed: pass one of ` +
      `${PRESETS.join(", ")}, or the layout string of a window with this many panes, copied unchanged from ` +
      `list (what: windows)`,
  );
}

/**
 * The commands that give the window back its size after a layout string saved from a window of another size: tmux
 * applies such a string by resizing the window to it (a detached window keeps that size). resize-window scales the
 * panes back, and sets the window's window-size option to manual, which is then put back as it was (unset at the
 * window's level: inherited). Nothing for a preset or a string of the window's own size; one tmux call to know.
 */
async function keepSize(ctx: ToolContext, windowId: string, layout: string): Promise<TmuxArg[]> {
  const saved = /^[0-9a-f]{4},(\d+)x(\d+),/.exec(layout);
  if (!saved) return [];
  const [size, option] = (await ctx.tmux.text([
    ...["display-message", "-p", "-t", windowId, "#{window_width}x#{window_height}"],
    COMMAND_SEPARATOR,
    ...["show-options", "-wqv", "-t", windowId, "window-size"],
  ], { signal: ctx.signal })).split("\n");
  if (size === `${saved[1]}x${saved[2]}`) return [];
  const [width, height] = size.split("x");
  return [
    COMMAND_SEPARATOR,
    ...["resize-window", "-t", windowId, "-x", width, "-y", height],
    COMMAND_SEPARATOR,
    ...(option
      ? ["set-option", "-w", "-t", windowId, "window-size", option]
      : ["set-option", "-wu", "-t", windowId, "window-size"]),
  ];
}

export default defineTool({
  name: "select-layout",
  title: "Arrange the panes of a window",
  description: "Arranges the target window's panes with a preset layout or a saved window_layout string.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "window",
  annotations: { idempotentHint: true },
  input: z.object({
    layout,
  }),
  output: z.object({
    ...resolvedShape,
    layout: z.string().describe("the window_layout string now in effect"),
    ...changedShape,
  }),
  secrets: [],
  async handler({ layout }, ctx) {
    const t = resolvedTarget(ctx);
    // tmux unzooms a zoomed window to arrange it: that is a change too, even into the layout it had.
    const read = ["display-message", "-p", "-t", t.window_id, "#{window_zoomed_flag} #{window_layout}"];
    const out = await ctx.tmux.text([
      ...read,
      COMMAND_SEPARATOR,
      "select-layout",
      "-t",
      t.window_id,
      "--",
      layout,
      ...await keepSize(ctx, t.window_id, layout),
      COMMAND_SEPARATOR,
      ...read,
    ], { signal: ctx.signal }).catch((e) => {
      throw e instanceof TmuxError ? refusedLayout(e, layout, t.window_id) : e;
    });
    const [before, after] = out.trim().split("\n");
    return changeAnswer({ ...t, layout: after.slice(2), changed: before !== after }, "in that layout");
  },
});
