/**
 * run-command: one shell command in an existing pane, with its exact exit
 * code and exactly its output. The protocol (script, markers, handshakes) is
 * described in `shell.ts`, one run's side of it in `handshake.ts`; this
 * module drives it:
 *
 * 1. check the pane's bash/zsh/fish is idle at its prompt (`prompt.ts`:
 *    else a clear error, or a wait while the shell is still starting), from
 *    its facts and screen read with the target's resolution (one tmux call);
 * 2. take the pane's run lock, watch its output (control mode), write the
 *    script, type ` . /tmp/…/r-…` and Enter;
 * 3. on the start marker the shell waits: note the cursor's absolute row
 *    (where the output begins), release the shell (a script in a tmux
 *    buffer is deleted now, a script file with the run's other files once
 *    the run is over);
 * 4. on the end marker (with `$?`) the shell waits again: read every row
 *    from the start to the screen's bottom (history included) — nothing to
 *    read when not one byte came between the markers —, release it;
 * 5. on timeout or cancellation: return what is there so far; the command
 *    keeps running, disarmed, and a later run in the pane waits for it;
 *    on the shell back at its prompt with no end marker (C-c cut its script
 *    short; {@linkcode shellWaitsForKeys}): return the output without the
 *    prompt, no exit code, an `interrupted` warning.
 *
 * @example
 * ```ts
 * declare const ctx: Parameters<typeof runCommand>[0]; // the call's, its pane resolved by the pipeline
 * declare const target: RunRequest["target"]; // that pane (`resolvedTarget(ctx)`)
 * const r = await runCommand(ctx, { target, command: "make test", timeoutMs: 60_000, maxLines: 400 });
 * r.exit_code; // 0
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxArg, type TmuxExecutor } from "../tmux/executor.ts";
import type { PaneInfo, ShellPane } from "../tmux/panes.ts";
import type { ExecContext } from "./context.ts";
import { UserError } from "../errors.ts";
import { readCursor, readSince, type SinceRead } from "../tmux/grid.ts";
import { trackRun } from "./handshake.ts";
import { finalView, inspection, inspectPane, observePane, paneIfAlive, watchLost } from "./observe.ts";
import type { ExecRuntime, TrackedRun } from "./runtime.ts";
import { commandName, runScript, shellFlavor, typedLine } from "./shell.ts";
import { nonce, waitFor } from "./wait.ts";
import { paneWarnings, type Warning, type WarningFacts, whatRunsThere } from "./warnings.ts";
import { withTerminalMode } from "./pane_handoff.ts";
import { readsFifo, shellWaitsForKeys, stillSourcing } from "./keys_warning.ts";
import { awaitPrompt } from "./prompt.ts";
import { refuseSelfInput } from "../tmux/self.ts";
import { refuseUntypable } from "../tmux/sync.ts";
import { RunLog } from "./runlog.ts";
import { resolvedOf, type ResolvedTarget } from "../tmux/target.ts";

export interface RunRequest {
  /** The pane the pipeline resolved (run-command declares `target: "pane"`). */
  target: ResolvedTarget;
  command: string;
  timeoutMs: number;
  /** Keep at most this many (last) output lines. */
  maxLines: number;
  /**
   * The run's output as lines from the pane's stream, filled while it runs. Once a page of it was handed out
   * (a `running` answer), the final answer's output is the log's rest, not a read of the screen.
   */
  log?: RunLog;
}

export interface RunResult {
  exit_code: number | null;
  output: string;
  /** Lines in {@linkcode output}: tells one blank line (`""`, 1) from none (`""`, 0). */
  output_lines: number;
  output_truncated: boolean;
  timed_out: boolean;
  elapsed_ms: number;
  session_id: string;
  window_id: string;
  pane_id: string;
  /** True when no target was given and the default pane was used. */
  defaulted: boolean;
  warnings: Warning[];
}

/**
 * A `return` as a command word: outside a function it returns from the script the shell sources the command from, as
 * from a C-c, without the end marker.
 */
const RETURN_WORD = /(^|[\s;&|({!])return(?=[\s;&|)}]|$)/;

/** An `exit` as a command word: fish, sourcing a file, skips the rest of it and does not exit (fish's `exit` docs). */
const EXIT_WORD = /(^|[\s;&|({!])exit(?=[\s;&|)}]|$)/;

