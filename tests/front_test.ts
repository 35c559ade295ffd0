/**
 * The answers a starting server gives before the SDK has loaded
 * (lib/server/front.ts) are the SDK's own, byte for byte: each is compared
 * with what the SDK answers the same request (a server built in-process, fed
 * through the transport without the early path), for several configurations,
 * in both eras; then the same bytes come from a real server over raw stdio,
 * and a request of another shape is left to the SDK.
 */
import { assert, assertEquals } from "./assert.ts";
import { parseConfig } from "../lib/config.ts";
import { createApp } from "../lib/server/server.ts";
import { createFront } from "../lib/server/front.ts";
import { listedTools } from "../lib/server/listing_file.ts";
import { LinearStdioTransport } from "../lib/server/transport.ts";
import { createCore } from "../lib/server/core.ts";
import { createEarlyCalls } from "../lib/server/early.ts";
import { startTmux, type TmuxFixture } from "./helpers.ts";
import { newPane, waitForPane } from "./pane_helpers.ts";
import { envelope, rawServer } from "./raw_stdio.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

type Json = Record<string, unknown>;

/** The SDK's answer lines to `requests` (one connection), keyed by request id. */
async function sdkAnswers(args: string[], requests: Json[], socket = "tmcp-front-none"): Promise<Map<unknown, string>> {
  const config = parseConfig(["--socket-name", socket, ...args], {});
  const app = await createApp(config);
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const r of requests) c.enqueue(enc.encode(JSON.stringify(r) + "\n"));
    },
  });
  const lines = new Map<unknown, string>();
  const all = Promise.withResolvers<void>();
  const expected = requests.filter((r) => r.id !== undefined).length;
  const transport = new LinearStdioTransport({
    maxMessageBytes: 1 << 24,
    input,
    parse: app.parse,
    direct: app.direct,
    refuse: app.refuse,
    write: (b) => {
      const line = dec.decode(b).trimEnd();
      lines.set(JSON.parse(line).id, line);
      if (lines.size === expected) all.resolve();
      return Promise.resolve();
    },
  });
  app.serve(transport);
  await all.promise;
  await transport.close();
  await app.close();
  return lines;
}

/**
 * The answer lines of a starting server that never loads the SDK (main.ts before it has) to `requests`, keyed by
 * id; throws when one of them waits for the SDK.
 */
async function earlyAnswers(socket: string, requests: Json[]): Promise<Map<unknown, string>> {
  const config = parseConfig(["--socket-name", socket], {});
  const core = await createCore(config);
  const front = createFront(config, Promise.resolve(await listedTools(config)));
  await Promise.resolve();
  const early = createEarlyCalls(core, front, () => Promise.resolve(undefined), (m) => transport.send(m));
  const lines = new Map<unknown, string>();
  const all = Promise.withResolvers<void>();
  const expected = requests.filter((r) => r.id !== undefined).length;
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const transport = new LinearStdioTransport({
    maxMessageBytes: 1 << 24,
    input: input.readable,
    early: (json) => front.early(json),
    direct: (method) => early.direct(method),
    earlyCall: (json) => early.modern(json),
    onWaiting: () => all.reject(new Error("a request waited for the SDK")),
    write: (b) => {
      const line = dec.decode(b).trimEnd();
      lines.set(JSON.parse(line).id, line);
      if (lines.size === expected) all.resolve();
      return Promise.resolve();
    },
  });
  transport.listen();
  const writer = input.writable.getWriter();
  try {
    for (const r of requests) await writer.write(enc.encode(JSON.stringify(r) + "\n"));
    await all.promise;
  } finally {
    await writer.close().catch(() => {});
    await transport.close();
    await core.close();
  }
  return lines;
}

/** The front's answer lines to `requests`, as the transport writes them, keyed by id (undefined: left to the SDK). */
async function frontAnswers(args: string[], requests: Json[]): Promise<Map<unknown, string | undefined>> {
  const config = parseConfig(["--socket-name", "tmcp-front-none", ...args], {});
  const front = createFront(config, Promise.resolve(await listedTools(config)));
  await Promise.resolve();
  const lines = new Map<unknown, string | undefined>();
  for (const r of requests) {
    const answer = front.early(r);
    if (r.id === undefined) continue;
    lines.set(
      r.id,
      typeof answer === "object" ? JSON.stringify({ result: answer.result, jsonrpc: "2.0", id: r.id }) : undefined,
    );
  }
  return lines;
}

