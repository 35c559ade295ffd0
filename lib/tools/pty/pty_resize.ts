import { z } from "zod";
import { defineTool } from "../declared.ts";
import { cols, formerName, ptyId, rows } from "./schemas.ts";

export default defineTool({
  name: "pty-resize",
  replaces: formerName("pty-resize"),
  title: "Resize a session",
  description: "Resizes a pty session (SIGWINCH).",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { idempotentHint: true },
  input: z.object({ pty_id: ptyId, rows, cols }),
  output: z.object({ pty_id: z.string(), rows: z.number().int(), cols: z.number().int() }),
  secrets: [],
  async handler({ pty_id, rows, cols }, ctx) {
    await ctx.terminal.resize(pty_id, rows, cols);
    return { structured: { pty_id, rows, cols } };
  },
});
