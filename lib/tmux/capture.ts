/**
 * Reading a pane's text with `capture-pane`, bounded: the newest lines are
 * kept (errors and prompts are at the bottom) and the count of dropped lines
 * is reported. The pane's facts come in the same tmux call (see `getPane`).
 *
 * @example
 * ```ts
 * const c = await capturePane(tmux, "%3", { start: -500, maxLines: 200 });
 * c.text; // the last ≤ 200 lines
 * c.dropped_lines; // how many older lines were cut
 * ```
 */
import type { TmuxExecutor } from "./executor.ts";
import { getPane, type PaneInfo } from "./panes.ts";

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

export interface Capture {
  pane: PaneInfo;
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

/**
 * capture-pane output → lines, trailing blank lines trimmed unless asked,
 * newest `maxLines` kept.
 */
export function keepNewest(
  out: string,
  maxLines: number,
  keepTrailingBlank = false,
): { text: string; lines: number; dropped_lines: number } {
  const rows = out.split("\n");
  if (rows.at(-1) === "") rows.pop(); // capture-pane ends every line with \n
  if (!keepTrailingBlank) {
    // deno-lint-ignore no-control-regex
    while (rows.length > 0 && rows[rows.length - 1].replace(/\x1b\[[0-9;]*m/g, "").trim() === "") rows.pop();
  }
  const dropped = Math.max(0, rows.length - maxLines);
  const kept = dropped ? rows.slice(dropped) : rows;
  return { text: kept.join("\n"), lines: kept.length, dropped_lines: dropped };
}

const decoder = new TextDecoder();

/** Resolves `target` (undefined = default pane) and captures it, facts and text in one tmux call. */
export async function capturePane(
  tmux: TmuxExecutor,
  target: string | undefined,
  o: CaptureOptions,
): Promise<Capture> {
  const { pane, defaulted, output } = await getPane(tmux, target, {
    signal: o.signal,
    then: (t) => captureArgs(t, o),
  });
  return { pane, defaulted, ...keepNewest(decoder.decode(output), o.maxLines, o.keepTrailingBlank) };
}
