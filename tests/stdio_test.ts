/**
 * The server's own stdin and stdout (lib/server/stdio.ts), as clients start
 * it: pipes (Deno and Python clients), socket pairs (Node clients) and one
 * socket both ways (inetd, socat) are polled on the event loop, so
 * non-blocking, from the first read and write after the first answered call
 * (a starting server answers on Deno's file route while `node:net` loads); a
 * pipe it shares with stderr (`2>&1`) and a file keep Deno's file route. Each
 * route carries requests and replies far larger than a pipe holds, whole.
 * Linux: the descriptor flags are read from /proc.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, type McpFixture, ROOT, START_PERMISSIONS, startTmux } from "./helpers.ts";
import { rawServer } from "./raw_stdio.ts";
import { waitUntil } from "./pane_helpers.ts";

const O_NONBLOCK = 0o4000;
const BIG = ["--max-tokens", "500000"];

/** Whether descriptor `fd` of process `pid` is non-blocking (its open file description's flags). */
async function nonBlocking(pid: number, fd: number): Promise<boolean> {
  const info = await Deno.readTextFile(`/proc/${pid}/fdinfo/${fd}`);
  const flags = /^flags:\s*([0-7]+)$/m.exec(info);
  assert(flags, `no flags in /proc/${pid}/fdinfo/${fd}: ${info}`);
  return (parseInt(flags[1], 8) & O_NONBLOCK) !== 0;
}

/** Calls until the server reads stdin and writes stdout on the event loop (after its first call, at the next read). */
async function polled(mcp: McpFixture, pid: number): Promise<void> {
  await waitUntil("stdin and stdout polled on the event loop", async () => {
    await mcp.ok("list-buffers", {});
    return (await nonBlocking(pid, 0) && await nonBlocking(pid, 1)) || undefined;
  }, 60_000);
}

/** 400 KiB of distinct lines: several pipe-fuls in each direction. */
const bigText = Array.from({ length: 8000 }, (_, i) => `line ${String(i).padStart(6, "0")} ${"x".repeat(38)}`)
  .join("\n");

/** A 400 KiB buffer written and read back through the server, and concurrent calls answered each to its own id. */
async function roundTrips(mcp: McpFixture): Promise<void> {
  await mcp.ok("set-buffer", { name: "big", content: bigText });
  const shown = await mcp.ok<{ text: string; size_bytes: number }>("show-buffer", { name: "big", max_bytes: 1 << 20 });
  assertEquals(shown.size_bytes, bigText.length);
  assert(shown.text === bigText, "the 400 KiB buffer came back changed");
  const names = Array.from({ length: 20 }, (_, i) => `b${i}`);
  await Promise.all(names.map((name, i) => mcp.ok("set-buffer", { name, content: bigText.slice(i * 1000) })));
  const slices = await Promise.all(
    names.map((name) => mcp.ok<{ text: string }>("show-buffer", { name, max_bytes: 1 << 20 })),
  );
  slices.forEach((s, i) => assert(s.text === bigText.slice(i * 1000), `buffer b${i} came back changed`));
}

