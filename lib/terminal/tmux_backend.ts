/**
 * The tmux backend: each `pty-*` session is a tmux session on the configured
 * socket, named `mcp-pty-<server pid>-<session_id>` so two servers never
 * collide, and every tmux command goes through the {@linkcode TmuxExecutor}.
 *
 * What keeps it indistinguishable from the internal backend:
 * - the program runs as `/bin/sh -c COMMAND` (argv, no second shell), in an
 *   explicit working directory, with 10 000 lines of history;
 * - `remain-on-exit` with an empty `remain-on-exit-format`, so an exited
 *   program's last screen stays exactly as it was and its exit code is known;
 * - `window-size manual`, so a human attaching does not resize the program;
 * - `allow-passthrough off`, so a program's output cannot write to the terminal of a human attaching;
 * - input goes through `send-keys -H`, byte for byte;
 * - coloured screens are re-rendered by the shared emulator code.
 *
 * With `--keep-sessions` the sessions survive the server; a later server run
 * adopts sessions whose owning server is gone (renaming them to its own pid),
 * so they can be used again under the same session ids.
 *
 * @example
 * ```ts
 * declare const executor: Parameters<typeof createTmuxBackend>[0]; // the engine
 * const backend = createTmuxBackend(executor, { keepSessions: false });
 * ```
 */
import { log } from "../log.ts";
import { type FilePolicy, openForWrite, prepareWrite, remotePath } from "../policy/files.ts";
import { AsciicastWriter } from "./asciicast.ts";
import { UserError } from "../errors.ts";
import { COMMAND_SEPARATOR, type RunOptions, type TmuxArg, TmuxError, type TmuxExecutor } from "../tmux/executor.ts";
import { formatLiteral, pipeToFileCommand } from "../tmux/quote.ts";
import { chunkText, INVOCATION_BUDGET, packCommands } from "../tmux/batch.ts";
import {
  alreadyCapturing,
  type InputState,
  type LaunchSpec,
  noSuchSession,
  notCapturing,
  OUTER_TERMINAL_VARIABLES,
  SESSION_ID_PATTERN,
  sessionExited,
  type SessionInfo,
  SessionTable,
  type TerminalBackend,
  Turns,
} from "./backend.ts";
import { ansiScreenColors, SCROLLBACK_LINES } from "./emulator.ts";
import { processExists, tempPrefix } from "../host/process.ts";
import { hangUpCommand, hangUpSession } from "./hangup.ts";
import { libc, type TtyState } from "./pty/ffi.ts";
import { splitLines } from "../text/lines.ts";
import { dropColumns, fingerprint } from "../text/columns.ts";
import { type Position, readCursor, readSince } from "../tmux/grid.ts";
import { parseRow, parseRows, type Row, rowFormat, type RowSpec } from "../tmux/rows.ts";

/** Session names are `<prefix>-<server pid>-<session id>`. */
export const SESSION_PREFIX = "mcp-pty";
/** The session option holding a session's command and creation time, for adoption by a later server. */
const META_OPTION = "@mcp_pty_meta";
/** Bytes of a session's meta per set-option: with the command beside it, one call stays under tmux's limit. */
const META_PART = 2048;
/** Bytes per send-keys call: tmux refuses client messages over 16 KiB, and each byte is 3 argv bytes. */
const SEND_CHUNK = 2048;

/** Row 0, which every row follows: reading from it reads all the pane holds (the guessed history, the most it keeps). */
const fromTop: Position = { row: 0, x: 0, above: "", head: fingerprint(""), hs: SCROLLBACK_LINES };

/**
 * A pty wait's place ({@linkcode TerminalBackend.linesSince}): the start of a row, found again by the row above it
 * only (a fingerprint of the text left of the cursor no longer matches once the program rewrites its row after a
 * carriage return, and the read would take the whole history as new), and the columns of that row that are not new.
 */
