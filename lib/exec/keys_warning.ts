/**
 * What send-keys and pty-send-keys say after typing: whether the program of
 * the pane or pty session waits at a password, passphrase or yes/no prompt,
 * so that the model hands it to the human (request-input) instead of typing,
 * or guessing, the answer.
 *
 * One look at the pane (its facts and screen) follows the keys. Keys that
 * end without Enter leave any prompt waiting: the screen says so, and where
 * tmux runs on this machine so does the kernel (a line read without echo).
 * A line submitted with Enter is given a short, bounded chance to bring up a
 * prompt (`sudo …` asks a moment later), watched through the kernel alone
 * (the terminal's modes and unread input; on Linux the system call each of
 * the pane's processes is blocked in): the wait ends as soon as the line was
 * read and the pane waits for input again — a line read without echo is a
 * password prompt; any other wait (a shell back at its prompt, a yes/no read
 * with echo, a full-screen program) is judged from one more look at the
 * screen. Only a command that still runs without reading at the bound costs
 * the whole bound.
 * With tmux on another host (`--ssh`) nothing is waited for: a line
 * submitted there answered what the screen showed, and the next read of the
 * pane (capture-pane, wait-for-text, snapshot-pane) warns about a new prompt.
 * A pty session is watched the same way ({@linkcode sessionKeysWarning}):
 * its terminal and first process come from the backend (the internal one
 * owns the terminal; the tmux one names the pane's).
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof keysWarning>[0]; // the call's ctx.tmux
 * const w = await keysWarning(tmux, "%3", true, AbortSignal.timeout(5000));
 * w?.message; // 'pane %3 reads input without echo (a password prompt): call request-input {target: "%3"} …'
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxExecutor } from "../tmux/executor.ts";
import { UserError } from "../errors.ts";
import { getPane, paneFacts, type PaneInfo } from "../tmux/panes.ts";
import { type Libc, libc } from "../terminal/pty/ffi.ts";
import { splitRows, trimTrailingBlank } from "../text/columns.ts";
import {
  hiddenReadRefusal,
  noEchoWarning,
  promptWarning,
  secretPromptAtCursor,
  toldForMode,
  type Warning,
} from "./warnings.ts";
import { withTerminalMode } from "./pane_handoff.ts";
import type { TerminalBackend } from "../terminal/backend.ts";
import { parseProcStat } from "../host/process.ts";
import { shellFlavor } from "./shell.ts";

const FACTS = paneFacts(["tty", "pid", "current_command", "alternate_on", "in_mode", "dead"]);
/** How long a submitted line is watched for the prompt of what it started, while that still runs. */
const REACT_MS = 150;
/** At most this many processes of the pane are looked at (a build's tree can be large). */
const MAX_PROCS = 64;
const decoder = new TextDecoder();

/** The C library when this process may use it, else undefined (the screen decides alone). */
function kernel(): Libc | undefined {
  try {
    return libc();
  } catch {
    return undefined;
  }
}

/** `read` and the poll/select family (a line editor or a full-screen program waits in them), by architecture. */
const CALLS: Record<string, { read: number; polls: ReadonlySet<number> }> = {
  x86_64: { read: 0, polls: new Set([7, 23, 232, 270, 271, 281]) },
  aarch64: { read: 63, polls: new Set([22, 72, 73]) },
};

/**
 * What the pane's processes (its first process and its descendants) are blocked in, from /proc/PID/syscall:
 * "keys" when one waits for the terminal's input (reads its stdin, or polls: a shell's line editor, a full-screen
 * program), "read" when one reads something else (a password prompt reads /dev/tty; a client its socket), false
 * when none waits, undefined where /proc cannot tell (not Linux).
 */
