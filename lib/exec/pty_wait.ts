/**
 * Waiting on a pty session (the pty_* tools' sessions): neither backend
 * streams output to a watcher, so the wait reads the session every
 * {@linkcode POLL_MS} and hands what it read to the caller, until its event,
 * the deadline, cancellation or the program's exit.
 *
 * What a read hands over, by {@linkcode PtyWait.read}:
 * - `all`: first everything history and screen hold, then the lines written
 *   since the last read (by position, so a burst of output between two reads
 *   is read whole) and the screen (a full-screen program rewrites it in place);
 * - `new`: only the lines written since the wait began, each read going on
 *   where the last one ended;
 * both begin again at the start of the row the cursor was on, so a line
 * written in parts or rewritten after a carriage return is read as it is now,
 * and both hand over the cursor's line a second time with the spaces written
 * up to the cursor ({@linkcode cursorRowWritten}: a prompt's `>>> `), which
 * the backends' trimmed lines drop (`new`: when that line is new);
 * - `window`: the last lines of history and the screen, as they are now.
 * Lines dropped from a full history before a read reached them set `missed`.
 *
 * @example
 * ```ts
 * declare const ctx: Parameters<typeof waitPty>[0]; // the call's
 * const ready = Promise.withResolvers<"seen">();
 * const r = await waitPty(ctx, {
 *   id: "s1", started: performance.now(), timeoutMs: 30_000, read: "all", tailLines: 20, what: "text in pty s1",
 *   onLines: (lines) => { if (lines.some((l) => l.includes("ready"))) ready.resolve("seen"); },
 *   until: ready.promise,
 * });
 * ```
 */
import { lastLines, type OutputMark, type Screen, type TerminalBackend } from "../terminal/backend.ts";
import { columns } from "../text/columns.ts";
import type { CallControl } from "./context.ts";
import { waitFor } from "./wait.ts";

/** How often a pty wait reads the session. */
export const POLL_MS = 100;
/** Lines a `window` read takes: the screen plus what scrolled off it lately. */
const READ_LINES = 500;
/** How long the last look after an exit may take to match (a regex runs in a worker). */
const LATE_MATCH_MS = 1000;

export interface PtyWait<T> {
  id: string;
  started: number;
  timeoutMs: number;
  read: "all" | "new" | "window";
  tailLines: number;
  what: string;
  /** Receives the lines to look at, at every read. */
  onLines(lines: string[]): void;
  until: Promise<T>;
}

/** Waits on pty session `id`; the tail is its last lines when the wait ended. */
export async function waitPty<T>(
  ctx: CallControl & { terminal: TerminalBackend },
  w: PtyWait<T>,
): Promise<{ end: T | "timeout" | "exited" | "cancelled"; tail: string[]; missed: boolean }> {
  const { terminal } = ctx;
  const exited = Promise.withResolvers<"exited">();
  const status = async () => {
    const s = (await terminal.list()).find((x) => x.session_id === w.id);
    if (!s || s.status === "exited") exited.resolve("exited");
  };
  let mark: OutputMark | undefined;
  let missed = false;
  const read = async () => {
    if (w.read === "window") return w.onLines(await terminal.lines(w.id, READ_LINES));
    const first = mark === undefined;
    const r = await terminal.linesSince(w.id, mark ?? (w.read === "new" ? "cursor" : "start"));
    mark = r.next;
    missed ||= r.missed;
    const screen = w.read === "all" || r.lines.length > 0 ? await terminal.screen(w.id, false) : undefined;
    const shown = screen && w.read === "all" && !first ? screen.lines : [];
    w.onLines([
      ...r.lines,
      ...shown,
      ...(screen ? withCursorSpaces(screen, w.read === "all" ? undefined : r.lines) : []),
    ]);
  };
  await read(); // an unknown id fails here, before the wait
  let timer: ReturnType<typeof setInterval> | undefined;
  let reading = false;
  const poll = () => {
    if (reading) return;
    reading = true;
    void Promise.all([read(), status()]).catch(() => exited.resolve("exited")).finally(() => reading = false);
  };
  let end;
  let gone = false;
  void exited.promise.then(() => gone = true);
  try {
    timer = setInterval(poll, POLL_MS);
    await status();
    end = await waitFor(Promise.race([w.until, exited.promise]), {
      ctx,
      started: w.started,
      timeoutMs: w.timeoutMs,
      what: w.what,
    });
  } finally {
    clearInterval(timer);
  }
  // Past the deadline already (timeout_ms 0: look now), an exit seen before the wait is the answer.
  if (end.kind === "timeout" && gone) end = { kind: "done" as const, value: "exited" as const };
  // The program may have printed its last words just before it ended: one more look.
  if (end.kind === "done" && end.value === "exited") {
    await read().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      w.until,
      new Promise<undefined>((r) => timer = setTimeout(() => r(undefined), LATE_MATCH_MS)),
    ]).finally(() => clearTimeout(timer));
    if (late !== undefined) end = { kind: "done" as const, value: late };
  }
  const tail = await ptyTail(terminal, w.id, w.tailLines);
  return { end: end.kind === "done" ? end.value : end.kind, tail, missed };
}

/**
 * The cursor's row followed by the spaces between its text and the cursor, as a program waiting there wrote them
 * (`>>> `, `Name: `); undefined when the cursor is not right of the row's text.
 *
 * @example
 * ```ts
 * cursorRowWritten({ rows: 2, cols: 80, lines: ["", "Name:"], cursor: { row: 1, col: 6 } }); // "Name: "
 * cursorRowWritten({ rows: 2, cols: 80, lines: ["", "Name:"], cursor: { row: 1, col: 5 } }); // undefined
 * ```
 */
export function cursorRowWritten(screen: Screen): string | undefined {
  const row = screen.lines[screen.cursor.row];
  if (row === undefined) return undefined;
  const gap = screen.cursor.col - columns(row);
  return gap > 0 ? row + " ".repeat(gap) : undefined;
}

/**
 * The line the cursor's row ends, with its written spaces ({@linkcode cursorRowWritten}): `among` undefined, the
 * whole row; else only when one of these lines (read since a mark, the text left of it left out) ends with the
 * row's text, as that line with the spaces, so text from before the mark is not handed over.
 */
function withCursorSpaces(screen: Screen, among: string[] | undefined): string[] {
  const written = cursorRowWritten(screen);
  if (written === undefined) return [];
  if (among === undefined) return [written];
  const row = screen.lines[screen.cursor.row];
  const line = among.findLast((l) => l !== "" && row.endsWith(l));
  return line === undefined ? [] : [line + written.slice(row.length)];
}

/** The last `count` lines of a pty session, its blank bottom rows left out (empty when it is gone). */
export async function ptyTail(terminal: TerminalBackend, id: string, count: number): Promise<string[]> {
  if (count === 0) return [];
  return lastLines(await terminal.lines(id, count).catch(() => [] as string[]), count);
}
