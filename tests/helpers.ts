/**
 * Test fixtures: a private tmux server on a unique `-L` socket (never the
 * user's default server) and the MCP server started the way users start it,
 * over stdio, driven by an SDK client of either protocol era: the v2 client
 * (`@modelcontextprotocol/client`) pinned to 2026-07-28 for the modern era,
 * the v1 client (`@modelcontextprotocol/sdk`, 2025) for the legacy one.
 * `TMUX_MCP_TEST_ERA` (modern, the default, or legacy) picks the era of
 * `connect()`; .ci/run runs the suite in both.
 */
import { Client as ClientJs } from "@modelcontextprotocol/sdk/client/index.js";
import type { Client as ClientTyped } from "@modelcontextprotocol/sdk/client/index";
import { StdioClientTransport as StdioClientTransportJs } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StdioClientTransport as StdioClientTransportTyped } from "@modelcontextprotocol/sdk/client/stdio";
import { ElicitRequestSchema as ElicitRequestSchemaJs } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitRequestSchema as ElicitRequestSchemaTyped } from "@modelcontextprotocol/sdk/types";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "../lib/sdk.ts";
import { checkResult, type ListedTool } from "./schema_check.ts";
import { waitUntil } from "./pane_helpers.ts";

// Typed like lib/sdk.ts did for the v1 SDK (its .js subpaths carry no types under Deno).
/** The test client's interface: the 2025 (v1) client's, which the modern one is adapted to (`connect`). */
export const Client: typeof ClientTyped = ClientJs;
const ElicitRequestSchema: typeof ElicitRequestSchemaTyped = ElicitRequestSchemaJs;
export type Client = ClientTyped;
const StdioClientTransport: typeof StdioClientTransportTyped = StdioClientTransportJs;

/**
 * How long a starting server may take to answer its first request (`server/discover` or `initialize`): the SDKs'
 * 60 s was exceeded at a load average of 300, where the v2 client then takes the server for a 2025-only one.
 */
const CONNECT_TIMEOUT_MS = 180_000;

/** A protocol era a test client speaks: 2026-07-28 (stateless, `server/discover`) or 2025 (`initialize`). */
export type Era = "modern" | "legacy";

/** The era `connect()` uses unless told: `TMUX_MCP_TEST_ERA`, modern by default. */
export const TEST_ERA: Era = (() => {
  const v = Deno.env.get("TMUX_MCP_TEST_ERA") || "modern";
  if (v !== "modern" && v !== "legacy") throw new Error(`TMUX_MCP_TEST_ERA is ${v}: use modern or legacy`);
  return v;
})();

/**
 * The v2 stdio transport, probing in place: the SDK sends its `server/discover` probe to a sibling process it
 * spawns for exactly its own class, and a subclass keeps the probe on the connection under test.
 */
class InPlaceStdioTransport extends ModernStdioTransport {}

/**
 * A v2 client behind the v1 client's interface, so tests read the same in both eras: `callTool(params,
 * resultSchema, options)` (v2 takes no schema), and `ping` as `server/discover` (2026-07-28 has no ping).
 */
