/**
 * Whether run-command may type into a pane now: only at a shell prompt it has
 * seen. Typing anywhere else answers someone else's question (a `read -p
 * 'Continue? [y/N]'`), feeds a program that just started (python3), lands in
 * a continuation prompt, or is read by a shell that has not drawn its prompt
 * yet (rc files still running).
 *
 * The pane is ready when all of these hold:
 * - its foreground program is a shell and no screen warning stands
 *   (`paneWarnings`: full-screen program, pager, copy mode, an input prompt);
 * - its last line is not a continuation prompt (`> `, zsh's `dquote> `) nor fish's `read> `;
 * - (where the kernel answers: {@linkcode shellActivity})
 *   and its terminal is in raw mode: bash's readline, zsh's zle and fish's
 *   reader switch canonical mode off while they wait at the prompt; `read`,
 *   a shell still running its rc files, and a command just launched leave
 *   it on. A foreground program that a shell started within two seconds of
 *   itself is taken for its rc files at work (zsh runs them as jobs).
 *
 * A shell that is busy (still starting, or finishing something) is polled
 * until the call's deadline; everything else is refused at once with what to
 * call instead. Nothing is typed in either case.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof awaitPrompt>[0]; // the call's `ctx.tmux`
 * const timeoutMs = 30_000, deadline = performance.now() + timeoutMs, signal = AbortSignal.timeout(timeoutMs);
 * const info = await awaitPrompt(tmux, "%3", { deadline, timeoutMs, signal, localTerminal: true });
 * // info.pane is at an idle prompt, or a UserError was thrown
 * ```
 */
import type { TmuxExecutor } from "../tmux/executor.ts";
import type { PaneInfo, ShellPane } from "../tmux/panes.ts";
import { UserError } from "../errors.ts";
import { inspectPane } from "./observe.ts";
import { commandName, shellFlavor } from "./shell.ts";
import { notAtPrompt, paneWarnings } from "./warnings.ts";
import { type Libc, libc } from "../terminal/pty/ffi.ts";
import { parseProcStat, type Proc } from "../host/process.ts";

/** What the pane is doing: ready to type into, refused (message), or busy for now (why). */
export type PromptState = { kind: "ready" } | { kind: "refused"; message: string } | { kind: "busy"; why: string };

/** The terminal and process facts of a pane's shell; undefined fields when the system did not say. */
export interface ShellActivity {
  /**
   * True when the foreground program was started by a shell within two
   * seconds of the shell itself: a command of its rc files (zsh runs them as jobs).
   */
  rcJob?: boolean;
  /** The foreground program's name as the kernel told it (after tmux did: a difference means it is changing). */
  foreground?: string;
  /** True when the terminal is in canonical (line) mode: no line editor reads at a prompt. */
  canonical?: boolean;
}

// bash and zsh's PS2 ("> ", zsh: "%_> " as in "dquote> ", "cmdsubst heredoc> ").
const CONTINUATION = /^([a-z]+ )*[a-z]*> ?$/;
// fish's `read` without -p/-P prompts with "read> ".
const FISH_READ = /^read>$/;

/** The last line with text on it. */
function lastLine(screen: readonly string[]): string {
  for (let i = screen.length - 1; i >= 0; i--) if (screen[i].trim() !== "") return screen[i];
  return "";
}

