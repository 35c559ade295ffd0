/**
 * Observing one pane during a wait: its output bytes as they come (control
 * mode), whether it still lives, and its screen and warnings at the end.
 *
 * @example
 * ```ts
 * import { waitFor } from "./wait.ts";
 * declare const ctx: Parameters<typeof observePane>[0] & Parameters<typeof waitFor>[1]["ctx"]; // the call's
 * declare const pane: Parameters<typeof observePane>[1]; // the resolved pane's facts
 * const chunks: Uint8Array[] = [];
 * const matched = Promise.withResolvers<"matched">(); // resolved by whoever reads the chunks
 * const obs = await observePane(ctx, pane, (bytes) => chunks.push(bytes));
 * try {
 *   const wait = { ctx, started: performance.now(), timeoutMs: 30_000, what: "text", tick: obs.checkAlive };
 *   await waitFor(Promise.race([matched.promise, obs.exited]), wait);
 * } finally {
 *   obs.stop();
 * }
 * const view = await finalView(ctx.tmux, pane.pane_id, 20);
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxArg, type TmuxExecutor } from "../tmux/executor.ts";
import { getPane, type PaneInfo, SHELL_FACTS, type ShellPane } from "../tmux/panes.ts";
import type { ResolvedTarget } from "../tmux/target.ts";
import { type Position, readSince } from "../tmux/grid.ts";
import type { ExecContext, ExecServices } from "./context.ts";
import { EnvironmentError, UserError } from "../errors.ts";
import { splitRows, tail, trimTrailingBlank } from "../text/columns.ts";
import { paneWarnings, type Warning } from "./warnings.ts";
import { waitFor } from "./wait.ts";

export interface Observation {
  /** Resolves when the pane is gone or dead (its program exited; respawned, with `sameProgram`) or its session closed. */
  exited: Promise<"pane_exited">;
  /** Checks now whether the pane still lives; resolves `exited` if not. For periodic ticks. */
  checkAlive(): Promise<void>;
  /** {@linkcode checkAlive} with the pane's facts read by the caller (undefined: the pane is gone). */
  judge(now: PaneInfo | undefined): Promise<void>;
  /** Stops the delivery of output. */
  stop(): void;
}

const decoder = new TextDecoder();

/** The pane's facts, or undefined when it no longer exists. */
export async function paneIfAlive(tmux: TmuxExecutor, paneId: string): Promise<PaneInfo | undefined> {
  try {
    return (await getPane(tmux, paneId)).pane;
  } catch (e) {
    if (e instanceof UserError) return undefined; // unknown target: the pane is gone
    throw e;
  }
}

/**
 * Why the watch of a pane said it ended: undefined when the pane really closed or its program exited — or
 * the error naming the way to tmux that ended instead (the client following the pane, an ssh connection, the
 * tmux server) while the pane may still be running. Asked of tmux, not guessed. `during`: what was going on,
 * for the message ("the command ran", "waiting for text").
 */
