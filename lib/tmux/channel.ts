/**
 * tmux commands over one persistent control-mode client, for the few
 * commands where being a control client changes what tmux does.
 *
 * The reason it exists: tmux hands file IO of `save-buffer` to the client
 * that asked, unless that client is attached, in which case the server
 * writes the file itself. A spawned `tmux save-buffer` or `show-buffer`
 * streams the buffer server → client → pipe → us in 16 KiB messages
 * (32 MiB: ~85 ms into our process); the server writing a file costs ~11 ms
 * and reading it back ~15 ms. Commands also answer in about 0.1 ms instead
 * of a spawn's 1.5–4 ms.
 *
 * The client attaches to tmux's default (most recently used) session with
 * `read-only,ignore-size,no-output`: it cannot type, does not change window
 * sizes and is sent no pane output. It starts on the first command and ends
 * after `idleMs` without one. When it cannot attach (no session yet) or went
 * away, commands fail with {@linkcode ChannelUnavailable} and callers use the
 * spawning executor instead; attaching is retried at most once a second.
 *
 * Commands are written as tmux command lines: every argument single-quoted
 * (so `;`, `#`, `$`, `~`, braces and spaces are literal), `'` written as
 * `"'"`. Arguments containing a line break or NUL cannot travel on one line
 * and are refused with {@linkcode ChannelUnavailable}. Replies are matched by
 * order: tmux answers a control client's own commands in `%begin … 1` /
 * `%end|%error … 1` blocks in the order they were sent (flag 1 marks them;
 * blocks of hooks and of the attach itself carry 0).
 *
 * @example
 * ```ts
 * const channel = createCommandChannel({ bin: "tmux", socketArgs: ["-L", "work"] });
 * await channel.run(["save-buffer", "-b", "log", "/tmp/dir/log.txt"]);
 * await channel.close();
 * ```
 */
import { endClient, readLines } from "./control_client.ts";
import { TmuxError } from "./executor.ts";

/** The channel cannot run commands now (no session to attach to, the client went away, an unsendable argument). */
export class ChannelUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChannelUnavailable";
  }
}

export interface CommandChannel {
  /**
   * Runs one tmux command and resolves with its output lines. Throws a
   * {@linkcode TmuxError} (`failed`, tmux's message; `timeout`) or
   * {@linkcode ChannelUnavailable}.
   */
  run(args: readonly string[], opts?: { timeoutMs?: number }): Promise<string[]>;
  /** Ends the control client. */
  close(): Promise<void>;
}

export interface CommandChannelOptions {
  bin: string;
  /** `-L name` / `-S path`, as the executor uses. */
  socketArgs: readonly string[];
  /** End the client after this long without a command (default 5 s: it shows in `list-clients` meanwhile). */
  idleMs?: number;
  /** Default per-command timeout (default 10 s). */
  timeoutMs?: number;
}

/**
 * One argument as a tmux command-line word: single-quoted, with `'` as
 * `"'"`. Returns undefined for arguments a command line cannot carry.
 */
export function quoteCommandArg(arg: string): string | undefined {
  if (/[\n\r\0]/.test(arg)) return undefined;
  return "'" + arg.replaceAll("'", `'"'"'`) + "'";
}

interface Pending {
  resolve(lines: string[]): void;
  reject(e: Error): void;
  lines: string[];
  timer: ReturnType<typeof setTimeout>;
}

interface Client {
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  pending: Pending[];
  closed: boolean;
  /** Resolves once attached (or once the client ended). */
  ready: Promise<void>;
  /** Why tmux refused the attach, when it did. */
  refusal: string;
  done: Promise<void>;
}

const RETRY_MS = 1000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const OWN_BLOCK = /^%(begin|end|error) \d+ \d+ 1$/;

/** A command's `%error` block as the executor's error: tmux's message is its first non-empty line. */
function commandFailed(lines: string[]): TmuxError {
  return new TmuxError("failed", lines.find((l) => l.trim()) ?? "tmux command failed", lines.join("\n"));
}