function blockedIn(k: Libc, pid: number | null | undefined): "keys" | "read" | false | undefined {
  const calls = CALLS[Deno.build.arch];
  if (!pid || !calls) return undefined;
  let known = false;
  let reads = false;
  for (const p of processTree(k, pid)) {
    const line = k.procFile(p, "syscall");
    if (line === undefined) continue;
    known = true;
    const [nr, fd] = line.split(" ", 2).map(Number);
    if (calls.polls.has(nr) || (nr === calls.read && fd === 0)) return "keys";
    if (nr === calls.read) reads = true;
  }
  return reads ? "read" : known ? false : undefined;
}

/**
 * Whether the line editor of the terminal `tty` (first process `pid`) waits for keys: the terminal is in raw mode and
 * one of its processes waits for its input, with none unread. A shell's line editor is then done drawing its prompt
 * (it draws it before it waits). Undefined where this process cannot ask the kernel (no FFI, no /proc).
 *
 * @example
 * ```ts
 * lineEditorWaits("/dev/pts/3", 4242); // true while bash's readline waits at its prompt
 * ```
 */
export function lineEditorWaits(tty: string, pid: number | null | undefined): boolean | undefined {
  const k = kernel();
  const s = k?.ttyState(tty);
  if (!k || !s) return undefined;
  // Canonical: a shell running a command (or waiting in a run's handshake, which reads a FIFO on its stdin).
  if (s.canonical || s.unread > 0) return false;
  const blocked = blockedIn(k, pid);
  return blocked === undefined ? undefined : blocked === "keys";
}

/**
 * Whether the shell `pid` (a pane's first process) itself waits for keys, in raw mode with none unread: its line
 * editor is at its prompt (or a builtin reads with it, as fish's `read` does). Not while it waits for a program it
 * started (a REPL reading keys, a nested shell), nor for a program that replaced it (`exec python3`). Undefined where
 * this process cannot ask the kernel.
 */
export function shellWaitsForKeys(tty: string, pid: number | null | undefined): boolean | undefined {
  const k = kernel();
  const s = k?.ttyState(tty);
  const calls = CALLS[Deno.build.arch];
  if (!k || !s || !pid || !calls) return undefined;
  if (s.canonical || s.unread > 0) return false;
  const proc = parseProcStat(k.procStat(pid));
  const line = k.procFile(pid, "syscall");
  if (!proc || line === undefined) return undefined;
  if (shellFlavor(proc.comm) === undefined) return false;
  const [nr, fd] = line.split(" ", 2).map(Number);
  // zsh's line editor reads the terminal from a descriptor of its own (10 and up, where shells keep theirs).
  return calls.polls.has(nr) || (nr === calls.read && (fd === 0 || fd >= 10));
}

/** Descriptors looked at for a script a shell sources (zsh keeps one at 10 and up, fish among its first). */
const SOURCE_FDS = 256;

/**
 * Whether the shell `pid` still reads the script at `path` it sources: zsh and fish keep such a file open until it
 * is done, so a shell waiting for keys with it open waits in a builtin of the script (zsh's `vared`, fish's `read`),
 * not at its prompt. False for bash (it reads a sourced file whole and closes it); undefined where /proc cannot tell.
 *
 * @example
 * ```ts
 * declare const zshPid: number; // a zsh running `. /tmp/run/r-1`, now in `vared`
 * stillSourcing(zshPid, "/tmp/run/r-1"); // true (its fd 11 reads "/tmp/run/r-1 (deleted)")
 * ```
 */
export function stillSourcing(pid: number | null | undefined, path: string): boolean | undefined {
  return hasOpen(pid, path, 3);
}

/**
 * Whether the shell `pid` has the run's FIFO at `fifo` open: it reads it in one of the run's handshakes (on its
 * standard input or another descriptor, as the shell redirects). Undefined where /proc cannot tell.
 *
 * @example
 * ```ts
 * declare const bashPid: number; // a bash in `{ read -r w; } </tmp/run/f-1`
 * readsFifo(bashPid, "/tmp/run/f-1"); // true (its fd 0 reads "/tmp/run/f-1")
 * ```
 */
export function readsFifo(pid: number | null | undefined, fifo: string): boolean | undefined {
  return hasOpen(pid, fifo, 0);
}

