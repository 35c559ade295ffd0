/**
 * The one owner of every connection to a tmux server.
 *
 * Tools call it as a {@linkcode TmuxExecutor}. Each command travels on one
 * persistent control-mode client (lib/tmux/connection.ts: one line written per
 * command instead of one process started per command) unless {@linkcode controlCommands}
 * — the one place that chooses — says control mode would change what it
 * does; then one `tmux` process is spawned for it (lib/tmux/executor.ts).
 * Either way a {@linkcode Semaphore} slot is held while the command is in
 * flight. Our control clients start one at a time with none of our commands
 * in flight ({@linkcode AttachGate}: tmux before 3.7 crashes when a client in
 * its handshake is notified). The engine also owns the pane-output hub of the waits
 * (lib/tmux/control.ts, per-session clients) and runs the commands whose
 * file IO must be done by the tmux server itself (`runAttached`, for
 * lib/buffers/server_file.ts). Every client process is started by one
 * {@linkcode TmuxLauncher} (lib/tmux/launcher.ts), the seam for remote hosts.
 *
 * Why some commands must be spawned (tmux 3.3a; the escaping, `wait-for`
 * and `run-shell` observed, the rest read from its source):
 * - a command without a target resolves against the control client's
 *   session, a spawned client's against the most recently used one;
 * - `new-session`/`new-window`/`split-window`/`respawn-*`/`pipe-pane`
 *   start processes in the attached session's directory, a spawned client's
 *   in its own; `display-message` without `-p` shows on the issuing client;
 * - `show-buffer` output is vis(3)-escaped for a control client;
 * - stdin content has no way in (`load-buffer -`, alone or followed by more
 *   commands on its line such as paste-text's `; paste-buffer`, goes through
 *   a private file the tmux server reads, `loadThroughFile`, or, where it
 *   cannot read our files, small text goes as `set-buffer`'s argument,
 *   `loadThroughLine`); a relative file path is resolved against the
 *   session's directory;
 * - `wait-for` without `-S` returns at once for an attached client instead
 *   of waiting; `run-shell`/`if-shell` hold every command queued behind
 *   them; `kill-server`'s reply goes down with the server;
 * - an argument holding NUL cannot travel on a command line (a line break
 *   travels escaped in double quotes: lib/tmux/quote.ts `tmuxCommandWord`).
 * `--control-mode off` spawns everything; so does a tmux older than 3.2.
 * Our clients end when our stdin pipe closes, and on Linux they also get
 * SIGTERM when we end (`setpriv --pdeathsig`, lib/tmux/launcher.ts): tmux
 * keeps a client it still owes output, so the EOF alone let a SIGKILLed
 * server leave one behind. tmux counts our clients as attached, so a
 * `destroy-unattached` session would outlive its last person while ours is
 * attached to it: the command connection leaves when a client at a terminal
 * detaches (connection.ts), and tmux then destroys the session; every client
 * of ours steps off such a session before it leaves (control_client.ts
 * `stepOff`: ending on it can crash tmux). A user's `client-attached` hook
 * runs once per connection (not per command), as it did for the clients this
 * replaces. Our clients have no terminal, so tmux
 * names them `client-PID`: `list-sessions` (lib/tmux/panes.ts) does not count
 * them as attached.
 *
 * @example
 * ```ts
 * const tmux = createTmuxEngine({ bin: "tmux", socketName: "work", maxConcurrency: 8, controlMode: true });
 * const names = await tmux.text(["list-sessions", "-F", "#{session_name}"]);
 * await tmux.close();
 * ```
 */
import type { SessionScope } from "./scope.ts";
import { type ControlHub, createControlHub } from "./control.ts";
import { ConnectionUnavailable, createControlConnection, type LineCommand } from "./connection.ts";
import type { StepOffSession } from "./control_client.ts";
import {
  COMMAND_SEPARATOR,
  type RunOptions,
  spawnEach,
  spawnTmux,
  stalled,
  type TmuxArg,
  TmuxError,
  type TmuxExecutor,
  TmuxTimeout,
} from "./executor.ts";
import { localLauncher, type SocketSpec, type TmuxLauncher } from "./launcher.ts";
import { formatLiteral, tmuxCommandWord } from "./quote.ts";
import { Semaphore } from "./semaphore.ts";
import { AttachGate, handshakeSafe } from "./attach_gate.ts";
import { CONNECT_TIMEOUT_MS, slowLine, waitingNotice } from "./connect_wait.ts";

