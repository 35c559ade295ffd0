/**
 * The internal PTY backend: programs run on pseudo-terminals this server
 * opens itself (Deno FFI, see `ffi.ts`) and their output is parsed by
 * `@xterm/headless`, so no tmux is needed.
 *
 * Each session has one background loop: it waits for its master in a poll()
 * shared by all sessions, which runs off the main thread (a non-blocking FFI
 * call), and wakes at least every {@linkcode POLL_MS}; readable output is read without blocking, fed to the
 * emulator (awaiting its parser, so a flood of output is paced by the
 * terminal's own buffer) and appended to the capture file; the child is
 * reaped with waitpid(WNOHANG). Before any read of the screen the loop's
 * pending output is drained synchronously, so results are never stale.
 *
 * @example
 * ```ts
 * const backend = createPtyBackend();
 * const { session_id } = await backend.launch({ command: "bash --norc", rows: 24, cols: 80, cwd: "/tmp" });
 * ```
 */
import { UserError } from "../../errors.ts";
import { log } from "../../log.ts";
import { openForWrite } from "../../policy/files.ts";
import { AsciicastWriter } from "../asciicast.ts";
import {
  alreadyCapturing,
  type HandOffRoute,
  type InputState,
  type LaunchSpec,
  notCapturing,
  OUTER_TERMINAL_VARIABLES,
  sessionExited,
  type SessionInfo,
  SessionTable,
  type TerminalBackend,
  Turns,
} from "../backend.ts";
import { createEmulator, type Emulator, loadEmulator } from "../emulator.ts";
import { hangUpSession } from "../hangup.ts";
import { type ChildExit, type Libc, libc, POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT } from "./ffi.ts";

/** Longest a session's loop sleeps in poll() before it checks for exit or shutdown. */
const POLL_MS = 250;
/**
 * Longest one shared poll() waits: a session that starts waiting meanwhile is in the next one. Deno runs waiting
 * FFI calls on its pool of 32 threads, which every file operation shares, so one poll() per session would hold
 * them all once 32 sessions wait (each file operation then queued for seconds).
 */
const ROUND_MS = 50;
/** Most bytes read per wake-up, so one chatty program cannot starve the others. */
const READ_BUDGET = 1024 * 1024;
/** A write gives up when the program has not read its input for this long. */
const WRITE_STALL_MS = 10_000;
/** The terminal type the programs see: what `@xterm/headless` emulates. */
const TERM = "xterm-256color";

interface PtySession {
  command: string;
  createdAt: string;
  pid: number;
  /** The terminal's master; -1 once closed. */
  fd: number;
  /** The slave side's path, for looking at the terminal from outside (never kept open here: EOF needs them all closed). */
  tty: string;
  em: Emulator;
  exit?: ChildExit;
  /** Every slave descriptor is closed: nothing more will arrive. */
  eof: boolean;
  /** Kill requested: the loop stops, then the descriptor is closed. */
  closed: boolean;
  /** Resolves when the kill is requested: the loop waits no longer for the emulator. */
  closing: PromiseWithResolvers<void>;
  loop: Promise<void>;
  capture?: { path: string; file: Deno.FsFile; cast?: AsciicastWriter };
  writes: Turns;
  /** pty-capture's starts and stops, one at a time. */
  captures: Turns;
}

/** Closes the terminal's master, once: what is left of the session gets SIGHUP and EOF. */
function hangUp(c: Libc, s: PtySession): void {
  if (s.fd < 0) return;
  c.close(s.fd);
  s.fd = -1; // the number may be reused by the next terminal opened
}

/** Killed sessions whose program has not been reaped yet (zombies until waitpid). */
const unreaped = new Set<PtySession>();
let reaperTimer: ReturnType<typeof setInterval> | undefined;

function reap(c: Libc, s: PtySession): void {
  if (!s.exit) s.exit = c.reap(s.pid);
}

function reapLater(c: Libc, s: PtySession): void {
  unreaped.add(s);
  if (reaperTimer !== undefined) return;
  const timer = setInterval(() => {
    for (const u of unreaped) {
      reap(c, u);
      if (u.exit) unreaped.delete(u);
    }
    if (unreaped.size === 0) {
      clearInterval(timer);
      reaperTimer = undefined;
    }
  }, 200);
  Deno.unrefTimer(timer);
  reaperTimer = timer;
}

