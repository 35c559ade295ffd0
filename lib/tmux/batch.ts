/**
 * Fitting many tmux commands into few tmux invocations. A tmux client sends
 * its whole command line to the server in one message of at most 16 KiB
 * ("command too long" otherwise), so long text is cut into chunks and
 * commands are packed, joined by {@linkcode COMMAND_SEPARATOR}, up to a
 * safe budget per invocation.
 *
 * @example
 * ```ts
 * import type { TmuxExecutor } from "./executor.ts";
 * declare const tmux: TmuxExecutor;
 * const text = "a long text to type ".repeat(2000);
 * const cmds = chunkText(text).map((c) => ["send-keys", "-t", "%3", "-l", "--", c]);
 * for (const argv of packCommands(cmds)) await tmux.run(argv);
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxArg } from "./executor.ts";

/** Bytes of argv per invocation: three quarters of tmux's 16 KiB message, leaving room for framing. */
export const INVOCATION_BUDGET = 12_288;

const encoder = new TextEncoder();

/** UTF-8 length of one code point. */
function utf8Len(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** Splits text into pieces of at most `maxBytes` UTF-8 bytes, never inside a code point. */
export function chunkText(text: string, maxBytes = INVOCATION_BUDGET - 512): string[] {
  const chunks: string[] = [];
  let start = 0, bytes = 0, i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    const n = utf8Len(cp), units = cp > 0xffff ? 2 : 1;
    if (bytes + n > maxBytes && i > start) {
      chunks.push(text.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += n;
    i += units;
  }
  if (i > start) chunks.push(text.slice(start));
  return chunks;
}

/**
 * Packs commands (each an argv without separators) into invocations whose
 * argv stays within `budget` bytes; a command larger than the budget gets an
 * invocation of its own. Order is kept.
 */
export function packCommands(commands: readonly (readonly string[])[], budget = INVOCATION_BUDGET): TmuxArg[][] {
  const out: TmuxArg[][] = [];
  let current: TmuxArg[] = [];
  let size = 0;
  for (const cmd of commands) {
    const n = cmd.reduce((sum, a) => sum + encoder.encode(a).length + 1, 0);
    if (current.length > 0 && size + n + 2 > budget) {
      out.push(current);
      current = [];
      size = 0;
    }
    if (current.length > 0) current.push(COMMAND_SEPARATOR);
    current.push(...cmd);
    size += n + 2;
  }
  if (current.length > 0) out.push(current);
  return out;
}
