import { z } from "zod";
import { defineTool } from "../tool.ts";
import { refuseSelfKill } from "../../tmux/self.ts";

export default defineTool({
  name: "kill-server",
  title: "Kill the tmux server",
  description: "Kills the tmux server this MCP server is configured for, with every session, window, pane " +
    "and program in it, and its paste buffers. Refused when tmux-mcp itself runs inside that server.",
  toolset: "workspace",
  tier: "destructive",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  input: z.object({}),
  output: z.object({ killed: z.literal("server"), socket_path: z.string().optional() }),
  secrets: [],
  async handler(_args, ctx) {
    const self = await refuseSelfKill(ctx.tmux, "server", {}, { signal: ctx.signal });
    await ctx.tmux.run(["kill-server"], { signal: ctx.signal });
    return { structured: { killed: "server" as const, socket_path: self.socket_path } };
  },
});
