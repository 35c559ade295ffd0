/**
 * The reference relay (tests/bench/relay_server.ts) set up for a tmux server:
 * the command lines our server sends for `list` sessions and `capture-pane`
 * (built by the same functions), with results recorded from our server, in a
 * calls file; `argv` starts the relay on it. Shared by the round-trip bench and
 * the summary table (tests/bench/table.ts).
 */
import { connect, ROOT } from "../helpers.ts";
import { controlLine } from "../../lib/tmux/engine.ts";
import { COMMAND_SEPARATOR, type TmuxArg } from "../../lib/tmux/executor.ts";
import { paneQuery, SESSION_FORMAT } from "../../lib/tmux/panes.ts";
import { captureArgs } from "../../lib/tmux/capture.ts";
import { FACTS as CAPTURE_FACTS } from "../../lib/tools/workspace/capture_pane.ts";
import { serverArgv } from "./cold_start.ts";

/** The calls the relay answers (and the round-trip bench makes). */
export const RELAY_CALLS = {
  list: { name: "list", arguments: { what: "sessions" } },
  capture: { name: "capture-pane", arguments: { target: "main", max_lines: 50 } },
};

/** Records the relay's calls from our server on `socketName`; returns the relay's argv and the cleanup. */
export async function prepareRelay(socketName: string): Promise<{ argv: string[]; close(): Promise<void> }> {
  const ours = await connect({ spawn: serverArgv(ROOT, socketName), env: { TMUX_MCP_CONTROL_MODE: "on" } });
  const recorded = async (c: { name: string; arguments: Record<string, unknown> }) => {
    const r = await ours.client.callTool(c);
    if (r.isError) throw new Error(`relay: recording ${c.name} failed`);
    return r;
  };
  const line = (args: TmuxArg[]) => {
    const l = controlLine(args);
    if (l === undefined) throw new Error(`relay: ${String(args[0])} cannot travel on a control connection`);
    return l;
  };
  const capture = RELAY_CALLS.capture.arguments;
  const captureQuery = paneQuery(
    capture.target,
    CAPTURE_FACTS.format,
    captureArgs(capture.target, { start: -capture.max_lines, join: true }),
  ).args;
  const calls = {
    [RELAY_CALLS.list.name]: {
      line: line(["list-sessions", "-F", SESSION_FORMAT]),
      commands: 1,
      result: await recorded(RELAY_CALLS.list),
    },
    // getPane (lib/tmux/panes.ts): the pane's facts, then the capture (which checks the target).
    [RELAY_CALLS.capture.name]: {
      line: line(captureQuery),
      commands: 1 + captureQuery.filter((a) => a === COMMAND_SEPARATOR).length,
      result: await recorded(RELAY_CALLS.capture),
    },
  };
  await ours.close();
  const file = await Deno.makeTempFile({ prefix: "tmux-mcp-relay-", suffix: ".json" });
  await Deno.writeTextFile(file, JSON.stringify(calls));
  return {
    argv: [Deno.execPath(), "run", "-A", `${ROOT}tests/bench/relay_server.ts`, socketName, file],
    close: () => Deno.remove(file).catch(() => {}),
  };
}