const initialize = (id: number, protocolVersion: string, capabilities: Json = {}): Json => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities, clientInfo: { name: "front-test", title: "Front test", version: "1" } },
});
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };

/** Each era's handshake as clients send it. */
const SESSIONS: Record<string, Json[]> = {
  "2025-06-18": [initialize(1, "2025-06-18"), initialized, { jsonrpc: "2.0", id: 2, method: "tools/list" }],
  "2025-11-25 with capabilities": [
    initialize(1, "2025-11-25", {
      roots: { listChanged: true },
      elicitation: { form: {}, url: {} },
      sampling: {},
      tasks: { list: {}, cancel: {} },
    }),
    initialized,
    { jsonrpc: "2.0", id: "list", method: "tools/list", params: {} },
  ],
  "2026-07-28": [
    { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: envelope() } },
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: envelope() } },
  ],
  "2026-07-28 with capabilities": [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: envelope({ "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } }) },
    },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/list",
      params: {
        _meta: envelope({
          "io.modelcontextprotocol/clientCapabilities": { roots: { listChanged: true } },
          "io.modelcontextprotocol/clientInfo": { name: "front-test", version: "1" },
        }),
      },
    },
  ],
};

const CONFIGS = [[], ["--toolsets", "buffers"], ["--safety", "readonly"], [
  "--toolsets",
  "workspace,exec",
  "--safety",
  "mutating",
]];

Deno.test("the early answers to initialize, server/discover and tools/list are the SDK's, byte for byte, in both eras", async () => {
  for (const args of CONFIGS) {
    for (const [name, requests] of Object.entries(SESSIONS)) {
      const sdk = await sdkAnswers(args, requests);
      const front = await frontAnswers(args, requests);
      for (const [id, line] of front) {
        assert(line !== undefined, `${name} ${args.join(" ")}: request ${id} was not answered early`);
        assertEquals(line, sdk.get(id), `${name} ${args.join(" ")}: request ${id}`);
      }
    }
  }
});

Deno.test("requests of other shapes are left to the SDK", async () => {
  const config = parseConfig(["--socket-name", "tmcp-front-none"], {});
  const fresh = () => createFront(config, Promise.resolve([]));
  await Promise.resolve();
  // A revision the SDK negotiates down, an unknown key, an extra _meta key, a cursor, a request before the handshake.
  assertEquals(fresh().early(initialize(1, "2024-11-05")), undefined);
  assertEquals(fresh().early({ ...initialize(1, "2025-06-18"), extra: 1 }), undefined);
  // Capabilities whose known members the SDK's schema refuses (it answers an error and never takes the handshake).
  for (
    const capabilities of [
      { elicitation: { form: true } },
      { roots: { listChanged: {} } },
      { experimental: { x: true } },
      { tasks: { list: true } },
      { tasks: { requests: true } },
      { tasks: { requests: { elicitation: { create: true } } } },
    ]
  ) {
    assertEquals(fresh().early(initialize(1, "2025-11-25", capabilities)), undefined, JSON.stringify(capabilities));
  }
  const meta = { _meta: envelope({ "io.modelcontextprotocol/logLevel": "info" }) };
  assertEquals(fresh().early({ jsonrpc: "2.0", id: 1, method: "server/discover", params: meta }), undefined);
  const cursor = { _meta: envelope(), cursor: "x" };
  assertEquals(fresh().early({ jsonrpc: "2.0", id: 1, method: "tools/list", params: cursor }), undefined);
  assertEquals(fresh().early({ jsonrpc: "2.0", id: 1, method: "tools/list" }), undefined);
  assertEquals(fresh().early({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }), undefined);
});

