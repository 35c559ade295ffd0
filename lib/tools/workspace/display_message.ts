import { z } from "zod";
import { defineTool } from "../declared.ts";
import { getPane } from "../../tmux/panes.ts";
import { formatRefusal } from "../../policy/formats.ts";
import { UserError } from "../../errors.ts";
import { paneTarget, resolvedShape } from "./shapes.ts";
import { resolvedOf } from "../../tmux/target.ts";
import { headOf } from "../../text/utf8.ts";

const MAX_OUTPUT = 65_536;

export default defineTool({
  name: "display-message",
  title: "Evaluate a tmux format",
  description:
    'Expands a tmux format for a pane, e.g. "#{pane_current_command} #{pane_width}". #( ), E:, T:, R:, C:, regex substitutions and deep loops are refused. Prefer list or snapshot-pane for pane facts.',
  toolset: "workspace",
  tier: "readonly",
  textField: "text",
  input: z.object({
    target: paneTarget,
    format: z.string().min(1, "format must not be empty").max(2000, "format is longer than 2000 characters")
      .refine((s) => !s.includes("\0"), "format must not contain NUL (no tmux format holds one)"),
  }),
  output: z.object({ ...resolvedShape, text: z.string(), truncated: z.boolean() }),
  secrets: ["format"],
  async handler({ target, format }, ctx) {
    const refused = formatRefusal(format, { scoped: ctx.tmux.scope !== undefined });
    if (refused) throw new UserError(`display-message refused: ${refused}`);
    const { pane, defaulted, output } = await getPane(ctx.tmux, target, {
      signal: ctx.signal,
      then: (t) => ["display-message", "-p", "-t", t, "--", format],
    });
    let text = new TextDecoder().decode(output).replace(/\n$/, "");
    const truncated = text.length > MAX_OUTPUT;
    if (truncated) text = headOf(text, MAX_OUTPUT);
    return { structured: { ...resolvedOf(pane, defaulted), text, truncated } };
  },
});
