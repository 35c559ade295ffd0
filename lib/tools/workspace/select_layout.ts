import { z } from "zod";
import { defineTool } from "../declared.ts";
import { COMMAND_SEPARATOR } from "../../tmux/executor.ts";
import { changeAnswer, changedShape, resolvedShape } from "./common.ts";
import { resolvedTarget } from "../declared.ts";

const PRESETS = ["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"];

/** A preset name, or a layout string as list-windows reports it (checksum,WxH,X,Y{…} / […]). */
const layout = z.string()
  .max(8192, "layout is longer than 8192 characters")
  .refine(
    (s) => PRESETS.includes(s) || /^[0-9a-f]{4},\d+x\d+,\d+,\d+[0-9x,{}[\]]*$/.test(s),
    `layout must be one of ${PRESETS.join(", ")} or a window_layout string from list (what: windows)`,
  )
  .describe(`${PRESETS.join(", ")} or a window_layout`);

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
    const read = ["display-message", "-p", "-t", t.window_id, "#{window_layout}"];
    const out = await ctx.tmux.text([
      ...read,
      COMMAND_SEPARATOR,
      "select-layout",
      "-t",
      t.window_id,
      "--",
      layout,
      COMMAND_SEPARATOR,
      ...read,
    ], { signal: ctx.signal });
    const [before, after] = out.trim().split("\n");
    return changeAnswer({ ...t, layout: after, changed: before !== after }, "in that layout");
  },
});
