/**
 * Both protocol eras over stdio: the 2026-07-28 one (`server/discover`, no
 * `initialize`, a `_meta` envelope on every request, `resultType`, cache
 * hints, the 2026 error codes) and the 2025 one (`initialize`, 2025-06-18 and
 * 2025-11-25), each connection locked to the era it opened with. Raw JSON-RPC
 * lines (tests/raw_stdio.ts) for what an SDK client would never send, and both
 * SDK clients for the rest.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, startTmux, type TmuxFixture } from "./helpers.ts";
import { envelope, MODERN, rawServer } from "./raw_stdio.ts";

type Reply = Record<string, unknown>;
type Json = Record<string, unknown>;

const resultOf = (r: Reply) => {
  assert(r.result, `expected a result, got ${JSON.stringify(r).slice(0, 400)}`);
  return r.result as Json;
};
const errorOf = (r: Reply) => {
  assert(r.error, `expected an error, got ${JSON.stringify(r).slice(0, 400)}`);
  return r.error as { code: number; message: string; data?: Json };
};

/** A raw server on a fresh tmux server, stopped afterwards. */
async function withRaw(fn: (s: ReturnType<typeof rawServer>, tmux: TmuxFixture) => Promise<void>): Promise<void> {
  const tmux = await startTmux();
  const s = rawServer(tmux.socketName);
  try {
    await fn(s, tmux);
  } finally {
    await s.stop();
    await s.stderr;
    await tmux.kill();
  }
}

/** A 2026-era cache hint: a lifetime a client may keep the result for, and who may keep it. */
function assertCacheHint(result: Json): void {
  assert(typeof result.ttlMs === "number" && result.ttlMs > 0, `ttlMs: ${result.ttlMs}`);
  assertEquals(result.cacheScope, "private");
}

Deno.test("server/discover over raw stdio: the 2026 revision, capabilities, server info, instructions, a cache hint; initialize still follows", async () => {
  await withRaw(async (s) => {
    const discover = resultOf(await s.modern(1, "server/discover"));
    assertEquals(discover.supportedVersions, [MODERN]);
    assertEquals(discover.resultType, "complete");
    assert((discover.capabilities as Json).tools, "tools capability");
    assert((discover.capabilities as Json).resources && (discover.capabilities as Json).prompts);
    // No list_changed notification is ever sent (tools and prompts are fixed for a run; resources are re-read):
    // none is promised, in either era.
    const promises = (caps: unknown) =>
      ["tools", "resources", "prompts"].map((k) => ((caps as Json)[k] as Json).listChanged);
    assertEquals(promises(discover.capabilities), [false, false, false]);
    assertMatch(String(discover.instructions), /^Find panes with list/);
    assertEquals(((discover._meta as Json)["io.modelcontextprotocol/serverInfo"] as Json).name, "tmux-mcp");
    assertCacheHint(discover);
    // A probe locks nothing: a client without a revision in common falls back to the 2025 handshake.
    const init = resultOf(await s.initialize("2025-11-25"));
    assertEquals(init.protocolVersion, "2025-11-25");
    assertEquals((init.serverInfo as Json).name, "tmux-mcp");
    assertEquals(promises(init.capabilities), [false, false, false]);
    await s.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const list = resultOf(await s.next());
    assert((list.tools as Json[]).some((t) => t.name === "list"));
    assertEquals(list.resultType, undefined, "no 2026 vocabulary in a 2025 answer");
    assertEquals(list.ttlMs, undefined);
  });
  // The other 2025 revision, as before.
  await withRaw(async (s) => {
    assertEquals(resultOf(await s.initialize("2025-06-18")).protocolVersion, "2025-06-18");
  });
});

