import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool.ts";

export default defineTool({
  name: "pty_list_sessions",
  title: "List terminal sessions",
  description: "Lists the pty sessions of this server: id, command, start time (ISO 8601), size, and whether the " +
    "program is still running or exited (with its exit code; 128+N means signal N). Exited sessions stay " +
    "listed, with their last screen readable, until pty_kill_session.",
  toolset: "pty",
  tier: "readonly",
  annotations: READ_ONLY,
  input: z.object({}),
  output: z.object({
    sessions: z.array(z.object({
      session_id: z.string(),
      command: z.string(),
      created_at: z.string(),
      rows: z.number().int(),
      cols: z.number().int(),
      status: z.enum(["running", "exited"]),
      exit_code: z.number().int().optional(),
      backend: z.enum(["pty", "tmux"]),
    })),
  }),
  secrets: [],
  async handler(_args, ctx) {
    const backend = ctx.terminal.name;
    const sessions = (await ctx.terminal.list()).map((s) => ({ ...s, backend }));
    return { structured: { sessions } };
  },
});
