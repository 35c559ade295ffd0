/**
 * Long-lived state of the exec tools, one per server (in its services:
 * `services.exec`, built by lib/server/server.ts): the control-mode hub, where run scripts
 * live ({@linkcode RunScripts}: files, or tmux buffers with --ssh), the tmux binary the panes' shells run, one run
 * at a time per pane, and the runs in flight or given up on (timeout,
 * cancellation) whose command may still run.
 *
 * Everything is released by the server's exit hook: the scripts and armed
 * flags removed (which disarms every run: no shell will wait for this server any
 * more), shells waiting in a handshake released. The control-mode hub is the
 * engine's (lib/tmux/engine.ts), which closes it.
 *
 * @example
 * ```ts
 * declare const rt: ExecRuntime; // the call's `ctx.exec`
 * const { release } = await rt.lockPane("%3", AbortSignal.timeout(30_000), 30_000);
 * try {
 *   // ... type into %3
 * } finally {
 *   release();
 * }
 * ```
 */
import type { ControlHub } from "../tmux/control.ts";
import { COMMAND_SEPARATOR, type TmuxArg, type TmuxExecutor } from "../tmux/executor.ts";
import type { TmuxEngine } from "../tmux/engine.ts";
import type { RunFiles } from "./handshake.ts";
import type { Config } from "../config.ts";
import { UserError } from "../errors.ts";
import { log } from "../log.ts";
import { tempPrefix } from "../host/process.ts";
import { resolveBinary } from "../host/binaries.ts";
import { ParkingLot } from "./parked.ts";
import { LogPool } from "./runlog.ts";
import { TypedLines } from "./typed.ts";
import { libc } from "../terminal/pty/ffi.ts";
import { nonce } from "./wait.ts";

/**
 * A run's script and "armed" flag (the shell waits in a handshake only while it exists): files in a
 * private 0700 directory here, or — with --ssh, where the pane's shell cannot see our files — tmux
 * buffers on the remote server, which the shell reads and tests with its own tmux (lib/exec/shell.ts).
 */
