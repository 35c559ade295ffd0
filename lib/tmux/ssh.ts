/**
 * Reaching a remote host's tmux over OpenSSH (issue #12; not wired into the
 * server yet): how a tmux client is launched through `ssh`, and what ssh's
 * failures mean.
 *
 * The design in one paragraph. A {@linkcode ClientLaunch} is "which program,
 * which argv" for one tmux client: {@linkcode localLaunch} runs tmux here,
 * {@linkcode sshLaunch} runs it on `--ssh DEST`. The long-lived control-mode
 * client (`tmux -C`) is launched with role `"master"`: that ssh process IS the
 * OpenSSH connection master (`ControlMaster=yes`, socket in a private 0700
 * directory). Spawned fallback clients use role `"shared"`
 * (`ControlMaster=no`, same `ControlPath`): they ride the master's connection
 * with no new handshake, or make their own connection when there is no
 * master. The master lives exactly as long as our pipe to its stdin: when the
 * server dies (even by SIGKILL) stdin hits EOF, the remote `tmux -C` exits,
 * the session closes and ssh exits (`ControlPersist=no`). Nothing is left on
 * either side; a dropped master is re-launched like any control client.
 *
 * What travels where. The command line ssh hands to the remote login shell is
 * built by {@linkcode remoteTmuxLine} alone: fixed words (`exec`, `-u`, `-L`/`-S`,
 * the control-mode words) plus the operator's `--tmux-bin` and socket flags,
 * each quoted by {@linkcode shQuote}. For the control connection no value a
 * model sends is ever on that line: tool commands go over the connection's
 * stdin in tmux command syntax, quoted by the control-mode engine. The spawned
 * fallback is the one exception: its tmux arguments (which may come from a
 * model) ARE on the remote line, so every element is tmux-escaped
 * ({@linkcode escapeArg}) and then shell-quoted — tested byte-exact through
 * `sh -c` and a real sshd with hostile values.
 *
 * The remote login shell must read POSIX-style quoting: sh, dash, bash, zsh,
 * ksh and fish do; csh/tcsh (newlines in quotes) do not.
 *
 * @example
 * ```ts
 * const ssh: SshTarget = { destination: "devbox", controlDir: await makeControlDir() };
 * const master = sshLaunch(ssh, "master", "tmux", { socketName: "work" }, ["-C", "new-session", "-A", "-s", "mcp"]);
 * // new Deno.Command(master.command, { args: master.args, stdin: "piped", ... })
 * ```
 */
import { COMMAND_SEPARATOR, escapeArg, socketArgsFor, type SocketSpec, type TmuxArg, TmuxError } from "./executor.ts";
import { shellLine, shQuote } from "./quote.ts";

/** One tmux client process: the program to run and its argv. */
export interface ClientLaunch {
  command: string;
  args: string[];
}

/** How to reach the remote host: the `--ssh` / `--ssh-config` settings plus our private socket directory. */
export interface SshTarget {
  /** Anything ssh takes as a destination: `user@host`, a `Host` alias, `ssh://user@host:port`. */
  destination: string;
  /** `--ssh-config FILE`, passed as `ssh -F FILE`. */
  configFile?: string;
  /** Private 0700 directory holding the connection-sharing socket ({@linkcode makeControlDir}). */
  controlDir: string;
  /** Seconds to wait for the TCP connect and the handshake (default 10). */
  connectTimeoutS?: number;
  /** Seconds between keep-alive probes; three unanswered probes drop the connection (default 10). */
  serverAliveIntervalS?: number;
}

/**
 * `"master"`: the one long-lived connection (the control-mode client) — it
 * creates the shared socket. `"shared"`: a short-lived client that reuses the
 * master's connection, or connects on its own when there is none.
 */
export type SshRole = "master" | "shared";

/** A bad `--ssh` destination; message is one line. */
export function destinationProblem(dest: string): string | undefined {
  if (dest.length === 0) return "must not be empty";
  if (dest.startsWith("-")) return `"${dest}" starts with "-" (ssh would read it as an option)`;
  if (/[\s\0]/.test(dest)) return `"${dest.replace(/\0/g, "\\0")}" contains whitespace or NUL`;
  return undefined;
}

/**
 * The command line the remote login shell runs: `exec BIN -u [-L name|-S path] ARGS…`,
 * every word but the fixed ones shell-quoted. `exec` lets tmux replace the
 * shell, so signals and stdin EOF reach tmux directly. A `--tmux-bin`
 * starting with `~/` keeps the `~/` unquoted so the remote shell expands it
 * to the remote home.
 *
 * @example
 * ```ts
 * remoteTmuxLine("tmux", { socketName: "w" }, ["-C", "attach"]); // "exec 'tmux' -u -L 'w' '-C' 'attach'"
 * ```
 */