Deno.test("2026 era without initialize: tools/list with a cache hint, tools/call, results stamped complete", async () => {
  await withRaw(async (s) => {
    const list = resultOf(await s.modern(1, "tools/list"));
    assert((list.tools as Json[]).some((t) => t.name === "list"), "the tool list");
    assertEquals(list.resultType, "complete");
    assertCacheHint(list);
    const call = resultOf(await s.modern(2, "tools/call", { name: "list", arguments: { what: "sessions" } }));
    assertEquals(call.resultType, "complete");
    assertEquals(call.isError, undefined);
    const sessions = (call.structuredContent as { sessions: Json[] }).sessions;
    assertEquals(sessions.map((x) => x.session_name), ["main"]);
    // A tool's own error is a result, as in the 2025 era.
    const bad = resultOf(await s.modern(3, "tools/call", { name: "list", arguments: { what: "nope" } }));
    assertEquals(bad.isError, true);
    assertEquals(bad.resultType, "complete");
    // Resources and prompts too.
    const templates = resultOf(await s.modern(4, "resources/templates/list"));
    assert((templates.resourceTemplates as Json[]).length > 0);
    const prompts = resultOf(await s.modern(5, "prompts/list"));
    assert((prompts.prompts as Json[]).some((p) => p.name === "drive-pane"));
  });
});

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

Deno.test("bad _meta: missing, unsupported or wrongly typed version or capabilities get -32602 or -32022, before and after the era is locked", async () => {
  await withRaw(async (s) => {
    const list = (id: number, meta: Json) => s.modern(id, "tools/list", { _meta: meta });
    // Before any era is decided: none of these decides one.
    const noCaps = errorOf(await list(1, { [VERSION_KEY]: MODERN }));
    assertEquals(noCaps.code, -32602);
    assertMatch(noCaps.message, /clientCapabilities/);
    const numeric = errorOf(await list(2, envelope({ [VERSION_KEY]: 20260728 })));
    assertEquals(numeric.code, -32602);
    assertMatch(numeric.message, /protocolVersion/);
    const capsString = errorOf(await list(3, envelope({ [CAPABILITIES_KEY]: "all" })));
    assertEquals(capsString.code, -32602);
    assertMatch(capsString.message, /clientCapabilities/);
    for (const version of ["2030-01-01", "2025-06-18", `2026\n${"9".repeat(3000)}`]) {
      const e = errorOf(await list(4, envelope({ [VERSION_KEY]: version })));
      assertEquals(e.code, -32022);
      assertEquals(e.data, { supported: [MODERN], requested: version });
      assert(!/[\r\n]/.test(e.message) && e.message.length < 300, e.message.slice(0, 400));
      assertMatch(e.message, /^Unsupported protocol version "20[0-9]{2}.*": this connection serves 2026-07-28; /);
    }
    // A good request locks the connection to the 2026 era; the same checks hold on it.
    resultOf(await list(5, envelope()));
    await s.send({ jsonrpc: "2.0", id: 6, method: "tools/list" });
    assertEquals(errorOf(await s.next()).code, -32602, "no envelope at all");
    assertEquals(errorOf(await list(7, { [CAPABILITIES_KEY]: {} })).code, -32602, "no version");
    assertEquals(errorOf(await list(8, envelope({ [VERSION_KEY]: 20260728 }))).code, -32602);
    assertEquals(errorOf(await list(9, envelope({ [CAPABILITIES_KEY]: [] }))).code, -32602);
    const future = errorOf(await list(10, envelope({ [VERSION_KEY]: "2030-01-01" })));
    assertEquals(future.code, -32022);
    assertEquals(future.data, { supported: [MODERN], requested: "2030-01-01" });
    // The revision named is quoted (a line break in it stays on the one line, a long one is cut), and the one served
    // is said, before the era is locked (the SDK's answer, id 4) and after it (ours).
    for (const e of [errorOf(await list(12, envelope({ [VERSION_KEY]: `2026\n${"9".repeat(3000)}` }))), future]) {
      assert(!/[\r\n]/.test(e.message) && e.message.length < 300, e.message.slice(0, 400));
      assertMatch(
        e.message,
        /^Unsupported protocol version "20[0-9]{2}(\\n9+…|-01-01)": this connection serves 2026-07-28; /,
      );
    }
    // Still serving.
    const call = resultOf(await s.modern(11, "tools/call", { name: "list", arguments: { what: "sessions" } }));
    assertEquals(call.resultType, "complete");
  });
});

