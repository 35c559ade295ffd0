/**
 * The interface every tool calls tmux through, and its spawned-client path.
 *
 * Tools call a {@linkcode TmuxExecutor}: argv arrays only (never a shell),
 * the configured socket applied, stdin content, stdout kept as bytes, a
 * per-call timeout. The server's executor is the engine (lib/tmux/engine.ts,
 * the one owner of every connection to tmux), which carries commands over a
 * persistent control-mode client and uses {@linkcode spawnTmux} — one
 * `tmux` process per call, defined here — only where control mode cannot
 * serve. {@linkcode createSpawnExecutor} is that path alone, bounded by a
 * semaphore (`--control-mode off`, and tests that want a plain executor).
 *
 * @example
 * ```ts
 * const tmux = createSpawnExecutor({ bin: "tmux", socketName: "work", maxConcurrency: 8 });
 * const out = await tmux.text(["list-buffers", "-F", "#{buffer_name}"]);
 * ```
 */
import { Semaphore } from "./semaphore.ts";
import { fenceKind, fenceText, INNER, newFence } from "./fence.ts";
import { describeSocket, localLauncher, socketArgsFor, type SocketSpec, type TmuxLauncher } from "./launcher.ts";

export { describeSocket, socketArgsFor, type SocketSpec };

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
  /**
   * In a client of its own, not on the control connection: for a one-off (the start-up sweep) that
   * should not attach a client (lib/tmux/attach_gate.ts says why a client's start is a risk).
   */
  spawn?: boolean;
}

