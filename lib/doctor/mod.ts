/**
 * `tmux-mcp doctor`: checks, one line each, what this configuration needs —
 * tmux and its version, a server on the socket, control mode, shells for
 * run-command (on each ssh host with --ssh: lib/doctor/ssh.ts), the internal
 * PTY backend's libc, the budget config file — and prints the command to paste
 * into an MCP client, with a line for each MCP client found on this machine. A check fails only
 * when a configured toolset needs it (otherwise it is a warning); the exit
 * code is 0 when nothing failed, 1 otherwise.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * const { lines, ok } = await runDoctor(parseConfig(["--socket-name", "work"], {}), ["--socket-name", "work"]);
 * ```
 */
import { type Config, hostConfig } from "../config.ts";
import { createSpawnExecutor } from "../tmux/executor.ts";
import { type CheckResult, formatCheck } from "./check.ts";
import { checkSocket, checkTmuxVersion } from "./tmux.ts";
import { checkControlMode } from "./control_mode.ts";
import { checkShells } from "./shells.ts";
import { checkLibc } from "./libc.ts";
import { checkBudgetConfig } from "./budget.ts";
import { clientCommand } from "./client.ts";
import { checkCallBudget } from "./call_budget.ts";
import { clientHints } from "./install.ts";
import { checkSshHost } from "./ssh.ts";

/** What the configured toolsets and backend need. */
export function needs(config: Config): { tmux: boolean; shells: boolean; libc: boolean } {
  const has = (t: Config["toolsets"][number]) => config.toolsets.includes(t);
  const pty = has("pty");
  return {
    tmux: has("buffers") || has("workspace") || has("exec") || (pty && config.terminalBackend === "tmux"),
    shells: has("exec"),
    libc: pty && config.terminalBackend === "pty",
  };
}

/** This machine's tmux, socket, control mode and shells. */
async function localChecks(config: Config, need: ReturnType<typeof needs>): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const tmux = createSpawnExecutor({
    bin: config.tmuxBin,
    socketName: config.socketName,
    socketPath: config.socketPath,
    maxConcurrency: 2,
  });
  const version = await checkTmuxVersion(tmux, config.tmuxBin, need.tmux);
  results.push(version.result);
  if (!version.found) {
    results.push({ status: "skip", name: "socket", detail: "tmux not found" });
    results.push({ status: "skip", name: "control mode", detail: "tmux not found" });
  } else {
    const socket = await checkSocket(tmux, need.tmux);
    results.push(socket.result);
    results.push(
      version.old !== undefined
        ? {
          status: "skip",
          name: "control mode",
          detail: `not tried with tmux ${version.old}: upgrade tmux (see the tmux line)`,
        }
        : socket.up
        ? await checkControlMode(
          { bin: config.tmuxBin, socketName: config.socketName, socketPath: config.socketPath },
          need.tmux,
        )
        : { status: "skip", name: "control mode", detail: "no server to attach to" },
    );
  }
  results.push(checkShells(Deno.env.get("PATH") ?? "", need.shells));
  return results;
}

/** Runs every check in order; `flags` are the command-line flags to repeat in the client command. */
export async function runDoctor(config: Config, flags: readonly string[]): Promise<{ lines: string[]; ok: boolean }> {
  const need = needs(config);
  const results: CheckResult[] = [];
  // With --ssh the tmux that matters is on each ssh host; this machine's only when `local` is one of the hosts.
  const remote = config.hosts.filter((h) => h.destination !== undefined);
  if (config.hosts.length === 0 || remote.length < config.hosts.length) {
    const here = config.hosts.find((h) => h.destination === undefined);
    results.push(...await localChecks(here ? hostConfig(config, here) : config, need));
  }
  // Each host over its own login (with its own socket and tmux), all at once: a slow one does not hold the
  // others up.
  results.push(...(await Promise.all(remote.map((h) => checkSshHost(hostConfig(config, h), h, need)))).flat());
  results.push(
    need.libc ? checkLibc(true) : { status: "skip", name: "pty libc", detail: "internal pty backend not configured" },
  );
  results.push(checkBudgetConfig(config));
  results.push(checkCallBudget(config));
  results.push(clientCommand(flags));
  results.push(...await clientHints(flags));
  const failed = results.filter((r) => r.status === "fail").length;
  const lines = results.map(formatCheck);
  lines.push(
    failed === 0
      ? "tmux-mcp doctor: everything the configured toolsets need works"
      : `tmux-mcp doctor: ${failed} check(s) failed: see the FAIL lines`,
  );
  return { lines, ok: failed === 0 };
}