/** Judges a pane from its facts, screen and shell activity; pure. */
export function promptState(pane: ShellPane, screen: readonly string[], act: ShellActivity): PromptState {
  // A program reading keys itself (raw mode: a REPL, an editor) is no rc file at work, however young its shell.
  if (act.rcJob && act.canonical !== false) {
    return { kind: "busy", why: `its shell is still starting (its rc files run ${act.foreground})` };
  }
  const isShell = (command: string) => shellFlavor(command) !== undefined;
  if (act.foreground !== undefined && isShell(act.foreground) !== isShell(pane.current_command)) {
    return { kind: "busy", why: `its foreground program is changing (${pane.current_command} → ${act.foreground})` };
  }
  const why = notAtPrompt(pane, screen);
  if (why) return { kind: "refused", message: why };
  const input = paneWarnings(pane, screen).find((w) => w.kind === "input_prompt");
  if (input) return { kind: "refused", message: `run-command typed nothing: ${input.message}` };
  const last = lastLine(screen);
  const fish = shellFlavor(pane.current_command) === "fish";
  // fish's `read` reads with fish's own line editor, as at its prompt (raw mode): only its prompt tells them apart.
  if (fish && FISH_READ.test(last.trim())) {
    return {
      kind: "refused",
      message: `run-command typed nothing: fish in ${pane.pane_id} waits in \`read\` for a line (its prompt ` +
        `${JSON.stringify(last.trim())}): answer it with send-keys (the text, then Enter), or send C-c to cancel ` +
        `it, then retry`,
    };
  }
  if (!fish && CONTINUATION.test(last.trimStart())) {
    return {
      kind: "refused",
      message: `run-command typed nothing: the shell in ${pane.pane_id} waits in a continuation prompt ` +
        `(${JSON.stringify(last.trim())}: an unfinished quote, heredoc or line); finish it with send-keys, or send ` +
        `C-c to discard it, then retry`,
    };
  }
  if (act.canonical) {
    // dash reads at its prompt in canonical mode, as a `read` does: without a line editor the two cannot be told
    // apart, so waiting would never end. (Started as `sh`, its name does not say so: that pane waits.)
    if (commandName(pane.current_command) === "dash" && commandName(act.foreground ?? "dash") === "dash") {
      return {
        kind: "refused",
        message: `run-command typed nothing: ${pane.pane_id} runs dash, which reads at its prompt without a line ` +
          "editor, so its prompt cannot be told from a read: start bash, zsh or fish there, or use send-keys and wait",
      };
    }
    return {
      kind: "busy",
      why: "its shell is not reading at its prompt (still starting, running a command, reading input with `read`, " +
        "or a shell without a line editor, as dash is)",
    };
  }
  return { kind: "ready" };
}

/**
 * How much later than its shell a foreground program may have started to be
 * taken for the shell's rc files at work. Generous: on a busy machine a
 * shell's first command can start seconds after the shell, and erring this
 * way only makes run-command wait (never type).
 */
const RC_JOB_WINDOW_S = 2;

/** The foreground program and whether it is an rc job, from the pane's first process and a process lookup. */
function foregroundFacts(
  first: Proc | undefined,
  find: (pid: number) => Proc | undefined,
): Pick<ShellActivity, "foreground" | "rcJob"> {
  // At a prompt the foreground group is the shell's own: its facts are read already.
  const fg = first && first.tpgid > 0 ? (first.tpgid === first.pid ? first : find(first.tpgid)) : undefined;
  // Only a program that is not a shell can be an rc job: its parent is looked up then only.
  const parent = fg && shellFlavor(fg.comm) === undefined ? find(fg.ppid) : undefined;
  return {
    foreground: fg?.comm,
    rcJob: !!fg && !!parent && shellFlavor(parent.comm) !== undefined && fg.start - parent.start <= RC_JOB_WINDOW_S,
  };
}

const decoder = new TextDecoder();

async function output(cmd: string, args: string[]): Promise<string | undefined> {
  try {
    const r = await new Deno.Command(cmd, { args, stdin: "null", stdout: "piped", stderr: "null" }).output();
    return r.success ? decoder.decode(r.stdout) : undefined;
  } catch {
    return undefined; // no such tool or not allowed: judge from the screen alone
  }
}

/** The process facts from `ps -t TTY` (pid, parent, foreground group and age of every process on it). */
async function psFacts(tty: string): Promise<Pick<ShellActivity, "foreground" | "rcJob"> | undefined> {
  const ps = await output("ps", ["-t", tty.slice("/dev/".length), "-o", "pid=,ppid=,tpgid=,etimes=,comm="]);
  if (ps === undefined) return undefined;
  const rows: Proc[] = ps.trim().split("\n").map((l) => {
    const [pid, ppid, tpgid, etimes, comm] = l.trim().split(/\s+/);
    // Started `etimes` seconds ago: minus the age is a start time on a shared clock.
    return { pid: Number(pid), ppid: Number(ppid), tpgid: Number(tpgid), start: -Number(etimes), comm: comm ?? "" };
  });
  return foregroundFacts(rows[0], (pid) => rows.find((r) => r.pid === pid));
}