function describe(command: string): string {
  const one = command.replace(/\s+/g, " ").trim();
  return "`" + (one.length > 60 ? one.slice(0, 57) + "..." : one) + "`";
}

/** Runs one command; see the module documentation. */
export async function runCommand(ctx: ExecContext, req: RunRequest): Promise<RunResult> {
  const started = performance.now();
  const rt = ctx.exec;
  const { tmux } = ctx;
  // The pipeline read the pane when it resolved the target (run-command's `targetRead`): no second call.
  const read = req.target.read;
  let info = read
    ? inspection(read.pane, req.target.defaulted, read.output)
    : await inspectPane(tmux, req.target.pane_id, ctx.signal);
  const defaulted = req.target.defaulted;
  const paneId = info.pane.pane_id;
  await refuseSelfInput(tmux, paneId, { text: req.command, enter: true }, { signal: ctx.signal });
  // tmux would drop the command line (the pane's input off), or type it into other panes too, which would run it
  // (synchronize-panes): the pane's flags came with its read, its window's panes are read when one is set.
  if (info.typingFlags) await refuseUntypable(tmux, paneId, "the command line", ctx.signal);
  const left = () => Math.max(0, req.timeoutMs - (performance.now() - started));
  const { release, waited } = await rt.lockPane(paneId, ctx.signal, left());
  // What a finished run still does after its answer (the prompt being drawn), under the pane's lock.
  let tail: Promise<void> | undefined;
  try {
    // A command an earlier call gave up on may still run here: let it finish first.
    const startedEarlier = () => [...rt.runs].filter((r) => r.paneId === paneId && r.abandoned() && r.started());
    const waitForEarlier = async (runs: TrackedRun[]) => {
      const w = await waitFor(Promise.all(runs.map((r) => r.settled)), {
        ctx,
        started,
        timeoutMs: req.timeoutMs,
        what: `the earlier (timed out) command in ${paneId} to finish`,
      });
      if (w.kind === "cancelled") throw new UserError("run-command cancelled while an earlier command still ran");
      if (w.kind === "timeout") {
        // What runs there now says how to leave it: C-c does not end a REPL the command started (python3).
        const now = await inspectPane(tmux, paneId, ctx.signal).catch(() => undefined);
        const there = now && whatRunsThere(now.pane, now.screen);
        throw new UserError(
          `pane ${paneId} still runs an earlier command that timed out: ` +
            (there
              ? `${there}; then retry`
              : `wait for it (wait, what: quiet; or run-command with a longer timeout_ms), or interrupt it with ` +
                `send-keys C-c, then retry`),
        );
      }
    };
    const earlier = startedEarlier();
    if (earlier.length > 0) await waitForEarlier(earlier);
    // Types only at a prompt it has seen: refuses a pane waiting for an
    // answer, waits (until the deadline) for a shell still starting.
    const atPrompt = (first: typeof info | undefined) =>
      awaitPrompt(tmux, paneId, {
        deadline: started + req.timeoutMs,
        timeoutMs: req.timeoutMs,
        signal: ctx.signal,
        first,
        localTerminal: tmux.remote === undefined,
      });
    try {
      info = await atPrompt(waited || earlier.length > 0 ? undefined : info);
    } catch (e) {
      // A run given up on before its start marker starts after all when its shell had read the script first: the
      // program found running is then ours. Wait for it as for any earlier run, then look again.
      const late = startedEarlier().filter((r) => !earlier.includes(r));
      if (!(e instanceof UserError) || late.length === 0) throw e;
      await waitForEarlier(late);
      info = await atPrompt(undefined);
    }
    const ids = resolvedOf(info.pane, defaulted);
    const r = await runLocked(ctx, rt, req, info, ids, started, (t) => tail = t);
    if (!info.pane.in_mode) return r;
    const left: Warning = {
      kind: "left_mode",
      message: `pane ${paneId} was in ${info.pane.mode || "copy-mode"}: left it, then typed the command`,
    };
    return { ...r, warnings: [left, ...r.warnings] };
  } finally {
    if (tail) void tail.finally(release);
    else release();
  }
}