function asLegacyShaped(client: ModernClient): Client {
  const adapted: Record<PropertyKey, unknown> = {
    callTool: (params: never, _schema: unknown, options: never) => client.callTool(params, options),
    ping: (options: never) => client.discover(options).then(() => ({})),
  };
  return new Proxy(client, {
    get(target, key) {
      if (key in adapted) return adapted[key];
      const v = Reflect.get(target, key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as unknown as Client;
}

export const ROOT = new URL("../", import.meta.url).pathname;

/**
 * The `start` task's flags between `deno run` and `main.ts` (its permission set, how modules load) in the checkout at
 * `root` (ending with "/"), with its deno.json named, as the task finds it, since some tests run scripts elsewhere.
 */
export function startFlags(root: string): string[] {
  const cfg = JSON.parse(Deno.readTextFileSync(root + "deno.json"));
  const words = (cfg.tasks.start as string).split(/\s+/);
  return ["--config", root + "deno.json", ...words.slice(words.indexOf("run") + 1, words.indexOf("main.ts"))];
}

/** This checkout's {@linkcode startFlags}, so tests run the server exactly as users do. */
export const START_PERMISSIONS: string[] = startFlags(ROOT);

let counter = 0;
const socketNames: string[] = [];

/**
 * A unique socket name for this call; its socket file is removed when the test module ends. `--parallel` runs
 * test modules in one process, each with its own `counter`: two modules starting in the same millisecond made the
 * same name (a fixture's `new-session` then failed with "duplicate session"), hence the random part.
 */
export function uniqueSocketName(label = "t"): string {
  const random = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
  const name = `tmcp-${label}-${Deno.pid}-${Date.now().toString(36)}-${random}-${counter++}`;
  socketNames.push(name);
  return name;
}

/** Where tmux puts the socket of `-L name`. */
export function socketPathOf(name: string): string {
  return `${Deno.env.get("TMUX_TMPDIR") || "/tmp"}/tmux-${Deno.uid()}/${name}`;
}

/** Removes the socket file of `-L name` (tmux 3.3a leaves it after kill-server). */
export function removeSocket(name: string): void {
  try {
    Deno.removeSync(socketPathOf(name));
  } catch {
    // never created, or already gone
  }
}

/**
 * Ends a test's tmux server, its clients first (SIGTERM): tmux (3.3a, up to 3.7c) cannot finish `kill-server` while it
 * owes a control client output that can no longer be written (a failed test's leftover, lib/tmux/launcher.ts), and its
 * server process would stay.
 */
export async function endTmux(tmux: (...args: string[]) => Promise<string>): Promise<void> {
  const pids = await tmux("list-clients", "-F", "#{client_pid}").catch(() => "");
  for (const pid of pids.split("\n").filter(Boolean)) {
    try {
      Deno.kill(Number(pid), "SIGTERM");
    } catch {
      // gone already
    }
  }
  await tmux("kill-server").catch(() => {});
}

// Whatever a test left (a server started through the MCP server, a failed
// teardown) or a bench that failed half-way (an uncaught error ends the
// process without "unload"): end its server, then remove its socket file.
function endLeftServers(): void {
  for (const name of socketNames) {
    try {
      Deno.lstatSync(socketPathOf(name));
    } catch {
      continue;
    }
    new Deno.Command("tmux", { args: ["-L", name, "kill-server"], stdout: "null", stderr: "null" }).outputSync();
    removeSocket(name);
  }
}
for (const event of ["unload", "error", "unhandledrejection"]) globalThis.addEventListener(event, endLeftServers);

export interface TmuxFixture {
  socketName: string;
  /** Runs tmux on the fixture's socket and returns stdout (throws on failure). */
  tmux(...args: string[]): Promise<string>;
  /** Runs tmux with stdin bytes. */
  tmuxStdin(stdin: Uint8Array, ...args: string[]): Promise<string>;
  kill(): Promise<void>;
}

/**
 * The HOME of test tmux servers, and so of their shells: an empty directory, so no user's shell startup files
 * (this image's root `.bashrc` runs `pyenv init`, whose rehash lock can hold every bash start for a minute) run in
 * test panes.
 */
export const CLEAN_HOME: string = (() => {
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/tmux-mcp-test-home`;
  // Keeps fish from indexing every man page on its first start in this HOME (see quietHome in pane_helpers.ts).
  Deno.mkdirSync(`${dir}/.local/share/fish/generated_completions`, { recursive: true });
  return dir;
})();

/** Runs a tmux client on the test server `socketName` (with stdin bytes when given); throws with its stderr on failure. */
export async function runTmux(socketName: string, args: string[], stdin?: Uint8Array): Promise<string> {
  const child = new Deno.Command("tmux", {
    args: ["-u", "-L", socketName, ...args], // -u as the executor: UTF-8 even without a UTF-8 locale
    // The server a first client starts inherits its environment: its panes start with a clean HOME.
    env: { HOME: CLEAN_HOME },
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`tmux ${args.join(" ")}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout);
}

/** A stand-in for the tmux binary: a bash script with `body`, in a fresh directory (remove `dir` afterwards). */
export async function fakeTmux(body: string): Promise<{ path: string; dir: string }> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/fake-tmux`;
  await Deno.writeTextFile(path, `#!/usr/bin/env bash\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return { path, dir };
}

/** Starts a tmux server with one detached session `main` on a unique socket. */
export async function startTmux(label?: string): Promise<TmuxFixture> {
  const socketName = uniqueSocketName(label);
  await runTmux(socketName, ["-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40"]);
  return {
    socketName,
    tmux: (...args) => runTmux(socketName, args),
    tmuxStdin: (stdin, ...args) => runTmux(socketName, args, stdin),
    kill: async () => {
      await endTmux((...args) => runTmux(socketName, args));
      removeSocket(socketName);
    },
  };
}

export interface McpFixture {
  /** The SDK client, with the v1 (2025) client's interface in either era. */
  client: Client;
  /** The protocol era the client speaks. */
  era: Era;
  /** Calls a tool; returns the raw result (errors are results, not throws). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool and returns its structured content, failing on isError. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Calls a tool and returns its error text, failing if it succeeded. */
  err(name: string, args?: Record<string, unknown>): Promise<string>;
  /** The server's process id (for tests that kill it). */
  pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Waits (up to 10 s) until stderr matches; returns stderr. Audit lines are written asynchronously. */
  waitForStderr(pattern: RegExp): Promise<string>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  socketName?: string;
  args?: string[];
  env?: Record<string, string>;
  /**
   * Spawn this argv instead of `main.ts` (socketName and args then unused): e.g. a relay to a server
   * that runs inside a tmux pane.
   */
  spawn?: string[];
  /** The client's capabilities (e.g. `{ elicitation: { form: {}, url: {} } }`). */
  capabilities?: ConstructorParameters<typeof Client>[1] extends infer O ? O extends { capabilities?: infer C } ? C
    : never
    : never;
  /**
   * Answers the server's elicitation requests, in both eras: `elicitation/create` (2025) or the requests of an
   * input-required result, which the v2 client fulfils through the same handler and retries the call (2026).
   */
  elicit?: (params: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;
  /** The client's protocol era (default {@linkcode TEST_ERA}). */
  era?: Era;
  /** The folder the server is started in, as a client starts it in its project (default: this process's). */
  cwd?: string;
}

/** Starts `main.ts` with the start task's permissions and connects an SDK client of `era` over stdio. */
export async function connect(opts: ConnectOptions = {}): Promise<McpFixture> {
  const args = ["run", ...START_PERMISSIONS, ROOT + "main.ts"];
  if (opts.socketName) args.push("--socket-name", opts.socketName);
  args.push(...(opts.args ?? []));
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/tmp" };
  // TMUX_MCP_CONTROL_MODE: .ci/run runs part of the suite a second time with control mode off.
  for (const k of ["DENO_DIR", "TMPDIR", "LANG", "TMUX_MCP_CONTROL_MODE"]) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  Object.assign(env, opts.env ?? {});
  const [command, ...argv] = opts.spawn ?? [Deno.execPath(), ...args];
  const era = opts.era ?? TEST_ERA;
  const params = { command, args: argv, env, stderr: "pipe" as const, ...(opts.cwd ? { cwd: opts.cwd } : {}) };
  let stderr = "";
  const dec = new TextDecoder();
  const info = { name: "tmux-mcp-tests", version: "0.0.0" };
  let client: Client;
  let pid: number | null | undefined;
  if (era === "modern") {
    const transport = new InPlaceStdioTransport(params);
    transport.stderr?.on("data", (d: Uint8Array) => stderr += dec.decode(d));
    const modern = new ModernClient(info, {
      ...(opts.capabilities ? { capabilities: opts.capabilities as never } : {}),
      versionNegotiation: { mode: { pin: "2026-07-28" }, probe: { timeoutMs: CONNECT_TIMEOUT_MS } },
    });
    const elicit = opts.elicit;
    if (elicit) {
      modern.setRequestHandler(
        "elicitation/create",
        (req, ctx) => elicit(req.params as Record<string, unknown>, ctx.mcpReq.signal) as never,
      );
    }
    await modern.connect(transport);
    client = asLegacyShaped(modern);
    pid = transport.pid;
  } else {
    const transport = new StdioClientTransport(params);
    transport.stderr?.on("data", (d: Uint8Array) => stderr += dec.decode(d));
    client = new Client(info, opts.capabilities ? { capabilities: opts.capabilities } : undefined);
    const elicit = opts.elicit;
    if (elicit) {
      client.setRequestHandler(
        ElicitRequestSchema,
        (req, extra) => elicit(req.params as Record<string, unknown>, extra.signal) as never,
      );
    }
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    pid = transport.pid;
  }
  // Every result is checked strictly against the output schema this server advertises (tests/schema_check.ts).
  let listed: Promise<Map<string, ListedTool>> | undefined;
  const call = async (name: string, a: Record<string, unknown> = {}) => {
    const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 120_000 }) as CallToolResult;
    if (!r.isError && r.structuredContent) {
      listed ??= client.listTools().then((l) => new Map(l.tools.map((t) => [t.name, t as ListedTool])));
      checkResult((await listed).get(name), r.structuredContent);
    }
    return r;
  };
  return {
    client,
    call,
    async ok<T>(name: string, a: Record<string, unknown> = {}) {
      const r = await call(name, a);
      if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
      return r.structuredContent as T;
    },
    async err(name: string, a: Record<string, unknown> = {}) {
      const r = await call(name, a);
      if (!r.isError) throw new Error(`${name} unexpectedly succeeded: ${textOf(r).slice(0, 500)}`);
      return textOf(r);
    },
    era,
    pid: pid ?? -1,
    stderr: () => stderr,
    waitForStderr: (pattern: RegExp) =>
      waitUntil(`stderr to match ${pattern}`, () => Promise.resolve(pattern.test(stderr) ? stderr : ""), 10_000),
    close: () => client.close(),
  };
}

/** The concatenated text blocks of a result. */
export function textOf(r: CallToolResult): string {
  return r.content.map((c: CallToolResult["content"][number]) => c.type === "text" ? c.text : "").join("\n");
}

/** A tmux server plus a connected MCP server, torn down together. */
export async function withServer(
  fn: (mcp: McpFixture, tmux: TmuxFixture) => Promise<void>,
  opts: Omit<ConnectOptions, "socketName"> = {},
): Promise<void> {
  const tmux = await startTmux();
  const mcp = await connect({ ...opts, socketName: tmux.socketName });
  try {
    await fn(mcp, tmux);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
}

/** Output of a finished subprocess, decoded. */
export interface ProcessOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `cmd args` to completion (stdin closed) and returns its exit code and decoded output; `env` adds to this
 * process's environment, or replaces it with `clearEnv`.
 */
export async function runProcess(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; clearEnv?: boolean } = {},
): Promise<ProcessOutput> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    clearEnv: opts.clearEnv,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * Runs the server's main.ts (as the start task runs it) with `args`, where folder `dir` takes no new file: for root,
 * who writes through a folder's modes, in a mount namespace of its own with `dir` bind-mounted read-only. Undefined
 * where unshare is not allowed (a test then skips that case); a user's case is a chmod, which needs none of this.
 */
export async function runWithReadOnlyDir(
  dir: string,
  args: string[],
  opts: { env?: Record<string, string>; clearEnv?: boolean } = {},
): Promise<ProcessOutput | undefined> {
  const probe = await runProcess("unshare", ["-m", "true"], opts).catch(() => undefined);
  if (probe?.code !== 0) return undefined;
  return await runProcess("unshare", [
    "-m",
    "sh",
    "-c",
    `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`,
    "sh",
    dir,
    Deno.execPath(),
    ...["run", ...START_PERMISSIONS, ROOT + "main.ts", ...args],
  ], opts);
}
