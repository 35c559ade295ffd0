/**
 * Reading a pane's rows by absolute position, so "what appeared since X"
 * includes rows that scrolled into history and never repeats the screen.
 *
 * A {@linkcode Position} is an absolute row (`history_size + cursor_y`, which
 * does not move when the screen scrolls) and a column, plus fingerprints of
 * the row above and of the row's first `x` columns. tmux renumbers rows when
 * it trims history (it drops `history-limit / 10` rows once the limit is
 * reached) or when history is cleared; the fingerprints find the row again,
 * and when it is gone the read says so (`missed`) and returns everything
 * still there, all of which is newer than the lost row.
 *
 * `capture-pane -S` counts from the top of the visible screen, so a read
 * needs the current `history_size`; it guesses the last one seen and retries
 * when tmux reports another in the same call (output scrolled in between).
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof readScreen>[0]; // the call's `ctx.tmux`
 * const first = await readScreen(tmux, "%3");
 * // ... later
 * const since = await readSince(tmux, "%3", first.next, { maxRows: 500 });
 * since.rows; // only the new lines
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxArg, type TmuxExecutor } from "./executor.ts";
import { getPane, paneFacts, type PaneInfo } from "./panes.ts";
import type { Row } from "./rows.ts";
import { joinedSpans } from "./capture.ts";
import { columns, dropColumns, fingerprint, tail, takeColumns } from "../text/columns.ts";

/** A place in a pane's output. */
export interface Position {
  /** Absolute row: history_size + cursor_y when taken. */
  row: number;
  /** Column on that row; text left of it is not new. */
  x: number;
  /** Fingerprint of row - 1 ("" when row is 0). */
  above: string;
  /** Fingerprint of the first x columns of the row. */
  head: string;
  /** history_size when taken: the first guess for the next read. */
  hs: number;
}

/**
 * Where a read's lines lie in the pane, so a page of them can end early and
 * the next read continue exactly after it ({@linkcode positionAfter}).
 */
export interface Layout {
  /** Absolute row where the first line starts, and the column it starts at. */
  row: number;
  x: number;
  /** Rows each line spans (tmux wrapped all but the last onto the next row). */
  spans: number[];
  /** The rows from `row` on, as capture-pane -N prints them (the first one whole, from column 0). */
  raw: string[];
  /** Fingerprint of the row above `row` ("" at row 0). */
  above: string;
  /** history_size when read. */
  hs: number;
}

export interface ScreenRead {
  pane: PaneInfo;
  /** True when no target was given and the default pane was used. */
  defaulted: boolean;
  /** Joined lines (wrapped rows rejoined), trailing blank lines dropped. */
  rows: string[];
  /** The cursor's position now, for the next read. */
  next: Position;
  /** Lines dropped from the start to respect maxRows. */
  dropped: number;
  /** Where `rows` lie; undefined when the rows and joined lines tmux printed did not line up (a page is then whole). */
  layout?: Layout;
}

export interface SinceRead extends ScreenRead {
  /** The position was no longer found (history cleared or trimmed past it): rows are all that is left. */
  missed: boolean;
}

export interface ReadOptions {
  /** Keep at most this many (last) rows. */
  maxRows: number;
  signal?: AbortSignal;
  /**
   * While a full-screen program shows the alternate screen, read the main screen (its history and the rows tmux
   * keeps aside until the program leaves) rather than take the position as lost: a run's output is the lines it
   * printed there, not the pane's earlier lines.
   */
  mainScreen?: boolean;
}

const decoder = new TextDecoder();
const MAX_ATTEMPTS = 4;

/** The position of the cursor, from rows that include the cursor row and the row above it. */
function cursorPosition(
  pane: Pick<PaneInfo, "cursor_x" | "cursor_y" | "history_size">,
  rowAt: (abs: number) => string | undefined,
): Position {
  const row = pane.history_size + pane.cursor_y;
  return {
    row,
    x: pane.cursor_x,
    above: row > 0 ? fingerprint(rowAt(row - 1) ?? "") : "",
    head: fingerprint(takeColumns(rowAt(row) ?? "", pane.cursor_x)),
    hs: pane.history_size,
  };
}