type Ids = Pick<RunResult, "session_id" | "window_id" | "pane_id" | "defaulted">;
type Outcome = Pick<RunResult, "exit_code" | "timed_out" | "warnings">;

/**
 * `atPrompt`: the last line is the prompt the shell drew (the command was interrupted), not output. `reflowed`:
 * the pane's width changed since the start marker, so tmux rewrapped its rows and the row the output began on is
 * no longer where it was: the output comes from the pane's output stream (the run's log) instead. So it does when
 * the read lost that row (`missed`): what the pane still holds from the top is not this command's output (the
 * command wrote over the row above its own, such as the typed line, or cleared the history).
 */
function result(
  read: Pick<SinceRead, "rows" | "missed" | "dropped"> & { pane?: Partial<Pick<PaneInfo, "session_id" | "window_id">> },
  log: RunLog,
  maxLines: number,
  ids: Ids,
  r: Outcome,
  t0: number,
  atPrompt = false,
  reflowed = false,
): RunResult {
  const output = (rows: readonly string[]) => atPrompt ? rows.slice(0, -1) : rows;
  let lines = output(read.rows).slice(-maxLines);
  let truncated = read.missed || read.dropped > 0;
  if (log.handedOut || reflowed || read.missed) {
    // Pages went out already: the rest is what the log has not handed out (the screen holds all of it).
    const rest = log.peekAll();
    const all = output(rest.lines);
    lines = all.slice(-maxLines);
    truncated = rest.lost > 0 || all.length > maxLines;
  }
  // The pane's window may have moved (move-window, join-pane) while the command ran: the ids are where it is now.
  const now = read.pane?.session_id !== undefined && read.pane.window_id !== undefined
    ? { session_id: read.pane.session_id, window_id: read.pane.window_id }
    : {};
  return {
    ...ids,
    ...now,
    ...r,
    output: lines.join("\n"),
    output_lines: lines.length,
    output_truncated: truncated,
    elapsed_ms: Math.round(performance.now() - t0),
  };
}

