/**
 * Terminal emulation for the internal PTY backend, and the one place that
 * turns emulator cells into text, so that screens mean the same on both
 * backends.
 *
 * `@xterm/headless` parses the program's output. Colours are serialized here
 * cell by cell (SGR sequences at attribute changes, one reset at the end of a
 * styled row). `@xterm/addon-serialize` is not used: its per-row API reads the
 * normal buffer only, so full-screen programs on the alternate screen would
 * show stale text, and its whole-screen output joins wrapped rows. The tmux
 * backend feeds `capture-pane -e` output through {@linkcode ansiScreenColors},
 * which makes its coloured screens byte-identical to the internal backend's.
 *
 * @example
 * ```ts
 * await loadEmulator();
 * const em = createEmulator(24, 80);
 * em.write(new TextEncoder().encode("\x1b[31mred"));
 * await em.flushed();
 * em.screenLines()[0]; // "red"
 * em.screenColors()[0]; // "\x1b[31mred\x1b[0m"
 * ```
 */
import type xtermModule from "@xterm/headless";
import { charWidth } from "../text/widths.ts";

type Xterm = typeof xtermModule;
type Terminal = InstanceType<Xterm["Terminal"]>;

/**
 * The emulator (npm `@xterm/headless`) is loaded on first use, not at
 * start-up: importing it costs a noticeable part of a cold start
 * (`initialize` answered), and most sessions never launch a pty.
 */
let xterm: Xterm | undefined;

/** Loads the emulator; await it before {@linkcode createEmulator}. */
export async function loadEmulator(): Promise<void> {
  xterm ??= (await import("@xterm/headless")).default;
}

function loaded(): Xterm {
  if (!xterm) throw new Error("the terminal emulator is not loaded yet: await loadEmulator() first");
  return xterm;
}
type Buffer = Terminal["buffer"]["active"];
type Cell = NonNullable<ReturnType<Buffer["getNullCell"]>>;

/** Most lines a session keeps above the screen (pty-get-scrollback's upper bound). */
export const SCROLLBACK_LINES = 10_000;

export interface Emulator {
  readonly rows: number;
  readonly cols: number;
  /** Queues program output; parsing happens asynchronously (see {@linkcode Emulator.flushed}). */
  write(bytes: Uint8Array): void;
  /** Resolves once everything written so far has been parsed. */
  flushed(): Promise<void>;
  resize(rows: number, cols: number): void;
  /** The visible screen: `rows` lines, trailing spaces trimmed. */
  screenLines(): string[];
  /** The visible screen with SGR colour/style sequences. */
  screenColors(): string[];
  /** Cursor position on the screen, 0-based. */
  cursor(): { row: number; col: number };
  /** The last `count` lines of the main screen's history, then the screen (trailing spaces trimmed). */
  tailLines(count: number): string[];
  /**
   * The main screen's lines (history, then screen) from absolute row `from` on (rows counted since the emulator
   * started, rows dropped off the history included), wrapped rows joined, the text left of column `x` on that row
   * left out; `first` is where they start (later than `from` when rows were dropped before they were read).
   */
  linesFrom(from: number, x: number): { lines: string[]; first: number; cursor: { row: number; x: number } };
  /** True when the program switched the cursor keys to application mode (DECCKM). */
  applicationCursor(): boolean;
  /** Replies the terminal sends back to the program (device attributes, cursor reports). */
  onReply(fn: (data: string) => void): void;
  dispose(): void;
}

/** The zero width joiner: what follows it joins the character before (an emoji sequence is one cell, as in tmux). */
const ZWJ = 0x200d;

/**
 * A headless xterm counting columns as the programs and tmux do ({@linkcode charWidth}): xterm's own count is
 * Unicode 6's, where an emoji took one column and a program's line then ran on past where it thought it ended.
 */
