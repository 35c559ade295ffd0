/**
 * Telling tmux's bytes from a remote login's on an ssh channel.
 *
 * sshd runs our command line through the user's login shell, and that shell
 * reads rc files first (Debian's bash reads ~/.bashrc even for `ssh host cmd`;
 * zsh reads ~/.zshenv; fish its config). Whatever they print — a MOTD, an
 * `echo`, a version manager's notice — arrives on the channel's stdout or
 * stderr ahead of tmux's own bytes, and read as tmux output it corrupts
 * answers (a buffer with the banner in front, a session id with text in it).
 *
 * So the remote line prints a fresh random sentinel (128 bits, never reused)
 * on stdout and on stderr right before `exec tmux …` (lib/tmux/ssh.ts
 * `remoteTmuxLine`). Nothing on a stream before its sentinel is trusted:
 * {@linkcode framedChild} hands its reader only what follows, and reports
 * what came before as login noise. A stdout that ends without the sentinel
 * carried no tmux output at all (the login shell ended first); one that
 * ends so with exit status 0 is an error, never an empty answer. A stderr
 * without its sentinel is passed whole: it is ssh's own complaint (no
 * connection, no login) or the shell's.
 *
 * @example
 * ```ts
 * declare const spawnSsh: (line: string) => Deno.ChildProcess;
 * declare const hooks: Parameters<typeof framedChild>[2];
 * const sentinel = newSentinel();
 * const child = framedChild(spawnSsh(`echo ${sentinel}; echo ${sentinel} >&2; exec tmux -V`), sentinel, hooks);
 * const out = await child.output(); // stdout: "tmux 3.3a\n", whatever the rc files printed
 * ```
 */
import { type ByteReader, byteReader } from "../byte_reader.ts";
import { indexOfBytes } from "../text/bytes.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);

/** Most bytes of login noise read in search of the sentinel before the stream is given up as not tmux's. */
export const MAX_LOGIN_NOISE = 1024 * 1024;

/**
 * A fresh sentinel: 128 random bits in hex behind a fixed prefix. Letters,
 * digits and `-` only, so it is one word for every shell and carries no
 * quoting problem.
 */
