/**
 * `tmux-mcp doctor`: checks, one line each, what this configuration needs —
 * tmux and its version, a server on the socket, control mode, shells for
 * run-command (on each ssh host with --ssh: lib/doctor/ssh.ts), the internal
 * PTY backend's libc, the budget config file, the audit log — and prints the command to paste
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
import { localTmuxBin } from "../host/binaries.ts";
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
import { terminalStartupError } from "../terminal/mod.ts";

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
async function localChecks(given: Config, need: ReturnType<typeof needs>): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  // The tmux the server would run (lib/server/hosts.ts): found where a desktop app's short PATH does not reach too.
  const config = { ...given, tmuxBin: localTmuxBin(given.tmuxBin) };
  const tmux = createSpawnExecutor({
    bin: config.tmuxBin,
    socketName: config.socketName,
    socketPath: config.socketPath,
    maxConcurrency: 2,
  });
  const version = await checkTmuxVersion(tmux, config.tmuxBin, need.tmux);
  if (version.found && config.tmuxBin !== given.tmuxBin) {
    version.result.detail += `; at ${config.tmuxBin}, which is not on PATH (the server looks there too)`;
  }
  results.push(version.result);
  if (!version.found) {
    results.push({ status: "skip", name: "socket", detail: "tmux not found" });
    results.push({ status: "skip", name: "control mode", detail: "tmux not found" });
  } else {
    const socket = await checkSocket(tmux, config.tmuxBin, need.tmux);
    results.push(socket.result);
    results.push(
      version.old !== undefined
        ? {
          status: "skip",
          name: "control mode",
          detail: `not tried with tmux ${version.old}: upgrade tmux (see the tmux line)`,
        }
        : !config.controlMode
        ? { status: "skip", name: "control mode", detail: "off (--control-mode off): one tmux client per command" }
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
  if (config.auditLog !== undefined) results.push(checkAuditLog(config.auditLog));
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

/**
 * The `--audit-log` file, which a server opens for appending at start (and refuses to start without): an existing
 * file must open for appending, a new one must be creatable in its directory. Nothing is left behind.
 */
export function checkAuditLog(path: string): CheckResult {
  const name = "audit log";
  const fail = (detail: string): CheckResult => ({ status: "fail", name, detail });
  let info: Deno.FileInfo | undefined;
  try {
    info = Deno.statSync(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) return fail(`cannot look at ${path} (${(e as Error).name})`);
  }
  if (info) {
    if (!info.isFile) return fail(`${path} is not a file: give --audit-log the path of a file`);
    try {
      Deno.openSync(path, { append: true }).close();
    } catch (e) {
      return fail(`cannot open ${path} to append (${(e as Error).name}): make it writable or give another path`);
    }
    return { status: "ok", name, detail: `each call appends a line to ${path}` };
  }
  const slash = path.lastIndexOf("/");
  const dir = slash === -1 ? "." : slash === 0 ? "/" : path.slice(0, slash);
  let isDir = false;
  try {
    isDir = Deno.statSync(dir).isDirectory;
  } catch {
    // missing or unreadable: as not a directory
  }
  if (!isDir) return fail(`the directory of ${path} does not exist: create ${dir} or give another path`);
  // Whether the server could create it there (a folder of root's, a read-only file system) shows only by trying: the
  // file made for the try is removed at once.
  try {
    Deno.openSync(path, { append: true, createNew: true }).close();
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return checkAuditLog(path);
    return fail(`cannot create ${path} (${(e as Error).name}): give a path in a directory you can write`);
  }
  Deno.removeSync(path);
  return { status: "ok", name, detail: `${path} is created at start; each call appends a line to it` };
}

/**
 * Why a server started with this configuration would stop at start (a bad `--config` file, an `--audit-log` it
 * cannot open, the pty tools' tmux backend without a tmux here), as one line; undefined when none. `doctor --install`
 * writes no such server into a client.
 */
export async function startProblem(config: Config): Promise<string | undefined> {
  const checks = [
    checkBudgetConfig(config),
    ...(config.auditLog !== undefined ? [checkAuditLog(config.auditLog)] : []),
  ];
  const failed = checks.find((c) => c.status === "fail");
  if (failed) return `${failed.name}: ${failed.detail}`;
  // The server asks its first host's tmux at start, as here; an ssh host's only on first use.
  const first = config.hosts[0];
  if (first?.destination !== undefined) return undefined;
  const here = first ? hostConfig(config, first) : config;
  const tmux = createSpawnExecutor({
    bin: localTmuxBin(here.tmuxBin),
    socketName: here.socketName,
    socketPath: here.socketPath,
    maxConcurrency: 1,
  });
  const backend = await terminalStartupError(here, tmux);
  return backend && `terminal backend: ${backend}`;
}
