/**
 * The server's own stdin and stdout: read and written on the main thread's
 * event loop when they are pipes or sockets, as every MCP client starts us
 * (Deno's child pipes are FIFOs, Node's are socket pairs).
 *
 * Why: Deno serves `Deno.stdin` and `Deno.stdout` as files, on its blocking
 * thread pool: each request read wakes a pool thread that wakes the main
 * thread, each reply is handed to a pool thread and the main thread woken
 * again when it is written (and the descriptor is duplicated per read).
 * Several futex calls and thread wake-ups per call (`strace -f -c` shows
 * them) are a large share of a short round trip. `node:net` over the
 * descriptor makes it non-blocking and polls it with everything else.
 *
 * Non-blocking is a flag of the open file description, shared with every
 * process and descriptor that holds it. So the event-loop route is taken
 * only for a pipe or socket that is not also our stderr (`2>&1`: log lines
 * are written synchronously and would fail with EAGAIN on a full pipe); a
 * terminal, a file, /dev/null or a shared pipe keep Deno's file route, as
 * does anything `node:net` refuses.
 *
 * `node:net` and `node:fs` load a large part of Deno's Node compatibility
 * modules, tens of milliseconds a starting server spends before its first
 * answer otherwise. So both routes start on Deno's files and move to the
 * event loop once {@linkcode useEventLoop} has loaded them (a server calls it
 * after its first answered call): the reader at its next read, when no read
 * of the file is in flight (a socket reading beside it could take bytes out
 * of order), the writer at its next write (the transport writes one at a
 * time).
 *
 * @example
 * ```ts
 * const answer = (request: Uint8Array) => request; // an echo
 * await useEventLoop();
 * const reader = stdinReader();
 * const write = stdoutWriter();
 * for (let chunk; (chunk = await reader.read()) !== undefined;) await write(answer(chunk));
 * ```
 */
import type { Socket, SocketConstructorOpts } from "node:net";
import { type ByteReader, fileByteReader } from "../byte_reader.ts";

/** `node:net` and `node:fs`, once {@linkcode useEventLoop} has loaded them. */
let node: { Socket: typeof Socket; fstatSync: typeof import("node:fs").fstatSync } | undefined;
let loading: Promise<void> | undefined;

/** Loads the event-loop route; readers and writers move to it at their next read or write (see the module doc). */
export function useEventLoop(): Promise<void> {
  return loading ??= Promise.all([import("node:net"), import("node:fs")]).then(([net, fs]) => {
    node = { Socket: net.Socket, fstatSync: fs.fstatSync };
  });
}

/** Chunks read ahead of the consumer before the socket is paused (flow control). */
const READ_AHEAD = 16;

/** Whether descriptor `fd` is a pipe or socket of our own, safe to make non-blocking (see the module doc). */
function pollable(fd: number): boolean {
  try {
    const st = node!.fstatSync(fd);
    if (!st.isFIFO() && !st.isSocket()) return false;
    const err = node!.fstatSync(2);
    return fd === 2 || st.dev !== err.dev || st.ino !== err.ino;
  } catch {
    return false;
  }
}

/** A `node:net` socket over descriptor `fd`, or undefined when it cannot be made one. */
function socketOn(fd: number, opts: SocketConstructorOpts): Socket | undefined {
  if (!pollable(fd)) return undefined;
  try {
    // Half-open: the end of our input must not shut down (or close) anything else.
    return new node!.Socket({ fd, allowHalfOpen: true, ...opts } as SocketConstructorOpts);
  } catch {
    return undefined;
  }
}

/**
 * The server's stdin as a {@linkcode ByteReader}: polled on the event loop
 * when it is a pipe or socket and {@linkcode useEventLoop} has loaded that
 * route, else Deno's file reader. A chunk is the reader's own (valid until
 * the next read). `cancel` closes the descriptor.
 */
export function stdinReader(): ByteReader {
  let current = fileByteReader(Deno.stdin);
  let moved = false;
  return {
    read() {
      // Called once the previous read has resolved: no read of the file is in flight.
      if (!moved && node) {
        moved = true;
        current = socketReader() ?? current;
      }
      return current.read();
    },
    cancel: () => current.cancel(),
    releaseLock() {},
  };
}

/** Stdin polled on the event loop, or undefined when it is not a pipe or socket of our own. */
function socketReader(): ByteReader | undefined {
  const socket = socketOn(0, { readable: true, writable: false });
  if (!socket) return undefined;
  const ready: (Uint8Array | undefined)[] = [];
  let waiting: ((chunk: Uint8Array | undefined) => void) | undefined;
  let ended = false;
  const deliver = (chunk: Uint8Array | undefined) => {
    if (chunk === undefined) {
      if (ended) return;
      ended = true;
    }
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w(chunk);
      return;
    }
    ready.push(chunk);
    if (ready.length >= READ_AHEAD) socket.pause();
  };
  socket.on("data", (chunk: Uint8Array) => deliver(chunk));
  socket.on("end", () => deliver(undefined));
  socket.on("close", () => deliver(undefined));
  // An error ends the input like its end does (the transport then answers what it read and closes).
  socket.on("error", () => deliver(undefined));
  return {
    read() {
      if (ready.length === 0) {
        if (ended) return Promise.resolve(undefined);
        return new Promise((r) => waiting = r);
      }
      const chunk = ready.shift();
      if (ready.length < READ_AHEAD / 2 && socket.isPaused()) socket.resume();
      return Promise.resolve(chunk);
    },
    cancel() {
      socket.destroy();
      deliver(undefined);
      return Promise.resolve();
    },
    releaseLock() {},
  };
}

/**
 * Writes all of `bytes` to the server's stdout: through the event loop when
 * it is a pipe or socket, else Deno's file writer. Resolves once written;
 * rejects when the reader is gone (see {@linkcode isBrokenPipe}). Callers
 * serialise their writes.
 */
export function stdoutWriter(): (bytes: Uint8Array) => Promise<void> {
  const toFile = async (bytes: Uint8Array) => {
    let off = 0;
    while (off < bytes.length) off += await Deno.stdout.write(bytes.subarray(off));
  };
  let write: ((bytes: Uint8Array) => Promise<void>) | undefined;
  return (bytes) => {
    if (!write && node) write = socketWriter() ?? toFile;
    return (write ?? toFile)(bytes);
  };
}

/** Stdout written through the event loop, or undefined when it is not a pipe or socket of our own. */
function socketWriter(): ((bytes: Uint8Array) => Promise<void>) | undefined {
  const socket = socketOn(1, { readable: false, writable: true });
  if (!socket) return undefined;
  // Without a listener an EPIPE would be an uncaught exception; each write's callback reports it.
  socket.on("error", () => {});
  return (bytes) => new Promise((resolve, reject) => socket.write(bytes, (e) => e ? reject(e) : resolve()));
}

/** Whether a write failed because nobody reads our output any more (either route). */
export function isBrokenPipe(e: unknown): boolean {
  if (e instanceof Deno.errors.BrokenPipe || e instanceof Deno.errors.ConnectionReset) return true;
  const code = (e as { code?: unknown } | null)?.code;
  return code === "EPIPE" || code === "ECONNRESET" || code === "ERR_STREAM_DESTROYED";
}