export async function watchLost(
  tmux: TmuxExecutor,
  paneId: string,
  during: string,
): Promise<EnvironmentError | undefined> {
  let now: PaneInfo | undefined;
  try {
    now = await paneIfAlive(tmux, paneId);
  } catch (e) {
    return new EnvironmentError(
      `lost the connection to tmux while ${during} in ${paneId}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (!now || now.dead) return undefined;
  return new EnvironmentError(
    `the connection following ${paneId} ended while ${during} (the pane is still there; what runs in it may ` +
      `still be running): look with capture-pane, then retry`,
  );
}

/**
 * Starts delivering `pane`'s output to `onBytes`. Resolves once delivery is
 * live: every byte printed from then on is seen, in order. `sameProgram`: a
 * respawn of the pane (respawn-pane -k) ends the observation as an exit does. `moved`: called once the pane is
 * followed into the session its window moved to (what it printed between the move and then was not delivered).
 */
export async function observePane(
  services: Pick<ExecServices, "tmux" | "exec">,
  pane: Pick<PaneInfo, "session_id" | "pane_id" | "pid">,
  onBytes: (bytes: Uint8Array) => void,
  opts: { sameProgram?: boolean; moved?: () => void } = {},
): Promise<Observation> {
  const { hub } = services.exec;
  const exited = Promise.withResolvers<"pane_exited">();
  let session = pane.session_id;
  let stopped = false;
  let moving: Promise<void> | undefined;
  let stopWatch = () => {};
  // tmux sends a control client the output of its own session's panes only: a pane whose window moved to another
  // session (move-window, join-pane) is followed there, or its output (a run's end marker) would never come.
  const follow = (to: string) =>
    moving ??= (async () => {
      try {
        const next = await hub.watch(to, pane.pane_id, watcher);
        if (stopped) return next();
        const old = stopWatch;
        [stopWatch, session] = [next, to];
        old();
        opts.moved?.();
      } finally {
        moving = undefined;
      }
    })();
  /** `lost`: the watch's connection ended, which ends the wait unless the pane lives on in another session. */
  const judge = async (now: PaneInfo | undefined, lost = false) => {
    // `sameProgram`: a pane respawned (another pid) ended the program that was observed, as an exit does.
    if (!now || now.dead || (opts.sameProgram && pane.pid !== null && now.pid !== pane.pid)) {
      exited.resolve("pane_exited");
    } else if (now.session_id !== session) await follow(now.session_id);
    else if (lost) exited.resolve("pane_exited");
  };
  const checkAlive = async (lost = false) => await judge(await paneIfAlive(services.tmux, pane.pane_id), lost);
  const watcher = {
    output: onBytes,
    signal(kind: string) {
      if (kind === "closed") void checkAlive(true).catch(() => exited.resolve("pane_exited"));
      else if (kind === "layout") void checkAlive().catch(() => {});
    },
  };
  const first = await hub.watch(pane.session_id, pane.pane_id, watcher);
  // Followed elsewhere already (a move seen while this watch started): that watch is the one kept.
  if (session === pane.session_id) stopWatch = first;
  else first();
  return {
    exited: exited.promise,
    checkAlive: () => checkAlive(),
    judge: (now) => judge(now),
    stop() {
      stopped = true;
      stopWatch();
    },
  };
}

export interface FinalView {
  /** The last lines of the visible screen (trailing blank lines dropped). */
  tail: string[];
  /**
   * The same lines with the spaces written at their ends, which `tail` drops: a prompt such as `>>> ` or
   * `Password: ` ends in one, and a pattern may too.
   */
  written: string[];
  warnings: Warning[];
  /** Facts now; undefined when the pane is gone. */
  pane?: PaneInfo;
}

/** The pane's screen tail and warnings now, in one tmux call; empty when the pane is gone. */
export async function finalView(tmux: TmuxExecutor, paneId: string, maxLines: number): Promise<FinalView> {
  let facts;
  try {
    facts = await getPane(tmux, paneId, { then: (t) => ["capture-pane", "-p", "-J", "-t", t] });
  } catch (e) {
    if (e instanceof UserError) return { tail: [], written: [], warnings: [] };
    throw e;
  }
  const text = decoder.decode(facts.output);
  const screen = trimTrailingBlank(splitRows(text));
  const shown = tail(screen, maxLines).rows;
  // `-J` keeps the spaces written at a line's end (splitRows drops them).
  const written = text.split("\n").slice(screen.length - shown.length, screen.length);
  return { tail: shown, written, warnings: paneWarnings(facts.pane, screen), pane: facts.pane };
}

/**
 * What {@linkcode inspectPane} tells: the pane's facts, its visible screen, the server's socket path, and whether
 * keys typed into it may not reach it alone (`typingFlags`: its synchronize-panes or its input off, for
 * lib/tmux/sync.ts to judge with its window's panes).
 */
export interface PaneInspection {
  pane: ShellPane;
  defaulted: boolean;
  socketPath: string;
  screen: string[];
  typingFlags: boolean;
}

/** The commands {@linkcode inspectPane} runs on pane target `t` after its facts (a tool's `targetRead`). */
export const inspectCommands = (t: string): TmuxArg[] => [
  ...["display-message", "-p", "-t", t, "#{socket_path}"],
  COMMAND_SEPARATOR,
  ...["display-message", "-p", "-t", t, "#{synchronize-panes}#{pane_input_off}"],
  COMMAND_SEPARATOR,
  ...["capture-pane", "-p", "-J", "-t", t],
];

/** An inspection from the pane's facts and the output of {@linkcode inspectCommands}. */
export function inspection(pane: ShellPane, defaulted: boolean, output: Uint8Array): PaneInspection {
  const text = decoder.decode(output);
  const nl = text.indexOf("\n");
  const flagsEnd = text.indexOf("\n", nl + 1);
  const screen = trimTrailingBlank(splitRows(text.slice(flagsEnd + 1)));
  const typingFlags = text.slice(nl + 1, flagsEnd) !== "00";
  return { pane, defaulted, socketPath: text.slice(0, nl), screen, typingFlags };
}

/** Facts and visible screen of a target (undefined = the default pane), plus the socket path, in one call. */
export async function inspectPane(
  tmux: TmuxExecutor,
  target: string | undefined,
  signal?: AbortSignal,
): Promise<PaneInspection> {
  const { pane, defaulted, output } = await getPane(tmux, target, {
    signal,
    then: inspectCommands,
    facts: SHELL_FACTS,
  });
  return inspection(pane, defaulted, output);
}

export interface PaneWait<T> {
  /** The pane the pipeline resolved (the tool declares `target: "pane"`). */
  target: ResolvedTarget;
  /** performance.now() when the call started. */
  started: number;
  timeoutMs: number;
  tailLines: number;
  /** Progress text: what is awaited in pane `paneId`. */
  what(paneId: string): string;
  /** Receives the pane's output while waiting. */
  onBytes(bytes: Uint8Array): void;
  /** Called once the output is watched: what the wait sees counts from here. */
  watching?(): void;
  /** What ends the wait (besides timeout, cancellation and the pane exiting). */
  until: Promise<T>;
  /** Error message when the client cancels. */
  cancelled: string;
  /** What is going on, for the error when the way to tmux ends instead of the pane: "waiting for text". */
  during: string;
  /**
   * Receives the visible screen once output is watched (so nothing falls between the two) and again at every
   * tick: text a program printed before the wait, or drew where a line-by-line reading cannot follow. `written`:
   * the same rows with the spaces written at their ends (a prompt's `>>> `).
   */
  onScreen?(rows: string[], written: string[]): void;
  /**
   * Where the pane's cursor was when the call began, and what receives the lines printed since then once output is
   * watched, and again once it is followed into another session: output printed while a watch was starting is not
   * lost.
   */
  since?: { from: Position; onRows(rows: string[]): void };
}

/** More rows than any screen has: a screen read keeps them all. */
const ALL_ROWS = 100_000;

/**
 * The shape of every waiting tool: read the (resolved) pane, watch its output until
 * `until`, the deadline or the pane's exit (cancellation is an error, and so is the
 * watch ending while tmux still has the pane: {@linkcode watchLost}), then
 * read its screen tail and warnings.
 */
export async function waitOnPane<T>(
  ctx: ExecContext,
  w: PaneWait<T>,
): Promise<{
  pane: PaneInfo;
  defaulted: boolean;
  end: { kind: "done"; value: T | "pane_exited" } | { kind: "timeout" };
  view: FinalView;
}> {
  const { pane } = await getPane(ctx.tmux, w.target.pane_id, { signal: ctx.signal });
  const defaulted = w.target.defaulted;
  const since = w.since;
  const catchUp = since &&
    (async () => {
      const read = await readSince(ctx.tmux, pane.pane_id, since.from, { maxRows: ALL_ROWS, signal: ctx.signal });
      // Its row gone (history cleared, a full-screen program's redraw): what is left may be older, so none of it.
      if (!read.missed) since.onRows(read.rows);
    });
  const obs = await observePane(ctx, pane, w.onBytes, catchUp ? { moved: () => void catchUp().catch(() => {}) } : {});
  w.watching?.();
  const onScreen = w.onScreen;
  // One tmux call per tick either way: the screen read also says whether the pane lives.
  const tick = onScreen
    ? async () => {
      const v = await finalView(ctx.tmux, pane.pane_id, ALL_ROWS);
      await obs.judge(v.pane);
      if (v.pane && !v.pane.dead) onScreen(v.tail, v.written);
    }
    : obs.checkAlive;
  let end;
  let gone = false;
  void obs.exited.then(() => gone = true);
  try {
    if (onScreen) await tick();
    // A pane gone meanwhile is for the liveness check to tell (pane_exited), not an error of this read.
    if (catchUp) await catchUp().catch(() => {});
    end = await waitFor<T | "pane_exited">(Promise.race([w.until, obs.exited]), {
      ctx,
      started: w.started,
      timeoutMs: w.timeoutMs,
      what: w.what(pane.pane_id),
      tick,
    });
  } finally {
    obs.stop();
  }
  // Past the deadline already (timeout_ms 0: look now), the program's exit its first screen read found is the answer.
  if (end.kind === "timeout" && gone) end = { kind: "done" as const, value: "pane_exited" as const };
  if (end.kind === "cancelled") throw new UserError(w.cancelled);
  if (end.kind === "done" && end.value === "pane_exited") {
    const lost = await watchLost(ctx.tmux, pane.pane_id, w.during);
    if (lost) throw lost;
  }
  const view = await finalView(ctx.tmux, pane.pane_id, w.tailLines);
  // The ids of the answer are the pane's now: its window may have moved to another session meanwhile.
  return { pane: view.pane ?? pane, defaulted, end, view };
}