Deno.test("era lock: a 2026 connection refuses initialize, a 2025 one refuses 2026 requests; each keeps serving its own", async () => {
  await withRaw(async (s) => {
    resultOf(await s.modern(1, "tools/list"));
    await s.send({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    const refused = errorOf(await s.next());
    assertEquals(refused.code, -32022);
    assertEquals((refused.data as Json).supported, [MODERN]);
    assertEquals(resultOf(await s.modern(3, "tools/list")).resultType, "complete");
  });
  await withRaw(async (s) => {
    assertEquals(resultOf(await s.initialize("2025-11-25")).protocolVersion, "2025-11-25");
    const refused = errorOf(await s.modern(1, "tools/list"));
    assertEquals(refused.code, -32022);
    assertEquals(refused.data, { supported: ["2025-11-25"], requested: MODERN });
    assertEquals(errorOf(await s.modern(2, "server/discover")).code, -32022);
    await s.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "list", arguments: { what: "sessions" } },
    });
    const call = resultOf(await s.next());
    assertEquals((call.structuredContent as { sessions: Json[] }).sessions.length, 1);
    assertEquals(call.resultType, undefined);
  });
});

Deno.test("2026 requests read before the SDK decided the era are refused when they name a revision not served", async () => {
  await withRaw(async (s) => {
    // One write: a first request naming a revision not served (the SDK refuses it, the era still open), one that
    // locks the connection to 2026-07-28, then two naming other revisions, read while the first was answered.
    const named = (id: number, method: string, version: string) => ({
      jsonrpc: "2.0",
      id,
      method,
      params: { _meta: envelope({ [VERSION_KEY]: version }) },
    });
    const requests = [
      named(1, "tools/list", "2026-12-01"),
      named(2, "tools/list", MODERN),
      named(3, "tools/list", "2026-12-01"),
      named(4, "resources/list", "2025-11-25"),
    ];
    await s.writer.write(new TextEncoder().encode(requests.map((r) => JSON.stringify(r) + "\n").join("")));
    const replies = new Map<unknown, Reply>();
    while (replies.size < requests.length) {
      const reply = await s.next();
      replies.set(reply.id, reply);
    }
    assertEquals(resultOf(replies.get(2)!).resultType, "complete");
    for (const [id, requested] of [[1, "2026-12-01"], [3, "2026-12-01"], [4, "2025-11-25"]] as const) {
      const refused = errorOf(replies.get(id)!);
      assertEquals([refused.code, refused.data], [-32022, { supported: [MODERN], requested }], `request ${id}`);
    }
    assertEquals(resultOf(await s.modern(5, "tools/list")).resultType, "complete", "the connection keeps serving");
  });
});

Deno.test("server/discover without the _meta envelope gets -32602 and locks nothing: the next probe is served", async () => {
  await withRaw(async (s) => {
    await s.send({ jsonrpc: "2.0", id: 1, method: "server/discover" });
    const e = errorOf(await s.next());
    assertEquals(e.code, -32602);
    assertEquals(
      e.message,
      "Request is missing the required _meta envelope for protocol revision 2026-07-28 " +
        "(io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)",
    );
    assertEquals(resultOf(await s.modern(2, "server/discover")).supportedVersions, [MODERN]);
    assertEquals(resultOf(await s.modern(3, "tools/list")).resultType, "complete");
  });
  // A 2025 client that falls back to initialize after it is served as before.
  await withRaw(async (s) => {
    await s.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} });
    assertEquals(errorOf(await s.next()).code, -32602);
    assertEquals(resultOf(await s.initialize("2025-11-25")).protocolVersion, "2025-11-25");
  });
});