interface Waiter {
  fd: number;
  events: number;
  /** When the wait ends without events (Date.now() ms). */
  until: number;
  resolve(revents: number): void;
}

/**
 * Waits for terminals with one poll() at a time for all of them (see {@linkcode ROUND_MS}): the returned function
 * resolves with `fd`'s revents once it has `events`, or with 0 after `timeoutMs`.
 */
function createPoller(c: Libc): (fd: number, events: number, timeoutMs: number) => Promise<number> {
  const waiting = new Set<Waiter>();
  let running = false;
  async function rounds(): Promise<void> {
    while (waiting.size > 0) {
      const batch = [...waiting];
      const revents = await c.pollMany(batch, ROUND_MS).catch((e) => {
        log("warn", `poll() of the pty sessions failed: ${(e as Error).message}`);
        return batch.map(() => 0);
      });
      const now = Date.now();
      batch.forEach((w, i) => {
        if (revents[i] === 0 && now < w.until) return;
        waiting.delete(w);
        w.resolve(revents[i]);
      });
      // The sessions just woken read their output and wait again: they join the next round.
      await new Promise((r) => setTimeout(r, 0));
    }
    running = false;
  }
  return (fd, events, timeoutMs) =>
    new Promise((resolve) => {
      waiting.add({ fd, events, until: Date.now() + timeoutMs, resolve });
      if (running) return;
      running = true;
      setTimeout(() => void rounds(), 0); // the sessions that wait from the same turn share the first round
    });
}