/** The executor every tool uses, plus the connections it owns. */
export interface TmuxEngine extends TmuxExecutor {
  /** Live pane output for the waits. */
  readonly hub: ControlHub;
  /**
   * Runs a command on the attached control client, so tmux does its file IO
   * itself. Throws {@linkcode ConnectionUnavailable} when there is none
   * (control mode off, no session yet, an unsendable argument).
   */
  runAttached(args: readonly string[], opts?: RunOptions): Promise<Uint8Array>;
  /**
   * Asks a local tmux for its version in the background (the probe the first command waits for), so a starting
   * server's first call does not; a remote host is left alone (its login starts on first use).
   */
  warm(): void;
  /**
   * Starts the command connection of a local tmux in the background (after the probe), so a command soon to come
   * finds it attached: a starting server's first call, while its modules load. A remote host is left alone.
   */
  attach(): void;
  /** Ends every client this engine started. */
  close(): Promise<void>;
}

export interface TmuxEngineOptions extends SocketSpec {
  bin: string;
  /** Commands in flight at once, spawned or over the connection. */
  maxConcurrency: number;
  /**
   * A bound shared with other engines (one per host): a command takes, after one of this engine's own slots, the
   * one slot this engine keeps for itself or a shared one, whichever comes first. A host whose commands stall holds
   * at most `maxConcurrency` slots, and never another engine's own: every other host can always run a command.
   */
  shared?: Semaphore;
  /** False: spawn a client for every command (`--control-mode off`). */
  controlMode: boolean;
  /** Default per-command timeout in ms (10 s). */
  timeoutMs?: number;
  /** How clients are started (default: `bin` on this machine). */
  launcher?: TmuxLauncher;
  /** End the idle command connection after this long (default 10 minutes, see lib/tmux/connection.ts). */
  idleMs?: number;
  /**
   * `--connect-timeout-ms`: the bound of every start — the `tmux -V` probe and a control client's attach (the ssh
   * launcher bounds its login with the same setting). Default {@linkcode CONNECT_TIMEOUT_MS}.
   */
  connectTimeoutMs?: number;
  /** The host's session scope (`--sessions`, `--scope`); undefined: every session. */
  scope?: SessionScope;
}

export { ConnectionUnavailable };

type Rule = (args: readonly string[]) => boolean;

/** Options before `--`: where a flag may stand. */
function flags(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end < 0 ? args : args.slice(0, end);
}
const always: Rule = () => true;
const targeted: Rule = (a) => flags(a).includes("-t");
const targetedOr = (...alt: string[]): Rule => (a) => flags(a).some((f) => f === "-t" || alt.includes(f));
const absolutePath: Rule = (a) => a.length > 0 && a[a.length - 1].startsWith("/");

/**
 * Commands that do on the control connection exactly what they do in a
 * spawned client, and when; anything else is spawned.
 */
const CONTROL_SAFE: Record<string, Rule> = {
  "list-sessions": always,
  "list-buffers": always,
  "list-clients": always,
  "set-buffer": always,
  "delete-buffer": always,
  "load-buffer": absolutePath,
  "save-buffer": absolutePath,
  "wait-for": (a) => flags(a).includes("-S"),
  "has-session": targeted,
  "capture-pane": targeted,
  "display-message": (a) => flags(a).includes("-p") && targeted(a),
  "send-keys": targeted,
  "list-panes": targetedOr("-a"),
  "list-windows": targetedOr("-a"),
  "select-window": targeted,
  "select-pane": targeted,
  "select-layout": targeted,
  "resize-pane": targeted,
  "resize-window": targeted,
  "kill-pane": targeted,
  "kill-window": targeted,
  "kill-session": targeted,
  "rename-session": targeted,
  "rename-window": targeted,
  "clear-history": targeted,
  "paste-buffer": targeted,
  // "-gw": a global window option (lib/tools/workspace/set_option.ts), as global as "-g".
  "set-option": targetedOr("-g", "-gw", "-s"),
  "show-options": targetedOr("-g", "-s"),
  "show-hooks": targetedOr("-g"),
  "set-environment": targetedOr("-g"),
  "show-environment": targetedOr("-g"),
};

