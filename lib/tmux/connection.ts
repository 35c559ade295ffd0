/**
 * The control-mode protocol on one persistent `tmux -C` client: commands
 * written as lines, replies matched to them. lib/tmux/engine.ts owns the
 * connection and decides which commands travel on it.
 *
 * The client attaches to tmux's default (most recently used) session (under a
 * session scope, the most recently used one in scope, and none when no
 * session is: `attachTarget`) with `read-only,ignore-size,no-output` and
 * `-E`: it cannot type, does not change window sizes or the session's
 * environment, and is sent no pane output. Attaching to the session that already is
 * the most recent keeps it the most recent (attaching bumps a session's
 * activity), so the default target of a spawned client does not move. It
 * starts on the first command and ends after `idleMs` without one, when a
 * client at a terminal detaches (so it keeps no `destroy-unattached` session
 * alive), when our process ends (stdin EOF, and SIGTERM where lib/tmux/launcher.ts can), or when
 * the session it is attached to goes and tmux detaches it; the next command
 * starts a new one.
 *
 * Before it ends on its own account it steps off a `destroy-unattached`
 * session (`stepOff` in lib/tmux/control_client.ts: ending on one can crash
 * the tmux server).
 *
 * Replies: tmux answers a control client's own commands in `%begin T N 1` …
 * `%end|%error T N 1` blocks in the order they were sent, one block per
 * command of a line (`a ; b` gives two; after an `%error` the rest of the
 * line is dropped, never the next line). Flag 1 marks them; blocks of hooks
 * (after-hooks run right after their command) and of the attach itself carry
 * 0, and other clients never see ours. Those guard lines cannot frame a
 * reply: a block's output is raw text (a pane's lines in a capture, a path in
 * a format), so a program in a pane can print `%end T N 1` for the coming
 * command numbers (T is the second, N a counter any control client sees)
 * and a whole block after it. So every line is fenced (lib/tmux/fence.ts):
 * `display-message -p F-` between two of its commands (or, after a
 * `display-message -p` of ours, `F+` printed as its own last line), and the
 * unknown command `F.` on a line of its own after it, F being 128 random
 * bits drawn for this line. The reply is everything from the line's first
 * `%begin` to the `F.` fence; fences cut it into one segment per command, and
 * the block in a segment ended at the last `%end|%error … 1` before the
 * fence's own `%begin` (only tmux writes between them: notifications,
 * after-hook blocks). A line that failed has no inner fence after its failing
 * command. Nothing a pane prints can end, start or replace a reply, as it
 * cannot know F; F is seen again only in tmux's message log once the line
 * ran. Lines of commands without output are fenced too: one rule for every
 * reply, and their error text and the user's after-hooks still print. The
 * output a spawned client would print is the blocks' lines, each followed by
 * `\n`; {@linkcode ControlConnection.sendEach} gives each command's alone.
 *
 * When the client ends: a command tmux had begun fails with a one-line
 * {@linkcode TmuxError}; one it had not begun never ran, and fails with
 * {@linkcode ConnectionUnavailable} so the engine can spawn it instead.
 *
 * @example
 * ```ts
 * import { localLauncher } from "./launcher.ts";
 * import { AttachGate } from "./attach_gate.ts";
 * const conn = createControlConnection({ launcher: localLauncher("tmux", { socketName: "work" }), gate: new AttachGate() });
 * const out = await conn.send(["list-sessions"], { name: "list-sessions", timeoutMs: 10_000 });
 * await conn.close();
 * ```
 */
import {
  endClient,
  readLines,
  startControlClient,
  STEP_OFF_TIMEOUT_MS,
  stepOff,
  type StepOffSession,
} from "./control_client.ts";
import { conciseStderr, isNoServerText, readAll, stalled, TmuxError } from "./executor.ts";
import type { TmuxLauncher } from "./launcher.ts";
import { ATTACH_TIMEOUT_MS, type AttachGate } from "./attach_gate.ts";
import { slowLine, waitingNotice } from "./connect_wait.ts";
import { settledWithin } from "../settle.ts";
import { ECHO, fenceKind, fenceText, LAST, newFence } from "./fence.ts";