/** Whether process `pid` has a file named as `path` open on a descriptor from `first` up; undefined: cannot tell. */
function hasOpen(pid: number | null | undefined, path: string, first: number): boolean | undefined {
  const k = kernel();
  if (!k || !pid || Deno.build.os !== "linux") return undefined;
  // By its name: /proc shows the path with symbolic links resolved (a TMPDIR may be one).
  const name = `/${path.split("/").pop()}`;
  for (let fd = first; fd < SOURCE_FDS; fd++) {
    const open = k.procFd(pid, fd)?.replace(/ \(deleted\)$/, "");
    if (open?.endsWith(name)) return true;
  }
  return false;
}

/** The pane's first process `pid` and its descendants, breadth first, at most {@linkcode MAX_PROCS}. */
function* processTree(k: Libc, pid: number): Generator<number> {
  const todo = [pid];
  for (let i = 0; i < todo.length && i < MAX_PROCS; i++) {
    yield todo[i];
    for (const child of (k.procFile(todo[i], "children") ?? "").split(" ")) if (child) todo.push(Number(child));
  }
}

/** Bytes read so far by each process of the pane's tree (`rchar` of /proc/PID/io; processes it may not read left out). */
export type ReadCounts = Map<number, string>;

/**
 * What the processes of the tree under `pid` have read so far, taken before keys are sent: the watch then knows
 * whether the terminal's readers took anything since, and so whether tmux has written the keys yet (it answers
 * send-keys before it writes them). Undefined where /proc cannot tell.
 */
export function readCounts(k: Libc, pid: number | null | undefined): ReadCounts | undefined {
  if (!pid || !CALLS[Deno.build.arch]) return undefined;
  const counts: ReadCounts = new Map();
  for (const p of processTree(k, pid)) {
    const rchar = k.procFile(p, "io")?.match(/^rchar: (\d+)/m)?.[1];
    if (rchar !== undefined) counts.set(p, rchar);
  }
  return counts;
}

/** {@linkcode readCounts} of a pane's first process `pid`, where tmux runs on this machine and /proc can tell. */
export function paneReadCounts(tmux: TmuxExecutor, pid: number | null | undefined): ReadCounts | undefined {
  const k = tmux.remote === undefined ? kernel() : undefined;
  return k && readCounts(k, pid);
}

