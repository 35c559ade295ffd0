/**
 * Doctor checks of an ssh host (`doctor --ssh DEST`, each host of several):
 * one login of its own, as the server logs in (BatchMode, the same `-F`),
 * that runs a fixed script: reachability, host key and key authentication
 * (ssh's own exit and message, classified as the server classifies them),
 * what the login prints before the script (noise the server has to skip), the
 * remote tmux and its version, a server on the configured socket there, and
 * the shells run-command can drive there.
 *
 * The script reads the same in sh, bash, zsh and fish (`;`, `2>&1`, `>&2`,
 * `command -v`); every word from the configuration in it is quoted.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * const config = parseConfig(["--ssh", "devbox"], {});
 * const lines = await checkSshHost(config, config.hosts[0], { tmux: true, shells: true });
 * ```
 */
import type { Config } from "../config.ts";
import type { HostSpec } from "../tmux/hosts.ts";
import { classifySshFailure, promptOf, socketSetting, sshArgv, sshHint } from "../tmux/ssh.ts";
import { socketArgsFor, startServerLine } from "../tmux/launcher.ts";
import { asTmuxVersion } from "../tmux/engine.ts";
import { homeWord, shQuote } from "../tmux/quote.ts";
import { newSentinel } from "../tmux/login_frame.ts";
import { type CheckResult, failIfNeeded } from "./check.ts";
import { judgeTmux, MIN_TMUX } from "./tmux.ts";
import { SHELLS } from "./shells.ts";

const dec = new TextDecoder();

/** The script's output, cut at its markers. */
interface Probe {
  code: number;
  /** What the login printed before the script, per stream. */
  noise: { stdout: string; stderr: string };
  sections: Record<string, string>;
  stderr: string;
  timedOut: boolean;
  /** The question a login that never reached the script stopped at (its unfinished last line). */
  asks?: string;
}

/** The remote script: the sentinel on both streams, then each section after a marker line of its own. */
function script(config: Config, sentinel: string): string {
  const bin = homeWord(config.tmuxBin);
  const socket = socketArgsFor({ socketName: config.socketName, socketPath: config.socketPath }).map(shQuote);
  const mark = (name: string) => `echo ${shQuote(`${sentinel}-${name}`)}`;
  return [
    `echo ${shQuote(sentinel)}`,
    `echo ${shQuote(sentinel)} >&2`,
    mark("tmux"),
    `${bin} -V 2>&1`,
    mark("sessions"),
    `${bin} -u ${socket.join(" ")} list-sessions -F ${shQuote("#{session_name}")} 2>&1`,
    mark("shells"),
    ...SHELLS.map((s) => `command -v ${s}`),
    mark("end"),
  ].join("; ");
}

/** Runs the script on `destination` over a connection of its own, bounded by --connect-timeout-ms plus 10 s. */
async function probe(config: Config, destination: string): Promise<Probe> {
  const sentinel = newSentinel();
  const argv = sshArgv(
    { destination, configFile: config.sshConfig, controlDir: "", connectTimeoutMs: config.connectTimeoutMs },
    "alone",
    script(config, sentinel),
  );
  // stdin stays open, as the server's does: a login that asks a question waits for its answer here too, instead of
  // reading end of input and going on (doctor would pass a login the server is refused by).
  const child = new Deno.Command("ssh", { args: argv, stdin: "piped", stdout: "piped", stderr: "piped" }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // already ended
    }
  }, config.connectTimeoutMs + 10_000);
  const [stdoutBytes, stderrBytes, status] = await Promise.all([
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).arrayBuffer(),
    child.status,
  ]);
  clearTimeout(timer);
  await child.stdin.close().catch(() => {});
  const out = { code: status.code };
  const stdout = dec.decode(stdoutBytes);
  const stderr = dec.decode(stderrBytes);
  const cut = (text: string) => {
    const at = text.indexOf(`${sentinel}\n`);
    return at < 0
      ? { before: text, after: "" }
      : { before: text.slice(0, at), after: text.slice(at + sentinel.length + 1) };
  };
  const so = cut(stdout);
  const se = cut(stderr);
  const sections: Record<string, string> = {};
  const parts = so.after.split(new RegExp(`^${sentinel}-(\\w+)\\n`, "m"));
  for (let i = 1; i + 1 < parts.length; i += 2) sections[parts[i]] = parts[i + 1];
  // ssh's own notes (a host key added to known_hosts) are not the login's.
  const sshNotes = /^Warning: Permanently added .*$\n?/gm;
  return {
    code: out.code,
    noise: { stdout: so.after === "" ? "" : so.before, stderr: se.before.replace(sshNotes, "") },
    sections,
    stderr: se.after.length ? se.after : stderr,
    timedOut,
    asks: so.after === "" ? promptOf(so.before) ?? promptOf(se.before.replace(sshNotes, "")) : undefined,
  };
}

const oneLine = (s: string, max = 80) => {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max) + "…" : t;
};