function newTerminal(options: { rows: number; cols: number; scrollback: number }): Terminal {
  // reflowCursorLine: the rows of the line the cursor is on are rejoined on a resize as all others are (as tmux
  // does); left alone, a narrower screen cut that line's wrapped text off at the new width, and it was lost.
  const term = new (loaded().Terminal)({ ...options, allowProposedApi: true, reflowCursorLine: true });
  term.unicode.register({
    version: "wcwidth",
    wcwidth: charWidth,
    // A property value: state (1 after a ZWJ) << 3 | width << 1 | joins the character before.
    charProperties(cp: number, preceding: number): number {
      let width: number = charWidth(cp);
      const before = (preceding >> 1) & 3;
      const afterZwj = preceding >> 3 === 1;
      const join = preceding !== 0 && before !== 0 && (width === 0 || afterZwj);
      if (join && before > width) width = before;
      return (cp === ZWJ && join ? 1 << 3 : 0) | (width << 1) | (join ? 1 : 0);
    },
  });
  term.unicode.activeVersion = "wcwidth";
  return term;
}

/** A headless xterm of the given size with {@linkcode SCROLLBACK_LINES} of history (after {@linkcode loadEmulator}). */
export function createEmulator(rows: number, cols: number): Emulator {
  const term = newTerminal({ rows, cols, scrollback: SCROLLBACK_LINES });
  let pending: Promise<void> = Promise.resolve();
  const absolute = dropCounter(term);
  const c1 = c1Filter();
  return {
    get rows() {
      return term.rows;
    },
    get cols() {
      return term.cols;
    },
    write(bytes) {
      const text = c1(bytes);
      pending = new Promise((resolve) => term.write(text, resolve));
    },
    flushed: () => pending,
    resize(r, c) {
      // Only a new width rejoins lines: a change of height alone leaves the cursor where it is.
      const at = c === term.cols ? undefined : cursorOffset(term);
      term.resize(c, r);
      const to = at === undefined ? undefined : cursorAt(term, at);
      // The emulator rejoins the cursor's line but leaves the cursor's column where it was: put it back after the
      // same text, as tmux does, so the program's next character lands where it would.
      if (to) pending = new Promise((resolve) => term.write(`\x1b[${to.row + 1};${to.col + 1}H`, resolve));
    },
    screenLines: () => rowsOf(term.buffer.active, term.rows, plain),
    screenColors() {
      const cell = term.buffer.active.getNullCell();
      return rowsOf(term.buffer.active, term.rows, (line) => styledRow(line, term.cols, cell));
    },
    cursor: () => ({
      row: term.buffer.active.cursorY,
      // Without autowrap (DECAWM off) the emulator leaves the cursor right of the screen after a full line; a
      // terminal (and tmux) keeps it on the last column, where the next character goes.
      col: term.modes.wraparoundMode ? term.buffer.active.cursorX : Math.min(term.buffer.active.cursorX, term.cols - 1),
    }),
    tailLines(count) {
      // The main screen's history, also under a full-screen program's alternate screen (which has none; tmux
      // keeps the history there too), then the screen.
      const history = term.buffer.normal;
      const screen = term.buffer.active;
      const above = history.baseY;
      const total = above + term.rows;
      const out: string[] = [];
      for (let i = Math.max(0, total - count); i < total; i++) {
        const line = i < above ? history.getLine(i) : screen.getLine(screen.baseY + i - above);
        out.push(line ? plain(line) : "");
      }
      return out;
    },
    linesFrom(from, x) {
      const buf = term.buffer.normal;
      const dropped = absolute();
      const start = Math.max(0, from - dropped);
      const lines: string[] = [];
      for (let i = start; i < buf.length; i++) {
        const line = buf.getLine(i);
        const text = line ? line.translateToString(true, i === from - dropped ? x : 0) : "";
        if (line?.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
        else lines.push(text);
      }
      return {
        lines: lines.map((l) => l.replace(/ +$/, "")),
        first: dropped + start,
        cursor: { row: dropped + buf.baseY + buf.cursorY, x: buf.cursorX },
      };
    },
    applicationCursor: () => term.modes.applicationCursorKeysMode,
    onReply(fn) {
      term.onData(fn);
      term.onBinary(fn);
    },
    dispose: () => term.dispose(),
  };
}

type Line = NonNullable<ReturnType<Buffer["getLine"]>>;

/**
 * The columns a full row of a wrapped line holds: all of them, but the last when a wide character that did not fit
 * there went on to the next row (an empty cell is left).
 */
function rowCapacity(buf: Buffer, y: number, cols: number): number {
  const line = buf.getLine(y);
  const next = buf.getLine(y + 1);
  if (!line || !next?.isWrapped) return cols;
  const last = line.getCell(cols - 1);
  return last && last.getChars() === "" && last.getWidth() === 1 && next.getCell(0)?.getWidth() === 2 ? cols - 1 : cols;
}

/** Where the cursor is in its line (the rows it wrapped over joined), in columns from the line's start. */
function cursorOffset(term: Terminal): number | undefined {
  const buf = term.buffer.active;
  // The alternate screen is not rejoined on a resize; in origin mode a cursor move counts from the scroll region.
  if (buf.type !== "normal" || term.modes.originMode) return undefined;
  let y = buf.baseY + buf.cursorY;
  let offset = Math.min(buf.cursorX, term.cols);
  while (y > 0 && buf.getLine(y)?.isWrapped) offset += rowCapacity(buf, --y, term.cols);
  return offset;
}

/** The screen position `offset` columns into the cursor's line, after a resize rejoined it; undefined off screen. */
function cursorAt(term: Terminal, offset: number): { row: number; col: number } | undefined {
  const buf = term.buffer.active;
  let y = buf.baseY + buf.cursorY;
  while (y > 0 && buf.getLine(y)?.isWrapped) y--;
  let rest = offset;
  for (let cap = rowCapacity(buf, y, term.cols); rest >= cap && buf.getLine(y + 1)?.isWrapped; y++) {
    rest -= cap;
    cap = rowCapacity(buf, y + 1, term.cols);
  }
  const row = y - buf.baseY;
  if (row < 0 || row >= term.rows) return undefined;
  return { row, col: Math.min(rest, term.cols - 1) };
}

/**
 * Drops the C1 controls written as UTF-8 characters (U+0080..U+009F, the bytes C2 80..C2 9F), chunk after chunk of
 * one stream. xterm runs them as controls, tmux (like most terminals in UTF-8) leaves them out: text that was
 * decoded twice (`â\u0080\u009d` for a closing quote) holds them, and on the internal backend its U+009D began a
 * string that hid all later output until a BEL, its U+009B a control sequence that ate the next characters.
 */
function c1Filter(): (bytes: Uint8Array) => Uint8Array {
  let held = false; // the last chunk ended with C2
  return (bytes) => {
    if (!held && !bytes.includes(0xc2)) return bytes;
    const out = new Uint8Array(bytes.length + 1);
    let n = 0;
    let i = 0;
    if (held) {
      held = false;
      if (bytes.length > 0 && bytes[0] >= 0x80 && bytes[0] <= 0x9f) i = 1;
      else out[n++] = 0xc2;
    }
    for (; i < bytes.length; i++) {
      const b = bytes[i];
      if (b !== 0xc2) {
        out[n++] = b;
      } else if (i + 1 === bytes.length) {
        held = true;
      } else if (bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9f) {
        i++;
      } else {
        out[n++] = b;
      }
    }
    return out.subarray(0, n);
  };
}

/**
 * Counts the rows dropped off the top of the main screen's buffer (its history holds {@linkcode SCROLLBACK_LINES},
 * and clearing the history or resetting the terminal drops more): xterm exposes no count, but a marker's row moves up
 * by every row dropped above it. The marker is kept on the screen (placed again at the cursor once it scrolled into
 * the history), where clearing the history leaves it; a reset drops every row the buffer held.
 */
function dropCounter(term: Terminal): () => number {
  let dropped = 0;
  let anchor: { marker: NonNullable<ReturnType<Terminal["registerMarker"]>>; row: number } | undefined;
  let length = term.buffer.normal.length; // the buffer's rows at the last look (they change only as it scrolls)
  const update = () => {
    const buf = term.buffer.normal;
    if (anchor?.marker.isDisposed) {
      dropped += length;
      anchor = undefined;
    } else if (anchor) {
      dropped += anchor.row - anchor.marker.line;
      anchor.row = anchor.marker.line;
    }
    length = buf.length;
    if (anchor && anchor.row >= buf.baseY) return dropped;
    if (term.buffer.active.type !== "normal") return dropped; // markers go to the active buffer
    anchor?.marker.dispose();
    const marker = term.registerMarker(0);
    anchor = marker ? { marker, row: marker.line } : undefined;
    return dropped;
  };
  term.onScroll(update);
  // A reset (RIS, `ESC c`) replaces the buffer and leaves the marker in the old one: every row it held is dropped.
  term.parser.registerEscHandler({ final: "c" }, () => {
    update();
    dropped += term.buffer.normal.length;
    anchor?.marker.dispose();
    anchor = undefined;
    return false; // the terminal still resets
  });
  return update;
}

/** A row's text without trailing spaces (xterm keeps spaces the program wrote; tmux drops them). */
function plain(line: Line): string {
  return line.translateToString(true).replace(/ +$/, "");
}

function rowsOf(buf: Buffer, rows: number, render: (line: Line) => string): string[] {
  const out: string[] = [];
  for (let y = 0; y < rows; y++) {
    const line = buf.getLine(buf.viewportY + y);
    out.push(line ? render(line) : "");
  }
  return out;
}

/**
 * tmux 3.3a's `capture-pane -e` writes every attribute code above 9 as two colon-separated digits, right for the
 * underline styles (`4:3`, curly) but not for overline: its `5:3` reads as blink. Written back as 53.
 */
function overlineAsSgr(line: string): string {
  return line.includes("5:3")
    ? line.replace(
      // deno-lint-ignore no-control-regex
      /\x1b\[([0-9;:]*)m/g,
      (_, p: string) => `\x1b[${p.split(";").map((x) => x === "5:3" ? "53" : x).join(";")}m`,
    )
    : line;
}

/** One terminal reused for every {@linkcode ansiScreenColors} and {@linkcode ansiScreenGrid} call (creating one costs milliseconds). */
let scratch: { term: Terminal; queue: Promise<unknown> } | undefined;

/** Writes screen rows (SGR sequences kept) into the scratch terminal and reads it back with `read`, one call at a time. */
async function onScratch<T>(lines: string[], rows: number, cols: number, read: (term: Terminal) => T): Promise<T> {
  await loadEmulator();
  scratch ??= {
    term: newTerminal({ rows, cols, scrollback: 0 }),
    queue: Promise.resolve(),
  };
  const { term } = scratch;
  // Calls take turns: each one resets the terminal and reads it back.
  const run = async () => {
    term.reset();
    if (term.rows !== rows || term.cols !== cols) term.resize(cols, rows);
    // Each captured row is written at the start of its own screen row, so a
    // row that fills the width never wraps into the next one.
    const text = lines.slice(0, rows).map((l, y) => `\x1b[${y + 1};1H${overlineAsSgr(l)}\x1b[0m`).join("");
    await new Promise<void>((resolve) => term.write(text, resolve));
    return read(term);
  };
  const result = scratch.queue.then(run, run);
  scratch.queue = result.catch(() => {});
  return result;
}

/**
 * Renders `capture-pane -p -e` output (one line per row, SGR sequences) the
 * way {@linkcode Emulator.screenColors} renders a live screen.
 */
export function ansiScreenColors(lines: string[], rows: number, cols: number): Promise<string[]> {
  return onScratch(lines, rows, cols, (term) => {
    const cell = term.buffer.active.getNullCell();
    return rowsOf(term.buffer.active, rows, (line) => styledRow(line, cols, cell));
  });
}

/** A colour of a {@linkcode GridCell}: -1 the terminal's default, 0..255 a palette index, else `RGB_FLAG | 0xRRGGBB`. */
export type CellColour = number;
/** Marks a {@linkcode CellColour} as a true colour. */
export const RGB_FLAG = 0x1000000;

/** One screen cell as an image draws it. */
export interface GridCell {
  /** The character ("" for an empty cell). */
  ch: string;
  /** 1, or 2 for a wide character (its right half is a cell of width 0). */
  width: number;
  fg: CellColour;
  bg: CellColour;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
  invisible: boolean;
  strikethrough: boolean;
}

/** Screen rows (SGR sequences kept: `capture-pane -e`, or `screenColors`) as `rows` × `cols` cells. */
export function ansiScreenGrid(lines: string[], rows: number, cols: number): Promise<GridCell[][]> {
  return onScratch(lines, rows, cols, (term) => {
    const buf = term.buffer.active;
    const c = buf.getNullCell();
    const colourOf = (rgb: boolean, palette: boolean, value: number) => rgb ? RGB_FLAG | value : palette ? value : -1;
    const grid: GridCell[][] = [];
    for (let y = 0; y < rows; y++) {
      const line = buf.getLine(buf.viewportY + y);
      const row: GridCell[] = [];
      for (let x = 0; x < cols; x++) {
        if (!line?.getCell(x, c)) {
          row.push({ ...BLANK });
          continue;
        }
        row.push({
          ch: c.getChars(),
          width: c.getWidth(),
          fg: colourOf(c.isFgRGB(), c.isFgPalette(), c.getFgColor()),
          bg: colourOf(c.isBgRGB(), c.isBgPalette(), c.getBgColor()),
          bold: c.isBold() !== 0,
          dim: c.isDim() !== 0,
          italic: c.isItalic() !== 0,
          underline: c.isUnderline() !== 0,
          inverse: c.isInverse() !== 0,
          invisible: c.isInvisible() !== 0,
          strikethrough: c.isStrikethrough() !== 0,
        });
      }
      grid.push(row);
    }
    return grid;
  });
}

const BLANK: GridCell = {
  ch: "",
  width: 1,
  fg: -1,
  bg: -1,
  bold: false,
  dim: false,
  italic: false,
  underline: false,
  inverse: false,
  invisible: false,
  strikethrough: false,
};

/** The SGR parameters of a cell ("" for default attributes). */
function sgrOf(c: Cell): string {
  const p: (number | string)[] = [];
  if (c.isBold()) p.push(1);
  if (c.isDim()) p.push(2);
  if (c.isItalic()) p.push(3);
  if (c.isUnderline()) p.push(4);
  if (c.isBlink()) p.push(5);
  if (c.isInverse()) p.push(7);
  if (c.isInvisible()) p.push(8);
  if (c.isStrikethrough()) p.push(9);
  if (c.isOverline()) p.push(53);
  colour(p, c.isFgRGB(), c.isFgPalette(), c.getFgColor(), 30);
  colour(p, c.isBgRGB(), c.isBgPalette(), c.getBgColor(), 40);
  return p.join(";");
}

function colour(p: (number | string)[], rgb: boolean, palette: boolean, value: number, base: 30 | 40): void {
  if (rgb) p.push(`${base + 8};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`);
  else if (palette && value < 8) p.push(base + value);
  else if (palette && value < 16) p.push(base + 60 + value - 8);
  else if (palette) p.push(`${base + 8};5;${value}`);
}

/** One row as text with SGR sequences where attributes change; blank default cells at the end are dropped. */
function styledRow(line: Line, cols: number, cell: Cell): string {
  let end = 0; // one past the last cell worth printing
  for (let x = 0; x < cols; x++) {
    if (!line.getCell(x, cell)) break;
    const blank = cell.getChars() === "" || cell.getChars() === " ";
    if (!blank || !cell.isBgDefault() || cell.isInverse()) end = x + 1;
  }
  let out = "";
  let current = "";
  for (let x = 0; x < end; x++) {
    line.getCell(x, cell);
    if (cell.getWidth() === 0) continue; // right half of a wide character
    const sgr = sgrOf(cell);
    if (sgr !== current) {
      out += sgr === "" ? "\x1b[0m" : `\x1b[${current === "" ? "" : "0;"}${sgr}m`;
      current = sgr;
    }
    out += cell.getChars() || " ";
  }
  return current === "" ? out : out + "\x1b[0m";
}