async function runLocked(
  ctx: ExecContext,
  rt: ExecRuntime,
  req: RunRequest,
  info: { pane: ShellPane; socketPath: string },
  ids: Ids,
  started: number,
  after: (tail: Promise<void>) => void,
): Promise<RunResult> {
  const { tmux } = ctx;
  const { pane } = info;
  const paneId = pane.pane_id;
  const flavor = shellFlavor(pane.current_command)!;
  const id = nonce();
  // The script's name is on screen (the typed line): its own random name, so the markers' nonce never is.
  const files = await rt.scripts.files(nonce());
  const run = trackRun(rt, paneId, id, files);
  const log = req.log ?? new RunLog();
  let finished = false;
  let moved = false;
  try {
    const obs = await observePane(ctx, pane, (bytes) => {
      // Asked before the bytes are read for markers: the chunk that holds the start marker is the typed line's
      // (the shell then waits, printing nothing), the one that holds the end marker ends the output.
      log.active = run.phase() === "running";
      run.feed(bytes);
      log.push(bytes);
    }, { sameProgram: true, moved: () => moved = true });
    run.attach(obs.stop);
    await rt.scripts.arm(files);
    const parts = {
      command: req.command,
      nonce: id,
      runId: files.id,
      tmuxBin: rt.tmuxPath,
      socketPath: info.socketPath,
      scriptPath: files.script,
      armedPath: files.armed,
      fifoPath: files.fifo,
      inBuffers: rt.scripts.inBuffers,
      shell: commandName(pane.current_command),
    };
    const store = rt.scripts.write(files, runScript(flavor, parts));
    // A pane in a mode (copy mode…) reads keys through the mode's key table: leave it first, in the same call, as
    // send-keys does. Then C-k and C-u (the line from the cursor to its end, then to its start): a half-typed line
    // left at the prompt would otherwise be joined to ours, and with the cursor moved back into it (bash and fish
    // kill only left of the cursor with C-u) its rest would run after our script, typed blind.
    await tmux.run([
      ...store,
      ...(pane.in_mode ? ["copy-mode", "-q", "-t", paneId, COMMAND_SEPARATOR] as TmuxArg[] : []),
      ...["send-keys", "-t", paneId, "C-k", "C-u"],
      COMMAND_SEPARATOR,
      ...["send-keys", "-t", paneId, "-l", typedLine(flavor, parts)],
      COMMAND_SEPARATOR,
      ...["send-keys", "-t", paneId, "Enter"],
    ], { signal: ctx.signal });

    const waitOpts = { ctx, started, timeoutMs: req.timeoutMs, tick: obs.checkAlive };
    const first = await waitFor(Promise.race([run.started, obs.exited]), {
      ...waitOpts,
      what: `the shell in ${paneId} to start ${describe(req.command)}`,
    });
    if (first.kind === "done" && first.value === "pane_exited") throw await paneClosed(tmux, pane);
    if (first.kind === "cancelled") throw new UserError("run-command cancelled before the command started");
    if (first.kind === "timeout") {
      // The typed line stays: the shell runs the command if it read the script before the server removed it (a
      // race), so it is a timeout like any other, with nothing printed yet, not a failure to retry (it could run
      // twice).
      log.finish();
      const notStarted: Warning = {
        kind: "not_started",
        message: `the shell in ${paneId} had not started ${describe(req.command)} within ${req.timeoutMs} ms ` +
          `(typed at its idle prompt): it still runs it if it read the line before its script was removed, so ` +
          `look with capture-pane before running it again (a shell stuck in a continuation prompt needs C-c)`,
      };
      const none = { rows: [], missed: false, dropped: 0 };
      return result(
        none,
        log,
        req.maxLines,
        ids,
        { exit_code: null, timed_out: true, warnings: [notStarted] },
        started,
      );
    }
    // The shell waits in the start handshake: the cursor is where the output begins. A shell waiting on a
    // channel of another host is released by the read's own tmux call, right after the read (its script, a
    // buffer, is gone already); a local one once its script file is gone too.
    const along = rt.scripts.inBuffers ? run.releaseCommands("start") : [];
    // The shell goes on once tmux has answered (the read is taken; the answer is parsed meanwhile) and its
    // script, which holds the nonce, is gone: deleted just before the read goes out to tmux.
    let scriptGone = Promise.resolve();
    let goes: Promise<void> | undefined;
    const letGo = () => goes ??= scriptGone.then(() => run.release("start", along.length > 0));
    const reading = readCursor(tmux, paneId, ctx.signal, along, letGo);
    scriptGone = rt.scripts.scriptRead(files.script);
    const atStart = await reading;
    const startPos = atStart.next;
    log.width = atStart.pane.width;
    await letGo();

    const local = tmux.remote === undefined ? { tty: pane.tty, pid: pane.pid } : undefined;
    const back = local ? backAtPrompt(tmux, paneId, run, { ...local, script: files.script }) : undefined;
    const fifo = files.fifo;
    const lost = local && fifo ? endLost(run, () => moved, () => readsFifo(local.pid, fifo)) : undefined;
    const second = await waitFor(
      Promise.race([run.ended, obs.exited, ...[back, lost].flatMap((w) => w ? [w.seen] : [])]),
      {
        ...waitOpts,
        tick: async () => {
          await obs.checkAlive();
          await back?.check();
          lost?.check();
        },
        what: `${describe(req.command)} to finish in ${paneId}`,
      },
    );
    if (second.kind === "done" && second.value === "pane_exited") throw await paneClosed(tmux, pane);
    if (second.kind === "done" && second.value === "interrupted") {
      // Its script was cut short (C-c ends all of it): no end marker, no exit code, the shell waits at its prompt.
      run.abandon();
      const read = await readSince(tmux, paneId, startPos, {
        maxRows: req.maxLines + 1,
        signal: ctx.signal,
        mainScreen: true,
      });
      log.finish();
      return result(
        read,
        log,
        req.maxLines,
        ids,
        {
          exit_code: null,
          timed_out: false,
          warnings: [{
            kind: "interrupted",
            message: `${describe(req.command)} reported no exit code and ${paneId} is back at a shell prompt: ` +
              (RETURN_WORD.test(req.command)
                ? "its `return` outside a function ended the script run-command runs it from, keeping the shell " +
                  "and its state (`(exit N)` gives a status and goes on), unless it was interrupted (C-c) or left " +
                  "the shell that ran it"
                : flavor === "fish" && EXIT_WORD.test(req.command)
                ? "its `exit` ended only the script run-command runs it from (fish skips the rest of a file it " +
                  "sources), keeping fish and its state, unless it was interrupted (C-c); to end fish, send-keys " +
                  "exit and Enter"
                : "it was interrupted (C-c), or it replaced or left the shell that ran it (exec, exit in a nested " +
                  "shell), so that shell's state is gone") +
              `; the prompt is ready for the next run-command`,
          }],
        },
        started,
        true,
        read.pane.width !== atStart.pane.width,
      );
    }
    if (second.kind === "done" && second.value === "end_lost") {
      // The shell waits in its end handshake, so the output is complete: read before it goes on (abandoned below, the
      // run lets it go and draws no prompt into the read).
      const read = await readSince(tmux, paneId, startPos, {
        maxRows: req.maxLines,
        signal: ctx.signal,
        mainScreen: true,
      });
      log.finish();
      const message = `${describe(req.command)} ended as the window of ${paneId} moved to another session, and tmux ` +
        `told only the session it left, so its exit code is lost` +
        // Pages handed out come from the output stream, which lacks what the pane printed as it moved; the screen not.
        (log.handedOut ? "" : " (its output is complete)") + `: check what it did if the status matters`;
      return result(
        read,
        log,
        req.maxLines,
        ids,
        { exit_code: null, timed_out: false, warnings: [{ kind: "no_exit_code", message }] },
        started,
        false,
        read.pane.width !== atStart.pane.width,
      );
    }
    const end = second.kind === "done" && typeof second.value === "object" ? second.value : undefined;
    if (second.kind === "cancelled") {
      throw new UserError(`run-command cancelled; ${describe(req.command)} keeps running in ${paneId}`);
    }
    if (!end) {
      run.abandon();
      const read = await readSince(tmux, paneId, startPos, {
        maxRows: req.maxLines,
        signal: ctx.signal,
        mainScreen: true,
      });
      log.finish();
      // A full-screen program (a pager) shows its own screen, not the output rows read from the main one: judged by
      // that screen, a pager is told apart (the program tmux names may be a pipeline's start command).
      const shown = read.pane.alternate_on ? (await finalView(tmux, paneId, 1)).warnings : undefined;
      const warnings = (shown ?? paneWarnings(read.pane, read.rows)).filter((w) => w.kind !== "not_a_shell");
      return result(
        read,
        log,
        req.maxLines,
        ids,
        { exit_code: null, timed_out: true, warnings: withTerminalMode(tmux, read.pane, warnings) },
        started,
        false,
        read.pane.width !== atStart.pane.width,
      );
    }
    // The shell waits in the end handshake: the output is complete and cannot move. A command that printed
    // not one byte has no output to read (and the screen is as it was at the start).
    // The modes come from the last read: the one of the output, or for no output the one at the start.
    const read: Pick<SinceRead, "rows" | "missed" | "dropped"> & {
      pane:
        & Omit<WarningFacts, "current_command">
        & { width: number }
        & Partial<Pick<PaneInfo, "session_id" | "window_id">>;
      next?: SinceRead["next"];
    } = end.silent
      ? { pane: atStart.pane, rows: [], dropped: 0, missed: false }
      : await readSince(tmux, paneId, startPos, { maxRows: req.maxLines, signal: ctx.signal, mainScreen: true });
    log.finish();
    // The answer need not wait for the release (a tmux call where the shell waits on a channel) nor for the
    // prompt: the pane stays locked until the prompt is drawn, so the next run in this pane starts at it.
    const released = run.release("end");
    // Then the next run's files are made, off its way to its typed line.
    after(
      released.then(() => run.promptDrawn(local)).finally(() => {
        run.finish();
        void rt.scripts.prepare?.();
      }),
    );
    finished = true;
    const shellNow = { ...read.pane, current_command: pane.current_command };
    const reflowed = read.pane.width !== atStart.pane.width;
    return result(
      read,
      log,
      req.maxLines,
      ids,
      {
        exit_code: end.status,
        timed_out: false,
        warnings: [
          ...paneWarnings(shellNow, read.rows).filter((w) => w.kind === "alternate_screen" || w.kind === "copy_mode"),
          // Output read from the stream (reflowed, or its first row lost) holds what was written above too.
          ...(read.next && !reflowed && !read.missed && wroteAbove(startPos, read.next) && !read.pane.alternate_on
            ? [{
              kind: "lines_missed" as const,
              message: `${describe(req.command)} moved the cursor above the row its output began on and may have ` +
                `written there, over earlier rows: that is not in output; look at the screen with capture-pane`,
            }]
            : []),
        ],
      },
      started,
      false,
      reflowed,
    );
  } finally {
    // Any way out but completion hands the run to the background.
    if (!finished) run.abandon();
  }
}