Deno.test("a second initialize is refused in one line and changes nothing: the revision stays the first's", async () => {
  // The first answered before the SDK loaded (2025-06-18), or by the SDK (2025-03-26, whose batches it allows).
  for (const [first, second] of [["2025-06-18", "2025-03-26"], ["2025-03-26", "2025-06-18"]]) {
    await withRaw(async (s) => {
      assertEquals(resultOf(await s.initialize(first)).protocolVersion, first);
      await s.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: second, capabilities: { elicitation: {} }, clientInfo: { name: "t", version: "0" } },
      });
      const refused = errorOf(await s.next());
      assertEquals(refused.code, -32600);
      assertEquals(
        refused.message,
        `Already initialized: this connection negotiated ${first} at its first initialize; initialize once per ` +
          "connection (start a new connection to negotiate again)",
      );
      // Batches still follow the first revision.
      await s.send([{ jsonrpc: "2.0", id: 2, method: "ping" }]);
      const batch = JSON.parse(await s.line());
      if (first === "2025-03-26") assertEquals(batch, [{ result: {}, jsonrpc: "2.0", id: 2 }]);
      else assertEquals([batch.id, batch.error?.code], [null, -32600]);
    });
  }
});

Deno.test("a 2025 connection serves a request whose _meta names the revision initialize negotiated", async () => {
  await withRaw(async (s) => {
    await s.initialize("2025-11-25");
    const claim = { _meta: { [VERSION_KEY]: "2025-11-25" } };
    // A call (answered by the transport, lib/server/server.ts `direct`) and a listing (by the SDK).
    await s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list", arguments: { what: "sessions" }, ...claim },
    });
    const call = resultOf(await s.next());
    assertEquals((call.structuredContent as { sessions: Json[] }).sessions.length, 1);
    await s.send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: claim });
    assert((resultOf(await s.next()).tools as Json[]).length > 0);
    // Another revision still gets -32022, naming the negotiated one.
    await s.send({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: { [VERSION_KEY]: "2025-06-18" } } });
    assertEquals(errorOf(await s.next()).data, { supported: ["2025-11-25"], requested: "2025-06-18" });
  });
});

Deno.test("a 2025-06-18 connection answered before the SDK loaded serves a request naming 2025-06-18, from its first", async () => {
  await withRaw(async (s) => {
    // initialize and initialized are answered without the SDK (lib/server/front.ts): the SDK loads for the next
    // request (it has a `_meta`) and sees the handshake replayed just before it.
    assertEquals(resultOf(await s.initialize("2025-06-18")).protocolVersion, "2025-06-18");
    await s.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { [VERSION_KEY]: "2025-06-18" } } });
    assert((resultOf(await s.next()).tools as Json[]).length > 0);
    await s.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: { [VERSION_KEY]: "2025-11-25" } } });
    assertEquals(errorOf(await s.next()).data, { supported: ["2025-06-18"], requested: "2025-11-25" });
  });
});

