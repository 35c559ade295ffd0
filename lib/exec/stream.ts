/**
 * Reading a pane's raw output stream (from control mode): finding the
 * server's own markers in it, and turning terminal bytes into text lines
 * good enough to match patterns against.
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode("\x1b]5379;abc;s\x07hello\r\n");
 * const scan = new MarkerScanner("\x1b]5379;abc;");
 * scan.push(bytes); // → payloads such as ["s", "e;0"]
 * const lines = new LineAssembler((text, complete) => console.log(text, complete));
 * lines.push(bytes);
 * ```
 */

import { indexOfBytes } from "../text/bytes.ts";

const BEL = 0x07;
const ESC = 0x1b;
const BACKSLASH = 0x5c;
const MAX_MARKER_PAYLOAD = 64;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Finds `prefix … BEL` (or `prefix … ESC \`) sequences in a byte stream that
 * arrives in arbitrary chunks, and returns what lies between the prefix and
 * the terminator.
 */
export class MarkerScanner {
  #prefix: Uint8Array;
  #carry: Uint8Array = new Uint8Array(0);
  /** Bytes fed so far. */
  #seen = 0;

  constructor(prefix: string) {
    this.#prefix = encoder.encode(prefix);
  }

  /** Feeds a chunk; returns the payloads of the markers it completed. */
  push(chunk: Uint8Array): string[] {
    return this.scan(chunk).map((m) => m.payload);
  }

  /**
   * Feeds a chunk; returns the markers it completed, each with where it lies in the whole stream: `from` is
   * the offset of its first byte, `to` that of the byte after its terminator (offsets count every byte fed).
   */
  scan(chunk: Uint8Array): { payload: string; from: number; to: number }[] {
    const base = this.#seen - this.#carry.length;
    this.#seen += chunk.length;
    let buf = chunk;
    if (this.#carry.length > 0) {
      buf = new Uint8Array(this.#carry.length + chunk.length);
      buf.set(this.#carry);
      buf.set(chunk, this.#carry.length);
    }
    const found: { payload: string; from: number; to: number }[] = [];
    let from = 0;
    for (;;) {
      const at = indexOfBytes(buf, this.#prefix, from);
      if (at < 0) break;
      const body = at + this.#prefix.length;
      let end = -1;
      let termLen = 1;
      for (let i = body; i < buf.length && i - body <= MAX_MARKER_PAYLOAD; i++) {
        if (buf[i] === BEL) {
          end = i;
          break;
        }
        if (buf[i] === ESC && buf[i + 1] === BACKSLASH) {
          end = i;
          termLen = 2;
          break;
        }
      }
      if (end < 0) {
        if (buf.length - body <= MAX_MARKER_PAYLOAD) {
          this.#carry = buf.slice(at); // terminator still to come
          return found;
        }
        from = body; // too long to be ours
        continue;
      }
      found.push({ payload: decoder.decode(buf.subarray(body, end)), from: base + at, to: base + end + termLen });
      from = end + termLen;
    }
    const keep = Math.min(this.#prefix.length - 1, buf.length - from);
    this.#carry = keep > 0 ? buf.slice(buf.length - keep) : new Uint8Array(0);
    return found;
  }
}

/** Receives text lines: `complete` when the line ended (newline or the cursor left the row). */
export type LineSink = (text: string, complete: boolean) => void;

/** Columns a line keeps by default (`maxLine`). */
export const LINE_COLUMNS = 4096;

type State = "text" | "esc" | "csi" | "osc" | "string" | "charset";

/**
 * A deliberately small terminal model: one current line with a cursor
 * column. Printable characters overwrite at the cursor; CR, BS, TAB, erase
 * and horizontal cursor moves edit the line; newline, vertical moves and
 * screen clears end it. Colours and other sequences are dropped. Before a CR
 * or an erase can destroy text, the line is offered as it was, so a progress
 * line such as `50%\r100%` is seen at both stages.
 */
export class LineAssembler {
  #sink: LineSink;
  #decoder = new TextDecoder("utf-8", { fatal: false });
  #state: State = "text";
  #params = "";
  #line: string[] = [];
  #col = 0;
  #dirty = false;
  /** Whether the current line lost characters past `maxLine`. */
  #cutHere = false;

  /** Lines that lost their characters past `maxLine` (the current one included). */
  cut = 0;

  #blank: boolean;

  #max: number;

  #slide: number | undefined;

  /**
   * The terminal's width, once known: a cursor move stops at the right margin of the row the cursor is on (lines
   * here are unwrapped: a row is `width` columns of one), as the terminal's own does. Unknown: only `maxLine` stops it.
   */
  width: number | undefined;

  /**
   * `blankLines`: also offer the empty lines a newline ends (a log of the output wants them; matching does not).
   * `maxLine`: columns kept per line (default 4096). `slide`: a line that text keeps growing past `maxLine` is
   * offered, then loses its first columns but the last `slide` (else the rest are cut): any `slide` columns of it in
   * a row are in one offered line (a match looks at every part of a long line; a log keeps its head).
   */
  constructor(sink: LineSink, opts: { blankLines?: boolean; maxLine?: number; slide?: number } = {}) {
    this.#sink = sink;
    this.#blank = opts.blankLines ?? false;
    this.#max = opts.maxLine ?? LINE_COLUMNS;
    this.#slide = opts.slide;
  }

  /** Feeds raw bytes; at the end the current (partial) line is offered if it changed. */
  push(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes, { stream: true });
    for (const ch of text) this.#char(ch);
    this.#offer(false);
  }

  /** The current unfinished line. */
  get partial(): string {
    return this.#line.join("").trimEnd();
  }

  #offer(complete: boolean): void {
    if (!this.#dirty && !complete) return;
    let s = this.#line.join("").trimEnd();
    // An unfinished line keeps the blanks up to the cursor: "Password: " waits right after them.
    if (!complete && this.#col > s.length) s = s.padEnd(Math.min(this.#col, this.#line.length), " ");
    if (complete || s.length > 0) this.#sink(s, complete);
    this.#dirty = false;
  }

  #endLine(newline = false): void {
    if (this.#line.length > 0 || (newline && this.#blank)) this.#offer(true);
    this.#line = [];
    this.#col = 0;
    this.#dirty = false;
    this.#cutHere = false;
  }

  /** The first column of the row the cursor is on (0 while the width is unknown). */
  #rowStart(): number {
    return this.width ? Math.floor(this.#col / this.width) * this.width : 0;
  }

  /**
   * The last column a cursor move reaches on the cursor's row: a program's count (`ESC [ 999999 G`) moves no
   * further than the terminal's right margin, so it makes no line longer than the terminal shows.
   */
  #rowEnd(): number {
    return this.width ? Math.min(this.#max, this.#rowStart() + this.width - 1) : this.#max;
  }

  #put(ch: string): void {
    if (this.#col >= this.#max && this.#slide !== undefined && this.#col === this.#line.length) {
      this.#offer(false);
      // Whole rows go when the width is known, so a cursor move keeps to the row it is on.
      let drop = this.#max - this.#slide;
      if (this.width) drop -= drop % this.width;
      if (drop > 0) {
        this.#line.splice(0, drop);
        this.#col -= drop;
      }
    }
    if (this.#col >= this.#max) {
      if (!this.#cutHere) this.cut++;
      this.#cutHere = true;
      return;
    }
    while (this.#line.length < this.#col) this.#line.push(" ");
    this.#line[this.#col++] = ch;
    this.#dirty = true;
  }

  #char(ch: string): void {
    const c = ch.charCodeAt(0);
    switch (this.#state) {
      case "text":
        if (c === 0x1b) this.#state = "esc";
        else if (c === 0x0a || c === 0x0b || c === 0x0c) this.#endLine(true);
        else if (c === 0x0d) {
          this.#offer(false);
          this.#col = 0;
        } else if (c === 0x08) this.#col = Math.max(0, this.#col - 1);
        else if (c === 0x09) this.#col = Math.min(this.#rowEnd(), (Math.floor(this.#col / 8) + 1) * 8);
        else if (c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0)) this.#put(ch);
        return;
      case "esc":
        if (ch === "[") {
          this.#state = "csi";
          this.#params = "";
        } else if (ch === "]") this.#state = "osc";
        else if (ch === "P" || ch === "X" || ch === "^" || ch === "_") this.#state = "string";
        else if (ch === "(" || ch === ")" || ch === "*" || ch === "+" || ch === "#" || ch === "%") {
          this.#state = "charset";
        } else {
          // ESC c (reset), ESC M (reverse index), ESC D/E: the row changes.
          if (ch === "c" || ch === "M" || ch === "D" || ch === "E") this.#endLine();
          this.#state = "text";
        }
        return;
      case "charset":
        this.#state = "text";
        return;
      case "osc":
        if (c === 0x07) this.#state = "text";
        else if (c === 0x1b) this.#state = "esc"; // ESC \ ends it; the backslash is then ignored
        return;
      case "string":
        if (c === 0x1b) this.#state = "esc";
        return;
      case "csi":
        if (c >= 0x40 && c <= 0x7e) {
          this.#state = "text";
          this.#csi(ch, this.#params);
        } else if (this.#params.length < 64) {
          this.#params += ch;
        }
        return;
    }
  }

  #csi(final: string, params: string): void {
    if (params.startsWith("?") || params.startsWith(">") || params.startsWith("=")) return;
    const n = Math.max(1, parseInt(params, 10) || 1);
    switch (final) {
      case "K": {
        const mode = parseInt(params, 10) || 0;
        this.#offer(false);
        if (mode === 0) this.#line.length = Math.min(this.#line.length, this.#col);
        else if (mode === 1) { for (let i = 0; i <= this.#col && i < this.#line.length; i++) this.#line[i] = " "; }
        else this.#line = [];
        this.#dirty = true;
        return;
      }
      case "C":
        this.#col = Math.min(this.#rowEnd(), this.#col + n);
        return;
      case "D":
        this.#col = Math.max(0, this.#col - n);
        return;
      case "G":
      case "`":
        this.#col = Math.min(this.#rowEnd(), this.#rowStart() + n - 1);
        return;
      case "X": // erase characters
        this.#offer(false);
        for (let i = this.#col; i < this.#col + n && i < this.#line.length; i++) this.#line[i] = " ";
        return;
      case "P": // delete characters
        this.#offer(false);
        this.#line.splice(this.#col, n);
        return;
      case "@": {
        // Insert blanks: what is pushed past the line's last kept column is gone, as at a terminal's right edge.
        // Never more blanks than columns are left (the count is the program's, any number).
        if (this.#col >= this.#line.length) return;
        const blanks = Array<string>(Math.min(n, this.#max - this.#col)).fill(" ");
        this.#line = this.#line.slice(0, this.#col).concat(blanks, this.#line.slice(this.#col)).slice(0, this.#max);
        return;
      }
      case "A":
      case "B":
      case "E":
      case "F":
      case "H":
      case "f":
      case "d":
      case "J":
      case "S":
      case "T":
      case "L":
      case "M": {
        this.#endLine();
        if (final === "H" || final === "f") {
          const col = parseInt(params.split(";")[1] ?? "", 10);
          this.#col = Number.isFinite(col) && col > 0 ? Math.min(this.#rowEnd(), col - 1) : 0;
        }
        return;
      }
    }
  }
}