function matchesAt(pos: Position, rowAt: (abs: number) => string | undefined, at: number): boolean {
  const here = rowAt(at);
  if (here === undefined) return false;
  if (at > 0 && fingerprint(rowAt(at - 1) ?? "") !== pos.above) return false;
  if (at === 0 && pos.above !== "") return false;
  return fingerprint(takeColumns(here, pos.x)) === pos.head;
}

/** Rejoins rows that filled the whole width (a guess, used only when output never stops scrolling), with spans. */
function joinFullRows(rows: string[], width: number): { lines: string[]; spans: number[] } {
  const lines: string[] = [];
  const spans: number[] = [];
  let carry = "";
  let n = 0;
  for (const r of rows) {
    n++;
    if (columns(r.trimEnd()) >= width) {
      carry += r;
    } else {
      lines.push(carry + r);
      spans.push(n);
      carry = "";
      n = 0;
    }
  }
  if (n) {
    lines.push(carry);
    spans.push(n);
  }
  return { lines, spans };
}

/** Capture output → rows exactly as printed (-N and -J keep trailing cells), the final newline dropped. */
function rawRows(text: string): string[] {
  if (text === "") return [];
  const rows = text.split("\n");
  if (rows[rows.length - 1] === "") rows.pop();
  return rows;
}

/** Where a read's first line starts. */
interface Start {
  row: number;
  x: number;
  /** Fingerprint of the row above. */
  above: string;
}

/**
 * The lines a read returns, from joined lines starting at `at` and the rows
 * they come from (`raw`, from `at.row` on): trailing spaces and trailing
 * blank lines dropped, the text left of `at.x` left out, the last `maxRows`
 * lines kept; the layout follows along. `spans` default: paired by
 * {@linkcode joinedSpans}.
 */
function lay(
  pane: PaneInfo,
  joined: string[],
  raw: string[],
  at: Start,
  maxRows: number,
  spans = joinedSpans(raw, joined),
): { rows: string[]; dropped: number; layout?: Layout } {
  const lines = joined.map((l) => l.trimEnd());
  if (lines.length > 0) lines[0] = dropColumns(lines[0], at.x);
  let end = lines.length;
  while (end > 0 && lines[end - 1] === "") end--;
  const t = tail(end === lines.length ? lines : lines.slice(0, end), maxRows);
  if (!spans) return { rows: t.rows, dropped: t.dropped };
  const skip = spans.slice(0, t.dropped).reduce((a, b) => a + b, 0);
  return {
    rows: t.rows,
    dropped: t.dropped,
    layout: {
      row: at.row + skip,
      x: t.dropped ? 0 : at.x,
      spans: spans.slice(t.dropped, end),
      raw: skip ? raw.slice(skip) : raw,
      above: skip ? fingerprint(raw[skip - 1]) : at.above,
      hs: pane.history_size,
    },
  };
}

/**
 * The position right after the first `rows` rows (≥ 1) of a read's layout:
 * where the next read goes on when a page ends there.
 */
export function positionAfter(layout: Layout, rows: number): Position {
  return {
    row: layout.row + rows,
    x: 0,
    above: fingerprint(layout.raw[rows - 1] ?? ""),
    head: fingerprint(""),
    hs: layout.hs,
  };
}

/** The text of the first `rows` rows of a read's first line (a page shorter than that line). */
export function firstLineRows(layout: Layout, rows: number): string {
  return dropColumns(layout.raw.slice(0, rows).join(""), layout.x).trimEnd();
}

function finish(
  pane: PaneInfo,
  joined: string[],
  raw: string[],
  at: Start,
  maxRows: number,
  next: Position,
  missed: boolean,
  spans?: number[],
): SinceRead {
  return { pane, defaulted: false, ...lay(pane, joined, raw, at, maxRows, spans), next, missed };
}

