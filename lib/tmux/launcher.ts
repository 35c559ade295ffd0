/**
 * How a tmux client process is started: the one place that knows the argv.
 *
 * Every tmux client the server runs — a spawned command, the persistent
 * control-mode connection, a pane-output subscriber (lib/tmux/engine.ts owns
 * them all) — is started by a {@linkcode TmuxLauncher}. Locally that is
 * `tmux -u [-L name|-S path] ARGS…`; a remote host will be a launcher that
 * wraps the same words in `ssh … host -- 'tmux -C …'`, with no change to the
 * protocol code that talks to the client.
 *
 * @example
 * ```ts
 * const launcher = localLauncher("tmux", { socketName: "work" });
 * const child = launcher.spawn(["-C", "attach-session"], { stdin: "piped" });
 * ```
 */

import type { TmuxError } from "./executor.ts";
import { shellLine } from "./quote.ts";

/** Where the tmux server lives: `-L name`, `-S path`, or the user's default. */
export interface SocketSpec {
  socketName?: string;
  socketPath?: string;
}

export interface LaunchOptions {
  /** "piped" for a control-mode client or stdin content, "null" otherwise. */
  stdin: "piped" | "null";
  /** Own process group, so a kill reaches everything a wrapper script started. */
  detached?: boolean;
  /**
   * A client that lives as long as we do (a control client): it must end with
   * this process, even a SIGKILLed one (see {@linkcode localLauncher}).
   */
  persistent?: boolean;
}

/** Starts tmux client processes for one tmux server. */
export interface TmuxLauncher {
  readonly socket: SocketSpec;
  /** The argv prefix that selects the socket, for messages such as `tmux -L x attach`. */
  readonly socketArgs: readonly string[];
  /** The program started (for error messages). */
  readonly bin: string;
  /**
   * Starts `tmux ARGS` with stdout and stderr piped. Throws what
   * `Deno.Command.spawn` throws (NotFound, PermissionDenied).
   */
  spawn(args: readonly string[], opts: LaunchOptions): Deno.ChildProcess;
  /** The ssh destination when tmux runs on another host (lib/tmux/ssh.ts); undefined for this machine. */
  readonly destination?: string;
  /**
   * The shell command a person runs to attach to `target` on this tmux server, whose socket tmux reports as
   * `socket`: the host's tmux, reached the way the server reaches it (ssh with a terminal for a remote host).
   */
  attachLine(socket: string, target: string): string;
  /** Resolves once clients can be started (a remote host's shared connection is up); rejects with a TmuxError. */
  ready?(): Promise<void>;
  /** A remote route's own error for a client that exited with `code` and `stderr`, else undefined. */
  classify?(code: number, stderr: string): TmuxError | undefined;
  /** Ends what the launcher itself holds (a remote host's connection), after every client has ended. */
  close?(): Promise<void>;
  /** What a remote login printed before tmux started, as one line saying what to fix (once seen). */
  readonly loginNote?: string;
  /** True while a remote host's login runs, its connection's or a channel's (bounded by --connect-timeout-ms). */
  readonly loggingIn?: boolean;
  /**
   * The login that runs before tmux in `child` (a remote host's login shell), or undefined when tmux starts
   * at once: a call's own timeout counts from the login's end, the login has its own bound.
   */
  login?(child: Deno.ChildProcess): LoginWait | undefined;
}

/** A client's login before tmux starts ({@linkcode TmuxLauncher.login}). */
export interface LoginWait {
  /** Resolves once tmux runs; stays pending if it never does (the child ends, or is killed). */
  started: Promise<void>;
  /** How long the login may take (`--connect-timeout-ms`). */
  limitMs: number;
  /** Where, for messages: `ssh host "devbox"`. */
  where: string;
}

/** The argv prefix for a socket spec (`-S` wins over `-L`, as in tmux). */
export function socketArgsFor(socket: SocketSpec): string[] {
  if (socket.socketPath) return ["-S", socket.socketPath];
  if (socket.socketName) return ["-L", socket.socketName];
  return [];
}