export function newSentinel(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "tmux-mcp-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What to do with a stream that ends without its sentinel. */
type Missing = "drop" | "pass";

interface Framed {
  stream: ReadableStream<Uint8Array<ArrayBuffer>>;
  /** The bytes before the sentinel once it is seen; undefined when the stream ended (or failed) without it. */
  head: Promise<Uint8Array | undefined>;
}

/**
 * `source` from the byte after `marker` on, as a byte stream (BYOB readers
 * keep reusing their buffer, lib/byte_reader.ts). `missing`: at an end
 * without the marker, "pass" delivers everything read, "drop" nothing.
 */
function frameStream(source: ReadableStream<Uint8Array>, marker: Uint8Array, missing: Missing): Framed {
  const head = Promise.withResolvers<Uint8Array | undefined>();
  let reader: ByteReader | undefined;
  let seen: Uint8Array | undefined = EMPTY; // undefined once the marker is found
  let searchFrom = 0;
  let left: Uint8Array = EMPTY; // bytes owed to the reader, our own copy
  let ended = false;

  const deliver = (ctrl: ReadableByteStreamController, bytes: Uint8Array) => {
    const req = ctrl.byobRequest;
    const view = req?.view;
    if (req && view) {
      const into = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      const n = Math.min(into.length, bytes.length);
      into.set(bytes.subarray(0, n));
      left = n < bytes.length ? bytes.slice(n) : EMPTY;
      req.respond(n);
    } else {
      ctrl.enqueue(bytes.slice());
      left = EMPTY;
    }
  };
  const close = (ctrl: ReadableByteStreamController) => {
    ctrl.close();
    ctrl.byobRequest?.respond(0);
  };

  const stream = new ReadableStream({
    type: "bytes",
    async pull(ctrl) {
      if (left.length > 0) return deliver(ctrl, left);
      if (ended) return close(ctrl);
      reader ??= byteReader(source);
      for (;;) {
        let chunk: Uint8Array | undefined;
        try {
          chunk = await reader.read();
        } catch (e) {
          head.resolve(undefined);
          return ctrl.error(e);
        }
        if (seen === undefined) {
          if (chunk === undefined) return close(ctrl);
          if (chunk.length > 0) return deliver(ctrl, chunk);
          continue;
        }
        if (chunk === undefined) {
          head.resolve(undefined);
          ended = true;
          const all = seen;
          seen = undefined;
          if (missing === "pass" && all.length > 0) return deliver(ctrl, all);
          return close(ctrl);
        }
        const grown = new Uint8Array(seen.length + chunk.length);
        grown.set(seen);
        grown.set(chunk, seen.length);
        const at = indexOfBytes(grown, marker, searchFrom);
        if (at < 0) {
          seen = grown;
          searchFrom = Math.max(0, grown.length - marker.length + 1);
          if (grown.length > MAX_LOGIN_NOISE) {
            head.resolve(undefined);
            seen = undefined;
            if (missing === "pass") return deliver(ctrl, grown);
            return ctrl.error(new Error(`more than ${MAX_LOGIN_NOISE} bytes before tmux started`));
          }
          continue;
        }
        seen = undefined;
        head.resolve(grown.subarray(0, at));
        const rest = grown.subarray(at + marker.length);
        if (rest.length > 0) return deliver(ctrl, rest);
      }
    },
    cancel(reason) {
      head.resolve(undefined);
      return reader ? reader.cancel() : source.cancel(reason);
    },
  });
  return { stream, head: head.promise };
}

/** A byte stream with the reading helpers of a child's own pipe. */
function subprocessStream(stream: ReadableStream<Uint8Array<ArrayBuffer>>): Deno.SubprocessReadableStream {
  const bytes = () => new Response(stream).bytes() as Promise<Uint8Array<ArrayBuffer>>;
  return Object.assign(stream, {
    bytes,
    arrayBuffer: async () => (await bytes()).buffer,
    text: async () => decoder.decode(await bytes()),
    json: async () => JSON.parse(decoder.decode(await bytes())),
  }) as Deno.SubprocessReadableStream;
}

/** What {@linkcode framedChild} tells its owner. */
export interface FrameHooks {
  /** Bytes the login printed on `stream` before tmux started (called only when there were some). */
  noise(stream: "stdout" | "stderr", bytes: Uint8Array): void;
  /** The error for a client that exited with status 0 without starting tmux (`stderr`: what it printed). */
  noTmux(stderr: string): Error;
}

const starts = new WeakMap<Deno.ChildProcess, Promise<void>>();
const pids = new WeakMap<Deno.ChildProcess, Promise<number | undefined>>();

/**
 * For a child from {@linkcode framedChild}: resolves when its sentinel arrived on stdout (the login is over, tmux
 * runs), pending forever if it never does. Undefined for any other child.
 */
export function loginStarted(child: Deno.ChildProcess): Promise<void> | undefined {
  return starts.get(child);
}

/**
 * For a child from {@linkcode framedChild} with `withPid`: the process id of tmux on the remote host, once its
 * line arrived; undefined when it never did (the child ended first). Undefined for any other child.
 */
export function remotePid(child: Deno.ChildProcess): Promise<number | undefined> | undefined {
  return pids.get(child);
}

/**
 * `child` (an ssh client running a line from `remoteTmuxLine` with
 * `sentinel`) with stdout and stderr framed: each starts after its sentinel.
 * `withPid` (a line that reports tmux's pid): stdout's first line after the
 * sentinel is that pid ({@linkcode remotePid}), not tmux's output.
 * Everything else is the child's own.
 */
export function framedChild(
  child: Deno.ChildProcess,
  sentinel: string,
  hooks: FrameHooks,
  withPid = false,
): Deno.ChildProcess {
  const marker = encoder.encode(sentinel + "\n");
  const framedOut = frameStream(child.stdout, marker, "drop");
  const withoutPid = withPid ? frameStream(framedOut.stream, encoder.encode("\n"), "drop") : undefined;
  const out = { stream: withoutPid?.stream ?? framedOut.stream, head: framedOut.head };
  const err = frameStream(child.stderr, marker, "pass");
  const started = Promise.withResolvers<void>();
  out.head.then((h) => {
    if (h === undefined) return;
    started.resolve();
    if (h.length > 0) hooks.noise("stdout", h);
  });
  err.head.then((h) => {
    if (h !== undefined && h.length > 0) hooks.noise("stderr", h);
  });
  const stdout = subprocessStream(out.stream);
  const stderr = subprocessStream(err.stream);
  const framed: Deno.ChildProcess = {
    get stdin() {
      return child.stdin;
    },
    stdout,
    stderr,
    pid: child.pid,
    status: child.status,
    async output(): Promise<Deno.CommandOutput> {
      const [o, e, status] = await Promise.all([stdout.bytes(), stderr.bytes(), child.status]);
      if (status.success && await out.head === undefined) throw hooks.noTmux(decoder.decode(e));
      return { ...status, stdout: o, stderr: e };
    },
    kill: (signo) => child.kill(signo),
    ref: () => child.ref(),
    unref: () => child.unref(),
    [Symbol.asyncDispose]: () => child[Symbol.asyncDispose](),
  } as Deno.ChildProcess;
  starts.set(framed, started.promise);
  if (withoutPid) {
    pids.set(
      framed,
      withoutPid.head.then((h) => {
        const text = h && decoder.decode(h);
        return text && /^[1-9]\d{0,9}$/.test(text) ? Number(text) : undefined;
      }),
    );
  }
  return framed;
}
