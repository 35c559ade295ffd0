/**
 * The one module that runs tmux.
 *
 * Every tmux invocation in the server goes through a {@linkcode TmuxExecutor}:
 * argv arrays only (never a shell), the configured socket applied, large
 * content on stdin, stdout kept as bytes, a per-call timeout, and a counting
 * semaphore that bounds how many tmux children run at once.
 *
 * It is an interface because a persistent control-mode connection (`tmux -C`)
 * answers in about 0.09 ms against about 1.5 ms per spawned client; that is a
 * second implementation, not a change to callers.
 *
 * @example
 * ```ts
 * const tmux = createSpawnExecutor({ bin: "tmux", socketName: "work", maxConcurrency: 8 });
 * const out = await tmux.text(["list-buffers", "-F", "#{buffer_name}"]);
 * ```
 */
import { Semaphore } from "./semaphore.ts";

/** Where the tmux server lives: `-L name`, `-S path`, or the user's default. */
export interface SocketSpec {
  socketName?: string;
  socketPath?: string;
}

/**
 * Marks the boundary between two tmux commands in one invocation
 * (`tmux a \; b`). It is a unique value, not the string ";", because tmux
 * treats ANY argument that ends in ";" as a separator: a buffer name "x;"
 * followed by "kill-server" would otherwise run kill-server. Every string
 * argument is escaped by {@linkcode escapeArg}; only this marker separates.
 */
export const COMMAND_SEPARATOR: unique symbol = Symbol("tmux command separator");

/** One argv element for tmux: a literal string, or the command separator. */
export type TmuxArg = string | typeof COMMAND_SEPARATOR;

/**
 * Escapes a literal argument for tmux's argv parser: a trailing ";" gets a
 * backslash, which tmux removes again (so "a;" arrives as "a;" and "a\;" as "a\;").
 */
export function escapeArg(arg: string): string {
  return arg.endsWith(";") ? arg.slice(0, -1) + "\\;" : arg;
}

export interface RunOptions {
  /** Bytes written to tmux's stdin (for `load-buffer -b NAME -`). */
  stdin?: Uint8Array;
  /** Kill the child after this long. Default: the executor's timeout. */
  timeoutMs?: number;
  /** Abort (kill the child) when this signal fires. */
  signal?: AbortSignal;
}

/** Runs tmux commands. Implementations must honour {@linkcode RunOptions}. */
export interface TmuxExecutor {
  readonly socket: SocketSpec;
  /** The argv prefix that selects the socket, for messages such as `tmux -L x attach`. */
  readonly socketArgs: readonly string[];
  /** Runs one tmux client and returns its stdout bytes; throws {@linkcode TmuxError}. */
  run(args: readonly TmuxArg[], opts?: RunOptions): Promise<Uint8Array>;
  /** Like {@linkcode TmuxExecutor.run}, decoding stdout as UTF-8. */
  text(args: readonly TmuxArg[], opts?: RunOptions): Promise<string>;
}

export type TmuxErrorKind = "missing" | "no-server" | "failed" | "timeout" | "aborted";

/** A tmux failure with a one-line message fit to show a model. */
export class TmuxError extends Error {
  readonly kind: TmuxErrorKind;
  /** tmux's own stderr, trimmed (empty for missing/timeout). */
  readonly stderr: string;
  constructor(kind: TmuxErrorKind, message: string, stderr = "") {
    super(message);
    this.name = "TmuxError";
    this.kind = kind;
    this.stderr = stderr;
  }
}

export interface SpawnExecutorOptions extends SocketSpec {
  bin: string;
  maxConcurrency: number;
  /** Default per-call timeout in ms (10 s). */
  timeoutMs?: number;
}

const decoder = new TextDecoder();

/** The argv prefix for a socket spec (`-S` wins over `-L`, as in tmux). */
export function socketArgsFor(socket: SocketSpec): string[] {
  if (socket.socketPath) return ["-S", socket.socketPath];
  if (socket.socketName) return ["-L", socket.socketName];
  return [];
}

/** Human description of the socket for error messages. */
export function describeSocket(socket: SocketSpec): string {
  if (socket.socketPath) return `socket path "${socket.socketPath}"`;
  if (socket.socketName) return `socket name "${socket.socketName}"`;
  return "the default socket";
}

