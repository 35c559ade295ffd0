import { z } from "zod";
import { defineTool } from "../declared.ts";
import { refuseSelfKill } from "../../tmux/self.ts";
import { RefusedError } from "../../errors.ts";
import { AFTER_SERVER, noted } from "./common.ts";

export default defineTool({
  name: "kill-server",
  title: "Kill the tmux server",
  description: "Kills the tmux server with every session and buffer in it. Refused when tmux-mcp runs inside it.",
  toolset: "workspace",
  tier: "destructive",
  smallResult: true,
  input: z.object({}),
  output: z.object({
    killed: z.literal("server"),
    socket_path: z.string().optional().describe("present when the server had a pane to read it from"),
  }),
  secrets: [],
  async handler(_args, ctx) {
    if (ctx.tmux.scope) {
      throw new RefusedError(
        "kill-server is refused: this server sees only some sessions (--sessions/--scope), and killing the tmux " +
          "server would end the others too; kill the sessions in view one by one",
      );
    }
    const self = await refuseSelfKill(ctx.tmux, "server", {}, { signal: ctx.signal });
    await ctx.tmux.run(["kill-server"], { signal: ctx.signal });
    return noted(
      { killed: "server" as const, socket_path: self.socket_path },
      `the tmux server is gone with every session and buffer: ${AFTER_SERVER}`,
    );
  },
});
