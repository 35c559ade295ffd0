/**
 * The hosts of a server (lib/tmux/hosts.ts says how they are named and
 * targeted): one set of services per host — its own tmux engine over its own
 * persistent connection, buffers, runs and pty backend — made on first use,
 * and the routing of a call to them.
 *
 * A call goes to the host its `target` names (`HOST::TARGET`, the prefix
 * removed before the tool sees it), else to the first host. A listing without
 * a target (`list` of panes, windows or sessions) runs on every host at once
 * and returns their rows together; a host that fails is named in
 * `unreachable` instead of failing the listing. With more than one host every
 * result says its `host`, and every row and result with an id carries a
 * `target` that names it on its host (`web::%3`).
 *
 * Each host's engine has its own bound (sshd's MaxSessions for a remote one)
 * and, with several hosts, keeps one slot of the server's `--max-concurrency`
 * for itself and shares the rest with the others (lib/tmux/engine.ts
 * `shared`): a host whose commands stall holds its own slot and some shared
 * ones, never another host's, so it never stops a call to another host.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * import { createSearchPool } from "../search/worker_pool.ts";
 * const config = parseConfig(["--ssh", "web=me@web1", "--ssh", "db=me@db1"], {});
 * const { router } = createHosts(config, { regex: createSearchPool(), atExit: () => {} });
 * router.names; // ["web", "db"]
 * ```
 */
import { type Config, hostConfig as configOf, scopeRule } from "../config.ts";
import { localTmuxBin } from "../host/binaries.ts";
import { asTmuxVersion, createTmuxEngine } from "../tmux/engine.ts";
import { createSessionScope } from "../tmux/scope.ts";
import { controlDirPath, createSshLauncher, RemoteError } from "../tmux/ssh.ts";
import { type HostSpec, LOCAL_HOST, qualify } from "../tmux/hosts.ts";
import { Semaphore } from "../tmux/semaphore.ts";
import { TmuxError } from "../tmux/executor.ts";
import { createBufferStore } from "../buffers/store.ts";
import { createServerFileReader } from "../buffers/server_file.ts";
import { createTerminalBackend } from "../terminal/mod.ts";
import { createExecRuntime } from "../exec/runtime.ts";
import { UserError } from "../errors.ts";
import { cutAt, pausableTimeout } from "./cut.ts";
import type { HostRouter, HostState, Services } from "../tools/tool.ts";

/**
 * Commands in flight at once over --ssh: with the master, the control client and a few pane-output
 * clients of the waits, sshd's 10 sessions per connection are not exceeded (beyond them ssh quietly
 * opens a connection of its own: a full login).
 */
export const SSH_SPAWNS = 4;

/** What every host shares: the search workers, the exit hooks, the server-wide bound. */
type Shared = Pick<Services, "regex" | "atExit">;

/** One host's services, before the shared ones are added. */
function hostServices(config: Config, spec: HostSpec, index: number, several: number, shared: Semaphore) {
  const given = configOf(config, spec);
  // This machine's tmux may be installed where a desktop app's short PATH does not reach (lib/host/binaries.ts).
  const hostConfig = spec.destination === undefined ? { ...given, tmuxBin: localTmuxBin(given.tmuxBin) } : given;
  const rule = scopeRule(config);
  const socket = { socketName: hostConfig.socketName, socketPath: hostConfig.socketPath };
  const controlDir = spec.destination === undefined
    ? undefined
    : controlDirPath(Deno.pid, Deno.env.get("TMPDIR"), index);
  const launcher = spec.destination === undefined || controlDir === undefined ? undefined : createSshLauncher(
    {
      destination: spec.destination,
      configFile: config.sshConfig,
      controlDir,
      connectTimeoutMs: config.connectTimeoutMs,
      ownSocket: spec.socketName !== undefined || spec.socketPath !== undefined,
    },
    hostConfig.tmuxBin,
    socket,
  );
  // sshd serves 10 sessions per connection (its MaxSessions), the master's and the control client's included.
  const bound = launcher ? Math.min(config.maxConcurrency, SSH_SPAWNS) : config.maxConcurrency;
  const tmux = createTmuxEngine({
    bin: hostConfig.tmuxBin,
    ...socket,
    maxConcurrency: bound,
    shared: several > 1 ? shared : undefined,
    controlMode: config.controlMode,
    connectTimeoutMs: config.connectTimeoutMs,
    launcher,
    scope: rule === undefined ? undefined : createSessionScope(rule, spec.name),
  });
  const terminal = createTerminalBackend(hostConfig, tmux);
  // A remote tmux server writes and reads files on its own host: buffers travel on the connection instead.
  const files = launcher ? undefined : createServerFileReader(tmux);
  const exec = createExecRuntime(tmux, hostConfig);
  return {
    config: hostConfig,
    tmux,
    buffers: createBufferStore(tmux, { files, tempFileThreshold: launcher ? Infinity : undefined }),
    terminal,
    exec,
    /** Registers this host's exit hooks: tmux closes last, once the others have ended. */
    register(atExit: Services["atExit"]) {
      atExit(async () => {
        await tmux.close();
        await files?.close();
        if (controlDir) await Deno.remove(controlDir, { recursive: true }).catch(() => {});
      }, true);
      // Kills the pty_* sessions this server created (the tmux backend keeps them with --keep-sessions).
      atExit(() => terminal.close());
      // Disarms the runs (their shells wait no more) while tmux is still there.
      atExit(() => exec.close());
    },
  };
}

