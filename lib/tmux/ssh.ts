/**
 * Reaching a remote host's tmux over OpenSSH (`--ssh`; the server
 * builds its engine on this launcher): a launcher that starts tmux clients through `ssh`, the one
 * function that builds the remote command line, and what ssh's failures mean.
 *
 * Connection. {@linkcode createSshLauncher} keeps ONE ssh connection per host:
 * a master process (`ControlMaster=yes`, socket in a private 0700 directory)
 * whose remote command only waits for EOF on its stdin. Every tmux client —
 * the control-mode connection, output subscribers, spawned fallback commands —
 * is a `ControlMaster=no` client of that connection: no new handshake, and the
 * engine may close and reopen its control client without touching SSH. The
 * master lives as long as our pipe to its stdin: when the server dies (even
 * by SIGKILL) every pipe it held closes, the remote `cat` and each `tmux -C`
 * see EOF and exit, and ssh exits with its last session (`ControlPersist=no`).
 * A `tmux -C` that tmux still owes output does not exit on EOF (see
 * lib/tmux/launcher.ts), and its open session would keep the master: so on
 * Linux the master and persistent clients' ssh get a parent-death signal, and
 * where the master found `setpriv` on the host the remote `tmux -C` gets one
 * too (its parent is the `sshd` of the connection). Tested with a SIGKILLed
 * parent, also with output owed: no ssh, remote client or socket left. A dropped master is
 * restarted by the next spawn; until it is up, clients connect on their own.
 * sshd allows `MaxSessions` (default 10) sessions per connection, the
 * master's own included: a client beyond that is refused by the master and
 * ssh quietly makes its own connection (a full handshake, still correct), so
 * keep concurrent clients (spawns + control clients) at 9 or fewer.
 *
 * What travels where. The command line ssh hands to the remote login shell is
 * built by {@linkcode remoteTmuxLine} alone: fixed words (`exec`, `-u`, `-L`/`-S`)
 * plus `--tmux-bin`, the socket flag and the tmux argv, each quoted by
 * {@linkcode shQuote}. For the control connection that argv is fixed words
 * (`-C attach-session …`): tool commands travel over the connection's stdin in
 * tmux command syntax, quoted by the control-mode engine, and no value a model
 * sends is on the line. A spawned fallback client is the one exception: its
 * tmux arguments (which may come from a model) ARE on the remote line — already
 * tmux-escaped by the engine, then shell-quoted here, every element — which
 * `tests/ssh_test.ts` checks byte-exact through `sh -c`, dash, bash, zsh, fish
 * and a real sshd with hostile values. csh/tcsh login shells are not supported.
 *
 * What the login prints. sshd runs that line through the user's login shell,
 * whose rc files may print (a MOTD, an `echo`). Every client's line first
 * prints a fresh random sentinel on stdout and stderr (the master's prints
 * one with its ready word), and nothing before a sentinel is taken as tmux's
 * (lib/tmux/login_frame.ts): the answers stay byte-exact, and the log and
 * server-info say once that the login prints. A login that ends before tmux
 * starts is an error, never an empty answer.
 *
 * How long a start may take. One setting, `--connect-timeout-ms`, bounds
 * the master's start (TCP connect, handshake, the login's rc files) and each
 * spawned client's login; a call's own timeout counts from the moment tmux
 * runs. The waits say on stderr that they are still waiting, and a start
 * that gives up says the machine or the login is slow.
 *
 * @example
 * ```ts
 * const target: SshTarget = { destination: "devbox", controlDir: await makeControlDir() };
 * const launcher = createSshLauncher(target, "tmux", { socketName: "work" });
 * await launcher.ready(); // one login
 * const ctl = launcher.spawn(["-C", "attach-session"], { stdin: "piped" });
 * ```
 */
import { socketArgsFor, type SocketSpec, TmuxError } from "./executor.ts";
import {
  attachArgs,
  type LaunchOptions,
  type LoginWait,
  PARENT_DEATH_PREFIX,
  processStarter,
  startServerLine,
} from "./launcher.ts";
import { homeWord, shellLine, shQuote } from "./quote.ts";
import { ownUid } from "../host/process.ts";
import { framedChild, loginStarted, newSentinel, remotePid } from "./login_frame.ts";
import { CONNECT_TIMEOUT_MS, slowLine, waitingNotice } from "./connect_wait.ts";
import { log } from "../log.ts";

