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
import type { SessionScope } from "./scope.ts";
import { Semaphore } from "./semaphore.ts";
import { fenceKind, fenceText, INNER, newFence } from "./fence.ts";
import {
  describeSocket,
  localLauncher,
  socketArgsFor,
  type SocketSpec,
  startServerLine,
  type TmuxLauncher,
} from "./launcher.ts";
import { slowLine } from "./connect_wait.ts";
import { joinChunks } from "../text/bytes.ts";

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
  /** With `--ssh`: the note about a remote login that prints before tmux starts, once one was seen. */
  readonly remoteNote?: string;
  /** With `--ssh`: true while a login on the host runs (its connection's or a channel's), not stalled. */
  readonly loggingIn?: boolean;
  /** What a person runs to attach to `target` (socket as tmux reports it), via ssh for a remote host. */
  attachLine(socket: string, target: string): string;
  /**
   * `--sessions`/`--scope`: the sessions this server may see and act on (lib/tmux/scope.ts); undefined: all.
   * lib/tmux/panes.ts filters listings and checks targets by it.
   */
  readonly scope?: SessionScope;
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

/** A spawned client killed at its timeout. */
export class TmuxTimeout extends TmuxError {
  /** True when a remote login had not started tmux within its bound: the login was slow, not tmux. */
  readonly login: boolean;
  /** For a command tmux did not answer ({@linkcode stalled}): who did not answer, and within what bound. */
  readonly stall?: { where: string; bound: string };
  constructor(message: string, login: boolean, stall?: { where: string; bound: string }) {
    super("timeout", message);
    this.name = "TmuxTimeout";
    this.login = login;
    this.stall = stall;
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
  const killed = Promise.withResolvers<void>();
  const kill = (why: TmuxErrorKind) => {
    if (ended) return;
    ended = why;
    killed.resolve();
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
  // A remote login (rc files) has its own bound; the call's own timeout starts when tmux does.
  const login = launcher.login?.(child);
  let loginPending = login !== undefined;
  let settled = false;
  let timer = setTimeout(() => kill("timeout"), login?.limitMs ?? timeoutMs);
  login?.started.then(() => {
    loginPending = false;
    if (ended || settled) return;
    clearTimeout(timer);
    timer = setTimeout(() => kill("timeout"), timeoutMs);
  });
  const onAbort = () => kill("aborted");
  ro.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    // Behind a login, stdin goes to tmux only once it runs: an rc file that reads stdin must not eat our bytes.
    let stdinDone = Promise.resolve();
    if (ro.stdin) {
      stdinDone = login
        ? feedAfterLogin(child, ro.stdin, login.started, killed.promise)
        : feedStdin(child, ro.stdin, killed.promise);
    }
    const [out] = await Promise.all([output(child, killed.promise), stdinDone]);
    if (ended === "timeout") {
      // Slow is not broken: a slow login says so; otherwise the machine, the connection or tmux did not keep up.
      if (login && loginPending) {
        throw new TmuxTimeout(slowLine(`the login on ${login.where} did not start tmux`, login.limitMs, "login"), true);
      }
      throw stalled(launcher.destination, String(args[0] ?? ""), timeoutMs);
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
    settled = true;
    clearTimeout(timer);
    ro.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The error of a command that tmux, or the route to it, did not answer within
 * its bound: a stopped or overloaded tmux (or ssh connection) is the usual
 * cause, and the next call starts afresh. The command may still run once tmux
 * goes on: it was handed over.
 *
 * @example
 * ```ts
 * stalled("devbox", "capture-pane", 10_000).message;
 * // "tmux on devbox did not answer capture-pane within 10 s (stopped or overloaded?); the next call retries"
 * ```
 */
export function stalled(destination: string | undefined, name: string, ms: number): TmuxTimeout {
  const where = destination === undefined ? "tmux" : `tmux on ${destination}`;
  const bound = ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${Math.max(0, Math.round(ms))} ms`;
  return new TmuxTimeout(
    `${where} did not answer ${name || "a command"} within ${bound} (stopped or overloaded?); the next call retries`,
    false,
    { where, bound },
  );
}

/**
 * A child's exit status, stdout and stderr, like `child.output()`, except
 * that once `killed` has settled and the child has exited, its pipes are no longer
 * waited for: an ssh client of a shared connection hands its pipes to the
 * connection's master (lib/tmux/ssh.ts), which keeps them open while the
 * remote command runs, so a killed client's pipes may never reach their end.
 */
async function output(
  child: Deno.ChildProcess,
  killed: Promise<void>,
): Promise<{ success: boolean; code: number; stdout: Uint8Array; stderr: Uint8Array }> {
  const abandon = Promise.all([child.status, killed]);
  const [stdout, stderr, status] = await Promise.all([
    readAll(child.stdout, abandon),
    readAll(child.stderr, abandon),
    child.status,
  ]);
  return { success: status.success, code: status.code, stdout, stderr };
}

/** Every byte of `stream` until its end, or what came until `stop` settles. */
export async function readAll(stream: ReadableStream<Uint8Array>, stop: Promise<unknown>): Promise<Uint8Array> {
  const reader = stream.getReader();
  let done = false;
  void stop.then(() => {
    if (!done) reader.cancel().catch(() => {});
  }, () => {});
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      chunks.push(r.value);
      size += r.value.length;
    }
  } catch {
    // torn down (the child killed and the stream cancelled)
  } finally {
    done = true;
  }
  return joinChunks(chunks, size);
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
      `tmux is not installed (no "${bin}" found${
        bin.includes("/") ? "" : " on PATH or in the folders package managers install into"
      }): install it (apt-get install tmux, brew install tmux) or pass --tmux-bin PATH`,
    );
  }
  if (e instanceof Deno.errors.PermissionDenied) {
    return new TmuxError(
      "missing",
      `cannot run "${bin}": ${(e as Error).message}: it must be a tmux executable (chmod +x it, or pass --tmux-bin ` +
        "the path of tmux)",
    );
  }
  return e as Error;
}

/** The one-line error for "no tmux server on this socket". */
export function noServer(launcher: TmuxLauncher, line: string, stderr = ""): TmuxError {
  return new TmuxError(
    "no-server",
    `no tmux server is running on ${describeSocket(launcher.socket)} (${line}): start one, e.g. \`${
      startServerLine(launcher.bin, launcher.socket)
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
    attachLine: launcher.attachLine,
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

/** {@linkcode feedStdin} once `started` resolves; nothing (stdin closed) if the child ends first. */
async function feedAfterLogin(
  child: Deno.ChildProcess,
  data: Uint8Array,
  started: Promise<void>,
  killed: Promise<void>,
): Promise<void> {
  if (await Promise.race([started.then(() => true), child.status.then(() => false)])) {
    return await feedStdin(child, data, killed);
  }
  await child.stdin.close().catch(() => {});
}

/** Writes `data` to the child's stdin and closes it; a killed child's stdin is let go (see `output`). */
function feedStdin(child: Deno.ChildProcess, data: Uint8Array, killed: Promise<void>): Promise<void> {
  const writer = child.stdin.getWriter();
  const feed = (async () => {
    try {
      await writer.write(data);
      await writer.close();
    } catch {
      // tmux exited before reading everything (it failed); its stderr says why.
    }
  })();
  // A write into a pipe nobody drains never settles: give it up with the killed child.
  return Promise.race([feed, Promise.all([child.status, killed]).then(() => void writer.abort().catch(() => {}))]);
}
