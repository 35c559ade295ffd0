/**
 * run-command: one shell command in an existing pane, with its exact exit
 * code and exactly its output. The protocol (script, markers, handshakes) is
 * described in `shell.ts`; this module drives it:
 *
 * 1. check the pane is at a bash/zsh/fish prompt (else a clear error);
 * 2. take the pane's run lock, watch its output (control mode), write the
 *    script, type ` . /tmp/…/r-…` and Enter;
 * 3. on the start marker the shell is blocked: note the cursor's absolute
 *    row (the first output row), release the shell, delete the script;
 * 4. on the end marker (with `$?`) the shell is blocked again: read every
 *    row from the start row to the screen's bottom (history included), then
 *    release it;
 * 5. on timeout or cancellation: return what is there so far; the command
 *    keeps running, and a background watcher still releases its end
 *    handshake when it comes (or the exit hook pre-signals it).
 *
 * @example
 * ```ts
 * const r = await runCommand(ctx, { command: "make test", timeoutMs: 60_000, maxLines: 400 });
 * r.exit_code; // 0
 * ```
 */
import { COMMAND_SEPARATOR, type TmuxExecutor } from "../tmux/executor.ts";
import type { PaneInfo } from "../tmux/panes.ts";
import type { ToolContext } from "../tools/tool.ts";
import { UserError } from "../errors.ts";
import { log } from "../log.ts";
import { readScreen, readSince } from "./grid.ts";
import { type ExecRuntime, execRuntime, type PendingRun } from "./runtime.ts";
import { channels, markerPrefix, runScript, shellFlavor, typedLine } from "./shell.ts";
import { MarkerScanner } from "./stream.ts";
import { nonce, waitFor } from "./wait.ts";
import { inspectPane, observePane, paneIfAlive } from "./observe.ts";
import { notAtPrompt, paneWarnings, type Warning } from "./warnings.ts";

export interface RunRequest {
  target?: string;
  command: string;
  timeoutMs: number;
  /** Keep at most this many (last) output lines. */
  maxLines: number;
}

export interface RunResult {
  exit_code: number | null;
  output: string;
  output_truncated: boolean;
  timed_out: boolean;
  elapsed_ms: number;
  pane_id: string;
  warnings: Warning[];
}

/** How often an abandoned run checks whether its pane is back at a prompt or gone. */
const PENDING_CHECK_MS = 1000;
/** An abandoned run that never started is forgotten after this long. */
const UNSTARTED_DROP_MS = 60_000;
/** At most this long for the prompt after a run; it counts as drawn after this much quiet. */
const PROMPT_WAIT_MS = 250;
const PROMPT_QUIET_MS = 15;

function describe(command: string): string {
  const one = command.replace(/\s+/g, " ").trim();
  return "`" + (one.length > 60 ? one.slice(0, 57) + "..." : one) + "`";
}

/** Runs one command; see the module documentation. */
export async function runCommand(ctx: ToolContext, req: RunRequest): Promise<RunResult> {
  const started = performance.now();
  const rt = execRuntime(ctx);
  const { tmux } = ctx;
  let info = await inspectPane(tmux, req.target, ctx.signal);
  const paneId = info.pane.pane_id;
  const left = () => Math.max(0, req.timeoutMs - (performance.now() - started));
  const { release, waited } = await rt.lockPane(paneId, ctx.signal, left());
  try {
    // A command that an earlier call gave up on may still run here: let it finish first.
    const earlier = [...rt.pending].filter((p) => p.paneId === paneId && p.started());
    if (earlier.length > 0) {
      const w = await waitFor(Promise.all(earlier.map((p) => p.settled)), {
        ctx,
        started,
        timeoutMs: req.timeoutMs,
        what: `the earlier (timed out) command in ${paneId} to finish`,
      });
      if (w.kind === "cancelled") throw new UserError("run-command cancelled while an earlier command still ran");
      if (w.kind === "timeout") {
        throw new UserError(
          `pane ${paneId} still runs an earlier command that timed out: wait for it (wait-for-quiet, or ` +
            `run-command with a longer timeout_ms), or interrupt it with send-keys C-c, then retry`,
        );
      }
    }
    if (waited || earlier.length > 0) info = await inspectPane(tmux, paneId, ctx.signal);
    const why = notAtPrompt(info.pane, info.screen);
    if (why) throw new UserError(why);
    return await runLocked(ctx, rt, req, info, started);
  } finally {
    release();
  }
}

