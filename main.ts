/**
 * tmux-mcp: an MCP server (stdio) that lets AI agents drive tmux.
 *
 * Without a subcommand it serves MCP on stdin/stdout; stdout carries
 * JSON-RPC only, everything else goes to stderr. See `--help`.
 */
import { type Config, helpText, parseCommand, UsageError } from "./lib/config.ts";
import { log, writeStderr } from "./lib/log.ts";
import type { App } from "./lib/server/server.ts";
import { type Core, createCore } from "./lib/server/core.ts";
import { createFront } from "./lib/server/front.ts";
import { createEarlyCalls } from "./lib/server/early.ts";
import { terminalStartupError } from "./lib/terminal/mod.ts";
import { type DirectHandler, LinearStdioTransport } from "./lib/server/transport.ts";
import { useEventLoop } from "./lib/server/stdio.ts";
import { startMemoryReducer } from "./lib/server/memory.ts";
import { settledWithin } from "./lib/settle.ts";
import { enterStartFolder, removeOwnTempFiles } from "./lib/host/process.ts";
import { signalIgnored } from "./lib/terminal/pty/ffi.ts";
import { VERSION } from "./lib/version.ts";

/** Longest time cleanup may take once the client has gone. */
const CLOSE_BOUND_MS = 10_000;
/** Longest time the calls in flight at SIGTERM/SIGINT/SIGHUP/SIGQUIT may take to answer with their cancellation. */
const CANCEL_BOUND_MS = 5_000;
/** The signals that end the server cleanly, with their numbers (the same on Linux and macOS). */
const ENDING_SIGNALS = [["SIGHUP", 1], ["SIGINT", 2], ["SIGQUIT", 3], ["SIGTERM", 15]] as const;

function usageFailure(e: unknown): number {
  if (e instanceof UsageError) {
    writeStderr(`tmux-mcp: ${e.message} (see --help)\n`);
    return 2;
  }
  throw e;
}

async function main(): Promise<number> {
  enterStartFolder();
  let command;
  try {
    command = parseCommand(Deno.args, Deno.env.toObject());
  } catch (e) {
    return usageFailure(e);
  }
  if (command.kind === "help") {
    console.log(helpText(VERSION));
    return 0;
  }
  if (command.kind === "version") {
    console.log(`tmux-mcp ${VERSION}`);
    return 0;
  }
  if (command.kind === "doctor" && command.install) {
    const { runInstall, unknownClient } = await import("./lib/doctor/install.ts");
    // A misspelt client is a bad value, as a bad flag is: the usage error's exit code, not a failed check's.
    const misspelt = unknownClient(command.install.client);
    if (misspelt) return usageFailure(new UsageError(misspelt));
    // A client given a server that stops at start shows only "failed to start": say why here, and write nothing.
    const problem = await (await import("./lib/doctor/mod.ts")).startProblem(command.config);
    if (problem) {
      console.log(`tmux-mcp doctor: not installed, the server would not start with these flags: ${problem}`);
      return 1;
    }
    const { lines, ok } = await runInstall({ ...command.install, flags: command.args });
    console.log(lines.join("\n"));
    return ok ? 0 : 1;
  }
  if (command.kind === "doctor") {
    // Imported here: it loads every tool (for the --config check), which serving does lazily.
    const { runDoctor } = await import("./lib/doctor/mod.ts");
    const { lines, ok } = await runDoctor(command.config, command.args);
    console.log(lines.join("\n"));
    return ok ? 0 : 1;
  }

  // stdout is the JSON-RPC channel from here on: whatever a dependency logs
  // (xterm.js logs through console.info, for one) goes to stderr instead.
  console.log = console.info = console.debug = console.error;

  return await serve(command.config);
}

/**
 * Serves MCP on stdio until the client goes. The SDK, zod and the tool modules load while the client's
 * handshake is answered without them (lib/server/front.ts) and its first calls through the pipeline
 * (lib/server/early.ts); the SDK is loaded once a message needs it or the first call is answered, and then sees
 * every message in the order read but those early calls (lib/server/transport.ts).
 */