/**
 * `display-message -p [-t T] [-c C] [-d D] [-N] [--] MESSAGE`: its output
 * ends with its message, so it can print a fence after it (lib/tmux/connection.ts).
 */
function echoes(command: readonly string[]): boolean {
  if (command[0] !== "display-message") return false;
  let p = false;
  for (let i = 1; i < command.length; i++) {
    const a = command[i];
    if (a === "--") return p && i === command.length - 2;
    if (a.length < 2 || a[0] !== "-") return p && i === command.length - 1;
    for (let j = 1; j < a.length; j++) {
      const f = a[j];
      if (f === "p") p = true;
      else if (f === "c" || f === "d" || f === "t") {
        if (j === a.length - 1) i++;
        break;
      } else if (f !== "N") return false;
    }
  }
  return false;
}

/**
 * The commands for the control connection, each as its quoted words, or
 * undefined when the command must be spawned: the one place that chooses
 * (see the header).
 */
export function controlCommands(args: readonly TmuxArg[], opts: RunOptions = {}): LineCommand[] | undefined {
  if (opts.stdin || opts.spawn) return undefined;
  const commands: LineCommand[] = [];
  let words: string[] = [];
  let command: string[] = [];
  const commandOk = () => command.length > 0 && (CONTROL_SAFE[command[0]]?.(command.slice(1)) ?? false);
  for (const a of args) {
    if (a === COMMAND_SEPARATOR) {
      if (!commandOk()) return undefined;
      commands.push(echoes(command) ? { echo: words.join(" ") } : words.join(" "));
      command = [];
      words = [];
      continue;
    }
    const w = tmuxCommandWord(a);
    if (w === undefined) return undefined;
    command.push(a);
    words.push(w);
  }
  if (!commandOk()) return undefined;
  commands.push(words.join(" "));
  return commands;
}

/** {@linkcode controlCommands} as one command line (`a ; b`), as a control client would be sent it unfenced. */
export function controlLine(args: readonly TmuxArg[], opts: RunOptions = {}): string | undefined {
  return controlCommands(args, opts)?.map((c) => typeof c === "string" ? c : c.echo).join(" ; ");
}

const decoder = new TextDecoder();
/** A line's `load-buffer …` command, and the commands after it (from their separator on). */
function splitLoad(args: readonly TmuxArg[]): { load: readonly TmuxArg[]; rest: readonly TmuxArg[] } {
  const sep = args.indexOf(COMMAND_SEPARATOR);
  return sep < 0 ? { load: args, rest: [] } : { load: args.slice(0, sep), rest: args.slice(sep) };
}

/** Rejects invalid UTF-8 and keeps a leading BOM: text that the line route would carry byte for byte. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** Most stdin content a command line carries instead (as set-buffer's argument); more goes on a spawned client's stdin. */
const LINE_LOAD_MAX = 256 * 1024;
/** Control mode with the attach flags we use (`read-only,ignore-size,no-output`) needs tmux 3.2. */
const CONTROL_MIN = [3, 2];
/**
 * `tmux -V`'s output with tmux's name where the binary `bin` printed its own: tmux prints the name it was started by,
 * so one installed as `tmux-next` says "tmux-next 3.5".
 */
export function asTmuxVersion(out: string, bin: string): string {
  const name = bin.slice(bin.lastIndexOf("/") + 1);
  return name !== "tmux" && out.startsWith(`${name} `) ? `tmux ${out.slice(name.length + 1)}` : out;
}

