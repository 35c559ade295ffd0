import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool.ts";
import { serverInfo } from "../../tmux/panes.ts";

export default defineTool({
  name: "server-info",
  title: "tmux server facts",
  description: "The tmux server this MCP server drives: tmux version, socket path, server pid, start time " +
    "(unix seconds), number of sessions, and ssh_host when it runs on another host (--ssh). Next: list-sessions or list-panes to find a pane.",
  toolset: "workspace",
  tier: "readonly",
  annotations: READ_ONLY,
  input: z.object({}),
  output: z.object({
    version: z.string(),
    socket_path: z.string(),
    pid: z.number().int(),
    start_time: z.number().int(),
    session_count: z.number().int(),
    ssh_host: z.string().optional().describe("present with --ssh: the host whose tmux this is"),
  }),
  secrets: [],
  async handler(_args, ctx) {
    const s = await serverInfo(ctx.tmux, ctx.signal);
    return {
      structured: {
        version: s.version,
        socket_path: s.socket_path,
        pid: s.pid,
        start_time: s.start_time,
        session_count: s.session_count,
        ...(ctx.tmux.remote === undefined ? {} : { ssh_host: ctx.tmux.remote }),
      },
    };
  },
});