/**
 * The visible screen of `target` (a pane id or any target; undefined = the
 * default pane; its last `maxRows` lines) and the cursor position, in one
 * tmux call.
 */
export async function readScreen(
  tmux: TmuxExecutor,
  target: string | undefined,
  signal?: AbortSignal,
  maxRows = Infinity,
): Promise<ScreenRead> {
  const { pane, defaulted, output } = await getPane(tmux, target, {
    signal,
    then: (t) => [
      ...["capture-pane", "-p", "-N", "-t", t, "-S", "-1"],
      COMMAND_SEPARATOR,
      ...["capture-pane", "-p", "-J", "-t", t],
    ],
  });
  const hs = pane.history_size;
  const lines = rawRows(decoder.decode(output));
  const start = Math.max(0, hs - 1);
  const rawCount = hs + pane.height - start;
  const raw = lines.slice(0, rawCount);
  const at = { row: hs, x: 0, above: hs > 0 ? fingerprint(raw[hs - 1 - start] ?? "") : "" };
  const laid = lay(pane, lines.slice(rawCount), raw.slice(hs - start), at, maxRows);
  return { pane, defaulted, ...laid, next: cursorPosition(pane, (abs) => raw[abs - start]) };
}

/**
 * What {@linkcode readCursor} reads of the pane besides its rows: the position, the modes and the width (a
 * width that changed since rewrapped the rows, moving them).
 */
const CURSOR_FACTS = paneFacts([
  "cursor_x",
  "cursor_y",
  "history_size",
  "width",
  "alternate_on",
  "in_mode",
  "mode",
  "dead",
]);

/**
 * Where the cursor of pane `paneId` is (a position for {@linkcode readSince}) and the pane's modes, in one
 * tmux call that captures the rows from the last history row down (the cursor's row and the one above it
 * are among them). `after`: commands the same call runs once the rows are read (a run's release from its
 * start handshake); `onAnswer`: called once tmux has answered, before the answer is parsed.
 */
export async function readCursor(
  tmux: TmuxExecutor,
  paneId: string,
  signal?: AbortSignal,
  after: readonly TmuxArg[] = [],
  onAnswer?: () => void,
): Promise<{ pane: Row<typeof CURSOR_FACTS.spec>; next: Position }> {
  // Rows are counted from the screen's top, so "-S -1" is the last history row (the row above the top one).
  const { pane, output } = await getPane(tmux, paneId, {
    signal,
    onAnswer,
    facts: CURSOR_FACTS,
    then: (t) => {
      const read: TmuxArg[] = ["capture-pane", "-p", "-N", "-t", t, "-S", "-1"];
      return after.length > 0 ? [...read, COMMAND_SEPARATOR, ...after] : read;
    },
  });
  const raw = rawRows(decoder.decode(output));
  const start = Math.max(0, pane.history_size - 1);
  return { pane, next: cursorPosition(pane, (abs) => raw[abs - start]) };
}

/**
 * Commands that read where the cursor of pane target `t` is, for {@linkcode positionFrom}: rows from the last
 * history row down, then the cursor and history size, in one go (a tool's `targetRead`: where the call began).
 */
export const positionRead = (t: string): TmuxArg[] => [
  ...["capture-pane", "-p", "-N", "-t", t, "-S", "-1"],
  COMMAND_SEPARATOR,
  ...["display-message", "-p", "-t", t, "#{history_size} #{cursor_x} #{cursor_y}"],
];

/** The cursor's position from the output of {@linkcode positionRead}. */
export function positionFrom(output: Uint8Array): Position {
  const raw = rawRows(decoder.decode(output));
  const [hs, x, y] = (raw.pop() ?? "").split(" ").map(Number);
  const pane = { history_size: hs || 0, cursor_x: x || 0, cursor_y: y || 0 };
  const start = Math.max(0, pane.history_size - 1);
  return cursorPosition(pane, (abs) => raw[abs - start]);
}