interface RowMark {
  pos: Position;
  x: number;
}

function rowMark(cursor: Position, x: number): RowMark {
  return { pos: { ...cursor, x: 0, head: fingerprint("") }, x };
}

interface TmuxSession {
  name: string;
  pane: string;
  panePid: number;
  command: string;
  createdAt: string;
  capture?: string;
  /** While recording asciicast: the writer, and its reader loop (ends when the pipe closes). */
  cast?: { writer: AsciicastWriter; done: Promise<void> };
  writes: Turns;
  /** pty-capture's starts and stops, one at a time. */
  captures: Turns;
}

export interface TmuxBackendOptions {
  keepSessions: boolean;
}

interface Meta {
  command: string;
  created_at: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function encodeMeta(meta: Meta): string {
  return btoa(String.fromCharCode(...encoder.encode(JSON.stringify(meta))));
}

function decodeMeta(raw: string): Meta | undefined {
  try {
    const m = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(raw), (ch) => ch.charCodeAt(0))));
    return typeof m.command === "string" && typeof m.created_at === "string" ? m : undefined;
  } catch {
    return undefined;
  }
}

/** The set-option that stores a part of a session's meta, after the parts before it when `append`. */
function metaPart(target: string, part: string, append: boolean): string[] {
  return ["set-option", ...(append ? ["-a"] : []), "-t", target, META_OPTION, part];
}

function hex(bytes: Uint8Array): string[] {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0"));
}

/**
 * The `send-keys -H` commands that type `bytes` into `pane` byte for byte
 * (no key-name lookup, nothing left in a tmux buffer), in chunks tmux takes.
 *
 * @example
 * ```ts
 * sendBytesCommands("%3", new TextEncoder().encode("y\r")); // [["send-keys", "-t", "%3", "-H", "79", "0d"]]
 * ```
 */
export function sendBytesCommands(pane: string, bytes: Uint8Array): string[][] {
  const out: string[][] = [];
  for (let off = 0; off < bytes.length; off += SEND_CHUNK) {
    out.push(["send-keys", "-t", pane, "-H", ...hex(bytes.subarray(off, off + SEND_CHUNK))]);
  }
  return out;
}

const PANE = {
  pane: ["pane_id", "id"],
  dead: ["pane_dead", "bool"],
  status: ["pane_dead_status", "int?"],
  signal: ["pane_dead_signal", "int?"],
  rows: ["pane_height", "int"],
  cols: ["pane_width", "int"],
} as const satisfies RowSpec;

/** A screen's size and cursor, and whether (and how) its program ended: numbers and flags, space-separated. */
const SCREEN_FACTS = "#{pane_height} #{pane_width} #{cursor_y} #{cursor_x} #{pane_dead} #{pane_dead_status} " +
  "#{pane_dead_signal}";

/** `list-panes -F rowFormat(PANE)` output by pane id. */
function parsePanes(out: Uint8Array): Map<string, Row<typeof PANE>> {
  return new Map(parseRows(PANE, out).rows.map((p) => [p.pane, p]));
}

/** A pty session's tmux session and pane, for adopting kept ones. */
const KEPT = {
  session: ["session_id", "id"],
  name: ["session_name", "str"],
  pane: ["pane_id", "id"],
  panePid: ["pane_pid", "int"],
  meta: [META_OPTION, "str"],
} as const satisfies RowSpec;

/** Whether a pane is dead, and its tty. */
const FACTS = { dead: ["pane_dead", "bool"], tty: ["pane_tty", "str"] } as const satisfies RowSpec;
/** {@linkcode FACTS} and the pane's first process. */
const PROCESS = { ...FACTS, pid: ["pane_pid", "int"] } as const satisfies RowSpec;

/** Whether a pane is dead, and how its program ended. */
const EXIT = {
  dead: ["pane_dead", "bool"],
  status: ["pane_dead_status", "int?"],
  signal: ["pane_dead_signal", "int?"],
} as const satisfies RowSpec;

