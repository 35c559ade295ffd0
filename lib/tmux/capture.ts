/**
 * Reading a pane's text with `capture-pane`, bounded: the newest lines are
 * kept (errors and prompts are at the bottom) and the count of dropped lines
 * is reported. The pane's facts come in the same tmux call (see `getPane`).
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof capturePane>[0]; // the engine
 * const c = await capturePane(tmux, "%3", { start: -500, maxLines: 200 });
 * c.text; // the last ≤ 200 lines
 * c.dropped_lines; // how many older lines were cut
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxExecutor } from "./executor.ts";
import { getPane, type PANE_SPEC, type PaneFactsQuery, type PaneInfo, type PaneSpecPart } from "./panes.ts";
import type { Row } from "./rows.ts";
import { splitLines } from "../text/lines.ts";

export interface CaptureOptions {
  /** First line: 0 = top of the visible screen, negative = scrollback. Default: top of the screen. */
  start?: number;
  /** Last line, same numbering. Default: bottom of the screen. */
  end?: number;
  /** Join lines the terminal wrapped (`-J`). */
  join?: boolean;
  /** Keep colours and attributes as escape sequences (`-e`). */
  colors?: boolean;
  /** Keep at most this many lines, the newest. */
  maxLines: number;
  /** Keep blank lines at the bottom (default: trimmed; snapshots keep rows to line up with the cursor). */
  keepTrailingBlank?: boolean;
  signal?: AbortSignal;
}

/** The pane facts a capture needs: where its lines run (history and height). */
type CaptureSpec = PaneSpecPart & Pick<typeof PANE_SPEC, "height" | "history_size">;

/** What to capture, and which pane facts to fetch with it (default: all of PANE_SPEC). */
export type CaptureFactsOptions<S extends CaptureSpec> = CaptureOptions & { facts?: PaneFactsQuery<S> };

export interface Capture<P = PaneInfo> {
  pane: P;
  defaulted: boolean;
  text: string;
  /** Lines in `text`. */
  lines: number;
  /** Older lines cut to respect maxLines. */
  dropped_lines: number;
}

/** `capture-pane` arguments printing to stdout. */
export function captureArgs(target: string, o: Omit<CaptureOptions, "maxLines">): string[] {
  const args = ["capture-pane", "-p", "-t", target];
  if (o.join) args.push("-J");
  if (o.colors) args.push("-e");
  if (o.start !== undefined) args.push("-S", String(o.start));
  if (o.end !== undefined) args.push("-E", String(o.end));
  return args;
}

