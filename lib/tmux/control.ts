/**
 * Live pane output through tmux control mode, for waits that must react
 * within milliseconds without polling and without holding an executor slot.
 *
 * One read-only control client (`tmux -C attach-session -f read-only,ignore-size`)
 * per session that has watchers. tmux sends it every byte each pane of the
 * session outputs (`%output %ID bytes`, in order, after parsing them into the
 * pane's grid), so a watcher sees exactly what a program printed, including
 * escape sequences, and the grid already holds it when the bytes arrive.
 * The client sends no commands; it is closed when its last watcher has been
 * gone for `idleMs`, and when the server exits.
 *
 * The hub belongs to the engine (lib/tmux/engine.ts, the one owner of every
 * connection to tmux) and starts its clients with the engine's launcher. They
 * are clients of their own, not the engine's command connection, because
 * tmux 3.3a sends `%output` only for panes of the session a client is
 * attached to, and a client is attached to one session at a time; a waiter
 * must also never queue behind commands. Like every client of ours they end
 * with this process, even a SIGKILLed one where lib/tmux/launcher.ts can see to it.
 *
 * @example
 * ```ts
 * import { localLauncher } from "./launcher.ts";
 * import { AttachGate } from "./attach_gate.ts";
 * const hub = createControlHub({ launcher: localLauncher("tmux", { socketName: "work" }), gate: new AttachGate() });
 * const stop = await hub.watch("$0", "%3", { output: (b) => console.log(b.length) });
 * // ... later
 * stop();
 * await hub.close();
 * ```
 */
import { log } from "../log.ts";
import {
  endClient,
  readLines,
  startControlClient,
  STEP_OFF_TIMEOUT_MS,
  stepOff,
  type StepOffSession,
} from "./control_client.ts";
import type { TmuxLauncher } from "./launcher.ts";
import { ATTACH_TIMEOUT_MS, type AttachGate } from "./attach_gate.ts";
import { settledWithin } from "../settle.ts";
import { EnvironmentError } from "../errors.ts";
import { slowLine, waitingNotice } from "./connect_wait.ts";

/** Why a watcher's stream may have changed shape. */
export type PaneSignal =
  /** Panes or windows of the session changed (a pane may have exited). */
  | "layout"
  /** A pane entered or left a mode (copy mode). */
  | "mode"
  /** The control connection ended (session or server gone); no more output will come. */
  | "closed";

export interface PaneWatcher {
  /** Raw bytes the pane printed, in order. */
  output(bytes: Uint8Array): void;
  /** Something other than output happened that may matter to the waiter. */
  signal?(kind: PaneSignal): void;
}

export interface ControlHub {
  /**
   * Starts delivering the pane's output to `watcher`. Resolves once the
   * control client is attached, so every byte printed after that is seen.
   * Returns the function that stops the delivery.
   */
  watch(sessionId: string, paneId: string, watcher: PaneWatcher): Promise<() => void>;
  /** Closes every control client. */
  close(): Promise<void>;
  /** Sessions with a live control client (for tests and leak checks). */
  readonly connections: number;
}

export interface ControlHubOptions {
  /** Starts the tmux clients (the engine's). */
  launcher: TmuxLauncher;
  /** Orders client starts against the engine's commands (tmux before 3.7). */
  gate: AttachGate;
  /** Give a start up when tmux has not answered its attach after this long (default 10 s). */
  attachTimeoutMs?: number;
  /** Keep an unwatched client this long before closing it (default 15 s). */
  idleMs?: number;
  /** Under a session scope: the sessions a leaving client may step off to (`stepOff`); undefined: any. */
  stepOffTo?: (session: StepOffSession) => boolean;
}

interface Connection {
  /** Set once the gate let the client start. */
  child?: Deno.ChildProcess;
  /** Settles once the client's handshake is over (or it never started). */
  started: Promise<void>;
  ready: Promise<void>;
  watchers: Map<string, Set<PaneWatcher>>;
  idleTimer?: ReturnType<typeof setTimeout>;
  closed: boolean;
  /** tmux answered the attach: the client is on its session. */
  attached: boolean;
  /** Our own command lines awaiting their reply blocks, in the order written (see `ask`). */
  asked: { blocks: number; out: string[]; reply: PromiseWithResolvers<string> }[];
  done: Promise<void>;
  /** Stops reading the client's stdout (a killed client's may stay open: control_client.ts `endClient`). */
  abandon(): void;
}

const BACKSLASH = 0x5c;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const OUTPUT_PREFIX = encoder.encode("%output %");

/**
 * Decodes the value of a `%output` line: tmux writes bytes below 0x20 and
 * backslash as `\ooo` octal escapes and every other byte as is.
 */
