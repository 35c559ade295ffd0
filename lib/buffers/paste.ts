/**
 * Pasting bytes into a pane without leaving anything in the user's buffer
 * list: the bytes go to a uniquely named buffer and are pasted and deleted
 * (`paste-buffer -d`) in the same tmux invocation; when anything fails the
 * buffer is deleted afterwards.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof pasteBytes>[0]; // the call's `ctx.tmux`
 * await pasteBytes(tmux, new TextEncoder().encode("ls\n"), "%3", { bracketed: true });
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxArg, type TmuxExecutor } from "../tmux/executor.ts";

/** Prefix of temporary buffer names, so a leftover (after a crash) is recognisable. */
export const TEMP_BUFFER_PREFIX = "tmux-mcp-tmp-";

export interface PasteOptions {
  /** Wrap in bracketed-paste markers if the program enabled bracketed paste mode (`paste-buffer -p`). */
  bracketed: boolean;
  /** Keep LF as LF (`paste-buffer -r`) instead of sending CR like a terminal paste. */
  raw?: boolean;
  /** Leave the pane's mode (copy mode…) first, in the same tmux call (`copy-mode -q`). */
  leaveMode?: boolean;
  signal?: AbortSignal;
}

/** Pastes `content` (≥ 1 byte; tmux holds no empty buffer) into `paneId`. */
export async function pasteBytes(
  tmux: TmuxExecutor,
  content: Uint8Array,
  paneId: string,
  opts: PasteOptions,
): Promise<void> {
  const name = TEMP_BUFFER_PREFIX + crypto.randomUUID();
  const flags = [...(opts.bracketed ? ["-p"] : []), ...(opts.raw ? ["-r"] : [])];
  // load-buffer comes first: the engine carries stdin content only for a call that begins with it.
  const leave: TmuxArg[] = opts.leaveMode ? ["copy-mode", "-q", "-t", paneId, COMMAND_SEPARATOR] : [];
  try {
    await tmux.run(
      [
        "load-buffer",
        "-b",
        name,
        "-",
        COMMAND_SEPARATOR,
        ...leave,
        "paste-buffer",
        "-d",
        "-b",
        name,
        "-t",
        paneId,
        ...flags,
      ],
      { stdin: content, signal: opts.signal, timeoutMs: 60_000 },
    );
  } catch (e) {
    await tmux.run(["delete-buffer", "-b", name]).catch(() => {});
    throw e;
  }
}