Deno.test("a real server answers the same bytes over raw stdio, early or through the SDK, then serves calls", async () => {
  const tmux = await steadyTmux();
  try {
    for (const [name, requests] of Object.entries(SESSIONS)) {
      // A ping (which waits for the SDK) after the handshake: answered, and nothing answered twice.
      const all = [...requests, { jsonrpc: "2.0", id: 99, method: "ping", params: {} }];
      const sdk = await sdkAnswers([], all);
      const s = rawServer(tmux.socketName);
      try {
        for (const r of all) await s.send(r);
        const got = new Map<unknown, string>();
        while (got.size < sdk.size) {
          const line = await s.line();
          const id = JSON.parse(line).id;
          assert(!got.has(id), `${name}: request ${id} answered twice`);
          got.set(id, line);
        }
        for (const [id, line] of sdk) {
          // The ping's empty result may carry the era's stamp: compared as the SDK gives it all the same.
          assertEquals(got.get(id), line, `${name}: request ${id}`);
        }
      } finally {
        await s.stop();
        await s.stderr;
      }
    }
    // Another revision, negotiated by the SDK: the same answer as the SDK's too.
    const other = [initialize(1, "2024-11-05")];
    const sdk = await sdkAnswers([], other);
    const s = rawServer(tmux.socketName);
    try {
      await s.send(other[0]);
      assertEquals(await s.line(), sdk.get(1));
    } finally {
      await s.stop();
      await s.stderr;
    }
  } finally {
    await tmux.kill();
  }
});

/** A 2026-07-28 tools/call (`meta`: its `_meta`, the plain envelope unless given). */
const modernCall = (id: number, params: Json, meta: Json = envelope()): Json => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { _meta: meta, ...params },
});

const MODERN_OPEN = SESSIONS["2026-07-28"];
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/**
 * A tmux server whose window keeps its name: tmux renames a new window after its pane's program (`tmux` at first,
 * the shell a moment later, later still on a busy machine), which would differ between the two answers compared.
 */
async function steadyTmux(): Promise<TmuxFixture> {
  const tmux = await startTmux();
  await tmux.tmux("rename-window", "-t", "=main:0", "main");
  return tmux;
}

/** A line with tmux's activity times (which move on while the test runs) zeroed: the bytes otherwise kept. */
const steady = (line: string | undefined) =>
  line?.replace(/(\\?"(?:window_)?activity\\?":)\d+/g, (_, key: string) => key + "0");

/** 2026 calls of the plain shape: a result, a tool's own error, a tool not served, capabilities and client info. */
const PLAIN_CALLS = [
  modernCall(10, { name: "list", arguments: { what: "sessions" } }),
  modernCall(11, { name: "list", arguments: { what: "nope" } }),
  modernCall(12, { name: "no-such-tool", arguments: {} }),
  modernCall(
    13,
    { name: "list", arguments: { what: "windows" } },
    envelope({
      [CAPABILITIES_KEY]: { roots: { listChanged: true }, sampling: {} },
      "io.modelcontextprotocol/clientInfo": { name: "front-test", version: "1" },
    }),
  ),
];

