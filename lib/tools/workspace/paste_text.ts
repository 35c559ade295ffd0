import { z } from "zod";
import { defineTool } from "../declared.ts";
import { pasteBytes } from "../../buffers/paste.ts";
import { noted, refuseDeadPane, resolvedShape } from "./common.ts";
import { typingRead, typingRefusal } from "../../tmux/sync.ts";
import { resolvedTarget } from "../declared.ts";
import { refuseSelfInput } from "../../tmux/self.ts";
import { UserError } from "../../errors.ts";
import { refuseHiddenRead } from "../../exec/keys_warning.ts";

/** The end of a bracketed paste, as a program that asked for bracketed paste mode reads it. */
const PASTE_END = "\x1b[201~";

export default defineTool({
  name: "paste-text",
  title: "Paste text into a pane",
  description: "Pastes text into a pane as a terminal paste does; for multi-line input and code.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "pane",
  // The pane's facts and its window's panes: a pane whose input is off drops the paste.
  targetRead: typingRead,
  annotations: { destructiveHint: true, openWorldHint: true },
  input: z.object({
    text: z.string().min(1, "text must not be empty").max(1_048_576, "text is longer than 1 MiB"),
    bracketed: z.boolean().default(true).describe("if the program asked for it"),
  }),
  output: z.object({ ...resolvedShape, bytes: z.number().int().describe("UTF-8 bytes pasted") }),
  secrets: ["text"],
  async handler({ text, bracketed }, ctx) {
    // tmux 3.3a's paste-buffer -p passes an end marker inside the text through: the program's paste would end
    // there and the rest arrive as typed keys (a shell runs its lines), what bracketing is asked for to prevent.
    if (bracketed && text.includes(PASTE_END)) {
      throw new UserError(
        "text holds the bracketed-paste end marker (ESC [201~): the paste would end there and the rest arrive as " +
          "typed keys (a shell would run its lines); remove the marker, or pass bracketed: false to paste it all " +
          "unbracketed",
      );
    }
    const { read, ...t } = resolvedTarget(ctx);
    refuseDeadPane({ read, ...t });
    const refusal = typingRefusal(t.pane_id, read?.output, "the text", true);
    if (refusal) throw refusal;
    await refuseSelfInput(ctx.tmux, t.pane_id, { text }, { signal: ctx.signal });
    await refuseHiddenRead(ctx.tmux, read?.pane, text, ctx.signal);
    const bytes = new TextEncoder().encode(text);
    // tmux 3.3a's paste-buffer writes to the program under a mode (copy mode…), while the pane keeps showing the
    // mode's frozen view: leave the mode first, in the same call, and say so, as send-keys does.
    const mode = read?.pane.in_mode ? read.pane.mode || "copy-mode" : undefined;
    await pasteBytes(ctx.tmux, bytes, t.pane_id, { bracketed, leaveMode: !!mode, signal: ctx.signal });
    ctx.exec.typed.note(t.pane_id, text);
    return noted({ ...t, bytes: bytes.length }, mode && `pane ${t.pane_id} was in ${mode}: left it, then pasted`);
  },
});
