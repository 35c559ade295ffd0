/**
 * One run's side of the protocol in `shell.ts`: reads its markers from the
 * pane's output, releases the shell from each handshake exactly once, and,
 * when the call gives the run up (timeout, cancellation, error), disarms it
 * and keeps watching in the background until it is over for good.
 *
 * @example
 * ```ts
 * declare const rt: Parameters<typeof trackRun>[0]; // the call's `ctx.exec`
 * declare const files: Parameters<typeof trackRun>[3]; // the run's script and armed flag
 * declare function observe(onBytes: (bytes: Uint8Array) => void): Promise<{ stop(): void }>; // observePane
 * const run = trackRun(rt, "%3", "a1b2", files);
 * const obs = await observe(run.feed);
 * run.attach(obs.stop);
 * const waits = await run.started; // the shell printed the start marker
 * // ... read the cursor position while it waits
 * await run.release("start");
 * ```
 */
import type { TmuxArg, TmuxExecutor } from "../tmux/executor.ts";
import { log } from "../log.ts";
import type { ExecRuntime, TrackedRun } from "./runtime.ts";
import { paneIfAlive } from "./observe.ts";
import { channels, markerPrefix, shellFlavor } from "./shell.ts";
import { MarkerScanner } from "./stream.ts";
import { lineEditorWaits } from "./keys_warning.ts";

export interface RunFiles {
  /**
   * The run's own name, in its files' names and so on screen (the typed line): it names the run's wait-for
   * channels too, which another host's `ps` shows. Never the markers' nonce.
   */
  id: string;
  script: string;
  armed: string;
  /** The FIFO the shell reads in each handshake, when the run has one (else it waits in `tmux wait-for`). */
  fifo?: string;
}

/** How a run ended: see {@linkcode RunTracker.ended}. */
export interface RunEnd {
  status: number;
  waits: boolean;
  silent: boolean;
}

export interface RunTracker {
  /** Feeds the pane's output bytes (the pane watcher). */
  feed(bytes: Uint8Array): void;
  /** Hands over the function that stops the pane watcher. */
  attach(stopWatch: () => void): void;
  /** Where the run is: before its start marker, between its markers, or after its end marker. */
  phase(): "before" | "running" | "ended";
  /** Resolves at the start marker: true when the shell waits for release. */
  started: Promise<boolean>;
  /**
   * Resolves at the end marker with `$?`, whether the shell waits for release, and whether the pane printed
   * nothing at all between the two markers (`silent`: the command's output is empty, whatever the screen shows).
   */
  ended: Promise<RunEnd>;
  /**
   * The commands that release the shell from a handshake it waits in on a channel when they end the caller's
   * own tmux call (after its reads): `wait-for -S`, one round trip fewer. None where it waits on the FIFO (a
   * write here, no round trip) or does not wait.
   */
  releaseCommands(which: "start" | "end"): TmuxArg[];
  /**
   * Releases the shell from a handshake it waits in; does nothing when it does not wait or was released.
   * `signalled`: the caller's tmux call ran {@linkcode releaseCommands}, so only the bookkeeping is left.
   */
  release(which: "start" | "end", signalled?: boolean): Promise<void>;
  /**
   * After the end release: waits briefly until the shell has drawn its prompt. `local`: the pane's terminal and
   * first process where the kernel here may be asked whether its line editor waits for keys (done drawing).
   */
  promptDrawn(local?: { tty: string; pid: number | null }): Promise<void>;
  /** The call gives the run up: disarm, delete its files, keep releasing in the background. */
  abandon(): void;
  /** The run is complete: stop watching, forget it. */
  finish(): void;
}

/** How often a run given up on checks its pane. */
const CHECK_MS = 1000;
/** A run given up on before it started is forgotten after this long. */
const UNSTARTED_DROP_MS = 60_000;
/**
 * At least this long for the prompt after a run, or 20 tmux round trips (the
 * release's own, or for a run given up on the removal of its armed flag,
 * measured) on a machine slow enough to need more; the prompt counts as drawn
 * after this much quiet.
 */