/** Creates the channel; nothing runs until the first command. */
export function createCommandChannel(opts: CommandChannelOptions): CommandChannel {
  const idleMs = opts.idleMs ?? 5_000;
  const defaultTimeout = opts.timeoutMs ?? 10_000;
  let client: Client | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let retryAt = 0;

  function start(): Client {
    const child = new Deno.Command(opts.bin, {
      args: ["-u", ...opts.socketArgs, "-C", "attach-session", "-f", "read-only,ignore-size,no-output"],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    // Commands sent before the attach completes run unattached (tmux reads them first), so they wait for it.
    const attached = Promise.withResolvers<void>();
    const c: Client = {
      child,
      writer: child.stdin.getWriter(),
      pending: [],
      closed: false,
      refusal: "",
      ready: attached.promise,
      done: Promise.resolve(),
    };
    let inOwn = false, inOther = false, isAttached = false;
    const onLine = (bytes: Uint8Array) => {
      if (c.closed) return; // timed out: replies can no longer be matched to commands
      const line = decoder.decode(bytes);
      if (inOwn) {
        const end = OWN_BLOCK.exec(line);
        if (!end || end[1] === "begin") return void c.pending[0]?.lines.push(line);
        inOwn = false;
        const p = c.pending.shift();
        if (!p) return;
        clearTimeout(p.timer);
        if (end[1] === "end") p.resolve(p.lines);
        else p.reject(commandFailed(p.lines));
        if (c.pending.length === 0) armIdle(c);
      } else if (inOther) {
        if (/^%(end|error) /.test(line)) {
          inOther = false;
          // The first such block answers the attach itself (later ones come from hooks).
          if (line.startsWith("%end ")) isAttached = true;
          attached.resolve();
        } else if (!isAttached && !c.refusal) c.refusal = line;
      } else if (OWN_BLOCK.test(line) && line.startsWith("%begin")) {
        inOwn = true;
      } else if (line.startsWith("%begin ")) {
        inOther = true;
      }
      // Anything else is a notification; this client does not need them.
    };
    c.done = (async () => {
      await readLines(child.stdout, onLine);
      c.closed = true;
      attached.resolve(); // whatever is pending fails below
      if (client === c) client = undefined;
      const why = c.refusal ? `tmux refused the control client: ${c.refusal}` : "the control client ended";
      if (!isAttached) retryAt = Date.now() + RETRY_MS;
      for (const p of c.pending.splice(0)) {
        clearTimeout(p.timer);
        p.reject(new ChannelUnavailable(why));
      }
      await child.status.catch(() => {});
    })();
    return c;
  }

  function armIdle(c: Client) {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      if (client === c && c.pending.length === 0) void shut(c);
    }, idleMs);
  }

  async function shut(c: Client): Promise<void> {
    if (client === c) client = undefined;
    await endClient(c.child, () => c.writer.close(), c.done);
  }

  return {
    run(args, ro = {}) {
      const words: string[] = [];
      for (const a of args) {
        const w = quoteCommandArg(a);
        if (w === undefined) {
          return Promise.reject(new ChannelUnavailable("an argument holds a line break or NUL"));
        }
        words.push(w);
      }
      if (!client || client.closed) {
        if (Date.now() < retryAt) {
          return Promise.reject(new ChannelUnavailable("the control client could not attach a moment ago"));
        }
        try {
          client = start();
        } catch (e) {
          // No tmux binary, or no permission to run it: the executor's own call will say so.
          retryAt = Date.now() + RETRY_MS;
          return Promise.reject(new ChannelUnavailable(`cannot start tmux: ${(e as Error).message}`));
        }
      }
      if (idleTimer !== undefined) {
        clearTimeout(idleTimer);
        idleTimer = undefined;
      }
      const c = client;
      const timeoutMs = ro.timeoutMs ?? defaultTimeout;
      return new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          // A command this slow means tmux is stuck: drop the client (its end fails the other commands).
          const i = c.pending.findIndex((p) => p.timer === timer);
          if (i >= 0) c.pending.splice(i, 1);
          c.closed = true;
          reject(new TmuxError("timeout", `tmux ${args[0] ?? ""} timed out after ${timeoutMs} ms`));
          void shut(c);
        }, timeoutMs);
        c.pending.push({ resolve, reject, lines: [], timer });
        const line = encoder.encode(words.join(" ") + "\n");
        // Continuations run in registration order, so commands are written in the order of `pending`.
        c.ready.then(() => c.closed ? undefined : c.writer.write(line)).catch(() => {
          // The client is gone; its end rejects every pending command.
        });
      });
    },
    async close() {
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      idleTimer = undefined;
      if (client) await shut(client);
    },
  };
}