function environment(): string[] {
  const env = Deno.env.toObject();
  // A server started inside tmux must not make its programs believe they run in that tmux.
  delete env.TMUX;
  delete env.TMUX_PANE;
  for (const name of OUTER_TERMINAL_VARIABLES) delete env[name];
  env.TERM = TERM;
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

/** The internal PTY backend. The C library is loaded at the first launch. */
export function createPtyBackend(): TerminalBackend {
  const table = new SessionTable<PtySession>();
  const readBuf = new Uint8Array(64 * 1024);
  let poller: ReturnType<typeof createPoller> | undefined;
  const poll = (c: Libc, fd: number, events: number) => (poller ??= createPoller(c))(fd, events, POLL_MS);

  /** Reads what the program has written so far (sets `eof` once the slave side is gone). */
  function drain(c: Libc, s: PtySession): void {
    let budget = READ_BUDGET;
    while (!s.eof && budget > 0) {
      const r = c.read(s.fd, readBuf);
      if (r === "again") return;
      if (r === "eof") {
        s.eof = true;
        return;
      }
      budget -= r;
      const chunk = readBuf.slice(0, r);
      s.em.write(chunk);
      if (s.capture) appendCapture(s, chunk);
    }
  }

  function appendCapture(s: PtySession, chunk: Uint8Array): void {
    const cap = s.capture!;
    try {
      if (cap.cast) cap.cast.output(chunk);
      else for (let off = 0; off < chunk.length;) off += cap.file.writeSync(chunk.subarray(off));
    } catch (e) {
      log("warn", `capture to ${cap.path} stopped: ${(e as Error).message}`);
      stopCapture(s);
    }
  }

  function stopCapture(s: PtySession): string | undefined {
    const cap = s.capture;
    if (!cap) return undefined;
    s.capture = undefined;
    try {
      if (cap.cast) cap.cast.close();
      else cap.file.close();
    } catch (e) {
      if (!(e instanceof Deno.errors.BadResource)) log("warn", `capture to ${cap.path}: ${(e as Error).message}`);
    }
    return cap.path;
  }

  async function pump(c: Libc, s: PtySession): Promise<void> {
    while (!s.closed) {
      // Output that is there already is read at once; an idle session waits in the shared poll().
      const ready = s.eof ? 0 : c.pollNow(s.fd);
      const events = s.eof || ready !== 0 ? ready : await poll(c, s.fd, POLLIN);
      if (s.closed) break;
      if (events & POLLNVAL) break;
      if (events & (POLLIN | POLLHUP | POLLERR)) drain(c, s);
      // Output that is slow to parse (a flood of escapes that each fill a large screen) takes minutes: a kill
      // must not wait for it.
      await Promise.race([s.em.flushed(), s.closing.promise]);
      reap(c, s);
      if (s.eof && s.exit) break;
      if (s.eof) {
        // Output ended but the program lives on: it closed its terminal. The terminal goes away, as a tmux pane
        // and a terminal window do, and the hang-up ends the program as it ends it there (SIGHUP, exit code 129).
        hangUp(c, s);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    }
  }

  /** Brings the emulator up to date with everything the program wrote so far. */
  async function settle(c: Libc, s: PtySession): Promise<void> {
    reap(c, s);
    if (!s.closed && !s.eof) {
      c.pollNow(s.fd); // what the program wrote just now reaches the master first (see Libc.pollNow)
      drain(c, s);
    }
    await s.em.flushed();
  }

  async function session(id: string): Promise<{ c: Libc; s: PtySession }> {
    const s = table.get(id);
    const c = libc();
    await settle(c, s);
    return { c, s };
  }

  function enqueueWrite(c: Libc, s: PtySession, id: string, bytes: Uint8Array): Promise<void> {
    const run = async () => {
      let off = 0;
      let lastProgress = Date.now();
      while (off < bytes.length) {
        if (s.closed) throw new UserError(`pty session "${id}" was killed while sending`);
        reap(c, s);
        if (s.exit || s.eof) throw sessionExited(id, s.exit?.exitCode);
        const n = c.write(s.fd, bytes.subarray(off));
        if (n > 0) {
          off += n;
          lastProgress = Date.now();
          continue;
        }
        if (Date.now() - lastProgress > WRITE_STALL_MS) {
          throw new UserError(
            `the program in pty session "${id}" is not reading its input (${off} of ${bytes.length} bytes sent): ` +
              'check pty-get-screen, or interrupt it with key_names ["C-c"]',
          );
        }
        await poll(c, s.fd, POLLOUT);
      }
    };
    return s.writes.run(run);
  }

  function info(id: string, s: PtySession): SessionInfo {
    return {
      session_id: id,
      command: s.command,
      created_at: s.createdAt,
      rows: s.em.rows,
      cols: s.em.cols,
      status: s.exit ? "exited" : "running",
      ...(s.exit ? { exit_code: s.exit.exitCode } : {}),
    };
  }

  /** Ends a session; `killed` settles after the SIGKILL pass a second later. */
  async function kill(c: Libc, s: PtySession): Promise<{ killed: Promise<unknown> }> {
    s.closed = true;
    s.closing.resolve();
    const { killed } = await hangUpSession(s.pid, { leaderGone: s.exit !== undefined });
    await s.loop;
    stopCapture(s);
    hangUp(c, s);
    s.em.dispose(); // drops the output still queued for its parser (its callbacks run, nothing more is parsed)
    reap(c, s);
    if (!s.exit) reapLater(c, s);
    return { killed };
  }

  return {
    name: "pty",

    async launch(spec: LaunchSpec) {
      await loadEmulator();
      const id = table.reserve(spec.sessionId);
      let fd = -1;
      try {
        const c = libc();
        const master = c.openMaster();
        fd = master.fd;
        c.setWindowSize(fd, spec.rows, spec.cols);
        c.setUtf8Input(fd);
        const pid = c.spawn({
          path: "/bin/sh",
          argv: ["/bin/sh", "-c", spec.command],
          env: environment(),
          slavePath: master.slavePath,
          cwd: spec.cwd ?? Deno.cwd(),
        });
        const s: PtySession = {
          command: spec.command,
          createdAt: new Date().toISOString(),
          pid,
          fd,
          tty: master.slavePath,
          em: createEmulator(spec.rows, spec.cols),
          eof: false,
          closed: false,
          closing: Promise.withResolvers(),
          loop: Promise.resolve(),
          writes: new Turns(),
          captures: new Turns(),
        };
        // Answers to the program's terminal queries (device attributes, cursor position), as tmux gives them.
        s.em.onReply((data) => void enqueueWrite(c, s, id, new TextEncoder().encode(data)).catch(() => {}));
        table.set(id, s);
        s.loop = pump(c, s).catch((e) => log("error", `pty session ${id} reader failed: ${(e as Error).message}`));
        return Promise.resolve({ session_id: id });
      } catch (e) {
        table.delete(id);
        if (fd >= 0) libc().close(fd);
        return Promise.reject(e);
      }
    },

    async send(id, bytes) {
      const { c, s } = await session(id);
      if (s.exit) throw sessionExited(id, s.exit.exitCode);
      await enqueueWrite(c, s, id, bytes);
    },

    async applicationCursor(id) {
      return (await session(id)).s.em.applicationCursor();
    },

    async screen(id, colors) {
      const { s } = await session(id);
      // Lines and cursor in one turn, after one settle: no output is parsed between them.
      const lines = colors ? s.em.screenColors() : s.em.screenLines();
      const exited = s.exit ? { exited: { code: s.exit.exitCode } } : {};
      return { rows: s.em.rows, cols: s.em.cols, lines, cursor: s.em.cursor(), ...exited };
    },

    list() {
      // Reaped, not settled: a list tells no output, and waiting for each session's output to be parsed made one
      // flooding session hold up the list past its budget.
      return Promise.resolve(
        table.entries().map(([id, s]) => {
          reap(libc(), s);
          return info(id, s);
        }),
      );
    },

    async kill(id) {
      const s = table.get(id);
      table.delete(id);
      await kill(libc(), s);
    },

    async resize(id, rows, cols) {
      const { c, s } = await session(id);
      s.em.resize(rows, cols);
      if (s.capture?.cast) {
        try {
          s.capture.cast.resize(rows, cols);
        } catch (e) {
          log("warn", `capture to ${s.capture.path} stopped: ${(e as Error).message}`);
          stopCapture(s);
        }
      }
      if (!s.eof) c.setWindowSize(s.fd, rows, cols); // the kernel sends SIGWINCH to the foreground job
    },

    async lines(id, count) {
      const { s } = await session(id);
      return s.em.tailLines(count + s.em.rows);
    },

    async linesSince(id, from) {
      const { s } = await session(id);
      const mark = typeof from === "object" ? from.at as { row: number; x: number } : { row: 0, x: 0 };
      const r = s.em.linesFrom(from === "cursor" ? Infinity : mark.row, mark.x);
      const next = from === "cursor" ? r.cursor : { row: r.cursor.row, x: r.cursor.row === mark.row ? mark.x : 0 };
      return { lines: r.lines, next: { at: next }, missed: typeof from === "object" && r.first > mark.row };
    },

    async captureStart(id, path, policy, format = "raw") {
      const { s } = await session(id);
      // One capture call at a time: a second start sees the first one's capture before it makes a file.
      await s.captures.run(async () => {
        if (s.capture) throw alreadyCapturing(id, s.capture.path);
        // Its program has ended: nothing more would be recorded (and tmux refuses pipe-pane on a dead pane).
        if (s.exit) throw sessionExited(id, s.exit.exitCode);
        const { file } = await openForWrite(path, policy, { truncate: format === "asciicast" });
        let cast: AsciicastWriter | undefined;
        try {
          if (format === "asciicast") cast = new AsciicastWriter(file, { rows: s.em.rows, cols: s.em.cols });
        } catch (e) {
          file.close();
          throw new UserError(`cannot write ${JSON.stringify(path)}: ${(e as Error).message}`);
        }
        s.capture = { path, file, cast };
      });
    },

    async captureStop(id) {
      const { s } = await session(id);
      return await s.captures.run(() => {
        const path = stopCapture(s);
        if (path === undefined) throw notCapturing(id);
        return Promise.resolve(path);
      });
    },

    handOffRoute(id): Promise<HandOffRoute> {
      table.get(id);
      return Promise.resolve({
        unavailable: "this server uses the internal pty backend, whose sessions cannot be attached to from " +
          "another terminal, so nobody can type into it but this server. For a hand-off, ask the user to restart " +
          "the server with --terminal-backend tmux (then request-input prints a `tmux attach` command), or " +
          "to run the command in their own terminal",
      });
    },

    async inputState(id): Promise<InputState> {
      const { c, s } = await session(id);
      const tty = s.eof ? undefined : c.ttyState(s.tty);
      return {
        exited: s.exit !== undefined,
        clients: 0,
        hiddenInput: tty && tty.canonical && !tty.echo,
        ...(tty ? { echo: tty.echo, canonical: tty.canonical } : {}),
      };
    },

    async localProcess(id) {
      const { s } = await session(id);
      return s.exit || s.eof ? undefined : { tty: s.tty, pid: s.pid };
    },

    notifyAttached: () => Promise.resolve(),

    async close() {
      const all = table.entries();
      for (const [id] of all) table.delete(id);
      // The SIGKILL pass is waited for: its timer would not keep the exiting server alive, and a job that
      // ignores SIGHUP (nohup) would outlive the server.
      if (all.length > 0) await Promise.all(all.map(async ([, s]) => await (await kill(libc(), s)).killed));
    },
  };
}