/**
 * Everything from `pos` to the bottom of the screen of pane `paneId` (an id
 * such as %3), as joined lines, with the text left of `pos.x` on its row left
 * out. Usually one tmux call; two when output scrolled since `pos` was taken.
 */
export async function readSince(
  tmux: TmuxExecutor,
  paneId: string,
  pos: Position,
  opts: ReadOptions,
): Promise<SinceRead> {
  let hsGuess = pos.hs;
  let margin = 0;
  let located = false;
  let triedMain = false;
  for (let attempt = 0;; attempt++) {
    const above = Math.max(pos.row - 1, 0);
    const rel0 = Math.min(above - hsGuess - margin, -1);
    const relJ = pos.row - hsGuess;
    const { pane, output } = await getPane(tmux, paneId, {
      signal: opts.signal,
      then: (t) => [
        ...["capture-pane", "-p", "-N", "-t", t, "-S", String(rel0)],
        COMMAND_SEPARATOR,
        ...["capture-pane", "-p", "-J", "-t", t, "-S", String(relJ)],
      ],
    });
    const hs = pane.history_size;
    if (opts.mainScreen && pane.alternate_on && !triedMain) {
      triedMain = true;
      const main = await readMainScreen(tmux, paneId, pos, hs, opts).catch(() => undefined);
      if (main) return main;
    }
    const lines = rawRows(decoder.decode(output));
    const start = Math.max(0, hs + rel0);
    const rawCount = hs + pane.height - start;
    const raw = lines.slice(0, rawCount);
    const rowAt = (abs: number) => abs >= start ? raw[abs - start] : undefined;
    const next = cursorPosition(pane, rowAt);
    const lastTry = attempt + 1 >= MAX_ATTEMPTS;
    if (start > above && hs !== hsGuess && !lastTry) {
      // Output scrolled between our last look and this call: the capture
      // began after the row we want. Look again with room to spare.
      margin = Math.max(0, hs - hsGuess) * 2 + 8;
      hsGuess = hs;
      continue;
    }
    if (matchesAt(pos, rowAt, pos.row)) {
      const at = { row: pos.row, x: pos.x, above: pos.above };
      if (hs === hsGuess) {
        return finish(pane, lines.slice(rawCount), raw.slice(pos.row - start), at, opts.maxRows, next, false);
      }
      if (!lastTry) {
        hsGuess = hs;
        margin = 0;
        continue;
      }
      const rows = raw.slice(pos.row - start);
      const guess = joinFullRows(rows, pane.width);
      return finish(pane, guess.lines, rows, at, opts.maxRows, next, false, guess.spans);
    }
    if (located) return await readAll(tmux, paneId, opts);
    // The row moved (history trimmed or cleared) or is gone: find it again.
    const found = await locate(tmux, paneId, pos, opts.signal);
    if (found === undefined) return await readAll(tmux, paneId, opts);
    located = true;
    pos = { ...pos, row: found.row };
    hsGuess = found.hs;
    margin = 0;
    attempt = 0;
  }
}

/**
 * Finds `pos` in the whole history: first where trimming would have moved it
 * (multiples of history-limit/10 rows up), else the one matching row. None or
 * several matches mean it is gone.
 */
async function locate(
  tmux: TmuxExecutor,
  paneId: string,
  pos: Position,
  signal?: AbortSignal,
): Promise<{ row: number; hs: number } | undefined> {
  const { pane, output } = await getPane(tmux, paneId, {
    signal,
    then: (t) => ["capture-pane", "-p", "-t", t, "-S", "-"],
  });
  const raw = rawRows(decoder.decode(output));
  const rowAt = (abs: number) => raw[abs];
  const step = Math.max(1, Math.floor(pane.history_limit / 10));
  // pos.row comes back from a model: start at the first candidate the capture can hold, so this
  // loop is bounded by the pane's rows (raw.length / step), never by the number in the cursor.
  const first = pos.row - step * Math.max(1, Math.ceil((pos.row - (raw.length - 1)) / step));
  for (let at = first; at >= 0; at -= step) {
    if (matchesAt(pos, rowAt, at)) return { row: at, hs: pane.history_size };
  }
  let match: number | undefined;
  for (let at = 0; at < raw.length; at++) {
    if (!matchesAt(pos, rowAt, at)) continue;
    if (match !== undefined) return undefined;
    match = at;
  }
  return match === undefined ? undefined : { row: match, hs: pane.history_size };
}