async function runLocked(
  ctx: ToolContext,
  rt: ExecRuntime,
  req: RunRequest,
  info: { pane: PaneInfo; socketPath: string },
  started: number,
): Promise<RunResult> {
  const { tmux } = ctx;
  const pane = info.pane;
  const paneId = pane.pane_id;
  const flavor = shellFlavor(pane.current_command)!;
  const id = nonce();
  const ch = channels(id);
  const scanner = new MarkerScanner(markerPrefix(id));
  const start = Promise.withResolvers<void>();
  const end = Promise.withResolvers<number>();
  let sawStart = false;
  let sawEnd = false;
  // Whether we released the shell from each handshake; the finally block
  // makes sure a shell we know is blocked never stays blocked.
  let startReleased = false;
  let endReleased = false;
  let abandoned: PendingRun | undefined;

  // Output after we released the end handshake: the shell drawing its prompt.
  let prompt: { at: number; seen: PromiseWithResolvers<void> } | undefined;
  const obs = await observePane(ctx, pane, (bytes) => {
    if (prompt) {
      prompt.at = performance.now();
      prompt.seen.resolve();
    }
    for (const payload of scanner.push(bytes)) {
      if (payload === "s" && !sawStart) {
        sawStart = true;
        start.resolve();
        if (abandoned) void signal(tmux, ch.start);
      } else if (payload.startsWith("e;") && sawStart && !sawEnd) {
        sawEnd = true;
        end.resolve(Number.parseInt(payload.slice(2), 10));
        if (abandoned) {
          const run = abandoned;
          const p = prompt = { at: 0, seen: Promise.withResolvers<void>() };
          void signal(tmux, ch.end).then(() => promptDrawn(p)).finally(() => run.drop());
        }
      }
    }
  });
  const stopWatch = obs.stop;
  const exited = obs.exited;

  const dir = await rt.scriptDir();
  const scriptPath = `${dir}/r-${id}`;
  const what = `${describe(req.command)} to finish in ${paneId}`;
  let handedOff = false;
  try {
    await Deno.writeTextFile(
      scriptPath,
      runScript(flavor, {
        command: req.command,
        nonce: id,
        tmuxBin: rt.tmuxPath,
        socketPath: info.socketPath,
        scriptPath,
      }),
      { mode: 0o600 },
    );
    // C-u first: a half-typed line left at the prompt would otherwise be
    // prepended to ours.
    await tmux.run([
      ...["send-keys", "-t", paneId, "C-u"],
      COMMAND_SEPARATOR,
      ...["send-keys", "-t", paneId, "-l", typedLine(flavor, scriptPath)],
      COMMAND_SEPARATOR,
      ...["send-keys", "-t", paneId, "Enter"],
    ], { signal: ctx.signal });

    const tick = obs.checkAlive;
    const first = await waitFor(Promise.race([start.promise, exited]), {
      ctx,
      started,
      timeoutMs: req.timeoutMs,
      what: `the shell in ${paneId} to start ${describe(req.command)}`,
      tick,
    });
    if (first.kind === "done" && first.value === "pane_exited") throw paneClosed(paneId);
    if (first.kind !== "done") {
      handedOff = true;
      abandoned = abandon(rt, tmux, paneId, ch, () => sawStart, stopWatch, scriptPath);
      await Deno.remove(scriptPath).catch(() => {});
      if (first.kind === "cancelled") throw new UserError("run-command cancelled before the command started");
      throw new UserError(
        `the shell in ${paneId} did not start the command within ${req.timeoutMs} ms: it is busy (still ` +
          `running something, or waiting in a continuation prompt) or is not a shell at a prompt; look with ` +
          `capture-pane, send C-c to get a prompt back, then retry (the typed line was disarmed)`,
      );
    }

    // The shell is blocked in the start handshake: the cursor is where the output begins.
    const startPos = (await readScreen(tmux, paneId, ctx.signal)).next;
    startReleased = true;
    await signal(tmux, ch.start);
    await Deno.remove(scriptPath).catch(() => {});

    const second = await waitFor(Promise.race([end.promise, exited]), {
      ctx,
      started,
      timeoutMs: req.timeoutMs,
      what,
      tick,
    });
    if (second.kind === "done" && second.value === "pane_exited") throw paneClosed(paneId);
    if (second.kind === "done") {
      // Blocked in the end handshake: the output is complete and cannot move.
      const read = await readSince(tmux, paneId, startPos, { maxRows: req.maxLines, signal: ctx.signal });
      endReleased = true;
      prompt = { at: 0, seen: Promise.withResolvers<void>() };
      await signal(tmux, ch.end);
      await promptDrawn(prompt);
      const shellNow = { ...read.pane, current_command: pane.current_command };
      return {
        exit_code: second.value as number,
        output: read.rows.join("\n"),
        output_truncated: read.missed || read.dropped > 0,
        timed_out: false,
        elapsed_ms: Math.round(performance.now() - started),
        pane_id: paneId,
        warnings: paneWarnings(shellNow, read.rows).filter((w) =>
          w.kind === "alternate_screen" || w.kind === "copy_mode"
        ),
      };
    }
    handedOff = true;
    abandoned = abandon(rt, tmux, paneId, ch, () => sawStart, stopWatch, scriptPath);
    if (second.kind === "cancelled") {
      throw new UserError(`run-command cancelled; ${describe(req.command)} keeps running in ${paneId}`);
    }
    const read = await readSince(tmux, paneId, startPos, { maxRows: req.maxLines, signal: ctx.signal });
    return {
      exit_code: null,
      output: read.rows.join("\n"),
      output_truncated: read.missed || read.dropped > 0,
      timed_out: true,
      elapsed_ms: Math.round(performance.now() - started),
      pane_id: paneId,
      warnings: paneWarnings(read.pane, read.rows).filter((w) => w.kind !== "not_a_shell"),
    };
  } catch (e) {
    if (!handedOff && sawStart && !sawEnd) {
      // Failed between the handshakes (a tmux error): keep releasing this run.
      handedOff = true;
      abandoned = abandon(rt, tmux, paneId, ch, () => sawStart, stopWatch, scriptPath);
    }
    throw e;
  } finally {
    if (sawStart && !startReleased) await signal(tmux, ch.start);
    if (sawEnd && !endReleased) await signal(tmux, ch.end);
    if (!handedOff) {
      stopWatch();
      await Deno.remove(scriptPath).catch(() => {});
    }
  }
}