Deno.test("stdio pipes are polled on the event loop (non-blocking) and carry 400 KiB each way whole", async () => {
  const tmux = await startTmux();
  const mcp = await connect({ socketName: tmux.socketName, args: BIG });
  try {
    await polled(mcp, mcp.pid);
    assert(await nonBlocking(mcp.pid, 0), "stdin pipe is still read on Deno's blocking file route");
    assert(await nonBlocking(mcp.pid, 1), "stdout pipe is still written on Deno's blocking file route");
    assert(!await nonBlocking(mcp.pid, 2), "stderr must stay blocking: log lines are written synchronously");
    await roundTrips(mcp);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

for (
  const [how, bridge] of [
    ["socket pairs as stdio (how Node clients start a server)", []],
    ["one socket as both stdin and stdout (as inetd and socat give it)", ["--one"]],
  ] as const
) {
  Deno.test(`${how}: polled, whole, and the client's end ends the server`, async () => {
    const tmux = await startTmux();
    const server = [Deno.execPath(), "run", ...START_PERMISSIONS, ROOT + "main.ts", "--socket-name", tmux.socketName];
    const mcp = await connect({
      spawn: ["python3", ROOT + "tests/fixtures/socketpair_bridge.py", ...bridge, ...server, ...BIG],
    });
    let pid = 0;
    try {
      pid = Number(/bridge: server pid (\d+)/.exec(await mcp.waitForStderr(/bridge: server pid \d+/))![1]);
      const link = await Deno.readLink(`/proc/${pid}/fd/0`);
      assertMatch(link, /^socket:/);
      const same = link === await Deno.readLink(`/proc/${pid}/fd/1`);
      assertEquals(same, bridge.length > 0, `stdin and stdout should be ${bridge.length ? "one socket" : "two"}`);
      await polled(mcp, pid);
      assert(await nonBlocking(pid, 0), "stdin socket is still read on Deno's blocking file route");
      assert(await nonBlocking(pid, 1), "stdout socket is still written on Deno's blocking file route");
      await roundTrips(mcp);
    } finally {
      await mcp.close();
      await tmux.kill();
    }
    // The client's end of input reaches the server as the socket's end: it exits.
    await waitUntil(`server ${pid} to exit`, async () => {
      try {
        return (await Deno.readTextFile(`/proc/${pid}/stat`)).includes(") Z ") || undefined; // exited, not reaped yet
      } catch {
        return true; // exited and reaped
      }
    }, 30_000);
  });
}

Deno.test("stdout shared with stderr (2>&1) stays blocking: replies and log lines both arrive, in their own lines", async () => {
  const tmux = await startTmux();
  const s = rawServer(tmux.socketName, [], ["sh", "-c", 'exec "$@" 2>&1', "sh"]);
  try {
    // The first line is the startup log line: stderr is our stdout now.
    assertMatch(await s.line(), /^tmux-mcp info: serving MCP on stdio/);
    await s.initialize();
    const calls = 30;
    for (let id = 1; id <= calls; id++) {
      await s.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "list", arguments: { what: "sessions" } },
      });
    }
    const answered = new Set<unknown>();
    let audited = 0;
    // Any log line may come between them (the sweep of what killed servers of other tests left, say).
    const logged = (line: string) => /^tmux-mcp (debug|info|warn|error): /.test(line);
    while (answered.size < calls || audited < calls) {
      const line = await s.line();
      if (line.startsWith("audit ")) audited++;
      else if (!logged(line)) answered.add((JSON.parse(line) as { id: unknown }).id);
    }
    assertEquals(answered.size, calls);
    assertEquals(audited, calls);
    // After the first call stdin moves to the event loop at its next read; stdout never does.
    let id = calls;
    await waitUntil("stdin polled on the event loop", async () => {
      await s.send({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "list-buffers", arguments: {} } });
      for (
        let line = await s.line();
        line.startsWith("audit ") || logged(line) || JSON.parse(line).id !== id;
        line = await s.line()
      );
      return await nonBlocking(s.child.pid, 0) || undefined;
    }, 60_000);
    assert(!await nonBlocking(s.child.pid, 1), "a stdout shared with stderr was made non-blocking");
    assertEquals((await s.stop()).code, 0);
  } finally {
    await tmux.kill();
  }
});

Deno.test("stdin from a file: every request in it answered, then the server exits", async () => {
  const tmux = await startTmux();
  const dir = await Deno.makeTempDir();
  const file = `${dir}/requests.jsonl`;
  const lines = [
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list", arguments: { what: "sessions" } } },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "set-buffer", arguments: { name: "f", content: bigText } },
    },
    {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "show-buffer", arguments: { name: "f", max_bytes: 1 << 20 } },
    },
  ];
  await Deno.writeTextFile(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const s = rawServer(tmux.socketName, BIG, ["sh", "-c", 'exec "$@" < "$0"', file]);
  try {
    const replies = new Map<unknown, Record<string, unknown>>();
    while (replies.size < 4) {
      const r = await s.next();
      replies.set(r.id, r);
    }
    const sessions = (replies.get(1)!.result as { structuredContent: { sessions: { session_name: string }[] } })
      .structuredContent.sessions;
    assertEquals(sessions.map((x) => x.session_name), ["main"]);
    assertEquals((replies.get(3)!.result as { structuredContent: { text: string } }).structuredContent.text, bigText);
    assertEquals((await s.child.status).code, 0);
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