/**
 * What the first line of `tmux -V` says of the build: whether control mode serves and whether a client's start is
 * safe (lib/tmux/attach_gate.ts); undefined when it is no tmux. A release says its number ("tmux 3.3a", "tmux
 * next-3.6"). A build without one is tmux all the same: one from git ("tmux master") is newer than any release,
 * OpenBSD's ("tmux openbsd-7.5") follows tmux's development and has had control mode since OpenBSD 6.9; the gate
 * stays on for both, as their fix of the start is not known.
 */
export function tmuxBuild(out: string): { control: boolean; handshakeSafe: boolean } | undefined {
  const release = /^tmux (?:next-)?(\d+)\.(\d+)/.exec(out);
  if (release) {
    const [major, minor] = [Number(release[1]), Number(release[2])];
    const control = major > CONTROL_MIN[0] || (major === CONTROL_MIN[0] && minor >= CONTROL_MIN[1]);
    return { control, handshakeSafe: handshakeSafe(major, minor) };
  }
  const openbsd = /^tmux openbsd-(\d+)\.(\d+)/.exec(out);
  if (openbsd) {
    const [major, minor] = [Number(openbsd[1]), Number(openbsd[2])];
    return { control: major > 6 || (major === 6 && minor >= 9), handshakeSafe: false };
  }
  return /^tmux [A-Za-z0-9][\w.+-]*\s*$/.test(out) ? { control: true, handshakeSafe: false } : undefined;
}

/**
 * Spawned commands that may wait indefinitely and never notify control clients: they do not
 * hold back a client's start (lib/tmux/attach_gate.ts).
 */
const waitsIndefinitely = (args: readonly TmuxArg[]) =>
  (args[0] === "wait-for" && !flags(args.filter((a): a is string => typeof a === "string")).includes("-S")) ||
  args[0] === "run-shell" || args[0] === "if-shell";

