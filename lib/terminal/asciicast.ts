/**
 * asciicast v2 recordings of a terminal's output (the format asciinema's
 * player and converters read): a header line, then one JSON array per
 * event, `[seconds, "o", text]` for output and `[seconds, "r", "COLSxROWS"]`
 * for a resize. Output bytes are decoded as UTF-8 in a stream, so a
 * character split across two reads is written whole in the later event;
 * bytes that are not UTF-8 become U+FFFD (the format holds text only).
 * Times come from the monotonic clock and never go backwards.
 *
 * @example
 * ```ts
 * const file = await Deno.open("/tmp/demo.cast", { write: true, create: true, truncate: true });
 * const cast = new AsciicastWriter(file, { rows: 24, cols: 80 });
 * cast.output(new TextEncoder().encode("hello\r\n"));
 * cast.close();
 * ```
 */

/** The terminal type written in the header: the one the pty sessions' programs see. */
const TERM = "xterm-256color";

/** Writes one asciicast v2 file; every call writes through at once (nothing is lost if the server dies). */
export class AsciicastWriter {
  #file: Deno.FsFile;
  #start: number;
  #last = 0;
  #decoder = new TextDecoder("utf-8", { fatal: false });
  #encoder = new TextEncoder();

  /** Writes the header for a terminal of `size`; times count from now. */
  constructor(file: Deno.FsFile, size: { rows: number; cols: number }) {
    this.#file = file;
    this.#start = performance.now();
    this.#line({
      version: 2,
      width: size.cols,
      height: size.rows,
      timestamp: Math.floor(Date.now() / 1000),
      env: { TERM, SHELL: "/bin/sh" },
    });
  }

  /** Records program output (any bytes; an incomplete character waits for the rest). */
  output(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes, { stream: true });
    if (text !== "") this.#line([this.#now(), "o", text]);
  }

  /** Records a terminal resize. */
  resize(rows: number, cols: number): void {
    this.#line([this.#now(), "r", `${cols}x${rows}`]);
  }

  /** Writes what is left of an incomplete character (as U+FFFD) and closes the file. */
  close(): void {
    try {
      const rest = this.#decoder.decode();
      if (rest !== "") this.#line([this.#now(), "o", rest]);
    } finally {
      try {
        this.#file.close();
      } catch {
        // already closed
      }
    }
  }

  /** Seconds since the start, with microseconds, strictly after the previous event's. */
  #now(): number {
    let t = Math.round((performance.now() - this.#start) * 1000) / 1e6;
    if (t <= this.#last) t = Math.round((this.#last + 1e-6) * 1e6) / 1e6;
    this.#last = t;
    return t;
  }

  #line(value: unknown): void {
    const bytes = this.#encoder.encode(JSON.stringify(value) + "\n");
    for (let off = 0; off < bytes.length;) off += this.#file.writeSync(bytes.subarray(off));
  }
}
