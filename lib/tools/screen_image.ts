/**
 * A screen as an MCP image block for the tools that draw one (snapshot-pane,
 * pty-get-screen): secrets painted over, PNG scaled down until the whole
 * result fits the call's response budget; a one-line error when not even
 * its smallest scale does (a result buffer cannot hold an image).
 *
 * @example
 * ```ts
 * declare const ctx: Pick<import("./tool.ts").ToolContext, "budget" | "redactor">; // a handler's
 * const facts = { rows: 24, cols: 80 };
 * const image = await screenImage(ctx, { lines: ["$ "], rows: 24, cols: 80 }, facts);
 * const output = { structured: facts, content: [image] };
 * ```
 */
import { screenPicture, type ScreenSource } from "../terminal/render.ts";
import type { ContentBlock, ToolContext } from "./tool.ts";

/** An MCP image content block holding a PNG. */
export type PngBlock = { type: "image"; data: string; mimeType: "image/png" };

const png = (data: string): PngBlock => ({ type: "image", data, mimeType: "image/png" });

/**
 * The screen `src` (its `find` defaulting to the call's redactor) as a PNG
 * block, at the largest scale at which `structured` with the block followed
 * by `rest` fits the budget.
 */
export async function screenImage(
  ctx: Pick<ToolContext, "budget" | "redactor">,
  src: Omit<ScreenSource, "find">,
  structured: unknown,
  rest: readonly ContentBlock[] = [],
): Promise<PngBlock> {
  const fits = (data: string) => ctx.budget.fits({ structured, content: [png(data), ...rest] });
  const pic = await screenPicture({ ...src, find: ctx.redactor?.find }, "png", (p) => fits(p.data));
  const { data } = pic as { data: string };
  if (!fits(data)) throw ctx.budget.tooSmall("the screen's image at its smallest scale", 'pass format "text"');
  return png(data);
}
