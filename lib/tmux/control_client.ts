/**
 * What both kinds of control-mode client (the pane-output hub's and the command
 * connection) do with their `tmux -C` child: start it, read its stdout line by
 * line as it arrives, step off a `destroy-unattached` session before leaving
 * it, and end it.
 *
 * @example
 * ```ts
 * import { localLauncher } from "./launcher.ts";
 * const child = startControlClient(localLauncher("tmux", {}), "read-only");
 * const done = readLines(child.stdout, (buf, start, end) => console.log(new TextDecoder().decode(buf.subarray(start, end))));
 * await endClient(child, () => child.stdin.close(), done);
 * ```
 */
import { byteReader } from "../byte_reader.ts";
import type { TmuxLauncher } from "./launcher.ts";
import { parseRows, type Row, rowFormat } from "./rows.ts";
import { SCOPE_ROW } from "./scope.ts";

const NL = 0x0a;
const NONE = new Uint8Array(0);

/**
 * Starts a control client attaching with `flags` (to `target`, else the most
 * recent session), stdin piped for our commands. `-N`: with no server running
 * the attach fails instead of starting one, which would run the user's
 * tmux.conf (often a `new-session`, so that a bare `tmux attach` works) and
 * stay up while any client is connected, answering the calls that should have
 * said "no server". `-E`: the attach leaves the session's environment alone —
 * without it tmux applies `update-environment` from OUR process's environment
 * (an sshd session's, with --ssh), removing the user's SSH_AUTH_SOCK and DISPLAY
 * from every new window of their session. Persistent: it must end with us, even a SIGKILLed us
 * (lib/tmux/launcher.ts).
 *
 * @example
 * ```ts
 * import { localLauncher } from "./launcher.ts";
 * const launcher = localLauncher("tmux", { socketName: "work" });
 * const child = startControlClient(launcher, "read-only", "$1"); // tmux … -N -C attach-session -E -f read-only -t $1
 * ```
 */
export function startControlClient(launcher: TmuxLauncher, flags: string, target?: string): Deno.ChildProcess {
  const args = ["-N", "-C", "attach-session", "-E", "-f", flags];
  if (target !== undefined) args.push("-t", target);
  return launcher.spawn(args, { stdin: "piped", persistent: true });
}

/**
 * Calls `onLine` with each `\n`-terminated line of `stream`: the bytes
 * `buf[start, end)`, without the `\n`, valid only during the call (a line is
 * not a view of its own: a reply of many lines would allocate one per line).
 * An unfinished last line is dropped. Resolves when the stream ends or errors,
 * or once `stop` settles (the reading is given up: see {@linkcode endClient}).
 */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (buf: Uint8Array, start: number, end: number) => void,
  stop?: Promise<unknown>,
): Promise<void> {
  // One reused buffer: a client lives as long as the server and answers every call.
  const reader = byteReader(stream);
  let ended = false;
  void stop?.then(() => {
    if (!ended) reader.cancel().catch(() => {});
  });
  // The unfinished last line of the previous read (a copy: the reader reuses its buffer).
  let rest = NONE;
  try {
    for (;;) {
      const value = await reader.read();
      if (value === undefined) break;
      let buf = value;
      if (rest.length > 0) {
        buf = new Uint8Array(rest.length + value.length);
        buf.set(rest);
        buf.set(value, rest.length);
      }
      let start = 0;
      for (let i = buf.indexOf(NL); i >= 0; i = buf.indexOf(NL, start)) {
        onLine(buf, start, i);
        start = i + 1;
      }
      rest = start < buf.length ? buf.slice(start) : NONE;
    }
  } catch {
    // the stream was torn down (the child killed or its stdout cancelled)
  } finally {
    ended = true;
    reader.releaseLock();
  }
}

/**
 * Ends a control client: closing its stdin makes tmux detach it and exit;
 * one that has not ended a second later is killed, and once it has exited
 * `abandon` is called, to make its readers stop (`done` must then settle):
 * an ssh client of a shared connection hands its pipes to the connection's
 * master (lib/tmux/ssh.ts), which keeps them open while the remote tmux
 * client runs, so the pipes of a killed one end only when a stopped remote
 * tmux goes on. Resolves when `done` (its reader) has finished.
 */
