import { z } from "zod";
import { defineTool } from "../declared.ts";
import { formerName } from "./schemas.ts";

export default defineTool({
  name: "pty-list-sessions",
  replaces: formerName("pty-list-sessions"),
  title: "List terminal sessions",
  description: "This server's pty sessions.",
  toolset: "pty",
  tier: "readonly",
  input: z.object({}),
  output: z.object({
    sessions: z.array(z.object({
      pty_id: z.string(),
      command: z.string(),
      created_at: z.string(),
      rows: z.number().int(),
      cols: z.number().int(),
      status: z.enum(["running", "exited"]),
      exit_code: z.number().int().optional().describe("present when exited, if known"),
      backend: z.enum(["pty", "tmux"]),
    })),
  }),
  secrets: [],
  async handler(_args, ctx) {
    const backend = ctx.terminal.name;
    const sessions = (await ctx.terminal.list()).map(({ session_id, ...s }) => ({ pty_id: session_id, ...s, backend }));
    return { structured: { sessions } };
  },
});