Deno.test("SDK clients of both eras: the v2 client over 2026-07-28, the 2025 client unchanged", async () => {
  const tmux = await startTmux();
  try {
    for (const era of ["modern", "legacy"] as const) {
      const mcp = await connect({ socketName: tmux.socketName, era });
      try {
        assertEquals(mcp.era, era);
        assertEquals(mcp.client.getServerVersion()?.name, "tmux-mcp");
        assertMatch(mcp.client.getInstructions() ?? "", /^Find panes with list/);
        assert((await mcp.client.listTools()).tools.some((t) => t.name === "capture-pane"));
        const r = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
        assertEquals(r.sessions.map((x) => x.session_name), ["main"]);
        await mcp.client.ping();
      } finally {
        await mcp.close();
      }
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test("JSON-RPC batches: answered as a batch on a 2025-03-26 connection, refused in one line after it", async () => {
  const tmux = await startTmux("batches");
  try {
    const old = rawServer(tmux.socketName);
    try {
      const init = await old.initialize("2025-03-26");
      assertEquals((init.result as { protocolVersion: string }).protocolVersion, "2025-03-26");
      // Requests and a notification in one batch: one array with an answer per request, in the batch's order.
      await old.send([
        { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "list", arguments: { what: "sessions" } } },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "x", progress: 1 } },
        { jsonrpc: "2.0", id: 7, method: "ping" },
      ]);
      const replies = JSON.parse(await old.line()) as { id: unknown; result?: { structuredContent?: unknown } }[];
      assert(Array.isArray(replies), JSON.stringify(replies));
      assertEquals(replies.map((r) => r.id), ["a", 7]);
      assert(JSON.stringify(replies[0].result?.structuredContent).includes('"session_name":"main"'));
      // Only notifications: no answer at all (the next line is the next request's).
      await old.send([{
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "x", progress: 2 },
      }]);
      await old.send({ jsonrpc: "2.0", id: 8, method: "ping" });
      assertEquals((await old.next()).id, 8);
      // A request whose id JSON cannot carry exactly is answered in its place under the id as written.
      await old.sendRaw(
        '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"},' +
          '{"jsonrpc":"2.0","id":2,"method":"ping"}]',
      );
      const mixed = await old.line();
      assert(
        mixed.startsWith('[{"result":{},"jsonrpc":"2.0","id":1},{"jsonrpc":"2.0","id":9007199254740993,"error":') &&
          mixed.endsWith(',{"result":{},"jsonrpc":"2.0","id":2}]'),
        mixed,
      );
      assertMatch(mixed, /"code":-32600,"message":"Request id 9007199254740993 is not an integer/);
      // An item that is no valid message gets its error in its place in the batch's answer, not on a line of its own.
      await old.sendRaw('[1,{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4}]');
      const withInvalid = JSON.parse(await old.line()) as { id: unknown; error?: { code: number } }[];
      assert(Array.isArray(withInvalid), JSON.stringify(withInvalid));
      assertEquals(withInvalid.map((r) => [r.id, r.error?.code]), [[null, -32600], [3, undefined], [4, -32600]]);
      assertMatch(JSON.stringify(withInvalid[0]), /each item of a batch must be a JSON object/);
      await old.send({ jsonrpc: "2.0", id: 5, method: "ping" });
      assertEquals((await old.next()).id, 5, "nothing more came of that batch");
      // A request reusing an id of the batch is refused in its place: two answers under one id could not be told
      // apart, and the second went out on a line of its own.
      await old.send([
        { jsonrpc: "2.0", id: 6, method: "ping" },
        { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "list", arguments: { what: "sessions" } } },
      ]);
      const reused = JSON.parse(await old.line()) as { id: unknown; result?: unknown; error?: { code: number } }[];
      assert(Array.isArray(reused), JSON.stringify(reused));
      assertEquals(reused.map((r) => [r.id, r.result, r.error?.code]), [[6, {}, undefined], [6, undefined, -32600]]);
      assertMatch(JSON.stringify(reused[1]), /Request id 6 is already used by another request of this batch/);
      await old.send({ jsonrpc: "2.0", id: 7, method: "ping" });
      assertEquals((await old.next()).id, 7, "nothing more came of that batch");
      // So is one reusing the id of a request still running, whose answer would have gone into the batch instead.
      const wait = { what: "text", target: "main", patterns: ["NEVER-PRINTED"], timeout_ms: 60_000 };
      await old.send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "wait", arguments: wait } });
      await old.send([{ jsonrpc: "2.0", id: 8, method: "ping" }, { jsonrpc: "2.0", id: 9, method: "ping" }]);
      const running = JSON.parse(await old.line()) as { id: unknown; result?: unknown; error?: { code: number } }[];
      assertEquals(running.map((r) => [r.id, r.result, r.error?.code]), [[8, undefined, -32600], [9, {}, undefined]]);
      await old.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8 } });
      // An empty batch is one Invalid Request error.
      await old.sendRaw("[]");
      const empty = await old.next();
      assertEquals([empty.id, (empty.error as { code: number }).code], [null, -32600]);
    } finally {
      await old.stop();
    }
    const later = rawServer(tmux.socketName);
    try {
      await later.initialize("2025-06-18");
      await later.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
      const refused = await later.next();
      assertEquals([refused.id, (refused.error as { code: number }).code], [null, -32600]);
      assertMatch((refused.error as { message: string }).message, /batches .*2025-06-18.*one message per line/);
      await later.send({ jsonrpc: "2.0", id: 2, method: "ping" });
      assertEquals((await later.next()).id, 2);
    } finally {
      await later.stop();
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test("a progress token JSON cannot carry exactly is refused in one line saying so, in both eras", async () => {
  const expected = "Message is not a JSON-RPC 2.0 message: its progressToken is an integer over 9007199254740991 in " +
    "magnitude, which JSON-RPC cannot carry exactly: send a string token or a smaller integer";
  const call = (id: number, meta: Json) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "list", arguments: { what: "sessions" }, _meta: meta },
    })
      // JSON.stringify would write the rounded number: the token as a client that counts past 2^53 writes it.
      .replace('"progressToken":"BIG"', '"progressToken":9007199254740993');
  await withRaw(async (s) => {
    await s.initialize("2025-11-25");
    await s.sendRaw(call(1, { progressToken: "BIG" }));
    assertEquals(errorOf(await s.next()), { code: -32600, message: expected });
  });
  await withRaw(async (s) => {
    await s.sendRaw(call(2, envelope({ progressToken: "BIG" })));
    assertEquals(errorOf(await s.next()), { code: -32600, message: expected });
    // A string token is served, its progress under it.
    const ok = resultOf(
      await s.modern(3, "tools/call", {
        name: "list",
        arguments: { what: "sessions" },
        _meta: envelope({ progressToken: "9007199254740993" }),
      }),
    );
    assertEquals(ok.isError, undefined);
  });
});

