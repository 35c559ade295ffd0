/**
 * What both kinds of control-mode client (the pane-output hub's and the command
 * connection) do with their `tmux -C` child: read its stdout line by line as it
 * arrives, and end it.
 *
 * @example
 * ```ts
 * const child = new Deno.Command("tmux", { args: ["-C", "attach"], stdin: "piped", stdout: "piped" }).spawn();
 * const done = readLines(child.stdout, (buf, start, end) => console.log(new TextDecoder().decode(buf.subarray(start, end))));
 * await endClient(child, () => child.stdin.close(), done);
 * ```
 */
import { byteReader } from "../byte_reader.ts";

const NL = 0x0a;
const NONE = new Uint8Array(0);

/**
 * Calls `onLine` with each `\n`-terminated line of `stream`: the bytes
 * `buf[start, end)`, without the `\n`, valid only during the call (a line is
 * not a view of its own: a reply of many lines would allocate one per line).
 * An unfinished last line is dropped. Resolves when the stream ends or errors.
 */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (buf: Uint8Array, start: number, end: number) => void,
): Promise<void> {
  // One reused buffer: a client lives as long as the server and answers every call.
  const reader = byteReader(stream);
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
    reader.releaseLock();
  }
}

/**
 * Ends a control client: closing its stdin makes tmux detach it and exit;
 * one that has not ended a second later is killed. Resolves when `done` (its
 * reader) has finished.
 */
export async function endClient(
  child: Deno.ChildProcess,
  closeStdin: () => Promise<void>,
  done: Promise<void>,
): Promise<void> {
  try {
    await closeStdin();
  } catch {
    // already closed
  }
  const killer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // gone
    }
  }, 1000);
  await done;
  clearTimeout(killer);
}
