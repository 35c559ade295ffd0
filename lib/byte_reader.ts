/**
 * Reading a long-lived byte stream (a control client's stdout) into one
 * reused buffer.
 *
 * Why: Deno's default reader of a process pipe allocates a fresh 64 KiB
 * ArrayBuffer for every read, however few bytes arrive. Over thousands of
 * calls those short-lived buffers pile up outside the JS heap between
 * collections and the native allocator keeps the peak (measured: about
 * 30 MiB of RSS over a few thousand capture-pane calls). A BYOB reader
 * hands the same buffer back on every read instead.
 *
 * A chunk is a view valid only until the next `read()`: copy what you keep.
 * The server's stdin is read without a stream at all: lib/server/stdio.ts,
 * which falls back to {@linkcode fileByteReader} when stdin is a file.
 *
 * @example
 * ```ts
 * const child = new Deno.Command("ls", { stdout: "piped" }).spawn();
 * const consume = (bytes: Uint8Array) => console.log(bytes.length);
 * const reader = byteReader(child.stdout);
 * for (let chunk; (chunk = await reader.read()) !== undefined;) consume(chunk.slice());
 * reader.releaseLock();
 * ```
 */

/** Size of the reused buffer: what Deno's default reader allocates per read. */
const CHUNK_BYTES = 64 * 1024;

export interface ByteReader {
  /** The next chunk, or undefined at the end of the stream. Valid until the next call. */
  read(): Promise<Uint8Array | undefined>;
  cancel(): Promise<void>;
  releaseLock(): void;
}

/** A reader of `stream` that reuses one buffer when the stream is a byte stream (else a plain reader). */
export function byteReader(stream: ReadableStream<Uint8Array>, size = CHUNK_BYTES): ByteReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (a test's stream, a transform): chunks are the source's own.
    const plain = stream.getReader();
    return {
      async read() {
        const { value, done } = await plain.read();
        return done ? undefined : value;
      },
      cancel: () => plain.cancel(),
      releaseLock: () => plain.releaseLock(),
    };
  }
  let buffer = new ArrayBuffer(size);
  return {
    async read() {
      const { value, done } = await byob.read(new Uint8Array(buffer));
      if (done || !value) return undefined;
      // The read transferred the buffer: the view's buffer is the same memory, now ours again.
      buffer = value.buffer as ArrayBuffer;
      return value;
    },
    cancel: () => byob.cancel(),
    releaseLock: () => byob.releaseLock(),
  };
}

/**
 * A reader of a Deno file (`Deno.stdin` when it is a terminal or a file)
 * into one reused buffer, without the ReadableStream over it: the stream's
 * pull/respond machinery was a measurable part of every request read.
 * `cancel` makes the next `read()` report the end; a read already waiting
 * ends with the process or the file's end.
 *
 * @example
 * ```ts
 * const consume = (bytes: Uint8Array) => console.log(bytes.length);
 * const reader = fileByteReader(Deno.stdin);
 * for (let chunk; (chunk = await reader.read()) !== undefined;) consume(chunk.slice());
 * ```
 */
export function fileByteReader(file: { read(p: Uint8Array): Promise<number | null> }, size = CHUNK_BYTES): ByteReader {
  const buffer = new Uint8Array(size);
  let ended = false;
  return {
    async read() {
      if (ended) return undefined;
      const n = await file.read(buffer);
      if (n === null || ended) {
        ended = true;
        return undefined;
      }
      return buffer.subarray(0, n);
    },
    cancel() {
      ended = true;
      return Promise.resolve();
    },
    releaseLock() {},
  };
}
