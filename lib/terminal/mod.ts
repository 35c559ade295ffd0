/**
 * Picks the `pty-*` tools' backend from the configuration
 * (`--terminal-backend pty|tmux`) and checks at startup that it can work.
 *
 * @example
 * ```ts
 * declare const [config, executor]: Parameters<typeof createTerminalBackend>; // the server's
 * const problem = await terminalStartupError(config, executor); // "tmux not found. ..." or undefined
 * const backend = createTerminalBackend(config, executor);
 * ```
 */
import type { Config } from "../config.ts";
import type { TmuxExecutor } from "../tmux/executor.ts";
import type { TerminalBackend } from "./backend.ts";
import { createPtyBackend } from "./pty/pty_backend.ts";
import { createTmuxBackend, tmuxMissing } from "./tmux_backend.ts";

export type { TerminalBackend };

/** The configured backend; nothing is started until a tool uses it. */
export function createTerminalBackend(config: Config, tmux: TmuxExecutor): TerminalBackend {
  return config.terminalBackend === "tmux"
    ? createTmuxBackend(tmux, { keepSessions: config.keepSessions })
    : createPtyBackend();
}

/**
 * A one-line reason the configured backend cannot run, or undefined. A tmux on an ssh host is not asked at start:
 * its connection opens on first use, and each call says what is wrong there.
 */
export function terminalStartupError(config: Config, tmux: TmuxExecutor): Promise<string | undefined> {
  return config.terminalBackend === "tmux" && tmux.remote === undefined
    ? tmuxMissing(tmux)
    : Promise.resolve(undefined);
}