/** The connection cannot carry this command now; nothing was run (the caller may spawn it). */
export class ConnectionUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConnectionUnavailable";
  }
}

export interface SendOptions {
  /** The command's name, for messages. */
  name: string;
  timeoutMs: number;
  /**
   * performance.now() by which the reply must have come, the client's start included (default: `timeoutMs`
   * from now); a call that waited for its turn comes with less time left.
   */
  deadline?: number;
  /** Stops waiting for the reply (the command itself cannot be recalled once sent). */
  signal?: AbortSignal;
}

export interface ControlConnection {
  /**
   * Sends commands (each one command's words, already quoted) as one command
   * line (`a ; b`) and resolves with their output, concatenated. Throws
   * {@linkcode TmuxError} (`failed` with tmux's message, `timeout`,
   * `aborted`, `no-server`) or {@linkcode ConnectionUnavailable}.
   */
  send(commands: readonly LineCommand[], opts: SendOptions): Promise<Uint8Array>;
  /** Like {@linkcode ControlConnection.send}, each command's output on its own (cut at the fences). */
  sendEach(commands: readonly LineCommand[], opts: SendOptions): Promise<Uint8Array[]>;
  /** Pid of the live client process, if any (for telling our own clients apart). */
  readonly clientPid: number | undefined;
  /** Forget a failed attach now (a session may exist since), instead of after the retry pause. */
  retryNow(): void;
  /**
   * Starts a client when there is none and resolves once tmux answered its attach (or the start failed, which
   * the next command learns as its own start would have): a first command then finds it attached.
   */
  connect(): Promise<void>;
  /** Ends the client. */
  close(): Promise<void>;
}

export interface ControlConnectionOptions {
  launcher: TmuxLauncher;
  /** Orders the client's start against commands (tmux before 3.7, lib/tmux/attach_gate.ts). */
  gate: AttachGate;
  /** Give a start up when tmux has not answered its attach after this long (default 10 s). */
  attachTimeoutMs?: number;
  /**
   * End the client after this long without a command (default 10 minutes). An agent's calls come a model
   * turn apart, often more than 30 s: a call that finds the client gone pays a new client's start and attach
   * (more than one spawned command, many times a command on the connection), and each attach fires the user's
   * `client-attached` hooks. While attached the session counts the client in `session_attached` (tmux ls
   * says "attached"); an idle server lets go after this long.
   */
  idleMs?: number;
  /** After a failed attach, wait this long before trying again (default 1 s). */
  retryMs?: number;
  /**
   * The session to attach to, asked before each start; undefined: tmux's default (the most recently used).
   * Under a session scope the engine names one in scope, and null (none in scope) starts no client: the
   * commands are spawned, and a session out of view is never attached to (its hooks, its "attached").
   */
  attachTarget?: () => Promise<string | null | undefined>;
  /** Under a session scope: the sessions a leaving client may step off to (`stepOff`); undefined: any. */
  stepOffTo?: (session: StepOffSession) => boolean;
}

interface Pending {
  name: string;
  resolve(out: Uint8Array): void;
  reject(e: Error): void;
  /** tmux began the line (its first %begin came). */
  begun: boolean;
  /** The line's fence text without its last byte (see the module documentation). */
  fence: Uint8Array;
  /**
   * The output so far (`out[0, kept)`: the finished commands' lines, each followed by `\n`, as a
   * spawned client prints them), then the current segment's lines as they came (`out[kept, size)`).
   */
  out: Uint8Array;
  /** Bytes of `out` in use. */
  size: number;
  /** Bytes of `out` that are output of finished commands. */
  kept: number;
  /** A command of the line failed (tmux dropped the rest of the line); the reply fails with this. */
  failure?: TmuxError;
  /** Each finished command's output, when asked for them one by one (views of `out`, which only grows). */
  parts?: Uint8Array[];
  /** The caller stopped waiting (abort); the reply is still consumed to keep the order. */
  dropped: boolean;
  timeoutMs: number;
  /** performance.now() by which the reply must have come. */
  deadline: number;
}

