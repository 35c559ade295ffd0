/**
 * The one interface behind the `pty-*` tools. Two implementations exist: the
 * internal PTY (`pty/pty_backend.ts`: Deno FFI + `@xterm/headless`) and tmux
 * (`tmux_backend.ts`). The tools know only this interface, so a model sees the
 * same tools, parameters and results whichever backend the user picked.
 *
 * Shared rules live here too: session-id bookkeeping, the text conventions of
 * screens and scrollback, and the errors a model gets for a bad id.
 *
 * @example
 * ```ts
 * declare const backend: TerminalBackend; // createTerminalBackend (lib/terminal/mod.ts)
 * const { session_id } = await backend.launch({ command: "bash --norc", rows: 24, cols: 80, cwd: "/tmp" });
 * await backend.send(session_id, new TextEncoder().encode("echo hi\n"));
 * const screen = await backend.screen(session_id, false);
 * ```
 */
import type { FilePolicy } from "../policy/files.ts";
import type { TerminalBackendName } from "../config.ts";
import { UserError } from "../errors.ts";

export type { TerminalBackendName };

export interface LaunchSpec {
  command: string;
  rows: number;
  cols: number;
  /** Absolute, existing directory; undefined: tmux's choice on a remote host (--ssh). */
  cwd?: string;
  /** Chosen by the caller; the backend picks one when absent. */
  sessionId?: string;
}

export interface SessionInfo {
  session_id: string;
  command: string;
  /** ISO 8601. */
  created_at: string;
  rows: number;
  cols: number;
  status: "running" | "exited";
  /** Set once exited; 128 + N when signal N ended the program. */
  exit_code?: number;
}

export interface Screen {
  rows: number;
  cols: number;
  /** Exactly `rows` lines, trailing spaces trimmed (SGR sequences when coloured). */
  lines: string[];
  /** Where the cursor is on these lines (0-based), read with them: never a later screen's. */
  cursor: { row: number; col: number };
  /** Present once the program has ended (the screen is as it left it): its exit code, when known. */
  exited?: { code?: number };
}

/** What {@linkcode TerminalBackend.inputState} reports while a human has the session. */
export interface InputState {
  exited: boolean;
  /** Terminal clients attached to the session (always 0 where attaching is impossible). */
  clients: number;
  /**
   * True while the program reads a line without echo (a password prompt),
   * false otherwise, undefined when the terminal cannot be asked.
   */
  hiddenInput?: boolean;
  /** True while the terminal itself echoes what is typed (a secret typed now would show). Undefined when unknown. */
  echo?: boolean;
  /**
   * Whether the terminal is in line mode (ICANON): false while the program reads key by key (`read -n1`, a curses
   * [y/N]), which takes an answer without Enter. Undefined when unknown.
   */
  canonical?: boolean;
  /**
   * True when a shell reads at its own prompt (its line editor): no program
   * waits for an answer, whatever the screen above says. Undefined when
   * unknown.
   */
  atShellPrompt?: boolean;
}

/** {@linkcode TerminalBackend.localProcess}'s answer. */
export interface LocalProcess {
  /** The terminal device's path (the slave side). */
  tty: string;
  pid: number;
}

/** How a human reaches a session, or why they cannot. */
export type HandOffRoute = { attachCommand: string } | { unavailable: string };

export interface TerminalBackend {
  readonly name: TerminalBackendName;
  launch(spec: LaunchSpec): Promise<{ session_id: string }>;
  /**
   * Writes bytes to the program's terminal input, exactly as given. `secret`: a human's answer, which must not
   * travel on any process's command line.
   */
  send(id: string, bytes: Uint8Array, opts?: { secret?: boolean }): Promise<void>;
  /** Whether the program put the cursor keys in application mode (arrows then send ESC O A…). */
  applicationCursor(id: string): Promise<boolean>;
  screen(id: string, colors: boolean): Promise<Screen>;
  list(): Promise<SessionInfo[]>;
  /** Ends the session's process group and forgets the session. */
  kill(id: string): Promise<void>;
  resize(id: string, rows: number, cols: number): Promise<void>;
  /**
   * The newest lines of history above the screen followed by the screen,
   * trailing spaces trimmed per line: at least `count` lines beyond the
   * screen's blank bottom rows when that much exists (cut with {@linkcode lastLines}).
   */
  lines(id: string, count: number): Promise<string[]>;
  /**
   * The lines written since `from` (history and screen, by position: a scroll does not move it): from its row,
   * the text left of its column left out, down to the screen's bottom row, wrapped rows joined. `"start"`: all
   * that history and screen hold; `"cursor"`: no lines, only where the cursor is. `missed`: rows after `from` were
   * dropped (the history was full, or cleared) before they could be read. The next read begins again at the start
   * of the cursor's row (a line written in parts, or rewritten after a carriage return, is read whole as it is then),
   * the text left of the column of `"cursor"` left out while the cursor stays on that row.
   */
  linesSince(id: string, from: OutputMark | "start" | "cursor"): Promise<LinesSince>;
  /**
   * Records program output to `path` (absolute) from now on, the file opened
   * under the file policy (lib/policy/files.ts): `raw` appends the bytes
   * exactly; `asciicast` writes a new asciicast v2 file (lib/terminal/asciicast.ts).
   */
  captureStart(id: string, path: string, policy: FilePolicy, format?: CaptureFormat): Promise<void>;
  /** Stops capturing; returns the file that was being written. */
  captureStop(id: string): Promise<string>;
  handOffRoute(id: string, prompt: string): Promise<HandOffRoute>;
  inputState(id: string): Promise<InputState>;
  /**
   * The session's terminal device and first process, for asking the kernel what its program waits for (see
   * lib/exec/keys_warning.ts); undefined when this process cannot (tmux on another host) or the program has exited.
   * On the tmux backend the answer comes after one more tmux round trip, so keys sent before were written.
   */
  localProcess(id: string): Promise<LocalProcess | undefined>;
  /** Shows `message` to humans attached to the session, if any. */
  notifyAttached(id: string, message: string): Promise<void>;
  /** Releases everything (kills the sessions this server owns unless they are to be kept). */
  close(): Promise<void>;
}