Deno.test("a list request naming a cursor gets -32602 in one line in both eras, as no list has a second page", async () => {
  const lists = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"];
  const assertRefused = (r: Reply, method: string) => {
    const e = errorOf(r);
    assertEquals(e.code, -32602);
    assertEquals(
      e.message,
      `Invalid cursor: this server answers ${method} in one page and gives no nextCursor; send it without one`,
    );
  };
  await withRaw(async (s) => {
    await s.initialize("2025-11-25");
    // The first right after the handshake answered before the SDK loaded: it waits for the SDK, then is refused.
    for (const [i, method] of lists.entries()) {
      await s.send({ jsonrpc: "2.0", id: 10 + i, method, params: { cursor: "eyJwYWdlIjoyfQ" } });
      const reply = await s.next();
      assertEquals(reply.id, 10 + i);
      assertRefused(reply, method);
    }
    await s.send({ jsonrpc: "2.0", id: 20, method: "tools/list", params: {} });
    const listed = resultOf(await s.next());
    assert(Array.isArray(listed.tools) && listed.tools.length > 0);
    assertEquals(listed.nextCursor, undefined);
  });
  await withRaw(async (s) => {
    for (const [i, method] of lists.entries()) assertRefused(await s.modern(30 + i, method, { cursor: "x" }), method);
    assertEquals(resultOf(await s.modern(40, "tools/list")).nextCursor, undefined);
  });
});

