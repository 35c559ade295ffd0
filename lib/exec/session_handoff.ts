/**
 * A pty session as a hand-off subject for request-input {pty_id} (lib/terminal/handoff.ts), with what only this
 * layer can ask the kernel: whether the session's shell reads at its own prompt.
 *
 * @example
 * ```ts
 * declare const terminal: Parameters<typeof sessionSubject>[0]; // the call's ctx.terminal
 * const subject = sessionSubject(terminal, "s1");
 * ```
 */
import { type HandOffSubject, ptySubject } from "../terminal/handoff.ts";
import type { TerminalBackend } from "../terminal/backend.ts";
import { shellWaitsForKeys } from "./keys_warning.ts";
import { libc } from "../terminal/pty/ffi.ts";
import { parseProcStat } from "../host/process.ts";

/** The leader of the foreground process group of the terminal whose first process is `pid`; undefined if unknown. */
function foregroundLeader(pid: number): number | undefined {
  try {
    const tpgid = parseProcStat(libc().procStat(pid))?.tpgid;
    return tpgid !== undefined && tpgid > 0 ? tpgid : undefined;
  } catch {
    return undefined; // no FFI here
  }
}

/**
 * Pty session `id` of `terminal` as a {@linkcode HandOffSubject} ({@linkcode ptySubject}) that also knows, where
 * this process can ask the kernel, whether the session's terminal has a shell in front that itself waits for keys
 * (its line editor: raw mode, echo off): then no program waits for an answer, whatever the prompt's words, and a secret
 * or a yes/no typed there would go into a command line and its history.
 *
 * @example
 * ```ts
 * declare const terminal: Parameters<typeof sessionSubject>[0]; // the call's ctx.terminal
 * const subject = sessionSubject(terminal, "s1");
 * ```
 */
export function sessionSubject(terminal: TerminalBackend, id: string): HandOffSubject {
  const base = ptySubject(terminal, id);
  return {
    ...base,
    async inputState() {
      const state = await base.inputState();
      if (state.exited || state.atShellPrompt !== undefined) return state;
      const proc = await terminal.localProcess(id);
      const fg = proc && foregroundLeader(proc.pid);
      // The terminal's foreground program is a shell that itself waits for keys out of line mode, not echoing (the
      // session's first process may be a `sh -c` that started it; a script's shell waits for the pinentry it ran).
      const waits = fg === undefined ? undefined : shellWaitsForKeys(proc!.tty, fg);
      return waits === undefined ? state : { ...state, atShellPrompt: waits && state.echo !== true };
    },
  };
}