/**
 * Whether the cursor ended above the row where the output began (`start`): the command wrote over rows that are not
 * its own. Rows are absolute and stay put unless tmux trims a full history, which shrinks it: then not judged.
 */
function wroteAbove(start: SinceRead["next"], end: SinceRead["next"]): boolean {
  return end.hs >= start.hs && end.row < start.row;
}

/**
 * Watches, once a second, for the shell that runs the command to be back at its prompt with no end marker: its
 * script was cut short (C-c ends all of it, so the end marker never comes). Seen on two ticks in a row, and not at
 * a question the command asks: zsh's `vared` and fish's `read` read with the shell's own line editor, as at its
 * prompt, but with the script still open ({@linkcode stillSourcing}); bash's `read -e` cannot be told apart from
 * its prompt unless it asks a question the screen shows.
 */
function backAtPrompt(
  tmux: TmuxExecutor,
  paneId: string,
  run: { phase(): string },
  local: { tty: string; pid: number | null; script: string },
): { seen: Promise<"interrupted">; check(): Promise<void> } {
  const seen = Promise.withResolvers<"interrupted">();
  let times = 0;
  return {
    seen: seen.promise,
    async check() {
      if (run.phase() !== "running" || !shellWaitsForKeys(local.tty, local.pid)) return void (times = 0);
      // zsh and fish still reading the script: a builtin of the command reads keys (vared, fish's read).
      if (stillSourcing(local.pid, local.script)) return void (times = 0);
      if (++times < 2) return;
      const view = await finalView(tmux, paneId, 1);
      if (view.warnings.some((w) => w.kind === "input_prompt")) return void (times = 0);
      if (run.phase() === "running") seen.resolve("interrupted");
    },
  };
}

