import { z } from "zod";
import { defineTool } from "../declared.ts";
import { serverInfo } from "../../tmux/panes.ts";

export default defineTool({
  name: "server-info",
  title: "tmux server facts",
  description:
    "tmux version, socket, pid, start time and session count of the tmux server, and ssh_host with --ssh. Next: list.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({}),
  output: z.object({
    version: z.string(),
    socket_path: z.string(),
    pid: z.number().int(),
    start_time: z.number().int(),
    session_count: z.number().int(),
    ssh_host: z.string().optional().describe("present with --ssh: the host whose tmux this is"),
    ssh_note: z.string().optional().describe("present when the remote login prints text before tmux starts"),
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
        ...(ctx.tmux.remoteNote === undefined ? {} : { ssh_note: ctx.tmux.remoteNote }),
      },
    };
  },
});