/** A place in a session's output, from {@linkcode TerminalBackend.linesSince}; only the backend reads `at`. */
export interface OutputMark {
  readonly at: unknown;
}

/** {@linkcode TerminalBackend.linesSince}'s answer. */
export interface LinesSince {
  lines: string[];
  /** The cursor's row: the next read's `from`. */
  next: OutputMark;
  missed: boolean;
}

/** How pty-capture writes its file. */
export type CaptureFormat = "raw" | "asciicast";

/**
 * Variables that describe the terminal the server (or the tmux server) was started from, never a pty session's own:
 * its size, which programs take before asking the terminal (Python's shutil, scripts reading `$COLUMNS`) and which
 * stays wrong after a resize; and its name, by which a program writes that terminal's own escapes (iTerm2's inline
 * images, kitty's graphics). Programs start without them on both backends (tmux then names itself in TERM_PROGRAM).
 */
export const OUTER_TERMINAL_VARIABLES = [
  "COLUMNS",
  "LINES",
  "TERM_PROGRAM",
  "TERM_PROGRAM_VERSION",
  "TERM_SESSION_ID",
  "LC_TERMINAL",
  "LC_TERMINAL_VERSION",
  "ITERM_SESSION_ID",
  "KITTY_WINDOW_ID",
  "KITTY_PID",
  "WEZTERM_PANE",
  "WT_SESSION",
  "VTE_VERSION",
  "KONSOLE_VERSION",
  "TERMINAL_EMULATOR",
] as const;

/** Session ids: short, safe inside tmux session names and file names. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The error for an id that names no session of this server. */
export function noSuchSession(id: string): UserError {
  return new UserError(
    `no pty session "${id}": call pty-list-sessions to see the sessions, or pty-launch to start one`,
  );
}

/** The error for sending to a session whose program has ended. */
export function sessionExited(id: string, exitCode: number | undefined): UserError {
  const code = exitCode === undefined ? "" : ` with exit code ${exitCode}`;
  return new UserError(
    `pty session "${id}" has exited${code}: its screen can still be read; pty-kill-session removes it`,
  );
}

/** The error for starting a second capture on one session. */
export function alreadyCapturing(id: string, path: string): UserError {
  return new UserError(
    `pty session "${id}" is already capturing to ${JSON.stringify(path)}: call pty-capture without output_file first`,
  );
}

/** The error for stopping a capture that is not running. */
export function notCapturing(id: string): UserError {
  return new UserError(`pty session "${id}" is not capturing: start with pty-capture and an output_file`);
}

/**
 * A session's writes, one after another: a send goes out in several writes (a program that reads slowly, tmux's
 * limit per command), and two sends at once must not interleave their parts.
 */
export class Turns {
  #last: Promise<unknown> = Promise.resolve();

  /** Runs `job` once every job queued before it has settled. */
  run<T>(job: () => Promise<T>): Promise<T> {
    const next = this.#last.then(job, job);
    this.#last = next.catch(() => {});
    return next;
  }
}

/**
 * Most sessions a server keeps, exited ones included: each holds a terminal of the machine's (Linux gives all its
 * users 4096 by default, kernel.pty.max, and one more beyond fails every terminal there), and on the internal
 * backend a screen with its history.
 */
export const MAX_SESSIONS = 256;

/**
 * Ids of the sessions a backend owns, with their per-backend state. An id is
 * reserved synchronously, so two concurrent launches can never take the same
 * one.
 */
export class SessionTable<T> {
  #items = new Map<string, T | undefined>();
  #counter = 0;

  /** Reserves `wanted`, or a fresh short id ("s1", "s2", …) when absent. */
  reserve(wanted: string | undefined): string {
    if (this.#items.size >= MAX_SESSIONS) {
      throw new UserError(
        `this server has ${MAX_SESSIONS} pty sessions, the most it keeps: end those you are done with by ` +
          "pty-kill-session (pty-list-sessions lists them, exited ones too)",
      );
    }
    if (wanted !== undefined) {
      if (this.#items.has(wanted)) {
        throw new UserError(
          `pty session id "${wanted}" is taken: choose another pty_id, or omit it to get a fresh one`,
        );
      }
      this.#items.set(wanted, undefined);
      return wanted;
    }
    let id: string;
    do id = `s${++this.#counter}`; while (this.#items.has(id));
    this.#items.set(id, undefined);
    return id;
  }

  /** Fills a reserved id. */
  set(id: string, value: T): void {
    this.#items.set(id, value);
  }

  /** The session, or the error a model gets for an unknown id. */
  get(id: string): T {
    const v = this.#items.get(id);
    if (v === undefined) throw noSuchSession(id);
    return v;
  }

  has(id: string): boolean {
    return this.#items.has(id);
  }

  delete(id: string): void {
    this.#items.delete(id);
  }

  /** Every filled entry, in creation order. */
  entries(): [string, T][] {
    return [...this.#items].filter((e): e is [string, T] => e[1] !== undefined);
  }
}

/**
 * The last `count` lines of history plus screen, after dropping blank lines
 * at the very end (an idle screen's empty rows say nothing). Both backends
 * use this, so they cut the same way.
 */
export function lastLines(all: string[], count: number): string[] {
  let end = all.length;
  while (end > 0 && all[end - 1] === "") end--;
  return all.slice(Math.max(0, end - count), end);
}