/**
 * Watches, once a second, for an end marker lost: once the pane was followed into another session (`moved`), tmux
 * sent what it printed in between to the session it left only, which may be the end marker. The shell then waits in
 * its end handshake (`inHandshake`: it reads the run's FIFO) with the run still between its markers; seen on two
 * ticks in a row, so a marker still on its way is not taken for lost.
 */
function endLost(
  run: { phase(): string },
  moved: () => boolean,
  inHandshake: () => boolean | undefined,
): { seen: Promise<"end_lost">; check(): void } {
  const seen = Promise.withResolvers<"end_lost">();
  let times = 0;
  return {
    seen: seen.promise,
    check() {
      if (!moved() || run.phase() !== "running" || !inHandshake()) return void (times = 0);
      if (++times >= 2 && run.phase() === "running") seen.resolve("end_lost");
    },
  };
}

/**
 * The pane was respawned while the command ran. The pane's output stream has no mark where its new program began,
 * so output kept after the last answer may end with that program's first lines (its prompt).
 */
export class PaneRespawned extends UserError {}

/**
 * The error for a watch that ended while the command ran: the pane respawned (its shell killed), or the
 * connection's ({@linkcode watchLost}), or the pane's.
 */
async function paneClosed(tmux: TmuxExecutor, pane: Pick<ShellPane, "pane_id" | "pid">): Promise<Error> {
  const paneId = pane.pane_id;
  const now = await paneIfAlive(tmux, paneId).catch(() => undefined);
  if (now && !now.dead && pane.pid !== null && now.pid !== pane.pid) {
    return new PaneRespawned(
      `pane ${paneId} was respawned while the command ran: the shell that ran it was killed, so there is no exit ` +
        `code (the command most likely ended with it); ${paneId} now runs ${now.current_command || "another program"}`,
    );
  }
  return await watchLost(tmux, paneId, "the command ran") ?? new UserError(
    `pane ${paneId} closed while the command ran (its shell exited: did it run exit, or fail with set -e on?): ` +
      `call list (what: panes) to pick another pane`,
  );
}