const NO_SERVER = /no server running|error connecting to|server exited unexpectedly|lost server/;

/**
 * Turns tmux's stderr into one concise line. tmux sometimes prints several
 * lines (usage text); the first non-empty one carries the reason.
 */
function conciseStderr(stderr: string): string {
  const first = stderr.split("\n").map((l) => l.trim()).find((l) => l.length > 0) ?? "";
  return first.length > 300 ? first.slice(0, 300) + "…" : first;
}

/**
 * An executor that spawns one tmux client per call with `Deno.Command`.
 */
export function createSpawnExecutor(opts: SpawnExecutorOptions): TmuxExecutor {
  const socket: SocketSpec = { socketName: opts.socketName, socketPath: opts.socketPath };
  const socketArgs = socketArgsFor(socket);
  const sem = new Semaphore(opts.maxConcurrency);
  const defaultTimeout = opts.timeoutMs ?? 10_000;

  async function runOnce(args: readonly TmuxArg[], ro: RunOptions): Promise<Uint8Array> {
    if (ro.signal?.aborted) throw new TmuxError("aborted", "tmux call cancelled");
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(opts.bin, {
        // -u: without a UTF-8 locale in our environment tmux would print every
        // non-ASCII byte of a name or format result as "_".
        args: ["-u", ...socketArgs, ...args.map((a) => a === COMMAND_SEPARATOR ? ";" : escapeArg(a))],
        stdin: ro.stdin ? "piped" : "null",
        stdout: "piped",
        stderr: "piped",
        // Own process group, so a timeout kills everything the binary started
        // (a --tmux-bin wrapper script, not only its shell).
        detached: true,
      }).spawn();
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        throw new TmuxError(
          "missing",
          `tmux is not installed (no "${opts.bin}" found): install it (apt-get install tmux, brew install tmux) or pass --tmux-bin PATH`,
        );
      }
      if (e instanceof Deno.errors.PermissionDenied) {
        throw new TmuxError("missing", `cannot run "${opts.bin}": ${(e as Error).message}`);
      }
      throw e;
    }
    let ended: TmuxErrorKind | undefined;
    const kill = (why: TmuxErrorKind) => {
      if (ended) return;
      ended = why;
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch {
        try {
          child.kill("SIGKILL");
        } catch {
          // already exited
        }
      }
    };
    const timeoutMs = ro.timeoutMs ?? defaultTimeout;
    const timer = setTimeout(() => kill("timeout"), timeoutMs);
    const onAbort = () => kill("aborted");
    ro.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const stdinDone = ro.stdin ? feedStdin(child, ro.stdin) : Promise.resolve();
      const [out] = await Promise.all([child.output(), stdinDone]);
      if (ended === "timeout") {
        throw new TmuxError("timeout", `tmux ${String(args[0] ?? "")} timed out after ${timeoutMs} ms and was killed`);
      }
      if (ended === "aborted") throw new TmuxError("aborted", "tmux call cancelled");
      if (!out.success) {
        const stderr = decoder.decode(out.stderr);
        const line = conciseStderr(stderr);
        if (NO_SERVER.test(line)) {
          throw new TmuxError(
            "no-server",
            `no tmux server is running on ${describeSocket(socket)} (${line}): start one, e.g. \`tmux ${
              [...socketArgs, "new-session", "-d"].join(" ")
            }\`, or point --socket-name/--socket-path at a running server`,
            stderr,
          );
        }
        throw new TmuxError(
          "failed",
          line || `tmux ${String(args[0] ?? "")} failed with exit code ${out.code}`,
          stderr,
        );
      }
      return out.stdout;
    } finally {
      clearTimeout(timer);
      ro.signal?.removeEventListener("abort", onAbort);
    }
  }

  return {
    socket,
    socketArgs,
    run(args, ro = {}) {
      return sem.use(() => runOnce(args, ro));
    },
    async text(args, ro = {}) {
      return decoder.decode(await sem.use(() => runOnce(args, ro)));
    },
  };
}

async function feedStdin(child: Deno.ChildProcess, data: Uint8Array): Promise<void> {
  const writer = child.stdin.getWriter();
  try {
    await writer.write(data);
    await writer.close();
  } catch {
    // tmux exited before reading everything (it failed); its stderr says why.
  }
}
