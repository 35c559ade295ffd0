/**
 * A workspace pane as a hand-off subject (lib/terminal/handoff.ts): what
 * request-input {target} works on when a command in a pane (sudo, ssh-keygen,
 * `read -s`, a script) waits at a password or yes/no prompt.
 *
 * Where this process can ask the pane's terminal (tmux on this machine), the
 * kernel says what the pane waits at: a line read without echo is a secret
 * prompt; a shell reading at its own prompt (its line editor in raw mode,
 * {@linkcode shellActivity}) is no prompt at all, whatever the screen above
 * says, so nothing is typed there. With tmux on another host (`--ssh`) the
 * last line of the screen decides alone. Answers are typed with `send-keys
 * -H`, byte for byte, given to tmux on its stdin (`source-file -`), never as
 * arguments: nothing passes through a tmux buffer or a command line, and no
 * answer is kept.
 *
 * @example
 * ```ts
 * import { handOff } from "../terminal/handoff.ts";
 * declare const tmux: Parameters<typeof paneSubject>[0]; // the call's `ctx.tmux`
 * declare const opts: Parameters<typeof handOff>[2];
 * const r = await handOff(paneSubject(tmux, "%3"), "Enter the sudo password", opts);
 * ```
 */
import type { TmuxExecutor } from "../tmux/executor.ts";
import { getPane, type PaneInfo } from "../tmux/panes.ts";
import { formatLiteral } from "../tmux/quote.ts";
import { parseRows, rowFormat, type RowSpec } from "../tmux/rows.ts";
import { UserError } from "../errors.ts";
import type { HandOffSubject } from "../terminal/handoff.ts";
import type { InputState } from "../terminal/backend.ts";
import { sendBytesCommands } from "../terminal/tmux_backend.ts";
import { refuseUntypable } from "../tmux/sync.ts";
import { libc, type TtyState } from "../terminal/pty/ffi.ts";
import { splitRows, trimTrailingBlank } from "../text/columns.ts";
import { shellActivity } from "./prompt.ts";
import { shellFlavor } from "./shell.ts";
import { noEchoWarning, toldForMode, type Warning } from "./warnings.ts";

const CLIENT = { control: ["client_control_mode", "bool"] } as const satisfies RowSpec;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Whether this process may ask the kernel about the pane's terminal and processes (tmux runs here). */
function local(tmux: TmuxExecutor): boolean {
  return tmux.remote === undefined;
}

/** The terminal's line mode and echo; undefined where it cannot be asked. */
function ttyMode(tmux: TmuxExecutor, tty: string): TtyState | undefined {
  if (!local(tmux)) return undefined;
  try {
    return libc().ttyState(tty);
  } catch {
    return undefined; // no FFI here: the screen decides
  }
}

/**
 * A pane's warnings (from its screen) judged with its terminal's mode where this process can ask it, as
 * request-input will judge the prompt: a password prompt on a terminal that echoes is told as such (request-input
 * refuses it), and a line read without echo that the screen did not give away gets the no-echo warning.
 * As they are where the terminal cannot be asked (tmux on another host, no FFI) or the pane is dead.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof withTerminalMode>[0];
 * declare const view: { pane: Parameters<typeof withTerminalMode>[1]; warnings: Parameters<typeof withTerminalMode>[2] };
 * const warnings = withTerminalMode(tmux, view.pane, view.warnings);
 * ```
 */
export function withTerminalMode(
  tmux: TmuxExecutor,
  pane: Pick<PaneInfo, "pane_id" | "tty" | "dead">,
  warnings: readonly Warning[],
): Warning[] {
  const mode = pane.dead ? undefined : ttyMode(tmux, pane.tty);
  warnings = toldForMode(warnings, mode);
  if (mode?.canonical && !mode.echo && !warnings.some((w) => w.kind === "input_prompt")) {
    return [...warnings, noEchoWarning({ name: `pane ${pane.pane_id}`, arg: `target: "${pane.pane_id}"` })];
  }
  return [...warnings];
}

/** The pane as a {@linkcode HandOffSubject}. */
export function paneSubject(tmux: TmuxExecutor, paneId: string): HandOffSubject {
  /** The pane's facts and the output of `then`, or undefined when the pane is gone. */
  const facts = async (then: string[]): Promise<{ pane: PaneInfo; output: Uint8Array } | undefined> => {
    try {
      return await getPane(tmux, paneId, { then: () => then });
    } catch (e) {
      if (e instanceof UserError) return undefined;
      throw e;
    }
  };
  return {
    label: `pane ${paneId}`,
    look: "snapshot-pane",
    afterExit: "snapshot-pane shows the pane's last screen",
    async screen() {
      const f = await facts(["capture-pane", "-p", "-J", "-t", paneId]);
      if (!f) return { lines: [] };
      const lines = trimTrailingBlank(splitRows(decoder.decode(f.output)));
      return { lines, command: f.pane.current_command, alternate: f.pane.alternate_on };
    },
    // On tmux's stdin, never on a command line: a spawned client's arguments (--control-mode off, a tmux without
    // control mode, a lost connection, the remote shell of --ssh) are there for anyone on the machine to read.
    async send(bytes) {
      if (!/^%\d+$/.test(paneId)) throw new Error(`not a pane id: ${JSON.stringify(paneId)}`);
      const script = encoder.encode(sendBytesCommands(paneId, bytes).map((argv) => argv.join(" ") + "\n").join(""));
      try {
        await tmux.run(["source-file", "-"], { stdin: script });
      } finally {
        script.fill(0);
      }
    },
    // An answer typed with synchronize-panes would reach the window's other panes too (a secret on their screens),
    // and one typed into a pane whose input is off nowhere.
    refuseTyping: () => refuseUntypable(tmux, paneId, "the human's answer"),
    async inputState(): Promise<InputState> {
      // Control-mode clients (this server's own) are no human at a terminal.
      const f = await facts(["list-clients", "-t", paneId, "-F", rowFormat(CLIENT)]);
      if (!f || f.pane.dead) return { exited: true, clients: 0 };
      const clients = parseRows(CLIENT, f.output).rows.filter((c) => !c.control).length;
      if (!local(tmux)) return { exited: false, clients };
      const mode = ttyMode(tmux, f.pane.tty);
      const hiddenInput = mode && mode.canonical && !mode.echo;
      const act = await shellActivity(f.pane);
      // A shell's line editor (readline, zle, fish's) turns the terminal's echo off and echoes itself; a script's
      // `read -n1` in that same shell keeps it on (a key read with echo, at a question of the script's).
      const atShellPrompt = act.foreground !== undefined && act.canonical !== undefined
        ? shellFlavor(act.foreground) !== undefined && !act.canonical && mode?.echo !== true
        : undefined;
      return {
        exited: false,
        clients,
        ...(mode ? { hiddenInput, echo: mode.echo, canonical: mode.canonical } : {}),
        ...(atShellPrompt === undefined ? {} : { atShellPrompt }),
      };
    },
    async route() {
      const socket = decoder.decode(await tmux.run(["display-message", "-p", "#{socket_path}"])).trim();
      return { attachCommand: tmux.attachLine(socket, paneId) };
    },
    async notifyAttached(message) {
      const text = formatLiteral(message.replace(/[\r\n]+/g, " "));
      await tmux.run(["display-message", "-t", paneId, "-d", "15000", text]).catch(() => {});
    },
  };
}
