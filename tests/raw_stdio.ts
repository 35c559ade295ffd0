/**
 * The server over raw stdio, without the SDK client: for tests of what the
 * transport does with messages the SDK would never send.
 *
 * @example
 * ```ts
 * declare const socketName: string; // a test server's (`startTmux`)
 * const s = rawServer(socketName);
 * await s.initialize();
 * await s.sendRaw('{"jsonrpc":"1.0","id":1,"method":"ping"}');
 * (await s.next()).id; // 1
 * ```
 */
import { assertEquals } from "./assert.ts";
import { ROOT, START_PERMISSIONS } from "./helpers.ts";

const enc = new TextEncoder();

/** The 2026-07-28 revision: no `initialize`; every request names it in its `_meta` envelope. */
export const MODERN = "2026-07-28";

/** The `_meta` envelope of a 2026-07-28 request (`extra` adds keys or replaces them). */
export function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  };
}

/**
 * Resolves with the exit status, or undefined if the process is still running after `ms` (use generous bounds:
 * the machine may be busy).
 */
export async function exitWithin(child: Deno.ChildProcess, ms: number): Promise<Deno.CommandStatus | undefined> {
  const timer = AbortSignal.timeout(ms);
  const late = new Promise<undefined>((r) => timer.addEventListener("abort", () => r(undefined), { once: true }));
  return await Promise.race([child.status, late]);
}

/**
 * Starts main.ts on the tmux socket `socketName` with extra flags; lines in, JSON objects out. `wrap`: a
 * command that runs the server's argv (appended to it), e.g. `["sh", "-c", 'exec "$@" 2>&1', "sh"]`.
 */
export function rawServer(socketName: string, extra: string[] = [], wrap: string[] = []) {
  const argv = [Deno.execPath(), "run", ...START_PERMISSIONS, ROOT + "main.ts", "--socket-name", socketName, ...extra];
  const [command, ...args] = [...wrap, ...argv];
  const child = new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const send = (m: unknown) => writer.write(enc.encode(JSON.stringify(m) + "\n"));
  return {
    child,
    /** Everything the server wrote to stderr, once it has exited. */
    stderr,
    writer,
    reader,
    sendRaw: (line: string) => writer.write(enc.encode(line + "\n")),
    send,
    /** The next line the server wrote, parsed. */
    async next(): Promise<Record<string, unknown>> {
      return JSON.parse(await this.line());
    },
    /** The next line the server wrote, as text. */
    async line(): Promise<string> {
      while (!pending.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("server closed stdout");
        pending += value;
      }
      const i = pending.indexOf("\n");
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      return line;
    },
    /** The 2025 handshake (`protocolVersion`: the revision asked for); resolves with its result. */
    async initialize(protocolVersion = "2025-06-18"): Promise<Record<string, unknown>> {
      await send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "0" } },
      });
      const reply = await this.next();
      assertEquals(reply.id, 0);
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
      return reply;
    },
    /**
     * A 2026-07-28 request (`params._meta` is the {@linkcode envelope} unless `params` has its own); resolves
     * with the whole reply.
     */
    async modern(id: number, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
      await send({ jsonrpc: "2.0", id, method, params: { _meta: envelope(), ...params } });
      const reply = await this.next();
      assertEquals(reply.id, id);
      return reply;
    },
    /** Closes stdin and stdout; resolves with the exit status. */
    async stop(): Promise<Deno.CommandStatus> {
      await writer.close().catch(() => {});
      await reader.cancel().catch(() => {});
      return await child.status;
    },
  };
}