Deno.test("a method the connection's revision has no handler for gets -32601 naming it, in both eras", async () => {
  const notServed = (r: Reply, method: string) => {
    const e = errorOf(r);
    assertEquals(e.code, -32601);
    assertEquals(
      e.message,
      `Method not found: this server does not serve "${method}" on this connection; the capabilities in its ` +
        "initialize (or server/discover) answer say what it serves",
    );
  };
  await withRaw(async (s) => {
    // 2026-07-28 has no ping and no logging/setLevel; this server declares no logging in either era.
    notServed(await s.modern(1, "ping"), "ping");
    notServed(await s.modern(2, "logging/setLevel", { level: "debug" }), "logging/setLevel");
    notServed(await s.modern(3, "completion/complete", {}), "completion/complete");
  });
  await withRaw(async (s) => {
    await s.initialize("2025-11-25");
    await s.send({ jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "debug" } });
    notServed(await s.next(), "logging/setLevel");
    await s.send({ jsonrpc: "2.0", id: 5, method: "ping" });
    assertEquals(await s.next(), { result: {}, jsonrpc: "2.0", id: 5 });
  });
});

Deno.test("params the MCP schema refuses get -32602 in one line naming each path, in both eras", async () => {
  const cases: [string, Json, string][] = [
    ["resources/read", { uri: 5 }, "params.uri: expected string, received number"],
    ["resources/read", {}, "params.uri: missing (string)"],
    ["prompts/get", {}, "params.name: missing (string)"],
    ["tools/list", { cursor: 5 }, "params.cursor: expected string, received number"],
    // A key from the request is quoted: the line stays one.
    [
      "prompts/get",
      { name: "drive-pane", arguments: { task: "x", "a\nb": 5 } },
      'params.arguments["a\\nb"]: expected string',
    ],
  ];
  const check = (r: Reply, method: string, why: string) => {
    const e = errorOf(r);
    assertEquals(e.code, -32602, e.message);
    assert(e.message.startsWith(`Invalid params of "${method}": ${why}`), e.message);
    assert(e.message.endsWith(": send them as the MCP schema gives") && !e.message.includes("\n"), e.message);
  };
  await withRaw(async (s) => {
    await s.initialize("2025-11-25");
    for (const [i, [method, params, why]] of cases.entries()) {
      await s.send({ jsonrpc: "2.0", id: 10 + i, method, params });
      const reply = await s.next();
      assertEquals(reply.id, 10 + i);
      check(reply, method, why);
    }
  });
  await withRaw(async (s) => {
    for (const [i, [method, params, why]] of cases.entries()) {
      check(await s.modern(20 + i, method, params), method, why);
    }
  });
});

Deno.test("prompts/get of a prompt not served names it quoted, in one line, and says where to look, in both eras", async () => {
  const expected = 'Prompt "no\\nsuch" not found: call prompts/list to see the prompts this server offers';
  await withRaw(async (s) => {
    await s.initialize("2025-11-25");
    await s.send({ jsonrpc: "2.0", id: 7, method: "prompts/get", params: { name: "no\nsuch" } });
    assertEquals(errorOf(await s.next()), { code: -32602, message: expected });
  });
  await withRaw(async (s) => {
    assertEquals(errorOf(await s.modern(8, "prompts/get", { name: "no\nsuch" })), { code: -32602, message: expected });
  });
});

Deno.test("prompts/get with a required argument missing says it is missing, in one line, in both eras", async () => {
  const expected = 'Invalid arguments for prompt "drive-pane": task: missing (string): call prompts/list to see the ' +
    "arguments it takes";
  const params = { name: "drive-pane", arguments: { taks: "run the tests" } };
  await withRaw(async (s) => {
    await s.initialize("2025-11-25");
    await s.send({ jsonrpc: "2.0", id: 7, method: "prompts/get", params });
    assertEquals(errorOf(await s.next()), { code: -32602, message: expected });
  });
  await withRaw(async (s) => {
    assertEquals(errorOf(await s.modern(8, "prompts/get", params)), { code: -32602, message: expected });
  });
});