export function remoteTmuxLine(bin: string, socket: SocketSpec, args: readonly TmuxArg[]): string {
  const binWord = bin.startsWith("~/") && bin.length > 2 ? "~/" + shQuote(bin.slice(2)) : shQuote(bin);
  const [flag, value] = socketArgsFor(socket);
  const words = ["exec", binWord, "-u"];
  if (flag !== undefined) words.push(flag, shQuote(value));
  // A separator stays a bare ";" argv element for tmux; any other argument is
  // tmux-escaped (trailing ";") before the shell quoting, as the local executor does.
  for (const a of args) words.push(shQuote(a === COMMAND_SEPARATOR ? ";" : escapeArg(a)));
  return words.join(" ");
}

/** The options every ssh we start gets; `-T`: no terminal, tmux `-C` wants plain pipes. */
function sshOptions(t: SshTarget, role: SshRole): string[] {
  const o = (kv: string) => ["-o", kv];
  return [
    ...(t.configFile ? ["-F", t.configFile] : []),
    "-T",
    // Never prompt (password, passphrase, unknown host key): fail at once with a message.
    ...o("BatchMode=yes"),
    ...o(`ControlMaster=${role === "master" ? "yes" : "no"}`),
    ...o(`ControlPath=${controlSocket(t.controlDir)}`),
    // The master ends with its own session; no background ssh outlives the server.
    ...o("ControlPersist=no"),
    ...o(`ConnectTimeout=${t.connectTimeoutS ?? 10}`),
    ...o(`ServerAliveInterval=${t.serverAliveIntervalS ?? 10}`),
    ...o("ServerAliveCountMax=3"),
    // A user's config may forward ports or set a RemoteCommand for this host; neither belongs on our connection.
    ...o("ClearAllForwardings=yes"),
    ...o("RemoteCommand=none"),
    // Control-mode commands on stdin must never be read as "~." escapes.
    ...o("EscapeChar=none"),
  ];
}

/**
 * The argv of `ssh` that runs `remoteLine` on the target:
 * `ssh [-F cfg] -T -o … DEST -- LINE`.
 */
export function sshArgv(t: SshTarget, role: SshRole, remoteLine: string): string[] {
  const bad = destinationProblem(t.destination);
  if (bad) throw new Error(`--ssh: ${bad}`);
  return [...sshOptions(t, role), t.destination, "--", remoteLine];
}

/** A tmux client on this machine: `BIN -u [-L|-S …] ARGS…` (what the spawn executor runs today). */
export function localLaunch(bin: string, socket: SocketSpec, args: readonly TmuxArg[]): ClientLaunch {
  return {
    command: bin,
    args: ["-u", ...socketArgsFor(socket), ...args.map((a) => a === COMMAND_SEPARATOR ? ";" : escapeArg(a))],
  };
}

/** The same tmux client on the remote host, through `ssh` (see the module doc for roles). */
export function sshLaunch(
  t: SshTarget,
  role: SshRole,
  bin: string,
  socket: SocketSpec,
  args: readonly TmuxArg[],
): ClientLaunch {
  return { command: "ssh", args: sshArgv(t, role, remoteTmuxLine(bin, socket, args)) };
}

/**
 * The connection-sharing socket. One remote host per server process, so a
 * fixed short name serves instead of ssh's 40-character `%C` hash: unix socket
 * paths are limited to 104 bytes on macOS (108 on Linux), ssh first binds a
 * temporary name 17 characters longer, and macOS's TMPDIR alone is ~50.
 */
export function controlSocket(controlDir: string): string {
  return `${controlDir}/m`;
}

/** Longest control directory whose socket (plus ssh's temporary suffix) fits a macOS sun_path. */
const MAX_CONTROL_DIR = 104 - 1 - "/m".length - 17;

/**
 * The private directory for the connection-sharing socket:
 * `${TMPDIR or /tmp}/tmux-mcp-<pid>-ssh`, or under `/tmp` when TMPDIR is too
 * deep for a socket path. The name lets a later start sweep it once `pid` is dead.
 */
export function controlDirPath(pid: number, tmpdir: string | undefined): string {
  const name = `tmux-mcp-${pid}-ssh`;
  const base = (tmpdir || "/tmp").replace(/\/+$/, "");
  const dir = `${base}/${name}`;
  return dir.length <= MAX_CONTROL_DIR ? dir : `/tmp/${name}`;
}

/** Creates (or re-uses) the control directory with mode 0700 and returns its path. */
export async function makeControlDir(
  pid = Deno.pid,
  tmpdir: string | undefined = Deno.env.get("TMPDIR"),
): Promise<string> {
  const dir = controlDirPath(pid, tmpdir);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask and ignored for an existing directory.
  await Deno.chmod(dir, 0o700);
  return dir;
}

/**
 * Removes a master's socket left behind by a master that was killed. Call it
 * before launching a new master: with a stale socket in place `ControlMaster=yes`
 * would quietly connect without sharing.
 */
export async function removeStaleSocket(controlDir: string): Promise<void> {
  await Deno.remove(controlSocket(controlDir)).catch(() => {});
}

export type RemoteErrorKind = "unreachable" | "auth" | "host-key" | "tmux-missing" | "no-server" | "ssh-failed";

/**
 * A failure reaching the remote tmux, with a one-line message that says what
 * to do. It IS a {@linkcode TmuxError} (a missing remote tmux is `"missing"`,
 * no remote server `"no-server"`, the ssh failures `"failed"`), so callers
 * that handle tmux errors need no second case; `remote` says which one.
 */