export function decodeOutput(line: Uint8Array, from: number): Uint8Array {
  const out = new Uint8Array(line.length - from);
  let n = 0;
  for (let i = from; i < line.length; i++) {
    const b = line[i];
    if (
      b === BACKSLASH && i + 3 < line.length && isOctal(line[i + 1]) && isOctal(line[i + 2]) && isOctal(line[i + 3])
    ) {
      out[n++] = ((line[i + 1] - 0x30) << 6) | ((line[i + 2] - 0x30) << 3) | (line[i + 3] - 0x30);
      i += 3;
    } else {
      out[n++] = b;
    }
  }
  return out.subarray(0, n);
}

function isOctal(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x37;
}

function startsWith(line: Uint8Array, prefix: Uint8Array): boolean {
  if (line.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
  return true;
}

/** Creates the hub; nothing runs until the first {@linkcode ControlHub.watch}. */
export function createControlHub(opts: ControlHubOptions): ControlHub {
  const idleMs = opts.idleMs ?? 15_000;
  const attachMs = opts.attachTimeoutMs ?? ATTACH_TIMEOUT_MS;
  const conns = new Map<string, Connection>();

  /** A connection for the session; its client starts when the gate lets it (see lib/tmux/attach_gate.ts). */
  function open(sessionId: string): Connection {
    const ready = Promise.withResolvers<void>();
    const conn: Connection = {
      ready: ready.promise,
      watchers: new Map(),
      closed: false,
      attached: false,
      asked: [],
      done: Promise.resolve(),
      started: Promise.resolve(),
      abandon: () => {},
    };
    // An unobserved rejection must not crash the server; watch() observes it.
    conn.ready.catch(() => {});
    conn.started = opts.gate.exclusive(async () => {
      if (conn.closed) {
        return ready.reject(
          new EnvironmentError("the client that follows pane output was closed before it started: retry the call"),
        );
      }
      try {
        start(sessionId, conn, ready);
      } catch (e) {
        conn.closed = true;
        if (conns.get(sessionId) === conn) conns.delete(sessionId);
        return ready.reject(e);
      }
      // Its handshake is over once tmux answered the attach (or refused it); a tmux that never answers must
      // not hold the gate.
      const quiet = waitingNotice("tmux to accept the client that follows pane output", attachMs);
      if (!await settledWithin(conn.ready, attachMs).finally(quiet)) {
        ready.reject(
          new EnvironmentError(
            slowLine(
              "tmux did not accept the client that follows pane output",
              attachMs,
              opts.launcher.destination === undefined ? "tmux" : "login",
            ) + " (a stopped tmux server answers nothing: continue it with kill -CONT)",
          ),
        );
        conn.closed = true;
        if (conns.get(sessionId) === conn) conns.delete(sessionId);
        const child = conn.child!;
        void endClient(child, () => child.stdin.close(), conn.done, conn.abandon);
      }
    });
    return conn;
  }

  function start(sessionId: string, conn: Connection, ready: PromiseWithResolvers<void>): void {
    const child = startControlClient(opts.launcher, "read-only,ignore-size", sessionId);
    conn.child = child;
    const abandoned = Promise.withResolvers<void>();
    conn.abandon = abandoned.resolve;
    void child.stderr.cancel().catch(() => {});
    // Lines between %begin and %end are command replies; the first block is
    // the reply to attach-session itself, and its end means we are attached.
    // Later blocks of flag 1 answer our own commands (`ask`), in order.
    let inBlock = false;
    /** The block open is one of our own commands' (flag 1), not a hook's. */
    let ownBlock = false;
    let attached = false;
    let errorText = "";
    const onLine = (line: Uint8Array) => {
      if (startsWith(line, OUTPUT_PREFIX)) {
        if (inBlock) return;
        const space = line.indexOf(0x20, OUTPUT_PREFIX.length);
        if (space < 0) return;
        const paneId = "%" + decoder.decode(line.subarray(OUTPUT_PREFIX.length, space));
        const set = conn.watchers.get(paneId);
        if (!set || set.size === 0) return;
        const bytes = decodeOutput(line, space + 1);
        for (const w of set) w.output(bytes);
        return;
      }
      const text = decoder.decode(line);
      if (text.startsWith("%begin ")) {
        inBlock = true;
        ownBlock = text.endsWith(" 1");
      } else if (text.startsWith("%end ") || text.startsWith("%error ")) {
        inBlock = false;
        if (!attached) {
          attached = true;
          if (text.startsWith("%error ")) {
            ready.reject(
              new EnvironmentError(
                `tmux refused the client that follows pane output (${
                  errorText || "no reason given"
                }): the session may have closed; check with list, then retry`,
              ),
            );
          } else {
            conn.attached = true;
            ready.resolve();
          }
        } else if (ownBlock && conn.asked.length > 0) {
          const a = conn.asked[0];
          if (text.startsWith("%error ")) a.reply.reject(new Error(a.out.join("\n")));
          else if (--a.blocks === 0) a.reply.resolve(a.out.map((l) => l + "\n").join(""));
          else return;
          conn.asked.shift();
        }
      } else if (inBlock) {
        if (!attached) errorText = text;
        else if (ownBlock) conn.asked[0]?.out.push(text);
      } else if (
        /^%(layout-change|window-close|unlinked-window-close|window-pane-changed|sessions-changed) /.test(text)
      ) {
        broadcast(conn, "layout");
      } else if (text.startsWith("%pane-mode-changed ")) {
        broadcast(conn, "mode");
      } else if (text.startsWith("%exit")) {
        attached = true;
        ready.reject(
          new EnvironmentError(
            `tmux ended the client that follows pane output (${
              text.slice(6) || "session closed"
            }): the session closed or the tmux server exited; check with list, then retry`,
          ),
        );
      }
    };
    conn.done = (async () => {
      try {
        await readLines(child.stdout, (buf, start, end) => {
          try {
            onLine(buf.subarray(start, end));
          } catch (e) {
            log("warn", `control-mode watcher failed: ${e instanceof Error ? e.message : String(e)}`);
          }
        }, abandoned.promise);
      } finally {
        conn.closed = true;
        ready.reject(
          new EnvironmentError(
            "the client that follows pane output ended before tmux accepted it (the tmux server exited or the " +
              "connection to it dropped): check with list (what: server), then retry",
          ),
        );
        for (const a of conn.asked.splice(0)) a.reply.reject(new Error("control client ended"));
        if (conns.get(sessionId) === conn) conns.delete(sessionId);
        broadcast(conn, "closed");
        await child.status.catch(() => {});
      }
    })();
  }

  function broadcast(conn: Connection, kind: PaneSignal) {
    for (const set of conn.watchers.values()) for (const w of set) w.signal?.(kind);
  }

  async function shut(conn: Connection): Promise<void> {
    if (conn.idleTimer !== undefined) clearTimeout(conn.idleTimer);
    const live = !conn.closed;
    conn.closed = true;
    await conn.started;
    const child = conn.child;
    if (!child) return;
    // Inside the gate (shared, like a command): no client of ours attaches until this one is gone.
    await opts.gate.shared(async () => {
      if (live && conn.attached) {
        await stepOff((cmds) => ask(conn, child, cmds.join(" ; "), cmds.length), opts.stepOffTo);
      }
      await endClient(child, () => child.stdin.close(), conn.done, conn.abandon);
    });
  }

  /** Sends a command line on a hub client; resolves with its output (a client that sends only this). */
  async function ask(conn: Connection, child: Deno.ChildProcess, line: string, commands: number): Promise<string> {
    const reply = Promise.withResolvers<string>();
    conn.asked.push({ blocks: commands, out: [], reply });
    const w = child.stdin.getWriter();
    try {
      await w.write(encoder.encode(line + "\n"));
    } finally {
      w.releaseLock();
    }
    if (!await settledWithin(reply.promise, STEP_OFF_TIMEOUT_MS)) throw new Error("tmux did not answer in time");
    return await reply.promise;
  }

  return {
    get connections() {
      return conns.size;
    },
    async watch(sessionId, paneId, watcher) {
      let conn = conns.get(sessionId);
      if (!conn || conn.closed) {
        conn = open(sessionId);
        conns.set(sessionId, conn);
      }
      if (conn.idleTimer !== undefined) {
        clearTimeout(conn.idleTimer);
        conn.idleTimer = undefined;
      }
      let set = conn.watchers.get(paneId);
      if (!set) conn.watchers.set(paneId, set = new Set());
      set.add(watcher);
      const c = conn;
      let stopped = false;
      const stop = () => {
        if (stopped) return;
        stopped = true;
        const s = c.watchers.get(paneId);
        s?.delete(watcher);
        if (s && s.size === 0) c.watchers.delete(paneId);
        if (c.watchers.size === 0 && !c.closed) {
          c.idleTimer = setTimeout(() => {
            if (c.watchers.size === 0 && conns.get(sessionId) === c) {
              conns.delete(sessionId);
              void shut(c);
            }
          }, idleMs);
        }
      };
      try {
        await conn.ready;
      } catch (e) {
        stop();
        throw e;
      }
      return stop;
    },
    async close() {
      const all = [...conns.values()];
      conns.clear();
      await Promise.all(all.map(shut));
    },
  };
}
