import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath } from "../schemas.ts";
import { requireDirectory } from "../../policy/files.ts";
import { cols, formerName, ptyId, rows, runsOn } from "./schemas.ts";

export default defineTool({
  name: "pty-launch",
  replaces: formerName("pty-launch"),
  title: "Start a terminal session",
  description: "Starts a command in its own terminal, for interactive programs.",
  toolset: "pty",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true, openWorldHint: true },
  input: z.object({
    command: z.string().min(1, "command must not be empty").max(8192, "command is longer than 8192 characters")
      .refine((s) => !s.includes("\0"), "command must not contain NUL")
      .describe("run by /bin/sh -c"),
    rows: rows.default(24),
    cols: cols.default(80),
    working_dir: absolutePath.optional(),
    pty_id: ptyId.optional(),
  }),
  output: z.object({ pty_id: z.string(), runs_on: z.string() }),
  secrets: ["command"],
  async handler(args, ctx) {
    // The tmux backend over --ssh starts programs on that host: its directories are not ours to check,
    // and without working_dir tmux picks the start directory there.
    const runs_on = runsOn(ctx);
    const remote = runs_on !== "local";
    const cwd = args.working_dir ?? (remote ? undefined : Deno.cwd());
    if (cwd !== undefined && !remote) await requireDirectory(cwd);
    const { session_id: pty_id } = await ctx.terminal.launch({
      command: args.command,
      rows: args.rows,
      cols: args.cols,
      cwd,
      sessionId: args.pty_id,
    });
    return { structured: { pty_id, runs_on } };
  },
});