/** The capabilities the clients people use declare (Claude Code, VS Code, Codex, Cursor): elicitation and roots. */
const ELICITING = { elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

/**
 * 2026 calls of clients that declare elicitation (their calls may park) or ask for progress, and retries of parked
 * calls: answered before the SDK loads too.
 */
const ELICITING_CALLS = [
  modernCall(30, { name: "list", arguments: { what: "sessions" } }, envelope({ [CAPABILITIES_KEY]: ELICITING })),
  modernCall(
    31,
    { name: "list", arguments: { what: "sessions" } },
    envelope({ [CAPABILITIES_KEY]: { elicitation: {} } }),
  ),
  modernCall(32, { name: "list", arguments: { what: "sessions" } }, envelope({ progressToken: 7 })),
  modernCall(
    33,
    { name: "list", arguments: { what: "windows" } },
    envelope({ [CAPABILITIES_KEY]: ELICITING, progressToken: "p-33" }),
  ),
  modernCall(34, { name: "list", arguments: { what: "sessions" }, requestState: "x" }),
  modernCall(
    35,
    { name: "list", arguments: {}, requestState: "y", inputResponses: { q1: { action: "accept" } } },
    envelope({ [CAPABILITIES_KEY]: ELICITING }),
  ),
  modernCall(36, { name: "no-such-tool", arguments: {} }, envelope({ [CAPABILITIES_KEY]: ELICITING })),
  // As Claude Code calls: its tool-use id beside the progress token (a client's own key; another's without a prefix).
  modernCall(
    37,
    { name: "list", arguments: { what: "sessions" } },
    envelope({ [CAPABILITIES_KEY]: ELICITING, progressToken: 37, "claudecode/toolUseId": "toolu_01", callId: "c-37" }),
  ),
];

/** 2026 calls the SDK answers: bad envelopes (its errors), a bad progress token or retry field, a bad name. */
const SDK_CALLS = [
  modernCall(20, { name: "list", arguments: { what: "sessions" } }, { [VERSION_KEY]: "2026-07-28" }),
  modernCall(21, { name: "list", arguments: { what: "sessions" } }, envelope({ [VERSION_KEY]: 20260728 })),
  modernCall(22, { name: "list", arguments: { what: "sessions" } }, envelope({ [VERSION_KEY]: "2030-01-01" })),
  modernCall(23, { name: "list", arguments: { what: "sessions" } }, envelope({ [CAPABILITIES_KEY]: "all" })),
  modernCall(24, { name: "list" }, envelope({ [CAPABILITIES_KEY]: { roots: { listChanged: {} } } })),
  modernCall(25, { name: "list", arguments: { what: "sessions" } }, envelope({ progressToken: 1.5 })),
  modernCall(
    26,
    { name: "list", arguments: { what: "sessions" } },
    envelope({ progressToken: 7, "io.modelcontextprotocol/other": 1 }),
  ),
  modernCall(27, { name: "list", arguments: { what: "sessions" }, requestState: 5 }),
  modernCall(28, { name: 5, arguments: {} }),
  modernCall(29, { name: "list", arguments: { what: "sessions" }, inputResponses: [] }),
];

Deno.test("2026-era tools/call of the plain shape is answered before the SDK loads, with the SDK's bytes", async () => {
  const tmux = await steadyTmux();
  try {
    const requests = [...MODERN_OPEN, ...PLAIN_CALLS];
    const sdk = await sdkAnswers([], requests, tmux.socketName);
    const early = await earlyAnswers(tmux.socketName, requests);
    for (const [id, line] of sdk) assertEquals(steady(early.get(id)), steady(line), `request ${id}`);
    assert(JSON.parse(sdk.get(10)!).result.structuredContent.sessions.length === 1, "a real answer was compared");
  } finally {
    await tmux.kill();
  }
});

Deno.test("2026-era calls of clients that declare elicitation or ask for progress, and retries, are answered before the SDK loads, with the SDK's bytes", async () => {
  const tmux = await steadyTmux();
  try {
    const requests = [...MODERN_OPEN, ...ELICITING_CALLS];
    const sdk = await sdkAnswers([], requests, tmux.socketName);
    const early = await earlyAnswers(tmux.socketName, requests);
    for (const [id, line] of sdk) assertEquals(steady(early.get(id)), steady(line), `request ${id}`);
    assert(JSON.parse(sdk.get(30)!).result.structuredContent.sessions.length === 1, "a real answer was compared");
    const unknown = JSON.parse(sdk.get(34)!).error;
    assertEquals(unknown.message.startsWith("Invalid or expired requestState"), true);
    // The SDK's own answer to a requestState it rejects (one not a string): invalid params, its reason in data.
    assertEquals([unknown.code, unknown.data], [-32602, { reason: "invalid_request_state" }]);
  } finally {
    await tmux.kill();
  }
});

/**
 * A connection fed one request at a time: through the SDK (`sdk`, a server built in-process), a starting server
 * that never loads the SDK (`early`: a request that waits for it fails), or a loaded server whose transport answers
 * the 2026 calls of the plain shape itself once the SDK has pinned the connection to that era (`pinned`, as main.ts
 * wires it; `direct` counts them). `lines`: every line written, in order.
 */
async function session(kind: "sdk" | "early" | "pinned", socket: string) {
  const config = parseConfig(["--socket-name", socket], {});
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const lines: string[] = [];
  const waiting = new Map<unknown, PromiseWithResolvers<string>>();
  const write = (b: Uint8Array) => {
    const line = dec.decode(b).trimEnd();
    lines.push(line);
    waiting.get(JSON.parse(line).id)?.resolve(line);
    return Promise.resolve();
  };
  let transport: LinearStdioTransport;
  let release: () => Promise<void>;
  let direct = 0;
  if (kind !== "early") {
    const core = await createCore(config);
    const app = await createApp(config, undefined, core);
    const front = createFront(config, Promise.resolve(await listedTools(config)));
    const early = createEarlyCalls(core, front, () => Promise.resolve(app.legacyServer()), (m) => transport.send(m));
    transport = new LinearStdioTransport({
      maxMessageBytes: 1 << 24,
      input: input.readable,
      parse: app.parse,
      direct: app.direct,
      refuse: app.refuse,
      ...(kind === "pinned"
        ? {
          earlyCall: (json: unknown) => {
            const handler = early.modern(json, app.modernPinned());
            if (handler) direct++;
            return handler;
          },
        }
        : {}),
      write,
    });
    app.serve(transport);
    release = () => app.close();
  } else {
    const core = await createCore(config);
    const front = createFront(config, Promise.resolve(await listedTools(config)));
    await Promise.resolve();
    const early = createEarlyCalls(core, front, () => Promise.resolve(undefined), (m) => transport.send(m));
    transport = new LinearStdioTransport({
      maxMessageBytes: 1 << 24,
      input: input.readable,
      early: (json) => front.early(json),
      direct: (method) => early.direct(method),
      earlyCall: (json) => early.modern(json),
      onWaiting: () => {
        for (const w of waiting.values()) w.reject(new Error("a request waited for the SDK"));
      },
      write,
    });
    transport.listen();
    release = () => core.close();
  }
  const writer = input.writable.getWriter();
  return {
    lines,
    /** The calls the transport answered itself after the SDK had loaded (`pinned`). */
    direct: () => direct,
    /** Sends `r`; resolves with its answer line (a notification: at once). */
    async send(r: Json): Promise<string> {
      const answer = Promise.withResolvers<string>();
      if (r.id === undefined) answer.resolve("");
      else waiting.set(r.id, answer);
      await writer.write(enc.encode(JSON.stringify(r) + "\n"));
      return await answer.promise;
    },
    async close() {
      await writer.close().catch(() => {});
      await transport.close();
      await release();
    },
  };
}

/** Lines with what differs from run to run (a parked call's requestState, a time waited) made the same. */
const settled = (lines: string[]) =>
  lines.map((l) =>
    steady(l)!.replace(/"requestState":"[^"]+"/g, '"requestState":"S"').replace(/(\\?"waited_ms\\?":)\d+/g, "$10")
  );

Deno.test("a call parked before the SDK loads (2026 era) and its retry, and progress in both eras, get the SDK's bytes", async () => {
  const tmux = await steadyTmux();
  const dir = await Deno.makeTempDir({ prefix: "tmcp-front-" });
  try {
    const script = `${dir}/confirm.sh`;
    await Deno.writeTextFile(
      script,
      "read -r -p 'Overwrite it? [y/N] ' yn; printf 'answer=%s\\n' \"$yn\"; exec sleep 3600\n",
    );
    const pane = await newPane(tmux, `bash --norc --noprofile ${script}`);
    await waitForPane(tmux, pane, /Overwrite it\? \[y\/N\]/);
    const ask = { target: pane, prompt: "Overwrite?", timeout_ms: 60_000 };
    const meta = envelope({ [CAPABILITIES_KEY]: { elicitation: { form: {} } } });
    const byKind: Record<string, string[][]> = {};
    for (const kind of ["sdk", "early", "pinned"] as const) {
      const runs: string[][] = [];
      // 2026: the question ends the first round (a progress notification before it); the retry's decline ends the call.
      const modern = await session(kind, tmux.socketName);
      try {
        for (const r of MODERN_OPEN) await modern.send(r);
        const from = modern.lines.length;
        const first = JSON.parse(
          await modern.send(modernCall(40, { name: "request-input", arguments: ask }, {
            ...meta,
            progressToken: "p40",
          })),
        );
        assertEquals(first.result.resultType, "input_required", JSON.stringify(first));
        const retry = { requestState: first.result.requestState, inputResponses: { q1: { action: "decline" } } };
        const done = JSON.parse(
          await modern.send(modernCall(41, { name: "request-input", arguments: ask, ...retry }, meta)),
        );
        assertEquals(done.result.structuredContent.outcome, "declined", JSON.stringify(done));
        runs.push(modern.lines.slice(from));
      } finally {
        await modern.close();
      }
      // 2025: a client that sent a progress token (and cannot be asked): told to attach; nobody does in time.
      const legacy = await session(kind, tmux.socketName);
      try {
        await legacy.send(initialize(1, "2025-11-25", { roots: { listChanged: true } }));
        await legacy.send(initialized);
        const from = legacy.lines.length;
        // As Claude Code sends it: a progress token and its tool-use id.
        const _meta = { progressToken: 9, "claudecode/toolUseId": "toolu_01" };
        const call = { name: "request-input", arguments: { ...ask, timeout_ms: 300 }, _meta };
        const r = JSON.parse(await legacy.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: call }));
        assertEquals(r.result.structuredContent.outcome, "timeout", JSON.stringify(r));
        runs.push(legacy.lines.slice(from));
      } finally {
        await legacy.close();
      }
      byKind[kind] = runs;
    }
    assertEquals(byKind.early.map(settled), byKind.sdk.map(settled));
    assertEquals(byKind.pinned.map(settled), byKind.sdk.map(settled));
    for (const run of byKind.sdk) assert(run.some((l) => l.includes('"notifications/progress"')), "progress compared");
    assert(!(await tmux.tmux("capture-pane", "-p", "-t", pane)).includes("answer="), "nothing was typed");
  } finally {
    await tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("once the SDK has pinned a connection to 2026, its calls of the plain shape skip the SDK's dispatch, with its bytes", async () => {
  const tmux = await steadyTmux();
  try {
    const byKind: Record<string, string[]> = {};
    let direct = 0;
    for (const kind of ["sdk", "pinned"] as const) {
      const s = await session(kind, tmux.socketName);
      try {
        // A probe pins nothing: the first call after it goes through the SDK, which pins the connection.
        await s.send(MODERN_OPEN[0]);
        await s.send(PLAIN_CALLS[0]);
        const from = s.lines.length;
        for (const r of [...PLAIN_CALLS, ...ELICITING_CALLS, ...SDK_CALLS]) await s.send({ ...r, id: `again-${r.id}` });
        byKind[kind] = s.lines.slice(from);
        if (kind === "pinned") direct = s.direct();
      } finally {
        await s.close();
      }
    }
    assertEquals(byKind.pinned.map((l) => steady(l)), byKind.sdk.map((l) => steady(l)));
    assertEquals(direct, PLAIN_CALLS.length + ELICITING_CALLS.length, "the plain calls after the pin were direct");
    assert(byKind.sdk.some((l) => l.includes('"sessions":[{')), "a real answer was compared");
  } finally {
    await tmux.kill();
  }
});

Deno.test("2026-era tools/call of any other shape, or before the era is locked, is left to the SDK", async () => {
  const config = parseConfig(["--socket-name", "tmcp-front-none"], {});
  const front = createFront(config, Promise.resolve([]));
  await Promise.resolve();
  assertEquals(front.modernCall(PLAIN_CALLS[0]), false, "no tools/list answered yet: the era is not locked");
  for (const r of MODERN_OPEN) front.early(r);
  for (const r of [...PLAIN_CALLS, ...ELICITING_CALLS]) assertEquals(front.modernCall(r), true, JSON.stringify(r));
  for (const r of SDK_CALLS) assertEquals(front.modernCall(r), false, JSON.stringify(r));
  assertEquals(front.modernCall({ ...PLAIN_CALLS[0], extra: 1 }), false);
  // Capabilities the SDK's schema refuses are not listed early either.
  const badCaps = { _meta: envelope({ [CAPABILITIES_KEY]: { roots: { listChanged: {} } } }) };
  assertEquals(
    createFront(config, Promise.resolve([])).early({ jsonrpc: "2.0", id: 1, method: "tools/list", params: badCaps }),
    undefined,
  );
});

Deno.test("over raw stdio, 2026 calls get the SDK's bytes early, and bad _meta still gets the SDK's errors", async () => {
  const tmux = await steadyTmux();
  try {
    // tmux renames a new window once its shell has started, maybe between the two servers' answers: a fixed name.
    await tmux.tmux("rename-window", "-t", "main", "w");
    const requests = [...MODERN_OPEN, ...PLAIN_CALLS, ...ELICITING_CALLS, ...SDK_CALLS];
    const sdk = await sdkAnswers([], requests, tmux.socketName);
    assertEquals(JSON.parse(sdk.get(20)!).error.code, -32602);
    assertEquals(JSON.parse(sdk.get(22)!).error.code, -32022);
    const s = rawServer(tmux.socketName);
    try {
      for (const r of requests) await s.send(r);
      const got = new Map<unknown, string>();
      while (got.size < sdk.size) {
        const line = await s.line();
        const id = JSON.parse(line).id;
        assert(!got.has(id), `request ${id} answered twice`);
        got.set(id, line);
      }
      for (const [id, line] of sdk) assertEquals(steady(got.get(id)), steady(line), `request ${id}`);
    } finally {
      await s.stop();
      await s.stderr;
    }
  } finally {
    await tmux.kill();
  }
});