/** Canonical mode from `stty -a`. */
async function sttyCanonical(tty: string): Promise<boolean | undefined> {
  const stty = await output("stty", [Deno.build.os === "darwin" ? "-f" : "-F", tty, "-a"]);
  if (stty === undefined) return undefined;
  if (/(^|\s)-icanon(\s|;|$)/m.test(stty)) return false;
  if (/(^|\s)icanon(\s|;|$)/m.test(stty)) return true;
  return undefined;
}

/** The C library when this process may use it (the start task allows it), else undefined. */
function kernel(): Libc | undefined {
  try {
    return libc();
  } catch {
    return undefined;
  }
}

/**
 * The shell's activity on the pane's terminal: its foreground program (and
 * whether that is an rc job) and whether the terminal is in canonical mode.
 * Asked of the kernel through the C library — `/proc/<pid>/stat` from the
 * pane's first process (tmux's `pane_pid`) and `tcgetattr` on the terminal —
 * at no cost worth measuring; where that is not available (macOS has no
 * /proc, a server without FFI) from `ps -t` and `stty -a`, which cost a
 * process each. `via: "tools"` forces the latter.
 */
export async function shellActivity(
  pane: Pick<PaneInfo, "tty" | "pid">,
  via: "kernel" | "tools" = "kernel",
): Promise<ShellActivity> {
  const { tty } = pane;
  if (!tty.startsWith("/dev/")) return {};
  const c = via === "kernel" ? kernel() : undefined;
  const first = c && pane.pid != null ? parseProcStat(c.procStat(pane.pid)) : undefined;
  const facts = first ? foregroundFacts(first, (pid) => parseProcStat(c!.procStat(pid))) : psFacts(tty);
  const canonical = c?.ttyCanonical(tty) ?? sttyCanonical(tty);
  const [f, canon] = await Promise.all([facts, canonical]);
  return { ...f, ...(canon === undefined ? {} : { canonical: canon }) };
}

export interface PromptWait {
  /** performance.now() by which the shell must be at its prompt. */
  deadline: number;
  signal: AbortSignal;
  timeoutMs: number;
  /** The pane's facts read just now, used for the first look instead of reading them again. */
  first?: Awaited<ReturnType<typeof inspectPane>>;
  /**
   * False when tmux runs on another machine (`--ssh`): the pane's terminal
   * and processes are not ours to ask about (a local terminal of the same
   * name would answer), so the screen alone decides.
   */
  localTerminal: boolean;
}

/** Poll intervals while a shell is busy: quick at first, then easing off. */
const POLL_MS = [20, 50, 100, 200];

/**
 * Waits until the pane's shell is idle at its prompt and returns the pane's
 * fresh facts; throws a UserError at once when the pane is somewhere typing
 * must not go, or at the deadline when the shell stays busy.
 */
export async function awaitPrompt(
  tmux: TmuxExecutor,
  paneId: string,
  w: PromptWait,
): Promise<Awaited<ReturnType<typeof inspectPane>>> {
  let refusedOnce = false;
  for (let i = 0;; i++) {
    const info = i === 0 && w.first ? w.first : await inspectPane(tmux, paneId, w.signal);
    const act = w.localTerminal ? await shellActivity(info.pane) : {};
    const state = promptState(info.pane, info.screen, act);
    if (state.kind === "ready") return info;
    if (state.kind === "refused") {
      // The foreground changes at every job's start and end, and while the shell takes its terminal back from a
      // job that just ended tmux names the pane's first command instead (`env` for `env … bash`): a refusal
      // stands when a second look, a moment later, agrees.
      if (refusedOnce || w.signal.aborted || w.deadline - performance.now() <= POLL_MS[0]) {
        throw new UserError(state.message);
      }
      refusedOnce = true;
      await new Promise((r) => setTimeout(r, POLL_MS[0]));
      continue;
    }
    const left = w.deadline - performance.now();
    if (left <= 0) {
      throw new UserError(
        `run-command typed nothing: pane ${paneId} was not at an idle shell prompt within ${w.timeoutMs} ms: ` +
          `${state.why}; look with snapshot-pane, answer a prompt with send-keys, or wait {what: "quiet"} and retry ` +
          `(with a longer timeout_ms for a shell that starts slowly)`,
      );
    }
    if (w.signal.aborted) throw new UserError("run-command cancelled while waiting for the shell's prompt");
    await new Promise((r) => setTimeout(r, Math.min(left, POLL_MS[Math.min(i, POLL_MS.length - 1)])));
  }
}