/** How to reach the remote host: the `--ssh` / `--ssh-config` settings plus our private socket directory. */
export interface SshTarget {
  /** Anything ssh takes as a destination: `user@host`, a `Host` alias, `ssh://user@host:port`. */
  destination: string;
  /** `--ssh-config FILE`, passed as `ssh -F FILE`. */
  configFile?: string;
  /** Private 0700 directory holding the connection-sharing socket ({@linkcode makeControlDir}). */
  controlDir: string;
  /**
   * `--connect-timeout-ms`: how long a connection may take to start, from the TCP connect through the login's rc
   * files to the master's first word (default {@linkcode CONNECT_TIMEOUT_MS}).
   */
  connectTimeoutMs?: number;
  /** Seconds between keep-alive probes; three unanswered probes drop the connection (default 10). */
  serverAliveIntervalS?: number;
  /** The host's socket is its own setting (`,socket-name=` after the destination), for what errors advise. */
  ownSocket?: boolean;
}

/**
 * `"master"`: the one long-lived connection — it creates the shared socket.
 * `"shared"`: a tmux client that rides the master's connection, or connects
 * on its own when there is none.
 * `"alone"`: a connection of its own that shares nothing (`doctor`'s probe).
 */
export type SshRole = "master" | "shared" | "alone";