/** A client of a pane: control mode (this server's own readers) or not (a person). */
const CLIENT = { control: ["client_control_mode", "bool"] } as const satisfies RowSpec;

/** The tmux backend over an executor: in the server, the engine (lib/tmux/engine.ts), which owns every connection. */
export function createTmuxBackend(tmux: TmuxExecutor, opts: TmuxBackendOptions): TerminalBackend {
  const table = new SessionTable<TmuxSession>();
  const sep: typeof COMMAND_SEPARATOR = COMMAND_SEPARATOR;
  let linkDir: Promise<string> | undefined;
  let linkCounter = 0;
  let adopted: Promise<void> | undefined;

  const nameOf = (id: string, pid = Deno.pid) => `${SESSION_PREFIX}-${pid}-${id}`;

  /** Sessions left behind by a server that no longer runs (kept, or after a crash) become ours. */
  async function adopt(): Promise<void> {
    let out: Uint8Array;
    try {
      out = await tmux.run(["list-panes", "-a", "-F", rowFormat(KEPT)]);
    } catch (e) {
      if (e instanceof TmuxError && e.kind === "no-server") return;
      throw e;
    }
    const pattern = new RegExp(`^${SESSION_PREFIX}-(\\d+)-(.+)$`);
    // Under --sessions/--scope a kept session out of view is someone else's: not ours to rename, read or type into.
    const inView = await tmux.scope?.sessions(tmux);
    for (const { session, name, pane, panePid, meta: rawMeta } of parseRows(KEPT, out).rows) {
      const m = pattern.exec(name);
      if (!m || Number(m[1]) === Deno.pid || !SESSION_ID_PATTERN.test(m[2]) || table.has(m[2])) continue;
      if (inView && !inView.has(session)) continue;
      // A server's pid says nothing about servers on other machines sharing a remote tmux: adopt none there.
      if (tmux.remote !== undefined || processExists(Number(m[1]))) continue;
      const meta = decodeMeta(rawMeta);
      const id = m[2];
      try {
        // allow-passthrough off as at launch (see there): a session kept by a server that did not turn it off, or
        // turned on since, would hand its program's escapes to the terminal of a human attaching for a hand-off.
        await tmux.run([
          ...["rename-session", "-t", `=${name}`, nameOf(id)],
          sep,
          ...["set-option", "-p", "-q", "-t", pane, "allow-passthrough", "off"],
        ]);
      } catch {
        continue; // another server adopted it first
      }
      table.reserve(id);
      table.set(id, {
        name: nameOf(id),
        pane,
        panePid,
        command: meta?.command ?? "",
        createdAt: meta?.created_at ?? new Date().toISOString(),
        writes: new Turns(),
        captures: new Turns(),
      });
      log("info", `adopted kept pty session ${id} (tmux session ${name})`);
    }
  }

  function ready(): Promise<void> {
    adopted ??= adopt().catch((e) => log("warn", `could not look for kept pty sessions: ${(e as Error).message}`));
    return adopted;
  }

  /** Runs tmux for one session; a pane that vanished (killed outside this server) means the session is gone. */
  async function run(id: string, args: TmuxArg[]): Promise<string> {
    return decoder.decode(await runBytes(id, args));
  }

  /** {@linkcode run}, for output read as bytes (rows). */
  async function runBytes(id: string, args: TmuxArg[], opts?: RunOptions): Promise<Uint8Array> {
    return await asSession(id, () => tmux.run(args, opts));
  }

  /** Runs `call`, its error for a session that is gone being the one a model gets for an unknown id. */
  async function asSession<T>(id: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (e) {
      if (e instanceof TmuxError && (e.kind === "no-server" || /can't find (pane|session|window)/.test(e.message))) {
        table.delete(id);
        throw noSuchSession(id);
      }
      throw e;
    }
  }

  async function session(id: string): Promise<TmuxSession> {
    await ready();
    return table.get(id);
  }

  /**
   * `display-message -p` of `format` on the session's pane, then the commands of `rest` (after a separator). A
   * pane killed outside this server is the error for an unknown id: display-message answers for a pane it cannot
   * find, with every field empty (an empty pane_dead read as "running", an empty row as an internal error).
   */
  async function paneFacts(id: string, s: TmuxSession, format: string, rest: TmuxArg[] = []): Promise<Uint8Array> {
    const out = await runBytes(id, ["display-message", "-p", "-t", s.pane, `#{pane_id} ${format}`, ...rest]);
    const head = encoder.encode(`${s.pane} `);
    if (out.length < head.length || head.some((b, i) => out[i] !== b)) {
      table.delete(id);
      throw noSuchSession(id);
    }
    return out.subarray(head.length);
  }

  async function display(id: string, s: TmuxSession, format: string): Promise<string> {
    return decoder.decode(await paneFacts(id, s, format)).replace(/\n$/, "");
  }

  async function links(): Promise<string> {
    linkDir ??= Deno.makeTempDir({ prefix: tempPrefix("capture") });
    return await linkDir;
  }

  /**
   * Records asciicast: pipe-pane's `cat` writes into a FIFO this server made, and a reader here
   * timestamps what arrives (tmux itself keeps no times). Only where the server runs: through
   * --ssh the pipe's end is on the other host.
   */
  async function castStart(id: string, s: TmuxSession, path: string, policy: FilePolicy): Promise<void> {
    if (tmux.remote !== undefined) {
      throw new UserError(
        "format asciicast records only sessions on this machine; with --ssh use format raw (the file is then on " +
          "the tmux host), or start the server with --terminal-backend pty",
      );
    }
    const [cols, rows] = (await display(id, s, "#{pane_width} #{pane_height}")).split(" ").map(Number);
    const { file } = await openForWrite(path, policy, { truncate: true });
    const fifo = `${await links()}/${id}-${++linkCounter}.fifo`;
    let reading: Promise<Deno.FsFile> | undefined;
    try {
      libc().makeFifo(fifo, 0o600);
      reading = Deno.open(fifo, { read: true }); // completes once pipe-pane's cat opens the other end
      await run(id, ["pipe-pane", "-O", "-t", s.pane, pipeToFileCommand(fifo)]);
    } catch (e) {
      file.close();
      if (reading) {
        // Nobody will open the writing end now: open it here so the pending open returns, then drop both.
        (await Deno.open(fifo, { write: true })).close();
        (await reading).close();
      }
      await Deno.remove(fifo).catch(() => {});
      throw e;
    }
    const writer = new AsciicastWriter(file, { rows, cols });
    const done = (async () => {
      try {
        for await (const chunk of (await reading).readable) writer.output(chunk);
      } catch (e) {
        log("warn", `asciicast capture to ${path} stopped: ${(e as Error).message}`);
      } finally {
        writer.close();
        await Deno.remove(fifo).catch(() => {});
      }
    })();
    s.capture = path;
    s.cast = { writer, done };
  }

  /**
   * Signals every process of the session's terminal session (SIGHUP, SIGKILL a second later); `killed` settles
   * after the SIGKILL pass (at once on another host, whose tmux server runs it).
   */
  async function hangUp(id: string, s: TmuxSession, leaderGone: boolean): Promise<{ killed: Promise<unknown> }> {
    // The pane's first process leads the terminal's session; background jobs of a shell are in it too. Once it
    // has exited (tmux reaps it), its pid may belong to another process. On another host (--ssh) the pid is
    // that host's, so that host's tmux server signals it.
    if (tmux.remote === undefined) return await hangUpSession(s.panePid, { leaderGone });
    const command = hangUpCommand(s.panePid, leaderGone);
    if (command) await run(id, ["run-shell", "-b", command]).catch(() => {});
    return { killed: Promise.resolve() };
  }

  /**
   * Ends the pane's pipe-pane; false when its program has exited: tmux then refuses pipe-pane, and the pipe (with an
   * asciicast's reader) stays open until the pane is destroyed, so nothing may wait for its end before that.
   */
  async function endPipe(id: string, s: TmuxSession): Promise<boolean> {
    try {
      await run(id, ["pipe-pane", "-t", s.pane]);
      return true;
    } catch (e) {
      if (e instanceof TmuxError && /pane has exited/.test(e.message)) return false;
      throw e;
    }
  }

  /** Types `bytes` into the session's pane, a {@linkcode SEND_CHUNK} at a time. */
  async function sendInParts(id: string, s: TmuxSession, bytes: Uint8Array, secret: boolean): Promise<void> {
    for (let off = 0; off < bytes.length; off += SEND_CHUNK) {
      const [send] = sendBytesCommands(s.pane, bytes.subarray(off, off + SEND_CHUNK));
      // Checking first in the same call: a dead pane silently drops keys.
      const check = ["display-message", "-p", "-t", s.pane, rowFormat(EXIT)];
      // A secret goes on tmux's stdin: a spawned client's arguments (--control-mode off, a lost connection, the
      // remote shell of --ssh) are there for anyone on the machine to read.
      const script = secret ? new TextEncoder().encode(send.join(" ") + "\n") : undefined;
      const out = await runBytes(
        id,
        script ? [...check, sep, "source-file", "-"] : [...check, sep, ...send],
        script && { stdin: script },
      ).finally(() => script?.fill(0));
      const { dead, status, signal } = parseRow(EXIT, out);
      if (dead) throw sessionExited(id, exitCode(status, signal));
    }
  }

  return {
    name: "tmux",

    async launch(spec: LaunchSpec) {
      await ready();
      const id = table.reserve(spec.sessionId);
      const name = nameOf(id);
      const createdAt = new Date().toISOString();
      try {
        const target = `=${name}:`;
        const window = [
          ...["new-window", "-k", "-t", `=${name}:^`, "-P", "-F", "#{pane_id} #{pane_pid}"],
          ...(spec.cwd === undefined ? [] : ["-c", formatLiteral(spec.cwd)]),
          ...["--", "/bin/sh", "-c", spec.command],
        ];
        const size = window.reduce((n, a) => n + encoder.encode(a).length + 1, 0);
        if (size > INVOCATION_BUDGET) {
          throw new UserError(
            `command and working_dir are ${size} bytes in UTF-8, over the ${INVOCATION_BUDGET} the tmux backend ` +
              "hands tmux in one command: put the command in a script file and launch that",
          );
        }
        const meta = encodeMeta({ command: spec.command, created_at: createdAt });
        const commands: string[][] = [
          // The first window only carries the session: history-limit applies to panes created after it is set.
          [
            ...["new-session", "-d", "-s", name, "-x", String(spec.cols), "-y", String(spec.rows)],
            ...["--", "/bin/sh", "-c", "exec cat"],
          ],
          ["set-option", "-t", target, "history-limit", String(SCROLLBACK_LINES)],
          ...OUTER_TERMINAL_VARIABLES.map((name) => ["set-environment", "-t", target, "-r", name]),
          window,
          ["set-option", "-w", "-t", target, "window-size", "manual"],
          // The size asked for, again: tmux 3.2 gave the window 80x24 on a server that already ran.
          ["resize-window", "-t", target, "-x", String(spec.cols), "-y", String(spec.rows)],
          ["set-option", "-p", "-t", target, "remain-on-exit", "on"],
          // -q: tmux before 3.3 has no such option (every launch failed on 3.2, the oldest tmux supported).
          ["set-option", "-p", "-q", "-t", target, "remain-on-exit-format", ""],
          // Program output is untrusted: with the user's allow-passthrough on, `ESC P tmux; ... ESC \` went raw to
          // the terminal of a human attached for a hand-off (its clipboard, queries whose answers type into the
          // session). -q: tmux before 3.3 has no such option (and no passthrough).
          ["set-option", "-p", "-q", "-t", target, "allow-passthrough", "off"],
          // The command again, a third longer: in parts, appended, as tmux takes at most 16 KiB per call.
          ...chunkText(meta, META_PART).map((part, i) => metaPart(target, part, i > 0)),
        ];
        let out = "";
        for (const argv of packCommands(commands)) out += await tmux.text(argv);
        const [pane, pid] = out.trim().split(" ");
        table.set(id, {
          name,
          pane,
          panePid: Number(pid),
          command: spec.command,
          createdAt,
          writes: new Turns(),
          captures: new Turns(),
        });
        return { session_id: id };
      } catch (e) {
        table.delete(id);
        await tmux.run(["kill-session", "-t", `=${name}`]).catch(() => {});
        throw e;
      }
    },

    async send(id, bytes, opts) {
      const s = await session(id);
      await s.writes.run(() => sendInParts(id, s, bytes, opts?.secret === true));
    },

    async applicationCursor(id) {
      const s = await session(id);
      return (await display(id, s, "#{keypad_cursor_flag}")) === "1";
    },

    async screen(id, colors) {
      const s = await session(id);
      const out = splitLines(
        await run(id, [
          // The cursor in the same command list as the capture: tmux runs them with no output parsed between.
          ...["display-message", "-p", "-t", s.pane, SCREEN_FACTS],
          sep,
          // -N with colours: tmux drops a row's trailing spaces, coloured ones too (a bar of coloured spaces, the
          // rest of an inverse row), which the internal backend shows; the shared rendering drops the plain ones.
          ...["capture-pane", "-p", ...(colors ? ["-e", "-N"] : []), "-t", s.pane],
        ]),
      );
      const facts = (out.shift() ?? "").split(" ");
      const [rows, cols, row, col] = facts.slice(0, 4).map(Number);
      const number = (f: string | undefined) => f ? Number(f) : null;
      const exited = facts[4] === "1" ? { code: exitCode(number(facts[5]), number(facts[6])) } : undefined;
      const screen = out.slice(0, rows);
      while (screen.length < rows) screen.push("");
      return {
        rows,
        cols,
        lines: colors ? await ansiScreenColors(screen, rows, cols) : screen,
        cursor: { row, col },
        ...(exited ? { exited } : {}),
      };
    },

    async list() {
      await ready();
      const entries = table.entries();
      if (entries.length === 0) return [];
      const listPanes: TmuxArg[] = ["list-panes", "-a", "-F", rowFormat(PANE)];
      let panes: Map<string, Row<typeof PANE>>;
      try {
        panes = parsePanes(await tmux.run(listPanes));
        const ours = entries.map(([, s]) => panes.get(s.pane));
        if (ours.some((f) => f?.dead && exitCode(f.status, f.signal) === undefined)) {
          // tmux 3.3 sometimes misses a SIGCHLD under load and leaves a dead pane's program unreaped
          // (no exit status) until some other child of the server exits. A trivial job provides one.
          panes = parsePanes(await tmux.run(["run-shell", ":", sep, ...listPanes]));
        }
      } catch (e) {
        if (!(e instanceof TmuxError && e.kind === "no-server")) throw e;
        panes = new Map();
      }
      const result: SessionInfo[] = [];
      for (const [id, s] of entries) {
        const f = panes.get(s.pane);
        if (!f) {
          table.delete(id); // killed outside this server
          continue;
        }
        // tmux marks a pane dead when its terminal closes, a moment before it reaps the program; like the
        // internal backend, report the exit once its code is known.
        const code = f.dead ? exitCode(f.status, f.signal) : undefined;
        result.push({
          session_id: id,
          command: s.command,
          created_at: s.createdAt,
          rows: f.rows,
          cols: f.cols,
          status: code === undefined ? "running" : "exited",
          ...(code === undefined ? {} : { exit_code: code }),
        });
      }
      return result;
    },

    async kill(id) {
      const s = await session(id);
      const dead = await display(id, s, "#{pane_dead}"); // the error for a session killed elsewhere
      // Another kill of this session went first while tmux answered: it is gone, as for the internal backend.
      if (table.get(id) !== s) throw noSuchSession(id);
      table.delete(id);
      await hangUp(id, s, dead === "1");
      await tmux.run(["kill-session", "-t", `=${s.name}`]);
    },

    async resize(id, rows, cols) {
      const s = await session(id);
      await run(id, ["resize-window", "-t", s.pane, "-x", String(cols), "-y", String(rows)]);
      try {
        s.cast?.writer.resize(rows, cols);
      } catch (e) {
        log("warn", `asciicast capture to ${s.capture} cannot record the resize: ${(e as Error).message}`);
      }
    },

    async lines(id, count) {
      const s = await session(id);
      return splitLines(await run(id, ["capture-pane", "-p", "-S", String(-count), "-t", s.pane]));
    },

    async linesSince(id, from) {
      const s = await session(id);
      if (from === "cursor") {
        const { next } = await asSession(id, () => readCursor(tmux, s.pane));
        return { lines: [], next: { at: rowMark(next, next.x) }, missed: false };
      }
      const mark = from === "start" ? { pos: fromTop, x: 0 } : from.at as RowMark;
      const r = await asSession(id, () => readSince(tmux, s.pane, mark.pos, { maxRows: Infinity, mainScreen: true }));
      const lines = mark.x > 0 && !r.missed && r.rows.length > 0
        ? [dropColumns(r.rows[0], mark.x), ...r.rows.slice(1)]
        : r.rows;
      const next = rowMark(r.next, r.next.row === mark.pos.row ? mark.x : 0);
      return { lines, next: { at: next }, missed: from !== "start" && r.missed };
    },

    async captureStart(id, path, policy, format = "raw") {
      const s = await session(id);
      // One capture call at a time: a second start sees the first one's capture (a second pipe-pane would replace
      // the first's pipe, while both calls answered success).
      await s.captures.run(async () => {
        if (s.capture !== undefined) throw alreadyCapturing(id, s.capture);
        // A dead pane: tmux would refuse pipe-pane with its own words, after the file was made.
        const { dead, status, signal } = parseRow(
          EXIT,
          await paneFacts(id, s, rowFormat(EXIT)),
        );
        if (dead) throw sessionExited(id, exitCode(status, signal));
        if (format === "asciicast") return await castStart(id, s, path, policy);
        // The user's path never reaches a shell or tmux: pipe-pane appends through a symlink whose
        // name this server chose to the file the policy checked and created (resolved, so no link
        // of the model's is followed again).
        if (tmux.remote !== undefined) {
          // The file is on the tmux host (--ssh): checked by its name only; the pipe's shell there appends to it.
          await run(id, ["pipe-pane", "-O", "-t", s.pane, pipeToFileCommand(remotePath(path, policy))]);
          s.capture = path;
          return;
        }
        const file = await prepareWrite(path, policy, { truncate: false });
        const link = `${await links()}/${id}-${++linkCounter}`;
        await Deno.symlink(file.path, link);
        // The shell checks that what it opened is the file checked (a directory on the path swapped meanwhile).
        await run(id, ["pipe-pane", "-O", "-t", s.pane, pipeToFileCommand(link, true, file.id)]);
        s.capture = path;
      });
    },

    async captureStop(id) {
      const s = await session(id);
      return await s.captures.run(async () => {
        if (s.capture === undefined) throw notCapturing(id);
        // A dead pane produces no more output: its reader writes what is still in the pipe and closes the file once
        // pty-kill-session destroys the pane (waiting for it here hung the call until its budget ran out).
        const ended = await endPipe(id, s);
        const path = s.capture;
        s.capture = undefined;
        if (ended) await s.cast?.done; // the pipe's end reached the reader: the recording is complete
        s.cast = undefined;
        return path;
      });
    },

    async handOffRoute(id) {
      const s = await session(id);
      const socket = await display(id, s, "#{socket_path}");
      return { attachCommand: tmux.attachLine(socket, `=${s.name}`) };
    },

    async inputState(id): Promise<InputState> {
      const s = await session(id);
      // Control-mode clients (this server's own read-only ones, while it waits on output or reads a buffer) are
      // not a human at a terminal, so only the others count.
      const out = await paneFacts(id, s, rowFormat(FACTS), [
        COMMAND_SEPARATOR,
        ...["list-clients", "-t", s.pane, "-F", rowFormat(CLIENT)],
      ]);
      const { rows: [facts], end } = parseRows(FACTS, out, 1);
      if (!facts) throw new Error(`tmux printed no facts of pane ${s.pane}`);
      const { dead, tty } = facts;
      const humans = parseRows(CLIENT, out.subarray(end)).rows.filter((c) => !c.control).length;
      let mode: TtyState | undefined;
      try {
        // A remote pane's tty path names a terminal of the ssh host, not of this machine: only a local one is asked.
        mode = dead || tmux.remote !== undefined ? undefined : libc().ttyState(tty);
      } catch {
        mode = undefined; // no FFI here: the hand-off ends on detach or exit only
      }
      return {
        exited: dead,
        clients: humans,
        hiddenInput: mode && mode.canonical && !mode.echo,
        ...(mode ? { echo: mode.echo, canonical: mode.canonical } : {}),
      };
    },

    async localProcess(id) {
      if (tmux.remote !== undefined) return undefined;
      const s = await session(id);
      const { dead, tty, pid } = parseRow(
        PROCESS,
        await paneFacts(id, s, rowFormat(PROCESS)),
      );
      return dead ? undefined : { tty, pid };
    },

    async notifyAttached(id, message) {
      const s = await session(id);
      const text = formatLiteral(message.replace(/[\r\n]+/g, " "));
      await tmux.run(["display-message", "-t", s.pane, "-d", "15000", text]).catch(() => {});
    },

    async close() {
      const entries = table.entries();
      for (const [id] of entries) table.delete(id);
      await Promise.all(entries.map(async ([id, s]) => {
        const ended = s.capture === undefined || await endPipe(id, s).catch(() => false);
        if (ended) await s.cast?.done;
        if (opts.keepSessions) return;
        // As pty-kill-session does, so that a job ignoring SIGHUP (nohup) does not outlive the server either.
        const dead = await display(id, s, "#{pane_dead}").catch(() => undefined);
        const { killed } = dead === undefined ? { killed: undefined } : await hangUp(id, s, dead === "1");
        await tmux.run(["kill-session", "-t", `=${s.name}`]).catch(() => {});
        await s.cast?.done; // the pane's pipe closed with it
        await killed;
      }));
      if (linkDir) await Deno.remove(await linkDir, { recursive: true }).catch(() => {});
    },
  };
}

/** tmux reports an exit status or a signal; a signal N is reported as 128 + N, as shells do. */
function exitCode(status: number | null, signal: number | null): number | undefined {
  if (status !== null) return status;
  if (signal !== null) return 128 + signal;
  return undefined;
}

/** The startup check for `--terminal-backend tmux`: undefined when tmux runs, else the one-line error. */
export async function tmuxMissing(tmux: TmuxExecutor): Promise<string | undefined> {
  try {
    await tmux.run(["-V"]);
    return undefined;
  } catch (e) {
    if (e instanceof TmuxError && e.kind === "missing") {
      return "tmux not found. Install tmux or use --terminal-backend pty";
    }
    throw e;
  }
}