/** The checks of one ssh host, in order: ssh, login, remote tmux, remote socket, remote shells. */
export async function checkSshHost(
  config: Config,
  host: HostSpec,
  need: { tmux: boolean; shells: boolean },
): Promise<CheckResult[]> {
  const dest = host.destination!;
  const where = `ssh host "${dest}"${host.name === dest ? "" : ` (${host.name})`}`;
  const p = await probe(config, dest);
  // The server's own hint (a path with a space quoted), so the command given can be pasted.
  const hint = `\`${sshHint({ destination: dest, configFile: config.sshConfig }, "true")}\``;
  const skipAll = (why: string): CheckResult[] =>
    ["login", "remote tmux", "remote socket", "remote shells"].map((name) => ({ status: "skip", name, detail: why }));
  if (p.timedOut) {
    return [
      {
        status: "fail",
        name: "ssh",
        detail: p.asks !== undefined
          ? `${where}: the login stopped at a prompt (${JSON.stringify(p.asks)}), which tmux-mcp never answers: ` +
            `make the rc files ask nothing when not interactive (see what the login does with ${hint})`
          : `${where}: no answer within ${config.connectTimeoutMs + 10_000} ms (login and script): check that ` +
            "the host is up, and that its rc files do not wait for input; raise --connect-timeout-ms for a slow login",
      },
      ...skipAll("ssh did not answer"),
    ];
  }
  const classified = classifySshFailure(p.code, p.stderr, {
    destination: dest,
    bin: config.tmuxBin,
    socket: { socketName: config.socketName, socketPath: config.socketPath },
    configFile: config.sshConfig,
  });
  if (p.code === 255 || !("end" in p.sections)) {
    const detail = classified?.message ??
      `${where}: the login ended before its script did (exit ${p.code}: ${oneLine(p.stderr) || "no message"}): ` +
        `try ${hint}`;
    return [{ status: "fail", name: "ssh", detail }, ...skipAll("no login")];
  }
  const results: CheckResult[] = [{
    status: "ok",
    name: "ssh",
    detail: `${where} reached: host key known, key authentication (BatchMode) works`,
  }];
  const noisy = p.noise.stdout.trim() ? "stdout" : p.noise.stderr.trim() ? "stderr" : undefined;
  results.push(
    noisy
      ? {
        status: "warn",
        name: "login",
        detail: `the login prints before any command (on ${noisy}: ${
          JSON.stringify(oneLine(p.noise[noisy], 60))
        }): tmux-mcp skips it, but make ~/.bashrc (or ~/.zshenv, fish's config) quiet for non-interactive shells`,
      }
      : { status: "ok", name: "login", detail: "prints nothing before commands" },
  );

  const tmuxOut = asTmuxVersion((p.sections.tmux ?? "").trim(), config.tmuxBin);
  const judged = judgeTmux(tmuxOut);
  if (judged === "none") {
    results.push({
      status: failIfNeeded(need.tmux),
      name: "remote tmux",
      detail: `"${config.tmuxBin}" does not run on ${where} (${oneLine(tmuxOut) || "no output"}): install tmux ` +
        "3.2 or later there, or pass --tmux-bin with its absolute path on that host (non-interactive ssh " +
        "sessions get a short PATH)",
    });
    results.push({ status: "skip", name: "remote socket", detail: "no tmux on the host" });
  } else {
    results.push(
      judged === "old"
        ? {
          status: "warn",
          name: "remote tmux",
          detail: `${tmuxOut} on ${where} is older than ${MIN_TMUX.join(".")}: served without control mode, ` +
            "one ssh channel and tmux client per command (slower); upgrade tmux there",
        }
        : { status: "ok", name: "remote tmux", detail: `${tmuxOut.replace(/^tmux /, "")} on ${where}` },
    );
    const sessions = (p.sections.sessions ?? "").trim();
    const socketArgs = socketArgsFor({ socketName: config.socketName, socketPath: config.socketPath });
    if (/no server running|error connecting to/.test(sessions)) {
      results.push({
        status: failIfNeeded(need.tmux),
        name: "remote socket",
        detail: `no tmux server on ${where} at ${socketArgs.join(" ") || "the default socket"}: start one there ` +
          `(\`${startServerLine(config.tmuxBin, config)}\`) or point ${
            socketSetting(host.socketName !== undefined || host.socketPath !== undefined)
          } at a running one`,
      });
    } else {
      const n = sessions === "" ? 0 : sessions.split("\n").length;
      results.push({ status: "ok", name: "remote socket", detail: `server on ${where} reachable, ${n} session(s)` });
    }
  }
  const shells = (p.sections.shells ?? "").split("\n").map((l) => l.trim()).filter((l) => l.startsWith("/"));
  const names = shells.map((s) => s.slice(s.lastIndexOf("/") + 1));
  results.push(
    shells.length === 0
      ? {
        status: failIfNeeded(need.shells),
        name: "remote shells",
        detail: `none of ${SHELLS.join(", ")} on the PATH of ${where}: run-command needs one there`,
      }
      : { status: "ok", name: "remote shells", detail: `for run-command on ${where}: ${names.join(", ")}` },
  );
  return results;
}