/** A bad `--ssh` destination; message is one line. */
export function destinationProblem(dest: string): string | undefined {
  if (dest.length === 0) return "must not be empty";
  if (dest.startsWith("-")) return `"${dest}" starts with "-" (ssh would read it as an option)`;
  if (/[\s\0]/.test(dest)) return `"${dest.replace(/\0/g, "\\0")}" contains whitespace or NUL`;
  // The host after a user@ or ssh:// is no option either: ssh refuses it only once a call is made, in words of its own.
  const host = dest.replace(/^ssh:\/\//, "").replace(/^.*@/, "").replace(/^\[/, "");
  if (host.startsWith("-")) return `"${dest}": its host "${host}" starts with "-" (ssh would read it as an option)`;
  if (host === "") return `"${dest}" names no host: give [USER@]HOST, a Host alias of the ssh config, or ssh://…`;
  return undefined;
}

/**
 * The command line the remote login shell runs: `exec BIN -u [-L name|-S path] ARGS…`,
 * every word but the fixed ones shell-quoted. With a `sentinel`
 * (lib/tmux/login_frame.ts), the line first prints it on stdout and on
 * stderr, so the reader can tell what the login's rc files printed from what
 * tmux prints: `echo S; echo S >&2; exec …` (read the same by sh, bash, zsh
 * and fish; the sentinel is letters, digits and `-`, quoted all the same).
 * `reportPid` (a persistent client) has `sh` print its pid on the line after the stdout
 * sentinel, then exec tmux, which keeps that pid: the process to signal when the client's channel ends
 * while tmux still holds the client (see {@linkcode createSshLauncher}). `sh` because fish has no `$$`; the
 * words after the script are its `"$@"`, the same words, quoted the same way.
 * `args` is tmux's argv exactly as a local tmux would get it (the engine has already escaped a trailing
 * ";"), so this function adds shell quoting and nothing else. `exec` lets tmux
 * replace the shell, so stdin EOF and signals reach tmux directly. `tied`
 * (a persistent client, on a host with `setpriv`) starts tmux with SIGTERM as
 * its parent-death signal: it then ends when the SSH connection does (see
 * lib/tmux/launcher.ts for why the EOF is not always enough). A
 * `--tmux-bin` starting with `~/` keeps the `~/` unquoted so the remote shell
 * expands it to the remote home.
 *
 * @example
 * ```ts
 * remoteTmuxLine("tmux", { socketName: "w" }, ["-C", "attach"]); // "exec 'tmux' -u -L 'w' '-C' 'attach'"
 * ```
 */
export function remoteTmuxLine(
  bin: string,
  socket: SocketSpec,
  args: readonly string[],
  tied = false,
  sentinel?: string,
  reportPid = false,
): string {
  const [flag, value] = socketArgsFor(socket);
  const words = ["exec", ...(reportPid ? PID_PREFIX : []), ...(tied ? PARENT_DEATH_PREFIX : []), homeWord(bin), "-u"];
  if (flag !== undefined) words.push(flag, shQuote(value));
  for (const a of args) words.push(shQuote(a));
  const marks = sentinel === undefined ? "" : `echo ${shQuote(sentinel)}; echo ${shQuote(sentinel)} >&2; `;
  return marks + words.join(" ");
}

/** Fixed words in front of a command that print the pid it will run as, then exec it (fish has no `$$`). */
const PID_PREFIX = ["sh", "-c", `'echo $$; exec "$@"'`, "sh"];

/** The options every ssh we start gets; `-T`: no terminal, tmux `-C` wants plain pipes. */
function sshOptions(t: SshTarget, role: SshRole): string[] {
  const o = (kv: string) => ["-o", kv];
  return [
    ...(t.configFile ? ["-F", t.configFile] : []),
    "-T",
    // Never prompt (password, passphrase, unknown host key): fail at once with a message.
    ...o("BatchMode=yes"),
    ...o(`ControlMaster=${role === "master" ? "yes" : "no"}`),
    ...o(`ControlPath=${role === "alone" ? "none" : controlSocket(t.controlDir)}`),
    // The master ends with its own session; no background ssh outlives the server.
    ...o("ControlPersist=no"),
    // ssh's own bound (TCP connect and handshake) is the same setting; the login's rc files are bounded by the caller.
    ...o(`ConnectTimeout=${Math.ceil((t.connectTimeoutMs ?? CONNECT_TIMEOUT_MS) / 1000)}`),
    ...o(`ServerAliveInterval=${t.serverAliveIntervalS ?? 10}`),
    ...o("ServerAliveCountMax=3"),
    // A user's config may forward ports, the agent or X11, or set a RemoteCommand for this host; none belongs on our
    // connection: it lives as long as the server, and the sessions it creates take its environment (SSH_AUTH_SOCK), so
    // a forwarded agent would hand the user's keys to every pane a model opens there.
    ...o("ClearAllForwardings=yes"),
    ...o("ForwardAgent=no"),
    ...o("ForwardX11=no"),
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

/**
 * The master's remote command, fixed words and the `sentinel` only: say
 * "SENTINEL tied|untied" once the session is open (the sharing socket exists
 * by then) — whether the host's `setpriv` can tie a client's life to the
 * connection's — then wait for stdin's EOF, which comes when we close it or
 * die, and end the session with it. What the login printed before the
 * sentinel is noise (lib/tmux/login_frame.ts). (`&&`, `||` and `2>` read the
 * same in sh, bash, zsh and fish 3; `env` runs setpriv because fish drops the
 * rest of an `&&`/`||` list after an unknown command.)
 */
export function masterLine(sentinel: string): string {
  const s = shQuote(sentinel);
  return `env ${PARENT_DEATH_PREFIX.join(" ")} true 2>/dev/null && echo ${s} tied || ` +
    `echo ${s} untied; exec cat >/dev/null`;
}

/** Where the master's ready line is in `text`: the noise before it, and whether setpriv ties clients. */
export function masterReady(text: string, sentinel: string): { noise: string; tied: boolean } | undefined {
  for (const word of ["tied", "untied"]) {
    const at = text.indexOf(`${sentinel} ${word}\n`);
    if (at >= 0) return { noise: text.slice(0, at), tied: word === "tied" };
  }
  return undefined;
}

/**
 * The question a login left on `text` when it stopped: its last line, unfinished (a prompt waits on the line it
 * printed, `Continue? [y/N] `); undefined when the text ends with a line break or is blank.
 */
export function promptOf(text: string): string | undefined {
  if (text.endsWith("\n")) return undefined;
  const line = text.slice(text.lastIndexOf("\n") + 1).trim();
  if (line === "") return undefined;
  return line.length > 80 ? "…" + line.slice(-80) : line;
}

/** What a login that prints on a channel is told (once per launcher, in the log and in server-info). */
export function loginNoiseNote(destination: string, stream: "stdout" | "stderr", sample: string): string {
  const shown = JSON.stringify(sample.length > 60 ? sample.slice(0, 60) + "…" : sample);
  return `the remote login on ssh host "${destination}" prints text before tmux starts (on ${stream}: ${shown}): ` +
    "tmux-mcp skips it, but make ~/.bashrc (or ~/.zshenv, fish's config) quiet for non-interactive shells";
}

/** What the server's launcher seam needs from a remote host (the engine's `TmuxLauncher` shape, plus lifecycle). */
export interface SshLauncher {
  readonly socket: SocketSpec;
  /** The argv prefix that selects the socket, for messages such as `tmux -L x attach`. */
  readonly socketArgs: readonly string[];
  /** The remote tmux binary (for messages). */
  readonly bin: string;
  /** The destination, for server-info and messages. */
  readonly destination: string;
  /** `ssh -t [-F FILE] DEST 'tmux -S SOCKET attach-session -t TARGET'`: how a person attaches to `target`. */
  attachLine(socket: string, target: string): string;
  /**
   * Starts `tmux ARGS` on the remote host as a client of the shared
   * connection (`args` already tmux-escaped, as the local launcher takes
   * them). Also (re)starts the shared connection in the background when it is
   * down, so a dropped connection heals on the next call.
   */
  spawn(args: readonly string[], opts: LaunchOptions): Deno.ChildProcess;
  /** Resolves once the shared connection is up, starting it if needed; rejects with a {@linkcode RemoteError}. */
  ready(): Promise<void>;
  /** Our error for a client that exited with `code` and `stderr`, or `undefined` for an ordinary tmux failure. */
  classify(code: number, stderr: string): RemoteError | undefined;
  /** Ends the shared connection; ssh exits once the clients still riding it have ended (close those first). */
  close(): Promise<void>;
  /** The login before tmux in `child` (one of ours): when it ends, and its bound. */
  login(child: Deno.ChildProcess): LoginWait | undefined;
  /** The note about a login that prints before tmux starts, once one was seen. */
  readonly loginNote: string | undefined;
  /** True while the shared connection is starting (ssh connects, the login's rc files run) or a channel's login runs. */
  readonly loggingIn: boolean;
}

/**
 * A launcher for the tmux of `target.destination`. One ssh process is the
 * connection master (`ControlMaster=yes`) with a fixed remote command that
 * only waits for EOF on its stdin, so the connection's life is independent
 * of any tmux client's: the engine may close and reopen its control-mode
 * client (idle time, tmux server restarts) without a new SSH handshake, and
 * every client — control-mode or spawned — is a `ControlMaster=no` client of
 * the same connection. The master ends when {@linkcode SshLauncher.close} is
 * called or our process dies (its stdin pipe closes).
 *
 * @example
 * ```ts
 * const l = createSshLauncher({ destination: "devbox", controlDir: await makeControlDir() }, "tmux", {});
 * await l.ready();
 * const child = l.spawn(["-C", "attach-session"], { stdin: "piped" });
 * ```
 */
export function createSshLauncher(target: SshTarget, bin: string, socket: SocketSpec): SshLauncher {
  const spec: SocketSpec = { socketName: socket.socketName, socketPath: socket.socketPath };
  const ctx: FailureContext = {
    destination: target.destination,
    bin,
    socket: spec,
    configFile: target.configFile,
    ownSocket: target.ownSocket,
  };
  const limitMs = target.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  let master: { up: Promise<void>; starting: boolean; end(): Promise<void> } | undefined;
  // Our ssh processes that must end with us (the master, persistent clients' ssh) get a parent-death signal here;
  // a persistent client's remote tmux gets one there when the last master found `setpriv` on the host.
  const start = processStarter();
  let remoteTied = false;
  let loginNote: string | undefined;
  /**
   * Every channel runs the login's rc files again, not only the master's: the channels whose login has not ended,
   * and the longest login seen here. A channel counts as logging in for half as long again as that (a machine's
   * load varies); past it, as soon on a host whose logins are quick, it is stalled (a stopped host never ends a
   * channel's login).
   */
  const channelLogins = new Set<{ at: number }>();
  let longestLoginMs = 0;
  const loginTook = (since: number) => longestLoginMs = Math.max(longestLoginMs, performance.now() - since);
  /** Says once that the login prints: the answers are still right (the sentinel frames them), the setup is not. */
  const noticeNoise = (stream: "stdout" | "stderr", text: string) => {
    if (loginNote !== undefined || text.trim() === "") return;
    loginNote = loginNoiseNote(target.destination, stream, text.trim());
    log("warn", loginNote);
  };
  const hooks = {
    // Only stdout's noise is surely the login's: ssh itself writes its warnings on the same stderr (a refused
    // shared session, a host key added). Either way it is not given to the reader as tmux's.
    noise: (stream: "stdout" | "stderr", bytes: Uint8Array) => {
      if (stream === "stdout") noticeNoise(stream, new TextDecoder().decode(bytes));
    },
    noTmux: (stderr: string) =>
      new RemoteError(
        "login",
        `the login shell on ssh host "${target.destination}" ended before tmux started${
          stderr.trim() ? ` (${telling(stderr, /./)})` : ""
        }: an rc file exits or fails; see what it does with \`${sshHint(ctx, "true")}\``,
        stderr.trim(),
      ),
  };

  /** Starts the master; `master` is set at once, so concurrent callers share one start. */
  const startMaster = () => {
    let child: Deno.ChildProcess | undefined;
    /** Ended (the server exits) before the connection was up: its login is not waited for. */
    let dropped = false;
    const gone = () =>
      new RemoteError("ssh-failed", `the connection to ssh host "${target.destination}" was closed while it started`);
    const current = {
      starting: true,
      up: (async () => {
        // Made here, not by the caller: the server builds its services synchronously, and a swept or
        // removed directory is made again on the next start.
        await ensureControlDir(target.controlDir);
        // A master killed outright leaves its socket; with it in place ControlMaster=yes would not share.
        await removeStaleSocket(target.controlDir);
        if (dropped) throw gone();
        const sentinel = newSentinel();
        const startedAt = performance.now();
        // Its own process group: a terminal's Ctrl-C to the server's group must not cut the connection
        // under calls the server is still finishing. The stdin pipe, not a signal, ends it.
        const c = child = start(["ssh", ...sshArgv(target, "master", masterLine(sentinel))], {
          stdin: "piped",
          detached: true,
          persistent: true,
        });
        c.status.then(() => {
          if (master === current) master = undefined;
        });
        // ssh's ConnectTimeout bounds the connect and the handshake, not a login shell slow in its rc files:
        // the whole start is bounded by the one setting, with a word every few seconds while it lasts.
        const limit = AbortSignal.timeout(limitMs);
        const stop = () => c.kill("SIGTERM");
        limit.addEventListener("abort", stop, { once: true });
        const quiet = waitingNotice(`ssh host "${target.destination}" to start a session`, limitMs);
        const stderr = new Response(c.stderr).text();
        const reader = c.stdout.pipeThrough(new TextDecoderStream()).getReader();
        let seen = "";
        let ready: ReturnType<typeof masterReady>;
        try {
          while (!(ready = masterReady(seen, sentinel))) {
            const { value, done } = await reader.read();
            if (done) {
              const status = await c.status;
              const text = await stderr;
              if (dropped) throw gone();
              if (limit.aborted) {
                const asks = promptOf(seen) ?? promptOf(text);
                const what = `ssh host "${target.destination}" did not start a session`;
                throw new RemoteError(
                  "slow",
                  (asks === undefined ? slowLine(what, limitMs, "login") : `${what}: its login stopped at a prompt ` +
                    `(${JSON.stringify(asks)}), which tmux-mcp never answers: make the rc files ask nothing when ` +
                    `not interactive (a login only slow: raise --connect-timeout-ms, now ${limitMs})`) +
                    ` (see what the login does with \`${sshHint(ctx, "true")}\`)`,
                  text.trim(),
                );
              }
              // 255 is ssh's own failure; any other end before the ready line is the login shell's.
              if (status.code !== 255) throw hooks.noTmux(text);
              throw classifySshFailure(255, text, ctx) ??
                new RemoteError(
                  "ssh-failed",
                  `ssh to ssh host "${target.destination}" ended at once${
                    text.trim() ? ` (${telling(text, /./)})` : ""
                  }: see why with \`${sshHint(ctx, "true")}\``,
                  text.trim(),
                );
            }
            seen += value;
            // A login printing without end is no master; the limit ends it.
            if (seen.length > 1024 * 1024) seen = seen.slice(-4096);
          }
        } finally {
          limit.removeEventListener("abort", stop);
          quiet();
        }
        remoteTied = ready.tied;
        loginTook(startedAt);
        noticeNoise("stdout", ready.noise);
        // Nothing more is expected on stdout; keep reading so the pipe can never fill.
        void (async () => {
          while (!(await reader.read()).done) { /* drain */ }
        })().catch(() => {});
      })(),
      async end() {
        // A login still running (rc files, a prompt) has nothing to finish: the server's exit does not wait for it.
        if (current.starting) {
          dropped = true;
          try {
            child?.kill("SIGTERM");
          } catch { /* it has just ended */ }
        }
        await current.up.catch(() => {});
        if (!child) return;
        await child.stdin.close().catch(() => {});
        await child.status;
      },
    };
    current.up.catch(() => {
      if (master === current) master = undefined;
    }).finally(() => current.starting = false);
    master = current;
    return current;
  };

  const ready = (): Promise<void> => (master ?? startMaster()).up;

  /**
   * A persistent client's remote tmux ends when our ssh client for it is killed (by us at a call's
   * deadline, or by anyone). Its channel then ends, but tmux keeps a control client it still owes output
   * (a stopped tmux owes it the replies it did not write; sshd no longer reads them), and no parent-death
   * signal fires: the sshd session process lives on. So the client is sent SIGTERM over the connection, by
   * the pid its line printed. A stopped tmux does not stop its clients: the client at once asks the server
   * to let it go, and goes once the server runs again. The pid is still the client's: a client that ends on
   * its own makes our ssh client exit with a status, not a signal, so only one that ended in the instant
   * before our kill could have left its pid free, and pids are not handed out again that fast. The kill's
   * own login is bounded like every other.
   */
  const endWithChannel = (child: Deno.ChildProcess) => {
    void child.status.then(async (status) => {
      if (status.signal === null) return;
      const pid = await Promise.race([remotePid(child), undefined]);
      if (pid === undefined) return;
      try {
        const kill = start(["ssh", ...sshArgv(target, "shared", `kill -TERM ${pid}`)], { stdin: "null" });
        const bound = setTimeout(() => kill.kill("SIGTERM"), limitMs);
        await kill.output().finally(() => clearTimeout(bound));
      } catch (e) {
        log("warn", `could not end remote tmux client ${pid} on ssh host "${target.destination}": ${e}`);
      }
    });
  };

  return {
    socket: spec,
    socketArgs: socketArgsFor(spec),
    bin,
    destination: target.destination,
    // -t: the person's terminal reaches the remote tmux client; -F as the server's own ssh runs get it. The remote
    // line's tmux is the word the server's own lines use (a `~/` path is expanded there).
    attachLine: (socket, paneTarget) =>
      shellLine([
        "ssh",
        "-t",
        ...(target.configFile ? ["-F", target.configFile] : []),
        target.destination,
        `${homeWord(bin, (w) => shellLine([w]))} ${shellLine(attachArgs(socket, paneTarget))}`,
      ]),
    spawn(args, opts) {
      if (!master) void ready().catch(() => {}); // heal in the background; this client connects on its own meanwhile
      // A fresh sentinel per client: nothing a login printed before can pass for it.
      const sentinel = newSentinel();
      const persistent = opts.persistent === true;
      const line = remoteTmuxLine(bin, spec, args, persistent && remoteTied, sentinel, persistent);
      const child = framedChild(start(["ssh", ...sshArgv(target, "shared", line)], opts), sentinel, hooks, persistent);
      if (persistent) endWithChannel(child);
      const login = { at: performance.now() };
      channelLogins.add(login);
      void loginStarted(child)?.then(() => loginTook(login.at));
      const over = () => channelLogins.delete(login);
      void Promise.race([loginStarted(child), child.status]).then(over, over);
      return child;
    },
    ready,
    classify: (code, stderr) => classifySshFailure(code, stderr, ctx),
    login(child) {
      const started = loginStarted(child);
      return started && { started, limitMs, where: `ssh host "${target.destination}"` };
    },
    get loginNote() {
      return loginNote;
    },
    get loggingIn() {
      const now = performance.now();
      return master?.starting === true || [...channelLogins].some((l) => now - l.at < 1.5 * longestLoginMs);
    },
    async close() {
      const m = master;
      master = undefined;
      await m?.end();
    },
  };
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
 * What ssh reads of a `ControlPath` as written: a space ends the value, `%x` and `${X}` are expanded, quotes are
 * removed. A directory with anything else is not passed to ssh.
 */
const PLAIN_PATH = /^[A-Za-z0-9_.\/+,@:-]+$/;

/**
 * The private directory for the connection-sharing socket:
 * `${TMPDIR or /tmp}/tmux-mcp-<pid>-ssh` (`-sshN` for the server's host N > 0), or under `/tmp` when TMPDIR is too
 * deep for a socket path or holds characters ssh would read in a `ControlPath` (a space, `%`, `$`, quotes). The
 * name lets a later start sweep it once `pid` is dead.
 */
export function controlDirPath(pid: number, tmpdir: string | undefined, host = 0): string {
  const name = `tmux-mcp-${pid}-ssh${host === 0 ? "" : host}`;
  const base = (tmpdir || "/tmp").replace(/\/+$/, "");
  const dir = `${base}/${name}`;
  return dir.length <= MAX_CONTROL_DIR && PLAIN_PATH.test(dir) ? dir : `/tmp/${name}`;
}

/**
 * Creates (or re-uses) the control directory with mode 0700 and returns its
 * path. The name is predictable and /tmp is shared, so an existing entry is
 * used only if it is a real directory (not a symlink) owned by us; anything
 * else is an error rather than a socket in someone else's directory.
 */
export function makeControlDir(
  pid = Deno.pid,
  tmpdir: string | undefined = Deno.env.get("TMPDIR"),
): Promise<string> {
  return ensureControlDir(controlDirPath(pid, tmpdir));
}

/** {@linkcode makeControlDir} for a given path (the launcher runs it before each master start). */
export async function ensureControlDir(dir: string): Promise<string> {
  try {
    await Deno.mkdir(dir, { mode: 0o700 });
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    const info = await Deno.lstat(dir);
    if (!info.isDirectory || info.isSymlink || (info.uid !== null && info.uid !== await ownUid())) {
      throw new Error(`${dir} exists and is not a directory of ours: remove it, or set TMPDIR to a private directory`);
    }
  }
  // mkdir's mode is filtered by the umask and ignored for an existing directory.
  await Deno.chmod(dir, 0o700);
  return dir;
}

/**
 * Removes a master's socket left behind by a master that was killed (nothing
 * accepts on it). Call it before launching a new master: with a stale socket
 * in place `ControlMaster=yes` would quietly connect without sharing. Returns
 * true when a live master answers on the socket (then it is left alone).
 */
export async function removeStaleSocket(controlDir: string): Promise<boolean> {
  const path = controlSocket(controlDir);
  try {
    (await Deno.connect({ transport: "unix", path })).close();
    return true;
  } catch {
    await Deno.remove(path).catch(() => {});
    return false;
  }
}

/**
 * `"login"`: the login shell ended without starting tmux; `"slow"`: the connection or the login did not get as far
 * as tmux within `--connect-timeout-ms`.
 */
export type RemoteErrorKind =
  | "unreachable"
  | "auth"
  | "host-key"
  | "tmux-missing"
  | "no-server"
  | "ssh-failed"
  | "login"
  | "slow";

/**
 * A failure reaching the remote tmux, with a one-line message that says what
 * to do. It IS a {@linkcode TmuxError} (a missing remote tmux is `"missing"`,
 * no remote server `"no-server"`, the ssh failures `"failed"`), so callers
 * that handle tmux errors need no second case; `remote` says which one.
 */
export class RemoteError extends TmuxError {
  readonly remote: RemoteErrorKind;
  constructor(remote: RemoteErrorKind, message: string, stderr = "") {
    super(
      remote === "tmux-missing"
        ? "missing"
        : remote === "no-server"
        ? "no-server"
        : remote === "slow"
        ? "timeout"
        : "failed",
      message,
      stderr,
    );
    this.name = "RemoteError";
    this.remote = remote;
  }
}

const UNREACHABLE =
  /Connection refused|No route to host|Network is unreachable|Connection timed out|Operation timed out|Could not resolve hostname|Name or service not known|nodename nor servname|Temporary failure in name resolution|Connection reset|Connection closed by|kex_exchange_identification|banner exchange|Broken pipe/i;
const HOST_KEY_CHANGED = /REMOTE HOST IDENTIFICATION HAS CHANGED|POSSIBLE DNS SPOOFING|Host key for .* has changed/;
const HOST_KEY = /Host key verification failed|No (?:ED25519|RSA|ECDSA|DSA)? ?host key is known/i;
const AUTH = /Permission denied \(|Too many authentication failures|Authentication failed/i;
/** No host key type, key exchange, cipher or MAC both sides accept: nobody's key is wrong. */
const NEGOTIATION = /Unable to negotiate|no matching (?:host key type|key exchange method|cipher|MAC)/i;
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
  /** `--ssh-config`, so that a hint's ssh command line is the one the server runs. */
  configFile?: string;
  /** The host's socket is its own setting (after its destination), which wins over the server's flags. */
  ownSocket?: boolean;
}

/** Where a host's socket is set: its own setting when it has one (the server's flags do not reach it then). */
export function socketSetting(own: boolean): string {
  return own ? "its ,socket-name=NAME or ,socket-path=PATH after the destination" : "--socket-name or --socket-path";
}

/**
 * An ssh command line for a person to try, reaching the host the way the server does (`-F FILE` when the server
 * was given one; the destination carries user and port): `ssh -F cfg devbox true`.
 */
export function sshHint(ctx: Pick<FailureContext, "destination" | "configFile">, ...command: string[]): string {
  return shellLine(["ssh", ...(ctx.configFile ? ["-F", ctx.configFile] : []), ctx.destination, ...command]);
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
          `the host key of ${host} has CHANGED since it was recorded in known_hosts (possible man-in-the-middle): if the change is expected, remove the old key with \`ssh-keygen -R HOST\` and connect once with \`${
            sshHint(ctx)
          }\``,
      );
    }
    if (HOST_KEY.test(stderr)) {
      return err(
        "host-key",
        HOST_KEY,
        (l) =>
          `the host key of ${host} could not be verified (${l}): connect once with \`${
            sshHint(ctx)
          }\` to confirm and record it (tmux-mcp never answers ssh prompts: BatchMode=yes)`,
      );
    }
    if (NEGOTIATION.test(stderr)) {
      return err(
        "ssh-failed",
        NEGOTIATION,
        (l) =>
          `${host} and ssh agree on no algorithm (${l}): allow what the host offers for it in the ssh config (e.g. \`HostKeyAlgorithms +ssh-rsa\`, \`KexAlgorithms +…\` for an old sshd) or update the host's sshd`,
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
      (l) => `ssh to ${host} failed (${l || "exit code 255"}): try \`${sshHint(ctx, "true")}\` to see why`,
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
    const start = startServerLine(ctx.bin, ctx.socket);
    return err(
      "no-server",
      NO_SERVER,
      (l) =>
        `no tmux server is running on ${host} at ${where} (${l}): start one there (\`${start}\`) or point ${
          socketSetting(ctx.ownSocket === true)
        } at a running one`,
    );
  }
  return undefined;
}