function sameCounts(a: ReadCounts, b: ReadCounts | undefined): boolean {
  if (!b || a.size !== b.size) return false;
  for (const [pid, n] of a) if (b.get(pid) !== n) return false;
  return true;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * What a line just submitted into the terminal `tty` (first process `pid`) led to, watched through the kernel until
 * the line was read and the terminal's processes wait for keys again, or for at most {@linkcode REACT_MS}:
 * "hidden" when a process reads a line without echo (a password prompt), "keys" when the line was read and a process
 * waits for keys (a prompt in words read with echo is on the screen), "look" when only a look can say (the bound
 * passed, or no /proc), "gone" when the terminal is. A hidden read that is all the watch ever sees is left to the
 * look at the bound: the keys may be an answer to it that tmux has not written yet.
 */
async function watchLine(
  k: Libc,
  tty: string,
  pid: number | null | undefined,
  signal: AbortSignal,
  before?: ReadCounts,
): Promise<"hidden" | "keys" | "look" | "gone"> {
  const until = performance.now() + REACT_MS;
  // A hidden read seen before anything else may be the one the keys answer, before tmux wrote them.
  let moved = false;
  // Whether the keys have reached the terminal's readers: known from the read counts taken before the keys were
  // sent (a reader took bytes since, or the keys wait unread); without them, assumed.
  let delivered = before === undefined;
  // The first waits only yield: a program that reads at once is back to waiting within a few hundred microseconds.
  for (let delay = 0, tries = 0;; delay = ++tries < 3 ? 0 : Math.min(Math.max(1, delay * 2), 16)) {
    const s = k.ttyState(tty);
    if (!s) return "gone";
    if (s.unread > 0) delivered = true;
    const blocked = s.unread === 0 ? blockedIn(k, pid) : false;
    if (blocked === undefined) return "look"; // no /proc: the screen says what it can
    if (!delivered && !sameCounts(readCounts(k, pid) ?? new Map(), before)) delivered = true;
    // A line read without echo, by a program blocked reading it (not one that just read the answer).
    if (blocked && s.canonical && !s.echo) {
      if (moved || (before && delivered)) return "hidden";
    } else moved = true;
    // The keys were read and the terminal waits for more (not yet written: tmux answers send-keys first).
    if (blocked === "keys" && delivered) return "keys";
    if (performance.now() >= until || signal.aborted) return "look";
    await pause(delay, signal);
  }
}

/**
 * The warning for pane `paneId` right after keys were typed into it (`submitted`: they ended with Enter), or
 * undefined when it waits at no prompt that is known.
 */
export async function keysWarning(
  tmux: TmuxExecutor,
  paneId: string,
  submitted: boolean,
  signal: AbortSignal,
  before?: ReadCounts,
): Promise<Warning | undefined> {
  /** The pane's facts and screen; undefined once it is gone (the keys ended its program, e.g. C-d). */
  const look = async () => {
    const then = (t: string) => ["capture-pane", "-p", "-J", "-t", t];
    try {
      const f = await getPane(tmux, paneId, { facts: FACTS, then, signal });
      return { pane: f.pane, screen: trimTrailingBlank(splitRows(decoder.decode(f.output))) };
    } catch (e) {
      if (e instanceof UserError) return undefined;
      throw e;
    }
  };
  type Look = NonNullable<Awaited<ReturnType<typeof look>>>;
  const onScreen = ({ pane, screen }: Look) =>
    pane.dead || pane.in_mode ? undefined : promptWarning(screen, {
      name: `pane ${paneId}`,
      arg: `target: "${paneId}"`,
      command: pane.current_command,
      alternate: pane.alternate_on,
    });
  /** The screen's prompt judged with the terminal's mode (a secret prompt that echoes, a read without echo). */
  const judged = (l: Look) => {
    const w = onScreen(l);
    return l.pane.dead ? w : withTerminalMode(tmux, l.pane, w ? [w] : [])[0];
  };
  const first = await look();
  if (!first) return undefined;
  const k = tmux.remote === undefined && !first.pane.dead ? kernel() : undefined;
  // Without Enter a prompt on the screen still waits; with it, what the screen showed was answered.
  if (!submitted) return judged(first);
  // The first look gave tmux time to write the keys (not always enough: see watchLine); the pane's pid stays.
  const seen = k ? await watchLine(k, first.pane.tty, first.pane.pid, signal, before) : "gone";
  if (seen === "hidden") return noEchoWarning({ name: `pane ${paneId}`, arg: `target: "${paneId}"` });
  if (seen === "gone") return undefined;
  const last = await look();
  return last && judged(last);
}

/**
 * Refuses `text` typed into a pane whose program waits at a prompt that reads a line without echo (a password
 * prompt: {@linkcode secretPromptAtCursor}), as its terminal says where this process can ask it: the text would be
 * taken as the answer (a command meant for the shell sent as a password, to sudo or a remote login), and a secret
 * is the human's to type. Keys alone pass (Enter for an empty answer, C-c to abort).
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof refuseHiddenRead>[0]; // the call's ctx.tmux
 * declare const pane: Parameters<typeof refuseHiddenRead>[1]; // the target's facts
 * await refuseHiddenRead(tmux, pane, "make test", AbortSignal.timeout(5000)); // throws at `Password:` (read -s, sudo)
 * ```
 */
export async function refuseHiddenRead(
  tmux: TmuxExecutor,
  pane: Pick<PaneInfo, "pane_id" | "tty" | "dead"> | undefined,
  text: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  if (!text || !pane || pane.dead) return;
  const mode = tmux.remote === undefined ? kernel()?.ttyState(pane.tty) : undefined;
  if (!mode?.canonical || mode.echo) return;
  // The cursor and the rows it is on, in one call (rows as the terminal has them: not joined).
  const out = await tmux.text([
    ...["display-message", "-p", "-t", pane.pane_id, "#{cursor_x} #{cursor_y}"],
    COMMAND_SEPARATOR,
    ...["capture-pane", "-p", "-t", pane.pane_id],
  ], { signal });
  const [at, ...rows] = out.split("\n");
  const [col, row] = at.split(" ").map(Number);
  if (!secretPromptAtCursor(rows, { row, col })) return;
  throw hiddenReadRefusal({ name: `pane ${pane.pane_id}`, arg: `target: "${pane.pane_id}"` });
}

/**
 * Refuses `keys` that hold text (not only control characters and escape sequences: Enter, C-c, arrows) for pty
 * session `id` while its program waits at a prompt that reads a line without echo (a password prompt:
 * {@linkcode secretPromptAtCursor}): the text would be the answer, as send-keys refuses it for a pane.
 *
 * @example
 * ```ts
 * declare const terminal: Parameters<typeof refuseHiddenSessionRead>[0]; // the call's ctx.terminal
 * await refuseHiddenSessionRead(terminal, "s1", "make test\n"); // throws at `Password:` (read -s, sudo)
 * ```
 */
export async function refuseHiddenSessionRead(terminal: TerminalBackend, id: string, keys: string): Promise<void> {
  // deno-lint-ignore no-control-regex
  const text = keys.replace(/\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?/gs, "").replace(/[\x00-\x1f\x7f]/g, "");
  if (text === "" || !(await terminal.inputState(id)).hiddenInput) return;
  const screen = await terminal.screen(id, false);
  if (!secretPromptAtCursor(screen.lines, screen.cursor)) return;
  throw hiddenReadRefusal({ name: `pty session ${id}`, arg: `pty_id: "${id}"` });
}

/**
 * {@linkcode keysWarning} for pty session `id` of `terminal` (either backend): after keys without Enter one look
 * (the screen's prompt, or a no-echo line read); after a line with Enter the same bounded watch where this process
 * may ask the kernel about the session (not with tmux on another host).
 *
 * @example
 * ```ts
 * declare const terminal: Parameters<typeof sessionKeysWarning>[0]; // the call's ctx.terminal
 * const w = await sessionKeysWarning(terminal, "s1", true, AbortSignal.timeout(5000));
 * w?.message; // 'pty session s1 reads input without echo (a password prompt): call request-input {pty_id: "s1"} …'
 * ```
 */
export async function sessionKeysWarning(
  terminal: TerminalBackend,
  id: string,
  submitted: boolean,
  signal: AbortSignal,
): Promise<Warning | undefined> {
  const who = { name: `pty session ${id}`, arg: `pty_id: "${id}"` };
  const onScreen = async () =>
    promptWarning((await terminal.screen(id, false)).lines, { ...who, keys: "pty-send-keys" });
  // A password prompt on a terminal that echoes is no place for a secret (request-input refuses it): said so.
  // A question read key by key gets its key alone (an Enter would go to whatever reads next).
  const echoed = (w: Warning | undefined, t: { echo?: boolean; canonical?: boolean } | undefined) =>
    w && toldForMode([w], t)[0];
  if (!submitted) {
    const [prompt, state] = await Promise.all([onScreen(), terminal.inputState(id)]);
    return echoed(prompt, state) ?? (state.hiddenInput ? noEchoWarning(who) : undefined);
  }
  const proc = await terminal.localProcess(id);
  const k = proc && kernel();
  if (!proc || !k) return undefined;
  const seen = await watchLine(k, proc.tty, proc.pid, signal);
  if (seen === "gone") return undefined;
  if (seen === "hidden") return noEchoWarning(who);
  return echoed(await onScreen(), k.ttyState(proc.tty)) ??
    (k.ttyHiddenLineInput(proc.tty) ? noEchoWarning(who) : undefined);
}