const PROMPT_WAIT_MS = 250;
const PROMPT_WAIT_TRIPS = 20;
const PROMPT_QUIET_MS = 5;

async function signal(tmux: TmuxExecutor, channel: string): Promise<void> {
  try {
    await tmux.run(["wait-for", "-S", channel]);
  } catch (e) {
    log("warn", `could not signal ${channel}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/** Starts tracking a run; registers it with the runtime until it is over. */
export function trackRun(rt: ExecRuntime, paneId: string, nonce: string, files: RunFiles): RunTracker {
  const { tmux } = rt;
  const ch = channels(files.id);
  const scanner = new MarkerScanner(markerPrefix(nonce));
  const started = Promise.withResolvers<boolean>();
  const ended = Promise.withResolvers<RunEnd>();
  // Where the start marker ended in the pane's stream, and how many of its bytes were fed so far.
  let startTo = 0;
  let fed = 0;
  const settled = Promise.withResolvers<void>();
  // Per handshake: undefined = marker not seen; else whether the shell waits, and whether we released it.
  const state: Record<"start" | "end", { waits: boolean; released: boolean } | undefined> = {
    start: undefined,
    end: undefined,
  };
  let abandoned = false;
  /**
   * With --ssh, once the run is given up on: whether the shell waits (or will) at its end. Its end wait
   * consumes the armed flag in the same tmux client as the wait, so of its removal and ours the first decides.
   */
  let endWaits: Promise<boolean> | undefined;
  /** How long this server's removal of the flag took: a tmux round trip, to scale the wait for the prompt by. */
  let takeMs = 0;
  let stopWatch = () => {};
  let timer: ReturnType<typeof setInterval> | undefined;
  // Output after the end release is the shell drawing its prompt.
  let promptWatch: { at: number; seen: PromiseWithResolvers<void>; waitMs: number } | undefined;
  /** Watches for the prompt from now on; `seenNow`: some of it came already. */
  const watchPrompt = (seenNow = false) => {
    const watch = { at: 0, seen: Promise.withResolvers<void>(), waitMs: PROMPT_WAIT_MS };
    if (seenNow) {
      watch.at = performance.now();
      watch.seen.resolve();
    }
    return promptWatch = watch;
  };

  const removeFiles = async () => {
    await rt.scripts.remove(files.armed);
    await rt.scripts.remove(files.script);
    // Closing the FIFO releases a shell still reading it (end of file).
    if (files.fifo) await rt.scripts.remove(files.fifo);
  };

  const tracked: TrackedRun = {
    paneId,
    // A marker not seen yet may still be on its way (the shell checked "armed" just before the exit removed it),
    // so its channel counts too: tmux keeps a signal nobody waits for, and a late wait then passes at once.
    // A FIFO run needs no release at exit: the FIFO closes with this process.
    blocked: () =>
      files.fifo ? [] : (["start", "end"] as const).filter((k) => !state[k] || (state[k]!.waits && !state[k]!.released))
        .map((k) => ch[k]),
    abandoned: () => abandoned,
    started: () => state.start !== undefined,
    settled: settled.promise,
  };
  rt.runs.add(tracked);

  const drop = () => {
    clearInterval(timer);
    stopWatch();
    rt.runs.delete(tracked);
    void removeFiles();
    settled.resolve();
  };

  const tracker: RunTracker = {
    feed(bytes) {
      fed += bytes.length;
      if (promptWatch) {
        promptWatch.at = performance.now();
        promptWatch.seen.resolve();
      }
      for (const marker of scanner.scan(bytes)) {
        const parts = marker.payload.split(";");
        if (parts[0] === "s" && parts.length === 2 && !state.start) {
          startTo = marker.to;
          state.start = { waits: parts[1] === "w", released: false };
          started.resolve(state.start.waits);
          if (abandoned) void tracker.release("start");
        } else if (parts[0] === "e" && parts.length === 3 && state.start && !state.end) {
          state.end = { waits: parts[2] === "w", released: false };
          ended.resolve({
            status: Number.parseInt(parts[1], 10),
            waits: state.end.waits,
            silent: marker.from === startTo,
          });
          if (abandoned) {
            // Over once its shell is back at its prompt, as a finished run's pane lock is, whether or not the
            // shell waits here (it does not when this server took the armed flag first). Until then tmux may
            // name the pane's start command instead of the shell, as it does whenever the terminal's foreground
            // process group has no command line to read (around a job's start and end: tmux 3.3a format.c,
            // format_cb_current_command), and a run that starts then is refused.
            watchPrompt(marker.to < fed);
            void tracker.release("end").then(() => tracker.promptDrawn()).finally(drop);
          }
        }
      }
    },
    attach(stop) {
      stopWatch = stop;
    },
    phase: () => state.end ? "ended" : state.start ? "running" : "before",
    releaseCommands(which) {
      const s = state[which];
      return files.fifo || !s || !s.waits || s.released ? [] : ["wait-for", "-S", ch[which]];
    },
    started: started.promise,
    ended: ended.promise,
    async release(which, signalled = false) {
      const s = state[which];
      if (!s || !s.waits || s.released) return;
      s.released = true;
      if (which === "end" && endWaits && !await endWaits) {
        // The shell goes on to its prompt by itself: watched for as long as after a release.
        if (promptWatch) promptWatch.waitMs = Math.max(PROMPT_WAIT_MS, PROMPT_WAIT_TRIPS * takeMs);
        return;
      }
      const t0 = performance.now();
      const watch = which === "end" ? watchPrompt() : undefined;
      if (files.fifo) await rt.scripts.wake(files.fifo);
      else if (!signalled) await signal(tmux, ch[which]);
      if (watch) watch.waitMs = Math.max(PROMPT_WAIT_MS, PROMPT_WAIT_TRIPS * (performance.now() - t0));
    },
    async promptDrawn(local) {
      const p = promptWatch;
      if (!p) return;
      const deadline = performance.now() + p.waitMs;
      await Promise.race([p.seen.promise, sleep(p.waitMs)]);
      // Some of the prompt was seen (tmux has read it): done once the line editor waits for keys, having written
      // all of it, or after a quiet spell where the kernel cannot say.
      let kernel = local !== undefined;
      while (p.at > 0 && performance.now() < deadline) {
        const quietFor = performance.now() - p.at;
        if (quietFor >= PROMPT_QUIET_MS) return;
        if (kernel) {
          const waits = lineEditorWaits(local!.tty, local!.pid);
          if (waits) return;
          kernel = waits !== undefined;
        }
        await sleep(kernel ? 1 : PROMPT_QUIET_MS - quietFor);
      }
    },
    abandon() {
      if (abandoned) return;
      abandoned = true;
      const t0 = performance.now();
      endWaits = rt.scripts.take?.(files.armed).then((ours) => {
        takeMs = performance.now() - t0;
        return !ours;
      });
      void removeFiles();
      // A shell that already waits is released now; later handshakes find
      // the run disarmed and do not wait.
      void tracker.release("start");
      const endReleased = tracker.release("end");
      if (state.end) {
        void endReleased.then(() => tracker.promptDrawn()).finally(drop);
        return;
      }
      const since = performance.now();
      let atShell = 0;
      timer = setInterval(async () => {
        const pane = await paneIfAlive(tmux, paneId).catch(() => undefined);
        if (!pane || pane.dead) return drop();
        if (!state.start) {
          if (performance.now() - since > UNSTARTED_DROP_MS) drop();
          return;
        }
        // Back at the shell twice in a row: the command was interrupted (C-c
        // ends the whole script), or it is between two programs of a shell
        // loop; disarmed, it cannot block anything, so stop watching.
        atShell = shellFlavor(pane.current_command) === undefined ? 0 : atShell + 1;
        if (atShell >= 2) drop();
      }, CHECK_MS);
    },
    finish() {
      drop();
    },
  };
  return tracker;
}