interface Client {
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  pending: Pending[];
  closed: boolean;
  /** A person's client left: end this one once no command is in flight (see `personLeft`). */
  leave: boolean;
  /** Set once it is being ended (see `shut`). */
  ending?: Promise<void>;
  /** Stops reading its pipes (a killed client's may stay open: control_client.ts `endClient`). */
  abandon(): void;
  /** Resolves once attached, or once the client ended. */
  ready: Promise<void>;
  attached: boolean;
  /** Why tmux refused the attach, when it did. */
  refusal: string;
  done: Promise<void>;
  /**
   * One timer for the deadlines of all pending commands, armed for the earliest
   * (not one timer per command: setting and clearing a timer per command cost
   * more than the rest of the command's bookkeeping).
   */
  watchdog?: ReturnType<typeof setTimeout>;
  /** When the watchdog fires. */
  watchAt: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NL = 0x0a;
const PERCENT = 0x25;
const EMPTY = new Uint8Array(0);
/** `%client-detached NAME` of a client with a terminal: control clients have no tty and are named `client-PID`. */
const PERSON_LEFT = /^%client-detached (?!client-\d+$)/;
const BLOCK = /^%(begin|end|error) (\d+ \d+) (\d+)$/;
const BETWEEN = 0;
const SEGMENT = 1;
const FENCE_END = 2;
/**
 * One command of a line, as its quoted words; `{ echo }` for a
 * `display-message -p … MESSAGE` whose words end with its message (quoted or
 * not), so that it can print an inner fence itself (lib/tmux/fence.ts).
 */
export type LineCommand = string | { echo: string };

/**
 * The command line for `commands`, fenced: `a ; display-message -p F- ; b`
 * (or `a"\nF+" ; b` when `a` echoes), then `F.` on a line of its own (after
 * an `%error` tmux drops the rest of a line, never the next line).
 */
function fencedLine(commands: readonly LineCommand[], fence: Uint8Array): string {
  const f = fenceText(fence);
  let line = "";
  const last = commands.length - 1;
  for (let i = 0; i < last; i++) {
    const c = commands[i];
    line += typeof c === "string" ? `${c} ; display-message -p ${f}- ; ` : `${c.echo}"\\n${f}+" ; `;
  }
  const c = commands[last];
  return `${line}${typeof c === "string" ? c : c.echo}\n${f}.\n`;
}

/**
 * Appends a line and its `\n` to a reply, growing its buffer by doubling: one
 * copy per line into a buffer the reply owns, not an allocation per line.
 */
function appendLine(p: Pending, buf: Uint8Array, start: number, end: number): void {
  const need = p.size + (end - start) + 1;
  if (need > p.out.length) {
    const grown = new Uint8Array(Math.max(need, p.out.length * 2, 256));
    grown.set(p.out.subarray(0, p.size));
    p.out = grown;
  }
  p.out.set(buf.subarray(start, end), p.size);
  p.out[need - 1] = NL;
  p.size = need;
}

/** Where the line that ends at `out[at - 1]` (a `\n`) starts, not before `floor`. */
function lineStart(out: Uint8Array, at: number, floor: number): number {
  return at - 2 < floor ? floor : Math.max(floor, out.lastIndexOf(NL, at - 2) + 1);
}

/**
 * A fence line came: the segment before it holds one command's block, which
 * tmux ended with the last `%end`/`%error` line of flag 1 before the fence's
 * own `%begin` (the last line kept). Between the two only tmux writes:
 * notifications, and blocks of flag 0 (after-hooks the user set). The block's
 * output joins the reply; an `%error` fails the reply with tmux's message.
 */
function segmentEnded(p: Pending): void {
  let at = lineStart(p.out, p.size, p.kept);
  let end: RegExpExecArray | null = null;
  while (at > p.kept) {
    const from = lineStart(p.out, at, p.kept);
    const line = decoder.decode(p.out.subarray(from, at - 1));
    at = from;
    const m = BLOCK.exec(line);
    if (!m) {
      if (line.startsWith("%")) continue; // a notification
      break;
    }
    if (m[1] === "begin") break;
    if (m[3] === "1") {
      end = m;
      break;
    }
    // An after-hook's block: back to its %begin.
    const begin = `%begin ${m[2]} ${m[3]}`;
    while (at > p.kept) {
      const b = lineStart(p.out, at, p.kept);
      const found = decoder.decode(p.out.subarray(b, at - 1)) === begin;
      at = b;
      if (found) break;
    }
  }
  if (end?.[1] === "end") {
    p.parts?.push(p.out.subarray(p.kept, at));
    p.size = p.kept = at;
    return;
  }
  p.failure ??= end
    ? commandFailed(p.out.subarray(p.kept, at))
    : new TmuxError("failed", `tmux ${p.name}: tmux answered in an unexpected shape; retry`);
  p.size = p.kept;
}

/**
 * A `%error` block as the executor's error. tmux prints the output of the
 * commands that ran before the failing one first; its message is the last line.
 */
function commandFailed(block: Uint8Array): TmuxError {
  const text = decoder.decode(block).split("\n");
  const message = text.findLast((l) => l.trim()) ?? "tmux command failed";
  return new TmuxError("failed", message.trim(), message);
}

/** Creates the connection; nothing runs until the first command. */
export function createControlConnection(opts: ControlConnectionOptions): ControlConnection {
  const idleMs = opts.idleMs ?? 10 * 60_000;
  const retryMs = opts.retryMs ?? 1000;
  const attachMs = opts.attachTimeoutMs ?? ATTACH_TIMEOUT_MS;
  let client: Client | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let retryAt = 0;
  let lastRefusal = "";

  function start(target?: string): Client {
    const child = startControlClient(opts.launcher, "read-only,ignore-size,no-output", target);
    const attached = Promise.withResolvers<void>();
    const abandoned = Promise.withResolvers<void>();
    const c: Client = {
      child,
      writer: child.stdin.getWriter(),
      pending: [],
      closed: false,
      leave: false,
      attached: false,
      refusal: "",
      ready: attached.promise,
      done: Promise.resolve(),
      watchAt: Infinity,
      abandon: abandoned.resolve,
    };
    // SEGMENT: inside a segment of pending[0], whose lines are kept until a fence line; FENCE_END: the
    // next line is a fence's %end; `other`: T N of a block of flag 0 (the attach, hooks) between segments.
    let state = BETWEEN;
    let other: string | undefined;
    const onLine = (buf: Uint8Array, start: number, end: number) => {
      if (state === SEGMENT) {
        const p = c.pending[0];
        const kind = fenceKind(p.fence, buf, start, end);
        if (kind === 0) appendLine(p, buf, start, end);
        else if (kind === ECHO) {
          // The command's own last line: its block ends on the next line.
          state = FENCE_END;
          p.parts?.push(p.out.subarray(p.kept, p.size));
          p.kept = p.size;
        } else {
          state = FENCE_END;
          segmentEnded(p);
          if (kind === LAST) {
            c.pending.shift();
            settle(c, p, p.failure === undefined, p.failure);
          }
        }
        return;
      }
      if (state === FENCE_END) {
        state = BETWEEN;
        return;
      }
      if (buf[start] !== PERCENT) return;
      const text = decoder.decode(buf.subarray(start, end));
      const m = BLOCK.exec(text);
      if (other !== undefined) {
        if (m && m[1] !== "begin" && m[2] === other) {
          other = undefined;
          // The first such block answers the attach itself (later ones come from hooks).
          if (!c.attached && m[1] === "end") c.attached = true;
          attached.resolve();
        } else if (!c.attached && !c.refusal) c.refusal = text;
        return;
      }
      if (!m || m[1] !== "begin") {
        // A notification: this client needs none but this one.
        if (PERSON_LEFT.test(text)) personLeft(c);
        return;
      }
      if (m[3] === "1" && c.pending.length > 0) {
        state = SEGMENT;
        c.pending[0].begun = true;
      } else other = m[2];
    };
    const stderr = readAll(child.stderr, abandoned.promise).then((b) => decoder.decode(b), () => "");
    c.done = (async () => {
      await readLines(child.stdout, onLine, abandoned.promise);
      c.closed = true;
      unwatch(c);
      attached.resolve(); // whatever is pending fails below
      if (client === c) client = undefined;
      const said = conciseStderr(await stderr);
      if (!c.attached) {
        retryAt = Date.now() + retryMs;
        lastRefusal = c.refusal || said || "the control client ended";
      }
      const gone = isNoServerText(said) || /server exited/.test(said);
      for (const p of c.pending.splice(0)) {
        if (p.begun) {
          settle(
            c,
            p,
            false,
            new TmuxError(
              gone ? "no-server" : "failed",
              `tmux ${p.name}: the connection to tmux ended before it answered (${
                gone ? "the tmux server exited" : "the session it was attached to closed"
              }); check the state, then retry`,
            ),
          );
        } else {
          settle(c, p, false, new ConnectionUnavailable(c.attached ? "the control client ended" : lastRefusal));
        }
      }
      await child.status.catch(() => {});
    })();
    return c;
  }

  function settle(c: Client, p: Pending, ok: boolean, error?: Error) {
    if (!p.dropped) {
      p.dropped = true;
      if (ok) p.resolve(p.out.subarray(0, p.size));
      else p.reject(error ?? new TmuxError("failed", `tmux ${p.name} failed`));
    }
    if (c.pending.length === 0 && !c.closed && client === c) {
      if (c.leave) void shut(c);
      else armIdle();
    }
  }

  /** Arms the client's watchdog for `at`, unless it already fires by then. */
  function watch(c: Client, at: number) {
    if (c.watchdog !== undefined) {
      if (c.watchAt <= at) return;
      clearTimeout(c.watchdog);
    }
    c.watchAt = at;
    c.watchdog = setTimeout(() => expire(c), Math.max(0, at - performance.now()));
  }

  function unwatch(c: Client) {
    if (c.watchdog !== undefined) clearTimeout(c.watchdog);
    c.watchdog = undefined;
  }

  /**
   * The watchdog fired: commands past their deadline fail. A command this slow means tmux is stuck
   * (or --tmux-bin is no tmux): the client is dropped, and its end settles the other commands.
   */
  function expire(c: Client) {
    c.watchdog = undefined;
    const now = performance.now();
    let next = Infinity;
    let late = false;
    for (const p of c.pending) {
      if (p.dropped) continue;
      if (p.deadline > now) {
        next = Math.min(next, p.deadline);
        continue;
      }
      late = true;
      settle(c, p, false, stalled(opts.launcher.destination, p.name, p.timeoutMs));
    }
    if (late) void shut(c, false); // tmux is stuck: nothing more is asked of it
    // The others keep their own deadlines, also while a stuck client is being ended (up to a second).
    if (next < Infinity) watch(c, next);
  }

  // The idle timer is armed once and, when it fires, looks at the time of the last reply: re-arming
  // it on every command would cost a timer per command.
  let lastReply = 0;
  function armIdle() {
    lastReply = performance.now();
    idleTimer ??= setTimeout(idleCheck, idleMs);
  }

  function idleCheck() {
    idleTimer = undefined;
    const c = client;
    // Commands in flight: the last reply arms it again.
    if (!c || c.closed || c.pending.length > 0) return;
    const left = lastReply + idleMs - performance.now();
    if (left > 0) idleTimer = setTimeout(idleCheck, left);
    else void shut(c);
  }

  /**
   * A client at a terminal left a session. Ours may be what keeps that session attached: tmux destroys a
   * `destroy-unattached` session only once no client is attached, and ours stays up to `idleMs`. So ours
   * leaves too, as soon as no command is in flight (a human detaching is rare; the next command starts a
   * new client). Control clients (`client-PID`: ours, another server's, a wait's) leaving do not count.
   */
  function personLeft(c: Client) {
    c.leave = true;
    if (c.pending.length === 0 && !c.closed && client === c) void shut(c);
  }

  /** Ends a client; `stepOff` first unless tmux is stuck (see the module documentation). */
  function shut(c: Client, polite = true): Promise<void> {
    if (client === c) client = undefined;
    c.ending ??= opts.gate.shared(async () => {
      // Inside the gate: no client of ours starts (an attach is a session change) until this one is gone.
      if (polite && c.attached && !c.closed) {
        await stepOff(
          (commands) =>
            enqueue(c, commands, { name: "step-off", timeoutMs: STEP_OFF_TIMEOUT_MS }).then((o) => decoder.decode(o)),
          opts.stepOffTo,
        );
      }
      c.closed = true;
      unwatch(c);
      // Its leaving is a notification to every control client (%client-detached).
      await endClient(c.child, () => c.writer.close(), c.done, c.abandon);
    });
    return c.ending;
  }

  let connecting: Promise<void> | undefined;
  /** When the login of the client being started began (a remote host), while it runs. */
  let loginFrom: number | undefined;
  /** The last login that ended. */
  let lastLogin: { from: number; to: number } | undefined;
  /** How long logins ran since `t0` (the one under way included): time a call does not count as its own. */
  function loginTimeSince(t0: number): number {
    const now = performance.now();
    if (loginFrom !== undefined) return now - Math.max(loginFrom, t0);
    return lastLogin && lastLogin.to > t0 ? lastLogin.to - Math.max(lastLogin.from, t0) : 0;
  }
  /** Starts a client when there is none, alone (the gate), and waits until tmux answered its attach. */
  function connect(): Promise<void> {
    connecting ??= (async () => {
      // Asked before the gate: the question is a spawned command, which the gate would hold back.
      const target = opts.attachTarget && (!client || client.closed) && Date.now() >= retryAt
        ? await opts.attachTarget().catch((e: Error) => e)
        : undefined;
      if (target === null || target instanceof Error) {
        retryAt = Date.now() + retryMs;
        lastRefusal = target === null
          ? "no session in this server's scope to attach to"
          : `cannot choose a session to attach to: ${target.message}`;
        return;
      }
      await opts.gate.exclusive(() => startAndWait(target));
    })().finally(() => connecting = undefined);
    return connecting;
  }

  async function startAndWait(target: string | undefined): Promise<void> {
    if (!client || client.closed) {
      if (Date.now() < retryAt) return;
      try {
        client = start(target);
      } catch (e) {
        // No such binary, no permission: the engine's spawned command will say so.
        retryAt = Date.now() + retryMs;
        lastRefusal = `cannot start ${opts.launcher.bin}: ${(e as Error).message}`;
        return;
      }
    }
    const c = client;
    // A remote login runs first, bounded by --connect-timeout-ms (slow is not broken); then tmux has attachMs.
    const login = opts.launcher.login?.(c.child);
    if (login) {
      const quietLogin = waitingNotice(`the login on ${login.where} to start tmux`, login.limitMs);
      loginFrom = performance.now();
      const began = await settledWithin(Promise.race([login.started, c.done]), login.limitMs).finally(() => {
        quietLogin();
        lastLogin = { from: loginFrom!, to: performance.now() };
        loginFrom = undefined;
      });
      if (!began && !c.closed) {
        retryAt = Date.now() + retryMs;
        lastRefusal = slowLine(`the login on ${login.where} did not start tmux`, login.limitMs, "login");
        if (client === c) client = undefined;
        c.closed = true;
        unwatch(c);
        void endClient(c.child, () => c.writer.close(), c.done, c.abandon);
        return;
      }
    }
    // The gate is held until tmux answers: a tmux that never does must not hold every command back.
    const quiet = waitingNotice("tmux to accept the command connection", attachMs);
    const answered = await settledWithin(c.ready, attachMs).finally(quiet);
    if (!answered && !c.closed) {
      retryAt = Date.now() + retryMs;
      lastRefusal = `tmux did not answer a control client's attach within ${attachMs} ms (is it stuck?)`;
      if (client === c) client = undefined;
      c.closed = true;
      unwatch(c);
      // Not attached, so its end notifies no one: no need to wait inside the gate.
      void endClient(c.child, () => c.writer.close(), c.done, c.abandon);
    }
  }

  /**
   * Queues `commands` (one line) on an attached client: written at once, its reply matched in order;
   * with `parts`, each command's output is pushed to it.
   */
  function enqueue(
    c: Client,
    commands: readonly LineCommand[],
    so: SendOptions,
    parts?: Uint8Array[],
  ): Promise<Uint8Array> {
    return new Promise<Uint8Array>((resolve, reject) => {
      const p: Pending = {
        name: so.name,
        resolve,
        reject,
        begun: false,
        fence: newFence(),
        out: EMPTY,
        size: 0,
        kept: 0,
        parts,
        dropped: false,
        timeoutMs: so.timeoutMs,
        deadline: so.deadline ?? performance.now() + so.timeoutMs,
      };
      watch(c, p.deadline);
      if (so.signal) {
        const onAbort = () => settle(c, p, false, new TmuxError("aborted", "tmux call cancelled"));
        so.signal.addEventListener("abort", onAbort, { once: true });
        const clean = () => so.signal?.removeEventListener("abort", onAbort);
        const { resolve: res, reject: rej } = p;
        p.resolve = (v) => (clean(), res(v));
        p.reject = (e) => (clean(), rej(e));
      }
      c.pending.push(p);
      // Writes queue in call order, so lines are written in the order of `pending`.
      c.writer.write(encoder.encode(fencedLine(commands, p.fence))).catch(() => {
        // The client is gone; its end settles every pending command.
      });
    });
  }

  const usable = (c: Client | undefined): boolean => c !== undefined && !c.closed && c.attached;

  function sendOn(commands: readonly LineCommand[], so: SendOptions, parts?: Uint8Array[]): Promise<Uint8Array> {
    if (so.signal?.aborted) return Promise.reject(new TmuxError("aborted", "tmux call cancelled"));
    const late = () => stalled(opts.launcher.destination, so.name, so.timeoutMs);
    const c = client;
    if (c && usable(c)) return opts.gate.shared(() => enqueue(c, commands, so, parts), so.deadline, late);
    return (async () => {
      let deadline = so.deadline ?? performance.now() + so.timeoutMs;
      const t0 = performance.now();
      const starting = connect();
      // A start that takes longer goes on for the next call: this one ends at its bound. A remote login
      // has its own bound (--connect-timeout-ms), so the time it took while this call waited is added back.
      let counted = 0;
      while (!await settledWithin(starting, deadline - performance.now())) {
        const extra = loginTimeSince(t0) - counted;
        if (extra <= 0) throw late();
        counted += extra;
        deadline += extra;
      }
      const c = client as Client | undefined;
      // A client that was refused is not attached: nothing may be written to it (it would run unattached).
      if (!c || !usable(c)) throw new ConnectionUnavailable(c?.refusal || lastRefusal || "the control client ended");
      if (so.signal?.aborted) throw new TmuxError("aborted", "tmux call cancelled");
      return await opts.gate.shared(() => enqueue(c, commands, { ...so, deadline }, parts), deadline, late);
    })();
  }

  return {
    get clientPid() {
      return client && !client.closed ? client.child.pid : undefined;
    },
    retryNow() {
      retryAt = 0;
    },
    connect,
    send(commands, so) {
      return sendOn(commands, so);
    },
    async sendEach(commands, so) {
      const parts: Uint8Array[] = [];
      await sendOn(commands, so, parts);
      return parts;
    },
    async close() {
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      idleTimer = undefined;
      if (client) await shut(client);
    },
  };
}