/** `BIN [-L NAME | -S PATH] new-session -d` as a shell line: what a person runs to start a server on `socket`. */
export function startServerLine(bin: string, socket: SocketSpec): string {
  return shellLine([bin, ...socketArgsFor(socket), "new-session", "-d"]);
}

/** Human description of the socket for error messages. */
export function describeSocket(socket: SocketSpec): string {
  if (socket.socketPath) return `socket path "${socket.socketPath}"`;
  if (socket.socketName) return `socket name "${socket.socketName}"`;
  return "the default socket";
}

/**
 * Runs the tmux binary `bin` on this machine.
 *
 * A persistent client is started under `setpriv --pdeathsig TERM` where
 * there is one (Linux, util-linux 2.33 or later), so the kernel sends it
 * SIGTERM when we end. Closing its stdin is not always enough: tmux (up to
 * 3.7c at least; tmux/tmux#5444) lets a control client go only once the
 * output it queued for it is written, and after our end it never can be:
 * a client that was owed output when we were SIGKILLed (a pane's `%output`,
 * another client leaving) stayed forever, counted as attached. A client's
 * SIGTERM makes it leave without that wait. Elsewhere (macOS) the stdin EOF
 * is all there is.
 */
export function localLauncher(bin: string, socket: SocketSpec): TmuxLauncher {
  const spec: SocketSpec = { socketName: socket.socketName, socketPath: socket.socketPath };
  const socketArgs = socketArgsFor(spec);
  const start = processStarter();
  return {
    socket: spec,
    socketArgs,
    bin,
    // -u: without a UTF-8 locale in our environment tmux would print every
    // non-ASCII byte of a name or format result as "_".
    spawn: (args, opts) => start([bin, "-u", ...socketArgs, ...args], opts),
    attachLine: (socket, target) => attachArgv(bin, socket, target),
  };
}

/** `tmux -S SOCKET attach-session -t TARGET` as a shell line, for a person to run where that tmux lives. */
export function attachArgv(bin: string, socket: string, target: string): string {
  return shellLine([bin, ...attachArgs(socket, target)]);
}

/** The words after tmux's in {@linkcode attachArgv}. */
export function attachArgs(socket: string, target: string): string[] {
  return ["-S", socket, "attach-session", "-t", target];
}

/** The words that start a program with SIGTERM as its parent-death signal (util-linux's setpriv). */
export const PARENT_DEATH_PREFIX: readonly string[] = ["setpriv", "--pdeathsig", "TERM", "--"];

/**
 * {@linkcode PARENT_DEATH_PREFIX} when this system's `setpriv` can start a
 * program with a parent-death signal, else nothing.
 */
export function parentDeathPrefix(): string[] {
  if (Deno.build.os !== "linux") return [];
  const prefix = [...PARENT_DEATH_PREFIX];
  try {
    const probe = new Deno.Command(prefix[0], {
      args: [...prefix.slice(1), "true"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return probe.success ? prefix : [];
  } catch {
    // No setpriv (or not allowed to run it): the stdin EOF alone.
    return [];
  }
}

/**
 * Starts a launcher's processes (`argv[0]` the program), stdout and stderr
 * piped. A persistent one, which must end with ours, starts under
 * {@linkcode parentDeathPrefix}: the system is asked at the first such start
 * (synchronously, before a launcher's first control client) and
 * the answer kept, so every such process of one launcher starts the same way.
 *
 * @example
 * ```ts
 * const start = processStarter();
 * const child = start(["tmux", "-C", "attach-session"], { stdin: "piped", persistent: true });
 * ```
 */
export function processStarter(): (argv: readonly string[], opts: LaunchOptions) => Deno.ChildProcess {
  let prefix: string[] | undefined;
  return (argv, opts) => {
    const [cmd, ...args] = opts.persistent ? [...(prefix ??= parentDeathPrefix()), ...argv] : argv;
    return new Deno.Command(cmd, {
      args,
      stdin: opts.stdin,
      stdout: "piped",
      stderr: "piped",
      detached: opts.detached ?? false,
    }).spawn();
  };
}
