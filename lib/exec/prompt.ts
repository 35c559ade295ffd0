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
 * - its last line is not a continuation prompt (`> `, zsh's `dquote> `);
 * - (where `ps` and `stty` answer)
 *   and its terminal is in raw mode: bash's readline, zsh's zle and fish's
 *   reader switch canonical mode off while they wait at the prompt; `read`,
 *   a shell still running its rc files, and a command just launched leave
 *   it on. A foreground program that a shell started within a second of
 *   itself is taken for its rc files at work (zsh runs them as jobs).
 *
 * A shell that is busy (still starting, or finishing something) is polled
 * until the call's deadline; everything else is refused at once with what to
 * call instead. Nothing is typed in either case.
 *
 * @example
 * ```ts
 * const info = await awaitPrompt(ctx.tmux, paneId, { deadline, timeoutMs, signal: ctx.signal });
 * // info.pane is at an idle prompt, or a UserError was thrown
 * ```
 */
import type { TmuxExecutor } from "../tmux/executor.ts";
import type { PaneInfo } from "../tmux/panes.ts";
import { UserError } from "../errors.ts";
import { inspectPane } from "./observe.ts";
import { shellFlavor } from "./shell.ts";
import { notAtPrompt, paneWarnings } from "./warnings.ts";

/** What the pane is doing: ready to type into, refused (message), or busy for now (why). */
export type PromptState = { kind: "ready" } | { kind: "refused"; message: string } | { kind: "busy"; why: string };

/** The terminal and process facts of a pane's shell; undefined fields when the system did not say. */
export interface ShellActivity {
  /**
   * True when the foreground program was started by a shell within a second
   * of the shell itself: a command of its rc files (zsh runs them as jobs).
   */
  rcJob?: boolean;
  /** The foreground program's name as `ps` saw it (after tmux did: a difference means it is changing). */
  foreground?: string;
  /** True when the terminal is in canonical (line) mode: no line editor reads at a prompt. */
  canonical?: boolean;
}

// bash and zsh's PS2 ("> ", zsh: "%_> " as in "dquote> ", "cmdsubst heredoc> ").
const CONTINUATION = /^([a-z]+ )*[a-z]*> ?$/;

/** The last line with text on it. */
function lastLine(screen: readonly string[]): string {
  for (let i = screen.length - 1; i >= 0; i--) if (screen[i].trim() !== "") return screen[i];
  return "";
}

/** Judges a pane from its facts, screen and shell activity; pure. */
export function promptState(pane: PaneInfo, screen: readonly string[], act: ShellActivity): PromptState {
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
  if (shellFlavor(pane.current_command) !== "fish" && CONTINUATION.test(last.trimStart())) {
    return {
      kind: "refused",
      message: `run-command typed nothing: the shell in ${pane.pane_id} waits in a continuation prompt ` +
        `(${JSON.stringify(last.trim())}: an unfinished quote, heredoc or line); finish it with send-keys, or send ` +
        `C-c to discard it, then retry`,
    };
  }
  if (act.canonical) {
    return {
      kind: "busy",
      why: "its shell is not reading at its prompt (still starting, running a command, or reading input with `read`)",
    };
  }
  return { kind: "ready" };
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

/**
 * The shell's activity from `ps -t TTY` (pid, parent, foreground group and
 * age of every process on the pane's terminal) and `stty -a` (canonical
 * mode), run together.
 * (Deno refuses /proc to a server without --allow-all, hence the tools.)
 */
export async function shellActivity(tty: string): Promise<ShellActivity> {
  if (!tty.startsWith("/dev/")) return {};
  const [ps, stty] = await Promise.all([
    output("ps", ["-t", tty.slice("/dev/".length), "-o", "pid=,ppid=,tpgid=,etimes=,comm="]),
    output("stty", [Deno.build.os === "darwin" ? "-f" : "-F", tty, "-a"]),
  ]);
  const act: ShellActivity = {};
  if (ps !== undefined) {
    const rows = ps.trim().split("\n").map((l) => {
      const [pid, ppid, tpgid, etimes, comm] = l.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), tpgid: Number(tpgid), etimes: Number(etimes), comm: comm ?? "" };
    });
    const fg = rows.find((r) => r.pid === rows[0]?.tpgid);
    const parent = fg && rows.find((r) => r.pid === fg.ppid);
    act.foreground = fg?.comm;
    act.rcJob = !!fg && !!parent && shellFlavor(fg.comm) === undefined && shellFlavor(parent.comm) !== undefined &&
      parent.etimes - fg.etimes <= 1;
  }
  if (stty !== undefined) {
    if (/(^|\s)-icanon(\s|;|$)/m.test(stty)) act.canonical = false;
    else if (/(^|\s)icanon(\s|;|$)/m.test(stty)) act.canonical = true;
  }
  return act;
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
   * is not ours to ask `ps`/`stty` about (a local terminal of the same name
   * would answer), so the screen alone decides.
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
  for (let i = 0;; i++) {
    const info = i === 0 && w.first ? w.first : await inspectPane(tmux, paneId, w.signal);
    const act = w.localTerminal ? await shellActivity(info.pane.tty) : {};
    const state = promptState(info.pane, info.screen, act);
    if (state.kind === "ready") return info;
    if (state.kind === "refused") throw new UserError(state.message);
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