export class RemoteError extends TmuxError {
  readonly remote: RemoteErrorKind;
  constructor(remote: RemoteErrorKind, message: string, stderr = "") {
    super(remote === "tmux-missing" ? "missing" : remote === "no-server" ? "no-server" : "failed", message, stderr);
    this.name = "RemoteError";
    this.remote = remote;
  }
}

const UNREACHABLE =
  /Connection refused|No route to host|Network is unreachable|Connection timed out|Operation timed out|Could not resolve hostname|Name or service not known|nodename nor servname|Temporary failure in name resolution|Connection reset|Connection closed by|kex_exchange_identification|banner exchange|Broken pipe/i;
const HOST_KEY_CHANGED = /REMOTE HOST IDENTIFICATION HAS CHANGED|POSSIBLE DNS SPOOFING|Host key for .* has changed/;
const HOST_KEY = /Host key verification failed|No (?:ED25519|RSA|ECDSA|DSA)? ?host key is known/i;
const AUTH = /Permission denied \(|Too many authentication failures|no matching host key type|Authentication failed/i;
const NO_SERVER = /no server running|error connecting to|server exited unexpectedly/;
const NOT_FOUND = /not found|No such file or directory|Unknown command/i;

/** The most telling line of ssh's stderr (ssh prints banners and warnings around it). */
function telling(stderr: string, pattern: RegExp): string {
  const lines = stderr.split("\n").map((l) => l.trim()).filter((l) => l.length > 0 && !/^@+$/.test(l));
  const line = lines.find((l) => pattern.test(l)) ?? lines.at(-1) ?? "";
  return line.length > 200 ? line.slice(0, 200) + "…" : line;
}

export interface FailureContext {
  destination: string;
  bin: string;
  socket: SocketSpec;
}

/**
 * Classifies a failed `ssh … tmux …` run. Returns a {@linkcode RemoteError}
 * for the five failures that belong to the remote route (ssh's own exit code
 * 255, a missing remote tmux — exit 127/126 — and tmux's "no server" answer);
 * `undefined` for an ordinary tmux failure, which the caller reports as usual.
 */
export function classifySshFailure(code: number, stderr: string, ctx: FailureContext): RemoteError | undefined {
  const host = `ssh host "${ctx.destination}"`;
  const err = (kind: RemoteErrorKind, pattern: RegExp, say: (line: string) => string) =>
    new RemoteError(kind, say(telling(stderr, pattern)), stderr.trim());
  if (code === 255) {
    if (HOST_KEY_CHANGED.test(stderr)) {
      return err(
        "host-key",
        HOST_KEY_CHANGED,
        () =>
          `the host key of ${host} has CHANGED since it was recorded in known_hosts (possible man-in-the-middle): if the change is expected, remove the old key with \`ssh-keygen -R HOST\` and connect once with \`ssh ${ctx.destination}\``,
      );
    }
    if (HOST_KEY.test(stderr)) {
      return err(
        "host-key",
        HOST_KEY,
        (l) =>
          `the host key of ${host} could not be verified (${l}): connect once with \`ssh ${ctx.destination}\` to confirm and record it (tmux-mcp never answers ssh prompts: BatchMode=yes)`,
      );
    }
    if (AUTH.test(stderr)) {
      return err(
        "auth",
        AUTH,
        (l) =>
          `${host} refused to log us in (${l}): tmux-mcp uses key authentication only (BatchMode=yes, no password prompts) — load the key in ssh-agent or set IdentityFile for the host, and add it to the remote ~/.ssh/authorized_keys`,
      );
    }
    if (UNREACHABLE.test(stderr)) {
      return err(
        "unreachable",
        UNREACHABLE,
        (l) =>
          `cannot reach ${host} (${l}): check that the host is up and sshd listens, and the --ssh destination and --ssh-config`,
      );
    }
    return err(
      "ssh-failed",
      /./,
      (l) => `ssh to ${host} failed (${l || "exit code 255"}): try \`ssh ${ctx.destination} true\` to see why`,
    );
  }
  if ((code === 127 || code === 126) && (NOT_FOUND.test(stderr) || code === 127)) {
    return err(
      "tmux-missing",
      NOT_FOUND,
      (l) =>
        `tmux is not installed or not on the PATH of ${host} (${l}): install it there, or pass --tmux-bin with its absolute path on that host (non-interactive ssh sessions get a short PATH)`,
    );
  }
  if (NO_SERVER.test(stderr)) {
    const socketArgs = socketArgsFor(ctx.socket);
    const where = socketArgs.length > 0 ? shellLine(socketArgs) : "the default socket";
    const start = shellLine([ctx.bin, ...socketArgs, "new-session", "-d"]);
    return err(
      "no-server",
      NO_SERVER,
      (l) =>
        `no tmux server is running on ${host} at ${where} (${l}): start one there (\`${start}\`) or point --socket-name/--socket-path at a running one`,
    );
  }
  return undefined;
}