/** Runs tmux commands. Implementations must honour {@linkcode RunOptions}. */
export interface TmuxExecutor {
  readonly socket: SocketSpec;
  /** The argv prefix that selects the socket, for messages such as `tmux -L x attach`. */
  readonly socketArgs: readonly string[];
  /** The ssh destination when the tmux server runs on another host (`--ssh`); undefined for this machine. */
  readonly remote?: string;
  /** Runs one tmux client and returns its stdout bytes; throws {@linkcode TmuxError}. */
  run(args: readonly TmuxArg[], opts?: RunOptions): Promise<Uint8Array>;
  /** Like {@linkcode TmuxExecutor.run}, decoding stdout as UTF-8. */
  text(args: readonly TmuxArg[], opts?: RunOptions): Promise<string>;
  /**
   * Like {@linkcode TmuxExecutor.run}, with each command's output on its own
   * (commands joined by {@linkcode COMMAND_SEPARATOR}): cut where tmux ran a
   * fence of ours (lib/tmux/fence.ts), never by what the outputs hold.
   */
  runEach(args: readonly TmuxArg[], opts?: RunOptions): Promise<Uint8Array[]>;
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

const NO_SERVER = /no server running|error connecting to|server exited unexpectedly|lost server/;

/**
 * Turns tmux's stderr into one concise line. tmux sometimes prints several
 * lines (usage text); the first non-empty one carries the reason.
 */
export function conciseStderr(stderr: string): string {
  const first = stderr.split("\n").map((l) => l.trim()).find((l) => l.length > 0) ?? "";
  return first.length > 300 ? first.slice(0, 300) + "…" : first;
}

/**
 * Runs one tmux client for `args` and returns its stdout: a timeout or an
 * abort kills its whole process group; failures become one-line
 * {@linkcode TmuxError}s. Not bounded here: the caller holds a semaphore slot.
 */
export async function spawnTmux(
  launcher: TmuxLauncher,
  args: readonly TmuxArg[],
  ro: RunOptions,
  defaultTimeout: number,
): Promise<Uint8Array> {
  if (ro.signal?.aborted) throw new TmuxError("aborted", "tmux call cancelled");
  await launcher.ready?.();
  let child: Deno.ChildProcess;
  try {
    child = launcher.spawn(args.map((a) => a === COMMAND_SEPARATOR ? ";" : escapeArg(a)), {
      stdin: ro.stdin ? "piped" : "null",
      detached: true,
    });
  } catch (e) {
    throw launchError(launcher.bin, e);
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
      throw new TmuxError(
        "timeout",
        `tmux ${String(args[0] ?? "")} timed out after ${timeoutMs} ms and was killed` +
          ` (is --tmux-bin "${launcher.bin}" a working tmux?)`,
      );
    }
    if (ended === "aborted") throw new TmuxError("aborted", "tmux call cancelled");
    if (!out.success) {
      const stderr = decoder.decode(out.stderr);
      const remote = launcher.classify?.(out.code, stderr);
      if (remote) throw remote;
      const line = conciseStderr(stderr);
      if (NO_SERVER.test(line)) throw noServer(launcher, line, stderr);
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

/**
 * {@linkcode spawnTmux} for several commands, each one's output on its own: a
 * spawned client prints them with nothing between, so `display-message -p F-`
 * goes between each two (lib/tmux/fence.ts) and its stdout is cut there.
 */
export async function spawnEach(
  launcher: TmuxLauncher,
  args: readonly TmuxArg[],
  ro: RunOptions,
  defaultTimeout: number,
): Promise<Uint8Array[]> {
  if (!args.includes(COMMAND_SEPARATOR)) return [await spawnTmux(launcher, args, ro, defaultTimeout)];
  const f = newFence();
  const fence = ["display-message", "-p", `${fenceText(f)}-`];
  const fenced = args.flatMap((a): TmuxArg[] => a === COMMAND_SEPARATOR ? [a, ...fence, a] : [a]);
  const out = await spawnTmux(launcher, fenced, ro, defaultTimeout);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (let line = 0; line < out.length;) {
    let end = out.indexOf(0x0a, line);
    if (end < 0) end = out.length;
    if (fenceKind(f, out, line, end) === INNER && end - line === fence[2].length) {
      parts.push(out.subarray(from, line));
      from = end + 1;
    }
    line = end + 1;
  }
  parts.push(out.subarray(Math.min(from, out.length)));
  if (parts.length !== commandCount(args)) {
    throw new TmuxError("failed", `tmux ${String(args[0])}: its output did not have the expected shape; retry`);
  }
  return parts;
}

/** How many commands `args` holds. */
function commandCount(args: readonly TmuxArg[]): number {
  let n = 1;
  for (const a of args) if (a === COMMAND_SEPARATOR) n++;
  return n;
}

/** The one-line error for a tmux binary that cannot be started. */
export function launchError(bin: string, e: unknown): Error {
  if (e instanceof Deno.errors.NotFound) {
    return new TmuxError(
      "missing",
      `tmux is not installed (no "${bin}" found): install it (apt-get install tmux, brew install tmux) or pass --tmux-bin PATH`,
    );
  }
  if (e instanceof Deno.errors.PermissionDenied) {
    return new TmuxError("missing", `cannot run "${bin}": ${(e as Error).message}`);
  }
  return e as Error;
}

/** The one-line error for "no tmux server on this socket". */
export function noServer(launcher: TmuxLauncher, line: string, stderr = ""): TmuxError {
  return new TmuxError(
    "no-server",
    `no tmux server is running on ${describeSocket(launcher.socket)} (${line}): start one, e.g. \`tmux ${
      [...launcher.socketArgs, "new-session", "-d"].join(" ")
    }\`, or point --socket-name/--socket-path at a running server`,
    stderr,
  );
}

/** True for tmux's ways of saying there is no server (to connect to, or any more). */
export function isNoServerText(line: string): boolean {
  return NO_SERVER.test(line);
}

/**
 * An executor that spawns one tmux client per call, at most
 * `maxConcurrency` at once.
 */
export function createSpawnExecutor(opts: SpawnExecutorOptions): TmuxExecutor {
  const launcher = localLauncher(opts.bin, opts);
  const sem = new Semaphore(opts.maxConcurrency);
  const defaultTimeout = opts.timeoutMs ?? 10_000;
  return {
    socket: launcher.socket,
    socketArgs: launcher.socketArgs,
    run(args, ro = {}) {
      return sem.use(() => spawnTmux(launcher, args, ro, defaultTimeout));
    },
    async text(args, ro = {}) {
      return decoder.decode(await sem.use(() => spawnTmux(launcher, args, ro, defaultTimeout)));
    },
    runEach(args, ro = {}) {
      return sem.use(() => spawnEach(launcher, args, ro, defaultTimeout));
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