async function serve(config: Config): Promise<number> {
  // Asked before any signal listener: Deno's first one sets SIGHUP back to its default action, even under nohup,
  // and a listener catches a signal the server was started with ignored (SIGINT for a job a shell starts in the
  // background, `nohup`'s SIGHUP).
  const ignoredAtStart = new Set(ENDING_SIGNALS.filter(([, n]) => signalIgnored(n)).map(([name]) => name));
  let app: Promise<App> | undefined;
  let core: Core;
  try {
    // reads and checks the --config file; after the first call: the socket route of stdio, then the SDK
    core = await createCore(config, undefined, () => void useEventLoop().then(loadSdk));
  } catch (e) {
    return usageFailure(e);
  }
  const backendProblem = await terminalStartupError(config, core.services.tmux);
  if (backendProblem) {
    writeStderr(`tmux-mcp: ${backendProblem}\n`);
    await core.close();
    return 2;
  }
  // The probe of the tmux binary runs beside the module loading, not in front of the first call.
  core.services.tmux.warm();
  const front = createFront(config);
  const early = createEarlyCalls(core, front, () => loadSdk().then((a) => a.legacyServer()), (m) => transport.send(m));
  let sdkDirect: ((method: string) => DirectHandler | undefined) | undefined;
  let sdkPinned: (() => boolean) | undefined;
  const transport = new LinearStdioTransport({
    maxMessageBytes: config.maxMessageBytes,
    onWarning: (message, fields) => log("warn", message, fields),
    // End of stdin: the requests already read are answered first, each bounded by its own timeout.
    drainMs: config.maxWaitMs + CLOSE_BOUND_MS,
    early: (json) => {
      const answer = front.early(json);
      // The handshake is answered (initialized, or a first 2026 request): leftovers are swept in the
      // background once the first call is answered, or soon if none comes (Core.sweep). The SDK loads once the first call is answered, in both eras (loading blocks the event
      // loop: not while the handshake or that call waits), or once a message needs it.
      if (answer === "taken" || (answer !== undefined && !front.handshake)) setTimeout(core.sweep, 0);
      // Once the tool list is answered, what every call needs (the pipeline, the budgets)
      // loads while the client has nothing to wait for (a model deciding on its first call): not sooner, as it
      // would hold up that answer.
      if (answer !== undefined && answer !== "taken" && (json as { method?: unknown }).method === "tools/list") {
        setTimeout(core.prepare, 0);
      }
      return answer;
    },
    direct: (method) => sdkDirect?.(method) ?? early.direct(method),
    // Once the SDK has pinned the connection to 2026, its calls of the plain shape still skip the SDK's dispatch.
    earlyCall: (json) => early.modern(json, sdkPinned?.()),
    onWaiting: () => void loadSdk(),
  });
  const done = Promise.withResolvers<number>();
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    // Before the SDK's close aborts what it still tracks: the calls still running end as stopped by the server.
    core.calls.stop("its client is gone");
    // The client is gone (or asked us to stop): exit whatever calls are still running. Cleanup
    // gets a bounded time, so a hung tmux or a busy handler cannot keep the process alive.
    const cleaned = (app ? app.then((a) => a.close(), () => core.close()) : core.close())
      .catch((e) => log("warn", `cleanup failed: ${e}`));
    if (!await settledWithin(cleaned, CLOSE_BOUND_MS)) {
      // Our temp files need no tmux: removed now, not left for a later server's sweep.
      log("warn", `cleanup did not finish within ${CLOSE_BOUND_MS / 1000} s; exiting anyway`);
      const removed = removeOwnTempFiles();
      if (removed.length > 0) log("info", `removed this server's temp files: ${removed.join(", ")}`);
    }
    done.resolve(code);
  };
  /** The SDK, loaded once (see the function's documentation); it then serves the transport. */
  function loadSdk(): Promise<App> {
    return app ??= import("./lib/server/server.ts").then(async ({ createApp }) => {
      const a = await createApp(config, undefined, core);
      if (closing) return a;
      sdkDirect = a.direct;
      sdkPinned = a.modernPinned;
      transport.configure({ parse: a.parse, refuse: a.refuse });
      a.serve(transport);
      // serve() replaced onclose with the SDK's; ours runs first (see shutdown), then the SDK's.
      const sdkOnClose = transport.onclose;
      transport.onclose = () => {
        void shutdown(0);
        sdkOnClose?.();
      };
      return a;
    }).catch((e) => {
      log("error", `the MCP SDK could not be loaded: ${e instanceof Error ? e.message : String(e)}`);
      void shutdown(1);
      throw e;
    });
  }
  transport.onclose = () => void shutdown(0);
  // A signal ends the calls in flight, each answering with a one-line error, then the server exits
  // cleanly; a second signal does not wait for those answers.
  let signalled = false;
  const onSignal = async (sig: Deno.Signal) => {
    if (signalled) return void shutdown(0);
    signalled = true;
    core.calls.stop(sig);
    if (app) (await app.catch(() => undefined))?.stopCalls(sig);
    await transport.settled(AbortSignal.timeout(CANCEL_BOUND_MS));
    await transport.close(); // → shutdown
    void shutdown(0); // when the transport was not started yet
  };
  // SIGHUP: the terminal the client runs in closed (its foreground process group, us included, gets it); SIGQUIT:
  // Ctrl-\ there. Their default actions ended us without cleanup (a pty session's job that ignores SIGHUP outlived
  // us): the same clean end as SIGTERM. A signal the server was started with ignored (nohup's SIGHUP, the SIGINT of a job a
  // shell starts in the background) stays ignored: its listener does nothing.
  for (const [sig] of ENDING_SIGNALS) {
    Deno.addSignalListener(sig, ignoredAtStart.has(sig) ? () => {} : () => void onSignal(sig));
  }
  transport.listen();
  log("info", `serving MCP on stdio (tmux-mcp ${VERSION})`);
  const reducer = startMemoryReducer(); // see lib/server/memory.ts: RSS over thousands of calls
  const code = await done.promise;
  reducer.stop();
  return code;
}

if (import.meta.main) {
  Deno.exit(await main());
}