/** A line with nothing but spaces and colour codes (trimmed from the bottom of a capture). */
export function isBlankLine(line: string): boolean {
  if (line.trim() === "") return true;
  // Only a line holding an escape can be colour codes and spaces alone.
  // deno-lint-ignore no-control-regex
  return line.includes("\x1b") && line.replace(/\x1b\[[0-9;]*m/g, "").trim() === "";
}

/**
 * capture-pane output → lines, trailing blank lines trimmed unless asked,
 * newest `maxLines` kept. Found by index from the end (one slice, no array
 * of rows): a capture's rows are joined again at once, and only its bottom
 * lines are looked at.
 */
export function keepNewest(
  out: string,
  maxLines: number,
  keepTrailingBlank = false,
): { text: string; lines: number; dropped_lines: number } {
  if (out === "") return { text: "", lines: 0, dropped_lines: 0 };
  // Rows are out[0, end) split at "\n" (at least one row); capture-pane ends every line with \n.
  let end = out.endsWith("\n") ? out.length - 1 : out.length;
  let rows = 1;
  for (let i = out.indexOf("\n"); i >= 0 && i < end; i = out.indexOf("\n", i + 1)) rows++;
  if (!keepTrailingBlank) {
    while (rows > 0) {
      const nl = end === 0 ? -1 : out.lastIndexOf("\n", end - 1);
      if (!isBlankLine(out.slice(nl + 1, end))) break;
      rows--;
      end = Math.max(nl, 0);
    }
  }
  if (rows === 0) return { text: "", lines: 0, dropped_lines: 0 };
  const dropped = Math.max(0, rows - maxLines);
  let start = 0;
  if (dropped > 0) {
    // The kept rows are the last maxLines: start after the newline before the first of them.
    start = end;
    for (let k = 0; k < maxLines; k++) start = out.lastIndexOf("\n", start - 1);
    start++;
  }
  return { text: out.slice(start, end), lines: rows - dropped, dropped_lines: dropped };
}

/** The last line of a text (all of it when it holds no newline). */
export function lastLineOf(text: string): string {
  return text.slice(text.lastIndexOf("\n") + 1);
}

const decoder = new TextDecoder();

/** Resolves `target` (undefined = default pane) and captures it, facts and text in one tmux call. */
export async function capturePane<S extends CaptureSpec = typeof PANE_SPEC>(
  tmux: TmuxExecutor,
  target: string | undefined,
  o: CaptureFactsOptions<S>,
): Promise<Capture<Row<S>>> {
  const { pane, defaulted, output } = await getPane(tmux, target, {
    facts: o.facts,
    signal: o.signal,
    then: (t) => captureArgs(t, o),
  });
  return { pane, defaulted, ...keepNewest(decoder.decode(output), o.maxLines, o.keepTrailingBlank) };
}

/**
 * How many rows each joined line spans. `capture-pane -J` prints the rows
 * tmux wrapped one after another without a newline, and `-N` prints every
 * row exactly as `-J` does (trailing cells kept, same colour codes), so
 * taking rows until their concatenation reaches a joined line's length finds
 * that line's rows. Undefined when the two captures do not line up.
 *
 * @example
 * ```ts
 * joinedSpans(["abc", "de", "x"], ["abcde", "x"]); // [2, 1]
 * ```
 */
export function joinedSpans(rows: readonly string[], joined: readonly string[]): number[] | undefined {
  const spans: number[] = [];
  let r = 0;
  for (const line of joined) {
    let acc = "";
    let n = 0;
    do {
      if (r >= rows.length) return undefined;
      acc += rows[r++];
      n++;
    } while (acc.length < line.length);
    if (acc !== line) return undefined;
    spans.push(n);
  }
  return r === rows.length ? spans : undefined;
}

/** `wrapped` flags from spans: every row of a joined line but its last continues on the next row. */
export function wrappedFlags(spans: readonly number[]): boolean[] {
  const out: boolean[] = [];
  for (const n of spans) for (let i = 0; i < n; i++) out.push(i < n - 1);
  return out;
}

/**
 * The text of rows [from, to): a row that continues on the next (`wrapped`)
 * is joined to it, any other ends its line. A page that ends on a wrapped row
 * ends inside a joined line; the next page begins with the rest of it.
 */
export function rowsText(rows: readonly string[], wrapped: readonly boolean[], from: number, to: number): string {
  let out = "";
  for (let i = from; i < to; i++) {
    out += rows[i];
    if (i < to - 1 && !wrapped[i]) out += "\n";
  }
  return out;
}

/** A capture as screen rows, for paging: each row as tmux prints it and whether it continues on the next. */
export interface RowCapture<P = PaneInfo> {
  pane: P;
  /** The line of rows[0] in capture-pane's numbering (0 = top of the screen, negative = scrollback). */
  first: number;
  rows: string[];
  /** wrapped[i]: rows[i] continues on rows[i + 1] (always false without `join`). */
  wrapped: boolean[];
}

/** Where capture-pane's -S/-E land on this pane (tmux clamps both to the history and screen, and swaps them). */
function captureRange(
  pane: Pick<PaneInfo, "height" | "history_size">,
  start?: number,
  end?: number,
): { top: number; bottom: number } {
  const clamp = (n: number) => Math.max(-pane.history_size, Math.min(n, pane.height - 1));
  const top = clamp(start ?? 0);
  const bottom = clamp(end ?? pane.height - 1);
  return top <= bottom ? { top, bottom } : { top: bottom, bottom: top };
}

/**
 * Captures lines start..end of pane `paneId` (an id) as rows, one tmux call:
 * with `join`, the rows (`-N`) and the joined lines (`-J`) of the same range,
 * paired by {@linkcode joinedSpans} to know which rows continue.
 */
export async function captureRows<S extends CaptureSpec = typeof PANE_SPEC>(
  tmux: TmuxExecutor,
  paneId: string,
  o: Omit<CaptureFactsOptions<S>, "maxLines" | "keepTrailingBlank">,
): Promise<RowCapture<Row<S>>> {
  const plain = { start: o.start, end: o.end, colors: o.colors };
  const { pane, outputs } = await getPane(tmux, paneId, {
    facts: o.facts,
    signal: o.signal,
    then: (t) =>
      o.join
        ? [...captureArgs(t, plain), "-N", COMMAND_SEPARATOR, ...captureArgs(t, { ...plain, join: true })]
        : captureArgs(t, plain),
  });
  const { top } = captureRange(pane, o.start, o.end);
  const rows = splitLines(decoder.decode(outputs[0]));
  if (!o.join) return { pane, first: top, rows, wrapped: rows.map(() => false) };
  const spans = joinedSpans(rows, splitLines(decoder.decode(outputs[1])));
  // Not lined up (should not happen): rows as lines, so paging still covers every row once.
  return { pane, first: top, rows, wrapped: spans ? wrappedFlags(spans) : rows.map(() => false) };
}