export async function endClient(
  child: Deno.ChildProcess,
  closeStdin: () => Promise<void>,
  done: Promise<void>,
  abandon: () => void = () => {},
): Promise<void> {
  const killer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // gone
    }
    void child.status.then(abandon, abandon);
  }, 1000);
  // Not awaited: a close waits for writes queued to a pipe nobody may drain any more.
  closeStdin().catch(() => {
    // already closed
  });
  await done;
  clearTimeout(killer);
}

/** A session as the step-off query lists it: what a session scope judges it by, and its destroy-unattached. */
const STEP_OFF_ROW = { destroy: ["destroy-unattached", "str"], ...SCOPE_ROW } as const;

/** A session the step-off may switch to, as a session scope sees it (lib/tmux/scope.ts `includes`). */
export type StepOffSession = Row<typeof STEP_OFF_ROW>;

/**
 * Whether our client's session is destroy-unattached and how many clients are attached to it (ours
 * included), then every session: its destroy-unattached, and what a session scope judges it by (its id among it).
 */
export const STEP_OFF_QUERY: readonly string[] = [
  `display-message -p '#{destroy-unattached} #{session_attached}'`,
  `list-sessions -F '${rowFormat(STEP_OFF_ROW)}'`,
];
/** How long each step-off command may take. */
export const STEP_OFF_TIMEOUT_MS = 2_000;

/**
 * Whether a destroy-unattached value destroys a session nobody is attached to: a flag before tmux 3.4 (1/0), a
 * choice since (on, off, keep-last, keep-group: the last two destroy all but one session of a kind).
 */
function destroys(value: string): boolean {
  return value !== "0" && value !== "off" && value !== "";
}

const encoder = new TextEncoder();

/**
 * The `switch-client` line that takes a leaving client off a destroy-unattached
 * session it alone holds, from the reply to {@linkcode STEP_OFF_QUERY};
 * undefined when its session is not one, another client holds it too (its
 * leaving then destroys nothing; moving would make another session the most
 * recent, where a plain `tmux attach` goes), or no session without the option
 * exists. Under a session scope (`inScope`), only a session in scope is
 * switched to: a switch makes a session attached and runs its hooks, never done
 * to a session out of view.
 *
 * @example
 * ```ts
 * stepOffLine("1 1\n1 9 $0 main  \n0 9 $4 work  \n"); // "switch-client -E -t '$4'"
 * stepOffLine("1 2\n1 9 $0 main  \n0 9 $4 work  \n"); // undefined: a person is attached too
 * stepOffLine("1 1\n1 9 $0 main  \n0 9 $4 work  \n", (s) => s.session_name === "main"); // undefined
 * ```
 */
export function stepOffLine(reply: string, inScope?: (session: StepOffSession) => boolean): string | undefined {
  const nl = reply.indexOf("\n");
  const [flag, attached, ...rest] = reply.slice(0, nl < 0 ? undefined : nl).split(" ");
  if (nl < 0 || rest.length > 0 || !destroys(flag) || attached !== "1") return undefined;
  let sessions: StepOffSession[];
  try {
    sessions = parseRows(STEP_OFF_ROW, encoder.encode(reply.slice(nl + 1))).rows;
  } catch {
    return undefined; // not the rows asked for: nowhere known to go
  }
  const to = sessions.find((s) => !destroys(s.destroy) && (inScope?.(s) ?? true));
  // -E: like the attach, the switch leaves the session's environment alone (update-environment).
  return to === undefined ? undefined : `switch-client -E -t '${to.session_id}'`;
}

/**
 * Before a control client of ours ends on its own account: when it alone
 * holds a `destroy-unattached` session, switch it to a session without the
 * option, so tmux destroys the first while our client is alive. A client
 * ending on such a session makes it destroyable while the client is exiting,
 * and tmux up to at least 3.5 then frees it under the exiting client if any
 * other client comes or goes in those milliseconds:
 * the exiting client's next event crashes the tmux server (tmux/tmux#5497;
 * reproduced with 3.3a, tests/engine_test.ts). Under a session scope, `inScope`
 * says which sessions it may go to (none: it stays). Best effort: `ask` sends
 * commands (one line) on the client and resolves with their output; a failure
 * leaves the client where it is.
 */
export async function stepOff(
  ask: (commands: readonly string[]) => Promise<string>,
  inScope?: (session: StepOffSession) => boolean,
): Promise<void> {
  try {
    const line = stepOffLine(await ask(STEP_OFF_QUERY), inScope);
    if (line) await ask([line]);
  } catch {
    // Gone already, or tmux refused: it leaves as it is.
  }
}