/** The engine; nothing starts until the first command. */
export function createTmuxEngine(opts: TmuxEngineOptions): TmuxEngine {
  const launcher = opts.launcher ?? localLauncher(opts.bin, opts);
  const own = new Semaphore(opts.maxConcurrency);
  const shared = opts.shared;
  /** With a shared bound: the one slot this engine keeps for itself, which no other engine can take. */
  const reserved = shared ? [new Semaphore(1), shared] : undefined;
  /** A slot of this engine's, then its reserved slot or one of the shared bound, all by `deadline`. */
  const sem = {
    use<T>(fn: () => Promise<T>, deadline: number, late: () => Error): Promise<T> {
      if (!reserved) return own.use(fn, deadline, late);
      return own.use(
        async () => {
          const release = await Semaphore.first(reserved, deadline, late);
          try {
            return await fn();
          } finally {
            release();
          }
        },
        deadline,
        late,
      );
    },
  };
  const defaultTimeout = opts.timeoutMs ?? 10_000;
  // Our control clients start alone (tmux before 3.7 crashes otherwise): lib/tmux/attach_gate.ts.
  const gate = new AttachGate();
  const connectMs = opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  // A client leaving a destroy-unattached session steps off only to a session in view (as it attaches only to one).
  const stepOffTo = opts.scope && ((s: StepOffSession) => opts.scope!.includes(s));
  // The login (remote) has --connect-timeout-ms; tmux's answer to the attach gets half a call's bound, so a call
  // that found the start stuck still has time for a spawned client.
  const conn = createControlConnection({
    launcher,
    idleMs: opts.idleMs,
    gate,
    attachTimeoutMs: defaultTimeout / 2,
    attachTarget: opts.scope ? () => scopedAttachTarget(opts.scope!) : undefined,
    stepOffTo,
  });
  const hub = createControlHub({ launcher, gate, attachTimeoutMs: connectMs, stepOffTo });

  /**
   * Under a session scope, the session the command connection attaches to: the most recently used one in
   * scope (the one tmux would pick when that is in scope), or null when none is. Attaching marks a session
   * attached and runs the user's client-attached hooks in it: never done to a session out of view. Asked
   * with spawned clients (the connection is what is being started).
   */
  async function scopedAttachTarget(scope: SessionScope): Promise<string | null> {
    const spawned = {
      run: (args: readonly TmuxArg[], ro: RunOptions = {}) =>
        gate.shared(() => spawnTmux(launcher, args, { ...ro, timeoutMs: defaultTimeout }, defaultTimeout)),
    };
    const inView = await scope.sessions(spawned);
    if (inView.size === 0) return null;
    const rows = decoder.decode(await spawned.run(["list-sessions", "-F", "#{session_activity} #{session_id}"]));
    let best: { at: number; id: string } | undefined;
    for (const line of rows.split("\n")) {
      const [at, id] = line.split(" ");
      if (inView.has(id) && (!best || Number(at) > best.at)) best = { at: Number(at), id };
    }
    return best?.id ?? [...inView.keys()][0];
  }
  let probe: Promise<boolean> | undefined;
  /** The probe's answer once known: a command then needs no await to learn it. */
  let usable: boolean | undefined = opts.controlMode ? undefined : false;

  /**
   * Whether control mode can serve, asked of the binary once (`tmux -V`):
   * a binary that is no tmux fails here with a line saying what to do.
   */
  function controlUsable(): Promise<boolean> {
    if (!opts.controlMode) return Promise.resolve(false);
    probe ??= (async () => {
      const where = launcher.destination === undefined ? "" : ` on ssh host "${launcher.destination}"`;
      const quiet = waitingNotice(`tmux -V${where} to answer`, connectMs);
      let out: string;
      try {
        out = decoder.decode(await spawnTmux(launcher, ["-V"], { timeoutMs: connectMs }, defaultTimeout));
      } catch (e) {
        // Slow, not broken: a login too slow says so itself; else tmux -V was, within the same bound.
        if (!(e instanceof TmuxTimeout) || e.login) throw e;
        throw new TmuxError("timeout", slowLine(`tmux -V${where} did not answer`, connectMs, "tmux"));
      } finally {
        quiet();
      }
      const v = tmuxBuild(asTmuxVersion(out, launcher.bin));
      if (!v) {
        throw new TmuxError(
          "missing",
          `"${launcher.bin}" is not tmux (its -V printed ${JSON.stringify(out.slice(0, 60))}): ` +
            "pass --tmux-bin PATH of tmux 3.x",
        );
      }
      gate.enabled = !v.handshakeSafe;
      return usable = v.control;
    })();
    // A failed probe (timeout, missing binary) is asked again next time.
    probe.catch(() => probe = undefined);
    return probe;
  }

  let stdinDir: Promise<string> | undefined;
  // A remote tmux cannot read our files: stdin content then travels on a spawned client's stdin.
  let stdinByFile = launcher.destination === undefined;
  let stdinCount = 0;

  /**
   * `load-buffer … -` with stdin content (possibly followed by more commands
   * on the same line: `load-buffer -b x - ; paste-buffer -b x -t %1`), as a
   * file the tmux server reads itself (it does an attached client's file IO):
   * a private 0700 directory, one file per call, deleted at once. Undefined
   * when this route cannot serve (the caller spawns with stdin); a server that
   * cannot read our directory (another user, another mount namespace) is not
   * asked again.
   */
  async function loadThroughFile(
    args: readonly TmuxArg[],
    ro: RunOptions,
    deadline: number,
  ): Promise<Uint8Array | undefined> {
    const { load, rest } = splitLoad(args);
    if (!ro.stdin || !stdinByFile || load[0] !== "load-buffer" || load.at(-1) !== "-") return undefined;
    if (!await controlUsable()) return undefined;
    stdinDir ??= Deno.makeTempDir({ prefix: `tmux-mcp-${Deno.pid}-stdin-` });
    const path = `${await stdinDir}/${stdinCount++}`;
    // Every command of the line must be one control mode runs as a spawned client would (controlCommands checks).
    const line = controlCommands([...load.slice(0, -1), formatLiteral(path), ...rest]);
    if (line === undefined) return undefined;
    await Deno.writeFile(path, ro.stdin, { mode: 0o600 });
    try {
      return await sendLoad(line, ro, deadline);
    } catch (e) {
      if (e instanceof TmuxError && e.kind === "failed" && /No such file|Permission denied/i.test(e.message)) {
        stdinByFile = false;
        return undefined;
      }
      throw e;
    } finally {
      await Deno.remove(path).catch(() => {});
    }
  }

  /**
   * `load-buffer -b NAME -` (possibly followed by more commands on its line) with text content where the tmux
   * server cannot read our files (another host): as `set-buffer -b NAME -- TEXT` on the connection, the text
   * escaped on the command line (lib/tmux/quote.ts), instead of a spawned client carrying it on stdin — over
   * ssh a new session on the shared connection per call. Only for content that is small, not empty, valid
   * UTF-8 and free of NUL, so tmux stores the same bytes; undefined otherwise (the caller spawns).
   */
  async function loadThroughLine(
    args: readonly TmuxArg[],
    ro: RunOptions,
    deadline: number,
  ): Promise<Uint8Array | undefined> {
    const { load, rest } = splitLoad(args);
    const bytes = ro.stdin;
    if (!bytes || bytes.length === 0 || bytes.length > LINE_LOAD_MAX) return undefined;
    if (load.length !== 4 || load[0] !== "load-buffer" || load[1] !== "-b" || load[3] !== "-") return undefined;
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return undefined;
    }
    const line = controlCommands(["set-buffer", "-b", load[2], "--", text, ...rest]);
    if (line === undefined || !await controlUsable()) return undefined;
    return await sendLoad(line, ro, deadline);
  }

  /** A load's line on the connection: its output, or undefined when the connection cannot carry it now. */
  async function sendLoad(line: LineCommand[], ro: RunOptions, deadline: number): Promise<Uint8Array | undefined> {
    try {
      return await conn.send(line, {
        name: "load-buffer",
        timeoutMs: ro.timeoutMs ?? defaultTimeout,
        deadline,
        signal: ro.signal,
      });
    } catch (e) {
      if (e instanceof ConnectionUnavailable) return undefined;
      throw e;
    }
  }

  async function socketDirCheck(args: readonly TmuxArg[]) {
    // tmux 3.3a exits 0 from new-session when it cannot create the socket.
    const path = launcher.socket.socketPath;
    if (!path || launcher.destination !== undefined || !args.some((a) => a === "new-session" || a === "start-server")) {
      return;
    }
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) || "/" : ".";
    try {
      await Deno.stat(dir);
    } catch {
      throw new TmuxError(
        "failed",
        `the directory of --socket-path "${path}" does not exist: create it (mkdir -p '${dir}') or use another path`,
      );
    }
  }

  /**
   * The error of a command not answered within its bound: every wait of a call (for a slot, for a client's
   * start, for tmux) ends by the call's deadline, so a stopped tmux or ssh connection cannot hold it longer.
   */
  const lateFor = (args: readonly TmuxArg[], ro: RunOptions) => () =>
    stalled(launcher.destination, String(args[0] ?? ""), ro.timeoutMs ?? defaultTimeout);

  /** Runs a line by `deadline`: its output, or with `each` each command's output on its own. */
  async function runOnce(args: readonly TmuxArg[], ro: RunOptions, deadline: number, each: true): Promise<Uint8Array[]>;
  async function runOnce(args: readonly TmuxArg[], ro: RunOptions, deadline: number, each?: false): Promise<Uint8Array>;
  async function runOnce(
    args: readonly TmuxArg[],
    ro: RunOptions,
    deadline: number,
    each = false,
  ): Promise<Uint8Array | Uint8Array[]> {
    if (ro.stdin && !each) {
      const loaded = await loadThroughFile(args, ro, deadline) ?? await loadThroughLine(args, ro, deadline);
      if (loaded) return loaded;
    }
    const line = controlCommands(args, ro);
    if (line !== undefined && (usable ?? await controlUsable())) {
      const so = { name: String(args[0]), timeoutMs: ro.timeoutMs ?? defaultTimeout, deadline, signal: ro.signal };
      try {
        return each ? await conn.sendEach(line, so) : await conn.send(line, so);
      } catch (e) {
        if (!(e instanceof ConnectionUnavailable)) throw e;
      }
    }
    await socketDirCheck(args);
    const late = lateFor(args, ro);
    // What is left of the call's time, after a wait for a slot or a failed start of the connection.
    const spawn = (): Promise<Uint8Array | Uint8Array[]> => {
      const left = deadline - performance.now();
      if (left <= 0) throw late();
      const sro = { ...ro, timeoutMs: left };
      // A slow login keeps its own wording (its own bound); a stall is said against this call's whole bound.
      return (each ? spawnEach(launcher, args, sro, defaultTimeout) : spawnTmux(launcher, args, sro, defaultTimeout))
        .catch((e) => {
          throw e instanceof TmuxTimeout && !e.login ? late() : e;
        });
    };
    const out = waitsIndefinitely(args) ? await spawn() : await gate.shared(spawn, deadline, late);
    // A session may exist now: attach at once instead of after the retry pause.
    if (args.includes("new-session")) conn.retryNow();
    return out;
  }

  /**
   * Runs a command within its bound, counted from now (a wait for a slot included) or, for a remote host, from
   * the moment its shared connection is up: that login has its own bound (--connect-timeout-ms).
   */
  async function bounded(args: readonly TmuxArg[], ro: RunOptions, each: true): Promise<Uint8Array[]>;
  async function bounded(args: readonly TmuxArg[], ro: RunOptions, each?: false): Promise<Uint8Array>;
  async function bounded(args: readonly TmuxArg[], ro: RunOptions, each = false): Promise<Uint8Array | Uint8Array[]> {
    // A remote host: its shared connection before any client, so no client makes a connection of its own.
    if (launcher.ready) await launcher.ready();
    const deadline = performance.now() + (ro.timeoutMs ?? defaultTimeout);
    const late = lateFor(args, ro);
    return each
      ? await sem.use(() => runOnce(args, ro, deadline, true), deadline, late)
      : await sem.use(() => runOnce(args, ro, deadline), deadline, late);
  }

  return {
    socket: launcher.socket,
    socketArgs: launcher.socketArgs,
    remote: launcher.destination,
    attachLine: launcher.attachLine,
    scope: opts.scope,
    get remoteNote() {
      return launcher.loginNote;
    },
    get loggingIn() {
      return launcher.loggingIn === true;
    },
    hub,
    warm() {
      if (launcher.destination === undefined) controlUsable().catch(() => {});
    },
    attach() {
      if (launcher.destination !== undefined) return;
      controlUsable().then((ok) => ok ? conn.connect() : undefined).catch(() => {});
    },
    run(args, ro = {}) {
      return bounded(args, ro);
    },
    async text(args, ro = {}) {
      return decoder.decode(await bounded(args, ro));
    },
    runEach(args, ro = {}) {
      return bounded(args, ro, true);
    },
    runAttached(args, ro = {}) {
      const deadline = performance.now() + (ro.timeoutMs ?? defaultTimeout);
      return sem.use(
        async () => {
          if (launcher.destination !== undefined) {
            throw new ConnectionUnavailable("the tmux server runs on another host: its files are not ours to read");
          }
          const line = controlCommands(args);
          if (line === undefined) {
            throw new ConnectionUnavailable(
              `${
                args[0]
              } cannot run on the control client as given (no target, or an argument a command line cannot carry)`,
            );
          }
          if (!await controlUsable()) throw new ConnectionUnavailable("control mode is off");
          return await conn.send(line, {
            name: args[0],
            timeoutMs: ro.timeoutMs ?? defaultTimeout,
            deadline,
            signal: ro.signal,
          });
        },
        deadline,
        lateFor(args, ro),
      );
    },
    async close() {
      await Promise.all([conn.close(), hub.close()]);
      await launcher.close?.();
      const dir = stdinDir;
      stdinDir = undefined;
      if (dir) await Deno.remove(await dir.catch(() => ""), { recursive: true }).catch(() => {});
    },
  };
}
