/**
 * A raw `tmux -C` client for the benches' floors: writes command lines and reads tmux's output line by line, with
 * nothing of ours between (no engine, no fence, no parsing beyond the line).
 *
 * @example
 * ```ts
 * const c = rawControlClient("bench-socket", ["-f", "read-only,ignore-size,no-output"]);
 * await c.write("display-message -p x\n");
 * await c.line(); // "%begin …" of the attach's own block first
 * await c.close();
 * ```
 */
const enc = new TextEncoder();
const dec = new TextDecoder();

/** The client: `attachFlags` go after `attach-session` (a target, `-f` client flags). */
export function rawControlClient(socketName: string, attachFlags: string[]): {
  write(text: string): Promise<void>;
  /** The next line tmux printed (without its newline); throws once the client has ended. */
  line(): Promise<string>;
  close(): Promise<void>;
} {
  const child = new Deno.Command("tmux", {
    args: ["-L", socketName, "-C", "attach-session", ...attachFlags],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  const r = child.stdout.getReader();
  let buf = "";
  return {
    write: (text) => w.write(enc.encode(text)),
    async line() {
      for (;;) {
        const nl = buf.indexOf("\n");
        if (nl >= 0) {
          const l = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          return l;
        }
        const { value, done } = await r.read();
        if (done) throw new Error("raw control client ended");
        buf += dec.decode(value, { stream: true });
      }
    },
    async close() {
      await w.close().catch(() => {});
      await r.cancel().catch(() => {});
      await child.status;
    },
  };
}
