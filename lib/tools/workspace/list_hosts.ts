import { z } from "zod";
import { defineTool } from "../declared.ts";
import type { HostState, ToolContext } from "../tool.ts";
import { LOCAL_HOST, qualify } from "../../tmux/hosts.ts";

/** This machine's tmux as the one host of a server built without a host table (tests). */
async function alone(ctx: ToolContext): Promise<HostState[]> {
  const row: HostState = {
    host: LOCAL_HOST,
    target: qualify(LOCAL_HOST, ""),
    destination: ctx.tmux.remote ?? null,
    default: true,
    connected: false,
    tmux_version: null,
    last_error: null,
    last_error_at: null,
  };
  try {
    row.tmux_version = (await ctx.tmux.text(["-V"], { timeoutMs: 5_000, signal: ctx.signal })).trim()
      .replace(/^tmux\s+/, "");
    row.connected = true;
  } catch (e) {
    row.last_error = e instanceof Error ? e.message : String(e);
  }
  return [row];
}

export default defineTool({
  name: "list-hosts",
  title: "List tmux hosts",
  description: "The server's hosts: host, target (HOST::), connected, tmux_version, last_error.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({}),
  output: z.object({
    // Rows as lib/tools/tool.ts HostState says; the listing's bytes are every conversation's cost.
    hosts: z.array(z.object({ host: z.string(), connected: z.boolean() })),
  }),
  secrets: [],
  async handler(_args, ctx) {
    const deadline = ctx.startedAt + ctx.config.callBudgetMs;
    return { structured: { hosts: ctx.hosts ? await ctx.hosts.states(ctx.signal, deadline) : await alone(ctx) } };
  },
});
