/**
 * Hostile protocol and lifetime cases over raw stdio and the SDK client:
 * invalid JSON-RPC requests are answered with their id, a server whose
 * client has gone (both pipes closed) exits even mid-call (a client that
 * only closed stdin gets its answers first: tests/server_exit_test.ts), and forged capture-since cursors are
 * refused or bounded without spinning the main thread.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, startTmux, textOf } from "./helpers.ts";
import { exitWithin, rawServer } from "./raw_stdio.ts";
import { decodeCursor, encodeCursor } from "../lib/exec/cursor.ts";

Deno.test("JSON-RPC: invalid requests are answered with their id whenever it can be read", async () => {
  const tmux = await startTmux("rpc");
  const s = rawServer(tmux.socketName);
  try {
    await s.initialize();
    const cases: Array<[string, unknown]> = [
      [JSON.stringify({ jsonrpc: "1.0", id: 11, method: "ping" }), 11],
      [JSON.stringify({ jsonrpc: "3", id: "abc", method: "tools/list" }), "abc"],
      [JSON.stringify({ id: 12, method: "ping" }), 12],
      [JSON.stringify({ jsonrpc: "2.0", id: 13, method: 7 }), 13],
      [JSON.stringify({ jsonrpc: "2.0", method: "ping", id: 14, params: "not-an-object" }), 14],
      [JSON.stringify({ jsonrpc: "2.0", id: { nested: 1 }, method: "ping" }), null],
      [JSON.stringify([{ jsonrpc: "2.0", id: 15, method: "ping" }]), null],
      ['{"jsonrpc":"2.0","id":16,"method":"ping"', 16],
    ];
    for (const [line, id] of cases) {
      await s.sendRaw(line);
      const answer = await s.next();
      assertEquals(answer.id, id, line);
      assertEquals(typeof (answer.error as { code: number }).code, "number", line);
    }
    await s.send({ jsonrpc: "2.0", id: 20, method: "ping" });
    assertEquals((await s.next()).id, 20, "still serving");
  } finally {
    await s.stop();
    await tmux.kill();
  }
});

Deno.test("JSON-RPC: a tools/call without a name or with non-object arguments, and an unknown method, get one-line errors", async () => {
  const tmux = await startTmux("rpc-call");
  const s = rawServer(tmux.socketName);
  try {
    await s.initialize();
    const cases: Array<[unknown, number]> = [
      [{ arguments: {} }, -32602],
      [{ name: 7 }, -32602],
      [{ name: "list", arguments: "what=sessions" }, -32602],
      [{ name: "list", arguments: null }, -32602],
    ];
    let id = 30;
    for (const [params, code] of cases) {
      await s.send({ jsonrpc: "2.0", id: ++id, method: "tools/call", params });
      const answer = await s.next();
      assertEquals(answer.id, id, JSON.stringify(params));
      const error = answer.error as { code: number; message: string };
      assertEquals(error.code, code, JSON.stringify(params));
      assertMatch(error.message, /^[^\n]*params\.name \(a tool name string\) and params\.arguments/);
    }
    await s.send({ jsonrpc: "2.0", id: 40, method: "tools/frobnicate", params: {} });
    const unknown = await s.next();
    assertEquals(unknown.id, 40);
    assertEquals(unknown.error, {
      code: -32601,
      message: 'Method not found: this server does not serve "tools/frobnicate" on this connection; the ' +
        "capabilities in its initialize (or server/discover) answer say what it serves",
    });
    // Arguments left out are an empty object: the call goes through.
    await s.send({ jsonrpc: "2.0", id: 41, method: "tools/call", params: { name: "list-sessions" } });
    const moved = await s.next();
    assertEquals(moved.id, 41);
    assertMatch(JSON.stringify(moved.result), /it is now list/);
  } finally {
    await s.stop();
    await tmux.kill();
  }
});

Deno.test("a server whose client has gone exits, even while a call is running", async () => {
  const tmux = await startTmux("gone");
  const s = rawServer(tmux.socketName);
  try {
    await s.initialize();
    // A wait that would last two minutes (reporting progress), then the client goes away: both pipes close.
    await s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "wait",
        arguments: { what: "text", patterns: ["never-printed-xyzzy"], timeout_ms: 120_000 },
        _meta: { progressToken: 1 },
      },
    });
    assertEquals((await s.next()).method, "notifications/progress");
    await s.writer.close();
    await s.reader.cancel();
    // Its next progress notification finds nobody reading: no answer can be delivered any more.
    const status = await exitWithin(s.child, 60_000);
    if (status === undefined) s.child.kill("SIGKILL");
    assert(status !== undefined, "the server exited after its client left");
    assertEquals(status.code, 0);
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
  }
});

Deno.test("forged capture-since cursors are refused or bounded, and the server keeps answering", async () => {
  const tmux = await startTmux("cursor");
  const mcp = await connect({ socketName: tmux.socketName });
  try {
    const first = await mcp.ok<{ cursor: string; pane_id: string }>("capture-since", {});
    const pane = first.pane_id;
    const pid = decodeCursor(first.cursor).pid;
    const pos = { x: 0, above: "", head: "", hs: 0 };
    const forged = (row: number, extra: Record<string, unknown> = {}) =>
      "tmc1." + btoa(JSON.stringify({ p: pane, q: pid, r: row, x: 0, a: "", b: "", h: 0, ...extra }))
        .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    for (
      const cursor of [
        forged(1e11),
        forged(2 ** 53 - 1),
        forged(-1),
        forged(1.5),
        forged(0, { h: 1e15 }),
        forged(0, { x: 1e9 }),
        forged(0, { p: "%1;kill-server" }),
        "tmc1." + btoa('{"p":"%0","q":null,"r":"NaN","x":0,"a":"","b":"","h":0}'),
        "tmc1.!!!",
        "tmc1.",
        encodeCursor({ pane: "%99999", pid: null, pos: { row: 0, ...pos } }) + "x",
      ]
    ) {
      assertMatch(await mcp.err("capture-since", { cursor }), /cursor is not one that capture-since returned/, cursor);
    }
    // The largest row a cursor may carry: beyond the pane's rows, so it is lost, and the read says so.
    const far = await mcp.call("capture-since", { cursor: forged(2 ** 32) });
    assert(!far.isError, textOf(far));
    assertEquals((far.structuredContent as { lines_missed: boolean }).lines_missed, true);
    // A cursor for another pane that does not exist.
    assertMatch(
      await mcp.err("capture-since", { cursor: forged(0, { p: "%99999" }) }),
      /no longer exists/,
    );
    assertEquals((await mcp.ok<{ buffers: unknown[] }>("list-buffers")).buffers, [], "still answering");
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("a tier: a tool's former name is refused as the tool is, in one line that says what to change", async () => {
  const tmux = await startTmux("formertier");
  const mcp = await connect({
    socketName: tmux.socketName,
    args: ["--safety", "readonly", "--toolsets", "workspace,exec"],
  });
  try {
    assertEquals(
      await mcp.err("kill-session", { target: "main" }),
      'unknown tool "kill-session": it is now kill with what: "session", and tool kill is destructive; this server ' +
        "runs with --safety readonly: ask the user to restart it with --safety destructive to allow such tools",
    );
    assertMatch(
      await mcp.err("new-window", {}),
      /^unknown tool "new-window": it is now new with what: "window", and tool new is mutating; .* --safety mutating /,
    );
    assertMatch(
      await mcp.err("pty_launch", { command: "true" }),
      /it is now pty-launch, and tool pty-launch belongs to the "pty" toolset/,
    );
    // A served tool's former name still only says what it is now.
    assertMatch(
      await mcp.err("list-panes", {}),
      /^unknown tool "list-panes": it is now list with what: "panes"\. call/,
    );
    // The audit line (an unknown name is fingerprinted there: it may hold a secret) says refused, not invalid.
    await mcp.waitForStderr(
      /"tool":"unknown tool [^\n]*","outcome":"refused",[^\n]*it is now kill with what/,
    );
    assertEquals(await tmux.tmux("list-sessions", "-F", "#{session_name}"), "main\n");
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});