/** Everything the pane still holds (history and screen), when the position is lost. */
async function readAll(tmux: TmuxExecutor, paneId: string, opts: ReadOptions): Promise<SinceRead> {
  const { pane, output } = await getPane(tmux, paneId, {
    signal: opts.signal,
    then: (t) => [
      ...["capture-pane", "-p", "-N", "-t", t, "-S", "-"],
      COMMAND_SEPARATOR,
      ...["capture-pane", "-p", "-J", "-t", t, "-S", "-"],
    ],
  });
  const lines = rawRows(decoder.decode(output));
  const rawCount = pane.history_size + pane.height;
  const raw = lines.slice(0, rawCount);
  const at = { row: 0, x: 0, above: "" };
  return finish(pane, lines.slice(rawCount), raw, at, opts.maxRows, cursorPosition(pane, (abs) => raw[abs]), true);
}

/**
 * {@linkcode readSince} while the pane shows the alternate screen: tmux then adds no row to the history and keeps
 * the main screen's visible rows aside (`capture-pane -a`) until the program leaves, so the main screen is the
 * history (`hs` rows, as just read) followed by those rows. Undefined when the pane left the alternate screen or
 * its history changed meanwhile, or `pos` is not there.
 */
async function readMainScreen(
  tmux: TmuxExecutor,
  paneId: string,
  pos: Position,
  hs: number,
  opts: ReadOptions,
): Promise<SinceRead | undefined> {
  // From the row above `pos` (for its fingerprint): the history's rows, and its lines joined from `pos`.
  const from = Math.max(pos.row - 1, 0);
  const start = Math.min(from, hs);
  const kept = Math.max(pos.row - hs, 0);
  const { pane, outputs } = await getPane(tmux, paneId, {
    signal: opts.signal,
    then: (t) => {
      const parts: TmuxArg[][] = [];
      if (from < hs) parts.push(["capture-pane", "-p", "-N", "-t", t, "-S", String(from - hs), "-E", "-1"]);
      if (pos.row < hs) parts.push(["capture-pane", "-p", "-J", "-t", t, "-S", String(pos.row - hs), "-E", "-1"]);
      parts.push(["capture-pane", "-a", "-p", "-N", "-t", t]);
      parts.push(["capture-pane", "-a", "-p", "-J", "-t", t, "-S", String(kept)]);
      return parts.flatMap((p, i) => i === 0 ? p : [COMMAND_SEPARATOR, ...p]);
    },
  });
  if (!pane.alternate_on || pane.history_size !== hs) return undefined;
  const texts = outputs.map((o) => rawRows(decoder.decode(o)));
  const historyRaw = from < hs ? texts.shift()! : [];
  const historyJoined = pos.row < hs ? texts.shift()! : [];
  const [keptRaw = [], keptJoined = []] = texts;
  if (historyRaw.length !== hs - start) return undefined;
  const raw = [...historyRaw, ...keptRaw];
  const rowAt = (abs: number) => abs >= start ? raw[abs - start] : undefined;
  if (!matchesAt(pos, rowAt, pos.row)) return undefined;
  const at = { row: pos.row, x: pos.x, above: pos.above };
  const joined = [...historyJoined, ...keptJoined];
  return finish(pane, joined, raw.slice(pos.row - start), at, opts.maxRows, cursorPosition(pane, rowAt), false);
}