/** Whether an error says the host (not the command) failed: worth showing in its state. */
function hostFailure(e: unknown): e is TmuxError {
  return e instanceof RemoteError || (e instanceof TmuxError && e.kind !== "failed" && e.kind !== "aborted");
}

/**
 * The hosts of `config` (this machine alone when it names none) and their router. The first host's services
 * are made at once: they are the server's own (budget buffers, sweeps); every other host's on its first call.
 */
export function createHosts(config: Config, shared: Shared): { first: Services; router: HostRouter } {
  const specs: HostSpec[] = config.hosts.length > 0 ? config.hosts : [{ name: LOCAL_HOST }];
  // Each host keeps one slot of --max-concurrency for itself (its engine's own): the rest are shared.
  const bound = new Semaphore(Math.max(1, config.maxConcurrency - specs.length));
  const made = new Map<string, Services>();
  const states = new Map<string, { last_error: string | null; last_error_at: string | null; used: boolean }>();
  for (const s of specs) states.set(s.name, { last_error: null, last_error_at: null, used: false });

  const router: HostRouter = {
    names: specs.map((s) => s.name),
    several: specs.length > 1,
    services(name) {
      const have = made.get(name);
      if (have) return have;
      const index = specs.findIndex((s) => s.name === name);
      if (index < 0) {
        throw new UserError(
          `no host is named "${name}": the hosts are ${specs.map((s) => s.name).join(", ")} ` +
            `(list {what: "hosts"})`,
        );
      }
      const h = hostServices(config, specs[index], index, specs.length, bound);
      h.register(shared.atExit);
      const services: Services = {
        config: h.config,
        tmux: h.tmux,
        buffers: h.buffers,
        terminal: h.terminal,
        exec: h.exec,
        regex: shared.regex,
        atExit: shared.atExit,
        hosts: router,
        host: name,
      };
      made.set(name, services);
      return services;
    },
    noteOutcome(name, error) {
      const st = states.get(name);
      if (!st) return;
      st.used = true;
      if (hostFailure(error)) {
        st.last_error = error.message;
        st.last_error_at = new Date().toISOString();
      }
    },
    async states(signal, deadline) {
      const ms = hostAnswerMs(deadline);
      return await Promise.all(specs.map(async (spec): Promise<HostState> => {
        const st = states.get(spec.name)!;
        const row: HostState = {
          host: spec.name,
          target: qualify(spec.name, ""),
          destination: spec.destination ?? null,
          default: spec === specs[0],
          connected: false,
          tmux_version: null,
          last_error: st.last_error,
          last_error_at: st.last_error_at,
        };
        try {
          // Bounded as a whole: a stalled host's login has a bound of its own (--connect-timeout-ms).
          const { tmux, config: own } = router.services(spec.name);
          const out = await answerWithin(
            spec.name,
            ms,
            signal,
            (own) => tmux.text(["-V"], { timeoutMs: ms, signal: own }),
            () => tmux.loggingIn === true,
          );
          row.connected = true;
          // A tmux installed under another name (tmux-next) prints that name: the version is what follows it.
          row.tmux_version = asTmuxVersion(out.trim(), own.tmuxBin).replace(/^tmux\s+/, "") || null;
        } catch (e) {
          router.noteOutcome(spec.name, e);
          row.last_error = e instanceof Error ? e.message : String(e);
          row.last_error_at = new Date().toISOString();
        }
        return row;
      }));
    },
  };
  return { first: router.services(specs[0].name), router };
}

/**
 * How long a listing of every host waits for each one: tmux's own bound of a command. A host that has not
 * answered by then is named in `unreachable` and its part of the call is cancelled; its own bounds (a login's
 * --connect-timeout-ms) would otherwise hold the whole listing.
 */
export const HOST_ANSWER_MS = 10_000;

/** The least {@linkcode hostAnswerMs} gives a host: less than the second after its budget a batch's inner call has. */
const HOST_ANSWER_MIN_MS = 500;

/**
 * How long a call that asks every host waits for each: {@linkcode HOST_ANSWER_MS}, or less when the call's budget
 * ends first (`deadline`, a performance.now() time) — else a stalled host's wait runs into the call's own cut, and
 * the whole answer is lost for it. At least {@linkcode HOST_ANSWER_MIN_MS}: a call is cut a moment after its budget
 * (lib/server/pipeline.ts), so a batch's late listing still gives its hosts that long.
 */
export function hostAnswerMs(deadline?: number): number {
  return deadline === undefined
    ? HOST_ANSWER_MS
    : Math.max(HOST_ANSWER_MIN_MS, Math.min(HOST_ANSWER_MS, Math.floor(deadline - performance.now())));
}

/**
 * Runs `fn` with a signal that follows `parent` and fires after `ms`: the answer, or an error saying that
 * `host` did not answer in time — because it still logs in (`loggingIn`: a slow login has a longer bound of its
 * own, and is no fault), or is down or stalled.
 */
export function answerWithin<T>(
  host: string,
  ms: number,
  parent: AbortSignal | undefined,
  fn: (signal: AbortSignal) => Promise<T>,
  loggingIn?: () => boolean,
): Promise<T> {
  const cut = pausableTimeout(ms);
  const s = Math.round(ms / 100) / 10;
  return cutAt(parent, cut.signal, fn, () =>
    new UserError(
      loggingIn?.()
        ? `host "${host}" is still logging in after ${s} s (its login may take up to ` +
          "--connect-timeout-ms): call again in a moment; calls to the other hosts are not held up"
        : `host "${host}" did not answer within ${s} s: it is down or stalled (list {what: "hosts"} ` +
          "shows its last error); calls to the other hosts are not held up",
    )).finally(cut.clear);
}