export interface RunScripts {
  /** True for the buffer route (pass it to runScript/typedLine as `inBuffers`). */
  readonly inBuffers: boolean;
  /**
   * The names for a run: two paths (three with a FIFO), or two buffer names; `id` names them, unless files
   * made ahead ({@linkcode RunScripts.prepare}) are handed out instead.
   */
  files(id: string): Promise<RunFiles>;
  /**
   * Creates the armed flag, and the run's FIFO when `files` names one (nothing for files made ahead): made
   * and held open here, so the shell's `read` from it waits for {@linkcode RunScripts.wake} without a tmux
   * client. Where no FIFO can be made, drops `files.fifo` (the run then uses `tmux wait-for`). Buffers are
   * only noted here: {@linkcode RunScripts.write} sets them.
   */
  arm(files: RunFiles): Promise<void>;
  /** Releases the shell from one handshake through the run's FIFO (one line). */
  wake(fifo: string): Promise<void>;
  /**
   * Stores the script (a file, at once), or returns the tmux commands, each followed by a separator, that
   * set the armed flag and the script (buffers): the caller runs them first in the call that types the
   * line, so a remote run makes one round trip where it made three, one of them a spawned client.
   */
  write(files: RunFiles, script: string): TmuxArg[];
  /** Removes a script or armed flag (disarms); never throws. */
  remove(name: string): Promise<void>;
  /**
   * The shell has read its script (its start marker is out): resolves once the script is gone, which the
   * release from the start handshake waits for, as the script holds the run's nonce, which the command could
   * read and print the end marker with. A file is emptied and removed at once (the caller does it while tmux
   * answers its cursor read; a shell may still hold it open); a buffer is gone already (the typed line deletes it
   * as it reads it). Never rejects.
   */
  scriptRead(script: string): Promise<void>;
  /**
   * Buffers only, where the shell's end wait consumes the armed flag (lib/exec/shell.ts): removes the flag,
   * resolving true when this removed it (the shell will not wait at its end) and false when it was gone
   * (the shell took it: it waits, or will). Never throws.
   */
  take?(armed: string): Promise<boolean>;
  /**
   * Makes the next run's armed flag, FIFO and (empty, open) script file now, while no run waits for them
   * (after a run's answer), so that {@linkcode RunScripts.files} and {@linkcode RunScripts.arm} cost nothing
   * on the next run's way to its typed line. Does nothing where there is nothing to make ahead (buffers), or
   * once a spare is ready. Resolves once done; never rejects.
   */
  prepare?(): Promise<void>;
  /** Removes everything left (the server's exit). */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const NEWLINE = encoder.encode("\n");

/**
 * After this long without a run, the next one checks that its directory and the files made ahead are still
 * there before it uses them: a temp cleaner (systemd-tmpfiles, tmpreaper) removes old files, and a server may
 * sit idle for days. Cleaners count in hours and days; a run a few minutes after the last one checks nothing.
 */
export const IDLE_CHECK_MS = 10 * 60_000;

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Run files in a private directory of this machine. Each run's FIFO stays open (read and write) here until it
 * is removed: the shell's open of it never blocks, a wake written before the shell reads is kept, and when
 * this process ends, however it ends, the last writer is gone and a shell still reading gets end-of-file.
 * `parent`: where the directory is made (default: the temp directory, `TMPDIR`).
 */
export function fileScripts(
  { idleCheckMs = IDLE_CHECK_MS, parent }: { idleCheckMs?: number; parent?: string } = {},
): RunScripts {
  let dir: Promise<string> | undefined;
  let lastUse = performance.now();
  const fifos = new Map<string, Deno.FsFile>();
  /** Spare scripts, made empty and open ahead: the run writes its text into one and closes it. */
  const opened = new Map<string, Deno.FsFile>();
  /** The names made here and not removed yet: a name removed twice (a run's script) costs no failed unlink. */
  const live = new Set<string>();
  let fifosWork = true;
  /** A run's files made ahead ({@linkcode RunScripts.prepare}), armed: taken by the next run. */
  let spare: RunFiles | undefined;
  let closed = false;
  const names = (d: string, id: string): RunFiles => ({
    id,
    script: `${d}/r-${id}`,
    armed: `${d}/a-${id}`,
    ...(fifosWork ? { fifo: `${d}/f-${id}` } : {}),
  });
  // The file work here is a few system calls on a local directory: done synchronously, it costs microseconds
  // where each asynchronous call waits for a worker thread (a millisecond and more on a loaded machine).
  const arm = (f: RunFiles) => {
    Deno.writeFileSync(f.armed, new Uint8Array(), { mode: 0o600 });
    live.add(f.armed);
    if (!f.fifo) return;
    try {
      libc().makeFifo(f.fifo, 0o600);
      live.add(f.fifo);
      fifos.set(f.fifo, Deno.openSync(f.fifo, { read: true, write: true }));
    } catch (e) {
      // No C library through FFI here (another OS, no --allow-ffi): every run uses tmux wait-for.
      log("info", `run-command handshakes use tmux wait-for: ${e instanceof Error ? e.message : String(e)}`);
      fifosWork = false;
      delete f.fifo;
    }
  };
  const remove = (name: string) => {
    for (const handles of [fifos, opened]) {
      handles.get(name)?.close();
      handles.delete(name);
    }
    if (!live.delete(name)) return;
    try {
      Deno.removeSync(name);
    } catch {
      // gone already
    }
  };
  const dropSpare = () => {
    const f = spare;
    spare = undefined;
    for (const name of f ? [f.armed, f.script, f.fifo] : []) if (name) remove(name);
  };
  // Anything of ours a cleaner removed is given up, never made again under its old name (which a typed line
  // showed: another user could have taken it meanwhile); a directory gone is replaced by a new one.
  const recheck = async () => {
    const d = await dir?.catch(() => undefined);
    if (d !== undefined && !exists(d)) dir = undefined;
    if (spare && (dir === undefined || ![spare.armed, spare.script, spare.fifo].every((p) => !p || exists(p)))) {
      dropSpare();
    }
  };
  return {
    inBuffers: false,
    async files(id) {
      if (performance.now() - lastUse > idleCheckMs) await recheck();
      lastUse = performance.now();
      if (spare) {
        const f = spare;
        spare = undefined;
        return f;
      }
      dir ??= Deno.makeTempDir({ prefix: tempPrefix("run"), dir: parent }).then(async (d) => {
        await Deno.chmod(d, 0o700);
        return d;
      });
      return names(await dir, id);
    },
    arm(f) {
      if (live.has(f.armed)) return Promise.resolve();
      try {
        arm(f);
      } catch (e) {
        // The directory is gone: this run fails, the next one makes a new directory.
        if (e instanceof Deno.errors.NotFound) dir = undefined;
        throw e;
      }
      return Promise.resolve();
    },
    prepare() {
      if (spare || dir === undefined || closed) return Promise.resolve();
      return dir.then((d) => {
        if (spare || closed) return;
        const f = names(d, nonce());
        try {
          arm(f);
          opened.set(f.script, Deno.openSync(f.script, { write: true, createNew: true, mode: 0o600 }));
          live.add(f.script);
          spare = f;
        } catch {
          // The directory is gone (the server's exit) or full: the next run makes its files itself.
          remove(f.armed);
          if (f.fifo) remove(f.fifo);
        }
      }, () => {});
    },
    wake(fifo) {
      // One byte into a pipe we hold open for reading too: never blocks.
      fifos.get(fifo)?.writeSync(NEWLINE);
      return Promise.resolve();
    },
    write(f, script) {
      const file = opened.get(f.script);
      if (file) {
        opened.delete(f.script);
        try {
          file.writeSync(encoder.encode(script));
        } finally {
          file.close();
        }
      } else Deno.writeTextFileSync(f.script, script, { mode: 0o600 });
      live.add(f.script);
      return [];
    },
    remove(name) {
      remove(name);
      return Promise.resolve();
    },
    scriptRead(name) {
      // Emptied, then removed: zsh, dash and fish keep a file they source open while it runs (all of it read by
      // now, lib/exec/shell.ts), and a command could read the nonce through /proc/PID/fd of its shell.
      try {
        if (live.has(name)) Deno.truncateSync(name, 0);
      } catch {
        // gone already
      }
      remove(name);
      return Promise.resolve();
    },
    async close() {
      closed = true;
      for (const handles of [fifos, opened]) {
        for (const file of handles.values()) file.close();
        handles.clear();
      }
      live.clear();
      spare = undefined;
      // Removing the directory disarms every run (no shell waits any more).
      const d = await dir?.catch(() => undefined);
      if (d) await Deno.remove(d, { recursive: true }).catch(() => {});
    },
  };
}

/** Run scripts and armed flags as buffers of the (remote) tmux server; names are ours, never a model's. */
export function bufferScripts(tmux: TmuxExecutor): RunScripts {
  const live = new Set<string>();
  const remove = async (name: string) => {
    if (!live.delete(name)) return;
    await tmux.run(["delete-buffer", "-b", name], { timeoutMs: 5000 }).catch(() => {});
  };
  return {
    inBuffers: true,
    files: (id) =>
      Promise.resolve({ id, script: `tmux-mcp-${Deno.pid}-r-${id}`, armed: `tmux-mcp-${Deno.pid}-a-${id}` }),
    arm(f) {
      live.add(f.armed);
      return Promise.resolve();
    },
    write(f, script) {
      live.add(f.script);
      // The script's line breaks travel escaped on the command line (lib/tmux/quote.ts `tmuxCommandWord`).
      return [
        ...["set-buffer", "-b", f.armed, "1"],
        COMMAND_SEPARATOR,
        ...["set-buffer", "-b", f.script, "--", script],
        COMMAND_SEPARATOR,
      ];
    },
    wake: () => Promise.resolve(),
    remove,
    scriptRead(name) {
      live.delete(name);
      return Promise.resolve();
    },
    async take(name) {
      live.delete(name);
      try {
        await tmux.run(["delete-buffer", "-b", name], { timeoutMs: 5000 });
        return true;
      } catch {
        // "no buffer": the shell took it. Any other failure (the connection gone) says the same: releasing a
        // shell that does not wait leaves one signal on the remote server, never a shell waiting.
        return false;
      }
    },
    async close() {
      await Promise.all([...live].map(remove));
    },
  };
}

/** A run-command in flight or given up on, as the runtime sees it. */
export interface TrackedRun {
  paneId: string;
  /** Channels the pane's shell waits on now or may still reach (released on exit). */
  blocked(): string[];
  /** True once the call gave the run up (timeout, cancellation) while its command may still run. */
  abandoned(): boolean;
  /** Whether the command started. */
  started(): boolean;
  /** Resolves when the run is over for good: ended, interrupted, or its pane gone. */
  settled: Promise<void>;
}

export interface ExecRuntime {
  hub: ControlHub;
  tmux: TmuxExecutor;
  /** The absolute path of tmux for the panes' shells to run (the binary the server uses). */
  tmuxPath: string;
  /** Where run scripts and armed flags live: files here, or tmux buffers when the shells run on another host. */
  scripts: RunScripts;
  /**
   * Waits until no other run uses the pane, then returns the release
   * function. Rejects with a UserError after `timeoutMs` or when `signal` fires.
   */
  lockPane(paneId: string, signal: AbortSignal, timeoutMs: number): Promise<{ release: () => void; waited: boolean }>;
  /** Runs in flight, and runs given up on whose command may still run. */
  runs: Set<TrackedRun>;
  /** The lines send-keys and paste-text typed into each pane, whose echo a wait does not match (./typed.ts). */
  typed: TypedLines;
  /** Waits and runs a call left running at its budget, under their continue tokens. */
  parked: ParkingLot;
  /** What the output logs of all runs hold together (./runlog.ts): bounded, as each log is. */
  logs: LogPool;
  /** Releases everything (the server's exit hook). */
  close(): Promise<void>;
}

/** The exec runtime of a server; nothing is created on disk before the first run. Call `close` at exit. */
export function createExecRuntime(tmux: TmuxEngine, config: Pick<Config, "tmuxBin">): ExecRuntime {
  const scripts = tmux.remote === undefined ? fileScripts() : bufferScripts(tmux);
  const tails = new Map<string, Promise<void>>();
  const runs = new Set<TrackedRun>();
  const parked = new ParkingLot();
  // The hub belongs to the engine, which closes it on exit.
  const hub = tmux.hub;
  let tmuxPath: string | undefined;
  return {
    hub,
    tmux,
    // On another host the pane's shell finds tmux on its own PATH (or --tmux-bin as given). Looked up at the
    // first run, not at start-up.
    get tmuxPath() {
      return tmuxPath ??= tmux.remote === undefined ? resolveBinary(config.tmuxBin) : config.tmuxBin;
    },
    scripts,
    async lockPane(paneId, signal, timeoutMs) {
      const prev = tails.get(paneId);
      let release!: () => void;
      const mine = new Promise<void>((r) => release = r);
      const tail = prev ? prev.then(() => mine) : mine;
      tails.set(paneId, tail);
      const done = () => {
        release();
        if (tails.get(paneId) === tail) tails.delete(paneId);
      };
      if (prev === undefined) return { release: done, waited: false };
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      try {
        await Promise.race([
          prev,
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () =>
                reject(
                  new UserError(
                    `pane ${paneId} is still busy with an earlier run-command after ${timeoutMs} ms: wait for it ` +
                      `(wait, what: quiet), or send C-c to stop it, then retry`,
                  ),
                ),
              timeoutMs,
            );
            onAbort = () => reject(new UserError("run-command cancelled while waiting for the pane"));
            if (signal.aborted) onAbort();
            else signal.addEventListener("abort", onAbort, { once: true });
          }),
        ]);
      } catch (e) {
        // Keep the queue intact: our turn still comes, and passes at once.
        void prev.then(done);
        throw e;
      } finally {
        clearTimeout(timer);
        if (onAbort) signal.removeEventListener("abort", onAbort);
      }
      return { release: done, waited: true };
    },
    runs,
    parked,
    logs: new LogPool(),
    typed: new TypedLines(),
    async close() {
      parked.close();
      // Disarms every run (no shell waits any more); a shell already waiting is released.
      await scripts.close();
      for (const ch of [...runs].flatMap((r) => r.blocked())) {
        await tmux.run(["wait-for", "-S", ch], { timeoutMs: 2000 }).catch((e) =>
          log("warn", `could not release wait-for channel ${ch}: ${e instanceof Error ? e.message : String(e)}`)
        );
      }
    },
  };
}
