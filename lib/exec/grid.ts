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
 * const first = await readScreen(tmux, "%3");
 * // ... later
 * const since = await readSince(tmux, "%3", first.next, { maxRows: 500 });
 * since.rows; // only the new lines
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxExecutor } from "../tmux/executor.ts";
import { getPane, type PaneInfo } from "../tmux/panes.ts";
import { columns, dropColumns, fingerprint, splitRows, tail, takeColumns, trimTrailingBlank } from "./text.ts";

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

export interface ScreenRead {
  pane: PaneInfo;
  /** True when no target was given and the default pane was used. */
  defaulted: boolean;
  /** Joined lines (wrapped rows rejoined), trailing blank lines dropped. */
  rows: string[];
  /** The cursor's position now, for the next read. */
  next: Position;
}

export interface SinceRead extends ScreenRead {
  /** The position was no longer found (history cleared or trimmed past it): rows are all that is left. */
  missed: boolean;
  /** Rows dropped from the start to respect maxRows. */
  dropped: number;
}

export interface ReadOptions {
  /** Keep at most this many (last) rows. */
  maxRows: number;
  signal?: AbortSignal;
}

const decoder = new TextDecoder();
const MAX_ATTEMPTS = 4;

/** The position of the cursor, from rows that include the cursor row and the row above it. */
function cursorPosition(pane: PaneInfo, rowAt: (abs: number) => string | undefined): Position {
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

/** Rejoins rows that filled the whole width (a guess, used only when output never stops scrolling). */
function joinFullRows(rows: string[], width: number): string[] {
  const out: string[] = [];
  let carry = "";
  for (const r of rows) {
    if (columns(r) >= width) {
      carry += r;
    } else {
      out.push(carry + r);
      carry = "";
    }
  }
  if (carry) out.push(carry);
  return out;
}

function finish(pane: PaneInfo, rows: string[], maxRows: number, next: Position, missed: boolean): SinceRead {
  const t = tail(trimTrailingBlank(rows), maxRows);
  return { pane, defaulted: false, rows: t.rows, dropped: t.dropped, next, missed };
}

/**
 * The visible screen of `target` (a pane id or any target; undefined = the
 * default pane) and the cursor position, in one tmux call.
 */
export async function readScreen(
  tmux: TmuxExecutor,
  target: string | undefined,
  signal?: AbortSignal,
): Promise<ScreenRead> {
  const { pane, defaulted, output } = await getPane(tmux, target, {
    signal,
    then: (t) => ["capture-pane", "-p", "-t", t, "-S", "-1", COMMAND_SEPARATOR, "capture-pane", "-p", "-J", "-t", t],
  });
  const lines = splitRows(decoder.decode(output));
  const start = Math.max(0, pane.history_size - 1);
  const rawCount = pane.history_size + pane.height - start;
  const raw = lines.slice(0, rawCount);
  return {
    pane,
    defaulted,
    rows: trimTrailingBlank(lines.slice(rawCount)),
    next: cursorPosition(pane, (abs) => raw[abs - start]),
  };
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
  for (let attempt = 0;; attempt++) {
    const above = Math.max(pos.row - 1, 0);
    const rel0 = Math.min(above - hsGuess - margin, -1);
    const relJ = pos.row - hsGuess;
    const { pane, output } = await getPane(tmux, paneId, {
      signal: opts.signal,
      then: (t) => [
        ...["capture-pane", "-p", "-t", t, "-S", String(rel0)],
        COMMAND_SEPARATOR,
        ...["capture-pane", "-p", "-J", "-t", t, "-S", String(relJ)],
      ],
    });
    const hs = pane.history_size;
    const lines = splitRows(decoder.decode(output));
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
      if (hs === hsGuess) {
        const joined = lines.slice(rawCount);
        if (joined.length > 0) joined[0] = dropColumns(joined[0], pos.x);
        return finish(pane, joined, opts.maxRows, next, false);
      }
      if (!lastTry) {
        hsGuess = hs;
        margin = 0;
        continue;
      }
      const rows = raw.slice(pos.row - start);
      if (rows.length > 0) rows[0] = dropColumns(rows[0], pos.x);
      return finish(pane, joinFullRows(rows, pane.width), opts.maxRows, next, false);
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
  const raw = splitRows(decoder.decode(output));
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
      ...["capture-pane", "-p", "-t", t, "-S", "-1"],
      COMMAND_SEPARATOR,
      ...["capture-pane", "-p", "-J", "-t", t, "-S", "-"],
    ],
  });
  const lines = splitRows(decoder.decode(output));
  const start = Math.max(0, pane.history_size - 1);
  const rawCount = pane.history_size + pane.height - start;
  const raw = lines.slice(0, rawCount);
  return finish(pane, lines.slice(rawCount), opts.maxRows, cursorPosition(pane, (abs) => raw[abs - start]), true);
}