/**
 * Waits (briefly) until the shell has drawn its prompt after the end
 * handshake, so that a next run-command types into a line editor that is
 * ready, instead of having its keys echoed by the terminal in between.
 */
async function promptDrawn(prompt: { at: number; seen: PromiseWithResolvers<void> }): Promise<void> {
  const deadline = performance.now() + PROMPT_WAIT_MS;
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
  await Promise.race([prompt.seen.promise, sleep(PROMPT_WAIT_MS)]);
  while (prompt.at > 0 && performance.now() < deadline) {
    const quietFor = performance.now() - prompt.at;
    if (quietFor >= PROMPT_QUIET_MS) return;
    await sleep(PROMPT_QUIET_MS - quietFor);
  }
}

function paneClosed(paneId: string): UserError {
  return new UserError(
    `pane ${paneId} closed while the command ran (did it run exit?): call list-panes to pick another pane`,
  );
}

async function signal(tmux: TmuxExecutor, channel: string): Promise<void> {
  try {
    await tmux.run(["wait-for", "-S", channel]);
  } catch (e) {
    log("warn", `could not signal ${channel}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Hands a run the call gave up on to the runtime: its watcher stays on and
 * releases the handshakes when they come; a periodic check drops it when
 * the pane is gone or back at its shell (then pre-signalling the end, in
 * case the command is a shell builtin or function still running).
 */
function abandon(
  rt: ExecRuntime,
  tmux: TmuxExecutor,
  paneId: string,
  ch: { start: string; end: string },
  started: () => boolean,
  stopWatch: () => void,
  scriptPath: string,
): PendingRun {
  const since = performance.now();
  const settled = Promise.withResolvers<void>();
  let atShell = 0;
  const check = async () => {
    const pane = await paneIfAlive(tmux, paneId).catch(() => undefined);
    if (!pane || pane.dead) return run.drop();
    // Never started (its script is gone): nothing can block any more.
    if (!started()) {
      if (performance.now() - since > UNSTARTED_DROP_MS) run.drop();
      return;
    }
    // Back at the shell twice in a row: the command was interrupted (C-c
    // skips the rest of the script), or it is a shell loop between two
    // programs; either way pre-signal the end so nothing can block later.
    atShell = shellFlavor(pane.current_command) === undefined ? 0 : atShell + 1;
    if (atShell < 2) return;
    await signal(tmux, ch.end);
    run.drop();
  };
  const timer = setInterval(check, PENDING_CHECK_MS);
  const run: PendingRun = {
    paneId,
    channels: [ch.start, ch.end],
    started,
    settled: settled.promise,
    drop() {
      clearInterval(timer);
      stopWatch();
      rt.pending.delete(run);
      void Deno.remove(scriptPath).catch(() => {});
      settled.resolve();
    },
  };
  rt.pending.add(run);
  return run;
}
