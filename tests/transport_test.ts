import { assert, assertEquals, assertMatch } from "./assert.ts";
import { decodeKeepingInvalid, LinearStdioTransport, recoverId } from "../lib/server/transport.ts";
import { type JSONRPCMessage, parseJSONRPCMessage } from "../lib/sdk.ts";
import { startTmux } from "./helpers.ts";
import { rawServer } from "./raw_stdio.ts";
import { waitUntil } from "./pane_helpers.ts";
import { fileByteReader } from "../lib/byte_reader.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A transport fed from the given chunks, collecting what it writes. */
async function run(chunks: Uint8Array[], maxMessageBytes = 1024 * 1024) {
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(ch);
      c.close();
    },
  });
  const written: string[] = [];
  const warnings: string[] = [];
  const messages: JSONRPCMessage[] = [];
  const t = new LinearStdioTransport({
    maxMessageBytes,
    input,
    parse: parseJSONRPCMessage,
    write: (b) => {
      written.push(dec.decode(b));
      return Promise.resolve();
    },
    onWarning: (m) => warnings.push(m),
    drainMs: 0, // nothing answers the requests here
  });
  const closed = new Promise<void>((r) => t.onclose = r);
  t.onmessage = (m) => messages.push(m);
  await t.start();
  await closed;
  return { messages, written: written.map((w) => JSON.parse(w)), text: written, warnings };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

Deno.test("transport splits messages across arbitrary chunk boundaries", async () => {
  const text = [ping(1), ping(2), ping(3)].join("\n") + "\n";
  const bytes = enc.encode(text);
  for (const size of [1, 2, 7, bytes.length]) {
    const chunks = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
    const { messages } = await run(chunks);
    assertEquals(messages.map((m) => (m as { id: number }).id), [1, 2, 3], `chunk size ${size}`);
  }
});

Deno.test("transport tolerates CRLF and blank lines", async () => {
  const { messages } = await run([enc.encode(`\n${ping(1)}\r\n\r\n${ping(2)}\n`)]);
  assertEquals(messages.length, 2);
});

Deno.test("transport answers an oversized message with an error and keeps serving", async () => {
  const big = JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { x: "a".repeat(5000) }, id: 42 });
  const { messages, written, warnings } = await run([
    enc.encode(big.slice(0, 3000)),
    enc.encode(big.slice(3000) + "\n" + ping(5) + "\n"),
  ], 2048);
  assertEquals(messages.map((m) => (m as { id: number }).id), [5]);
  assertEquals(written.length, 1);
  assertEquals(written[0].id, 42);
  assertEquals(written[0].error.code, -32600);
  assertMatch(written[0].error.message, /exceeds the server's limit of 2048 bytes.*smaller pieces/);
  assertEquals(warnings, ["discarded an oversized message"]);
});

Deno.test("transport answers invalid JSON with a parse error and keeps serving", async () => {
  const { messages, written } = await run([enc.encode(`{nope\n${ping(9)}\n`)]);
  assertEquals(messages.length, 1);
  assertEquals(written[0], { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Message is not valid JSON" } });
});

Deno.test("at end of input the transport answers the requests already read before it closes", async () => {
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(enc.encode([ping(1), ping(2), ping(3)].join("\n") + "\n"));
      // The client gives up on 3, then closes its end.
      c.enqueue(
        enc.encode(
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } }) + "\n",
        ),
      );
      c.close();
    },
  });
  const written: string[] = [];
  const t = new LinearStdioTransport({
    maxMessageBytes: 1024,
    input,
    parse: parseJSONRPCMessage,
    write: (b) => {
      written.push(dec.decode(b));
      return Promise.resolve();
    },
  });
  const closed = Promise.withResolvers<number>();
  t.onclose = () => closed.resolve(written.length);
  const answer = Promise.withResolvers<void>();
  t.onmessage = (m) => {
    // Request 1 answered at once, 2 only later (after end of input), 3 never (cancelled).
    if ("id" in m && m.id === 1) void t.send({ jsonrpc: "2.0", id: 1, result: {} });
    if ("id" in m && m.id === 2) void answer.promise.then(() => t.send({ jsonrpc: "2.0", id: 2, result: {} }));
  };
  await t.start();
  await waitUntil("the transport to have read everything", () => Promise.resolve(t.unanswered === 1));
  answer.resolve();
  assertEquals(await closed.promise, 2, "both answers written before close");
  assertEquals(written.map((w) => JSON.parse(w).id), [1, 2]);
});

Deno.test("an envelope the plain check does not know is still checked by the SDK's schema", async () => {
  const bad = [
    { jsonrpc: "2.0", id: 1, method: "ping", extra: true }, // unknown key
    { jsonrpc: "2.0", id: 1.5, method: "ping" }, // id neither a string nor an integer
    { jsonrpc: "2.0", id: 2, method: "ping", params: [1] }, // params not an object
    { jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: { progressToken: {} } } }, // bad _meta
    { jsonrpc: "1.0", id: 4, method: "ping" },
  ];
  const good = { jsonrpc: "2.0" as const, id: 5, method: "ping", params: { _meta: { progressToken: 7 } } };
  const { messages, written } = await run([enc.encode([...bad, good].map((m) => JSON.stringify(m)).join("\n") + "\n")]);
  assertEquals(messages, [good]);
  assertEquals(written.map((w) => [w.id, w.error.code]), [[1, -32600], [1.5, -32600], [2, -32600], [3, -32600], [
    4,
    -32600,
  ]]);
});

/** A transport with a direct tools/call handler, fed line by line; `lines` and `written` are its two ends. */
function directTransport(
  handler: (params: Record<string, unknown> | undefined, signal: AbortSignal) => Promise<unknown>,
) {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const written: Record<string, unknown>[] = [];
  const wrote = { next: Promise.withResolvers<void>() };
  const messages: JSONRPCMessage[] = [];
  const t = new LinearStdioTransport({
    maxMessageBytes: 1024,
    input,
    parse: parseJSONRPCMessage,
    write: (b) => {
      written.push(JSON.parse(dec.decode(b)));
      wrote.next.resolve();
      wrote.next = Promise.withResolvers();
      return Promise.resolve();
    },
    direct: (method) => method === "tools/call" ? handler : undefined,
  });
  t.onmessage = (m) => messages.push(m);
  return {
    t,
    written,
    messages,
    send: (m: unknown) => feed.enqueue(enc.encode(JSON.stringify(m) + "\n")),
    /** Resolves once `n` replies are written. */
    async replies(n: number) {
      while (written.length < n) await wrote.next.promise;
      return written;
    },
    end: () => feed.close(),
  };
}

Deno.test("a direct request is answered by its handler, an error becomes the JSON-RPC error, other methods go on", async () => {
  const d = directTransport((params) => {
    if (params?.name === "fail") return Promise.reject(Object.assign(new Error("bad name"), { code: -32602 }));
    if (params?.name === "crash") return Promise.reject(new Error("boom"));
    return Promise.resolve({ content: [], echoed: params?.name });
  });
  const closed = new Promise<void>((r) => d.t.onclose = r);
  await d.t.start();
  d.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a" } });
  d.send({ jsonrpc: "2.0", id: "two", method: "tools/call", params: { name: "fail" } });
  d.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "crash", _meta: { progressToken: 1 } } });
  d.send(JSON.parse(ping(4)));
  const written = await d.replies(3);
  assertEquals(written.find((w) => w.id === 1), { jsonrpc: "2.0", id: 1, result: { content: [], echoed: "a" } });
  assertEquals(written.find((w) => w.id === "two")?.error, { code: -32602, message: "bad name" });
  assertEquals(written.find((w) => w.id === 3)?.error, { code: -32603, message: "boom" });
  assertEquals(d.messages, [JSON.parse(ping(4))], "only the ping reached the SDK's side");
  await d.t.send({ jsonrpc: "2.0", id: 4, result: {} }); // what the SDK would answer: nothing is left open
  d.end();
  await closed;
});

Deno.test("a cancelled direct request sees its signal abort and gets no reply; close aborts the rest", async () => {
  const signals = new Map<unknown, AbortSignal>();
  const d = directTransport((params, signal) => {
    signals.set(params?.name, signal);
    // Answers only when aborted (a long wait that ends on cancellation, as the tools' do).
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ content: [] })));
  });
  const closed = new Promise<void>((r) => d.t.onclose = r);
  await d.t.start();
  d.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "cancelled" } });
  d.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "open" } });
  await waitUntil("both calls to start", () => Promise.resolve(signals.size === 2));
  d.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
  await waitUntil("the cancellation to arrive", () => Promise.resolve(signals.get("cancelled")!.aborted));
  assertEquals(signals.get("open")!.aborted, false);
  assertEquals(d.t.unanswered, 1, "the cancelled request counts as answered");
  await d.t.close();
  await closed;
  assert(signals.get("open")!.aborted, "closing aborts the calls in flight");
  assertEquals(d.written, [], "no reply to a cancelled request, nor after close");
});

Deno.test("a malformed answer to the server's own request fails that request at once and is never answered", async () => {
  const d = directTransport(() => Promise.resolve({ content: [] }));
  const closed = new Promise<void>((r) => d.t.onclose = r);
  await d.t.start();
  // The server asks the client (2025 era: elicitation/create); the client answers with neither result nor error.
  await d.t.send({ jsonrpc: "2.0", id: 0, method: "elicitation/create", params: {} } as JSONRPCMessage);
  d.send({ jsonrpc: "2.0", id: 0 });
  // A malformed answer to nothing the server asked (a result that is not an object), then a request.
  d.send({ jsonrpc: "2.0", id: 9, result: "yes" });
  d.send(JSON.parse(ping(4)));
  await waitUntil("the ping to reach the SDK's side", () => Promise.resolve(d.messages.length === 2));
  assertEquals(d.messages[0], {
    jsonrpc: "2.0",
    id: 0,
    error: { code: -32600, message: "its answer was not a valid JSON-RPC 2.0 response" },
  });
  assertEquals(d.messages[1], JSON.parse(ping(4)));
  assertEquals(d.written.map((w) => w.method), ["elicitation/create"], "no reply to an answer");
  await d.t.send({ jsonrpc: "2.0", id: 4, result: {} });
  d.end();
  await closed;
});

/** A pane of `tmux` waiting at a yes/no question (bash's `read`), for request-input. */
async function questionPane(tmux: { tmux(...args: string[]): Promise<string> }): Promise<string> {
  const script = "read -r -p 'Overwrite it? [y/N] ' yn; exec sleep 3600";
  const pane = (await tmux.tmux("new-window", "-P", "-F", "#{pane_id}", "bash", "--norc", "-c", script)).trim();
  await waitUntil("the prompt", async () => (await tmux.tmux("capture-pane", "-p", "-t", pane)).includes("[y/N]"));
  return pane;
}

/** On a raw 2025-era session that declares elicitation: `initialize`, then request-input on `pane` as request 1. */
async function askAbout(s: ReturnType<typeof rawServer>, pane: string): Promise<void> {
  await s.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: { name: "t", version: "0" },
    },
  });
  assertEquals((await s.next()).id, 0);
  await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const args = { target: pane, prompt: "overwrite?", timeout_ms: 600_000 };
  await s.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "request-input", arguments: args } });
}

Deno.test("over stdio, request-input whose elicitation gets a malformed answer ends at once, and the answer gets none", async () => {
  const tmux = await startTmux();
  const s = rawServer(tmux.socketName, ["--toolsets", "exec"]);
  try {
    await askAbout(s, await questionPane(tmux));
    let asked: Record<string, unknown>;
    do asked = await s.next(); while (asked.method !== "elicitation/create");
    await s.send({ jsonrpc: "2.0", id: asked.id, result: "yes" });
    const reply = await s.next();
    assertEquals(reply.id, 1, `the call's answer, not ${JSON.stringify(reply).slice(0, 200)}`);
    const { content, isError } = reply.result as { content: { text: string }[]; isError: boolean };
    assert(isError);
    assertMatch(
      content[0].text,
      /^the client failed to ask the human \(its answer was not a valid JSON-RPC 2\.0 response\)/,
    );
  } finally {
    await s.stop();
    await tmux.kill();
  }
});

Deno.test("a first line of JSON null is refused and the server keeps serving", async () => {
  const tmux = await startTmux();
  const s = rawServer(tmux.socketName);
  try {
    // Read before the SDK has loaded (the early path): it once ended the input, and the server exited unanswered.
    await s.sendRaw("null");
    const refused = await s.next();
    assertEquals(refused, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Message is not a JSON-RPC 2.0 message: send a JSON object, one per line" },
    });
    assertEquals((await s.initialize("2025-11-25")).id, 0);
  } finally {
    await s.stop();
    await tmux.kill();
  }
});

Deno.test("two direct requests under one id: the first's answer leaves the second cancellable, as the SDK does", async () => {
  const signals = new Map<unknown, AbortSignal>();
  const first = Promise.withResolvers<unknown>();
  const d = directTransport((params, signal) => {
    signals.set(params?.name, signal);
    if (params?.name === "first") return first.promise;
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ content: [] })));
  });
  const closed = new Promise<void>((r) => d.t.onclose = r);
  await d.t.start();
  d.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "first" } });
  d.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "second" } });
  await waitUntil("both calls to start", () => Promise.resolve(signals.size === 2));
  first.resolve({ content: [] });
  await d.replies(1);
  d.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
  await waitUntil("the second call to be cancelled", () => Promise.resolve(signals.get("second")!.aborted));
  d.end();
  await closed;
});

Deno.test("at the end of input, a question to the human the client can no longer answer ends the call at once", async () => {
  const tmux = await startTmux();
  try {
    const pane = await questionPane(tmux);
    // The client closes its end once the question is out (it is in flight), or right after its call (it is not
    // sent yet); either way the call answers now with why, not at the end of its budget.
    for (const closeWhenAsked of [true, false]) {
      const s = rawServer(tmux.socketName, ["--toolsets", "exec"]);
      try {
        await askAbout(s, pane);
        if (closeWhenAsked) { while ((await s.next()).method !== "elicitation/create"); }
        await s.writer.close();
        let reply: Record<string, unknown>;
        do reply = await s.next(); while (reply.id !== 1);
        const text = (reply.result as { content: { text: string }[] }).content[0].text;
        assertMatch(
          text,
          /^the client failed to ask the human \(the client closed its end of the connection before answering\)/,
        );
      } finally {
        await s.stop();
      }
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test("recoverId finds only top-level ids at either end of a message", () => {
  assertEquals(recoverId('{"jsonrpc":"2.0","id":7,"method":"x"', ""), 7);
  assertEquals(recoverId("", ',"jsonrpc":"2.0","id":"abc"}'), "abc");
  assertEquals(recoverId('{"method":"x","params":{"id":3', 'zz"}}'), undefined);
  assertEquals(recoverId("", '"params":{"id":3}}'), undefined);
  assertEquals(recoverId('{"jsonrpc":"2.0","method":"tools/call","id":8,"params":{', ""), 8);
  assertEquals(recoverId('{"method":"a\\"b","id":"m","params":{', ""), "m");
  assertEquals(recoverId('{"method":"x","params":{"id":3,"a":1', ""), undefined);
  assertEquals(recoverId('{"method":"x","jsonrpc":"2.0","method":"y","id":3,', ""), undefined);
});

Deno.test("an oversized set-buffer is refused over stdio and the next call is answered", async () => {
  const tmux = await startTmux();
  const s = rawServer(tmux.socketName, ["--max-message-bytes", "65536"]);
  const { send, child, stderr } = s;
  const next = () => s.next();
  try {
    await s.initialize();
    await send({
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "set-buffer", arguments: { name: "huge", content: "x".repeat(200_000) } },
      id: 1,
    });
    const refused = await next();
    assertEquals(refused.id, 1);
    assertMatch((refused.error as { message: string }).message, /exceeds the server's limit of 65536 bytes/);
    await send({ jsonrpc: "2.0", method: "tools/call", params: { name: "list-buffers", arguments: {} }, id: 2 });
    const answered = await next();
    assertEquals(answered.id, 2);
    assertEquals((answered.result as { structuredContent: unknown }).structuredContent, { buffers: [] });
  } finally {
    await s.writer.close();
    await s.reader.cancel().catch(() => {});
    await tmux.kill();
  }
  // End of stdin ends the server normally, and the discard was logged.
  assertEquals((await child.status).code, 0);
  assert((await stderr).includes("discarded an oversized message"));
});

Deno.test("the server's stdin reader hands back a file's bytes in reused chunks, then the end; cancel ends it", async () => {
  const path = await Deno.makeTempFile();
  try {
    const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7) % 251);
    await Deno.writeFile(path, bytes);
    using file = await Deno.open(path);
    const reader = fileByteReader(file, 64 * 1024);
    const got: Uint8Array[] = [];
    for (let chunk; (chunk = await reader.read()) !== undefined;) {
      assert(chunk.length > 0 && chunk.length <= 64 * 1024);
      got.push(chunk.slice()); // a chunk is valid until the next read
    }
    assertEquals(got.length, 4);
    const all = new Uint8Array(200_000);
    let off = 0;
    for (const c of got) (all.set(c, off), off += c.length);
    assertEquals([off, all], [200_000, bytes]);
    assertEquals(await reader.read(), undefined, "the end stays the end");

    using again = await Deno.open(path);
    const cancelled = fileByteReader(again, 1024);
    assertEquals((await cancelled.read())?.length, 1024);
    await cancelled.cancel();
    assertEquals(await cancelled.read(), undefined);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("before start, an early call is answered without the SDK and a cancellation with a _meta envelope stops it at once", async () => {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const written: Record<string, unknown>[] = [];
  const signals = new Map<unknown, AbortSignal>();
  const t = new LinearStdioTransport({
    maxMessageBytes: 1024,
    input,
    write: (b) => {
      written.push(JSON.parse(dec.decode(b)));
      return Promise.resolve();
    },
    earlyCall: (json) =>
      (json as { method?: string }).method === "tools/call"
        ? (params, signal) => {
          signals.set(params?.name, signal);
          if (params?.name === "quick") return Promise.resolve({ content: [] });
          return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ content: [] })));
        }
        : undefined,
  });
  const sdk: unknown[] = [];
  t.onmessage = (m) => sdk.push(m);
  const send = (m: unknown) => feed.enqueue(enc.encode(JSON.stringify(m) + "\n"));
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
  t.listen();
  send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", _meta: meta } });
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "quick", _meta: meta } });
  await waitUntil("the quick call's answer", () => Promise.resolve(written.length === 1), 60_000);
  assertEquals(written[0], { result: { content: [] }, jsonrpc: "2.0", id: 2 });
  send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: meta } });
  await waitUntil("the cancellation to arrive", () => Promise.resolve(signals.get("slow")?.aborted === true), 60_000);
  assertEquals(written.length, 1, "no reply to the cancelled call");
  await t.close();
  assertEquals(sdk, [], "nothing was handed to the SDK: it never started");
});

Deno.test("a request id JSON.parse cannot hold exactly is refused in one line, under the id as the client wrote it", async () => {
  const big = '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping","params":{"id":1}}';
  const { messages, text } = await run([
    enc.encode(
      `${big}\n{"jsonrpc":"2.0","method":"tools/list","id":-1e400}\n{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n`,
    ),
    enc.encode(`{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}\n`),
  ]);
  // The safe one goes on, unchanged; each other is answered under its own text, not the number it rounds to.
  assertEquals(messages.map((m) => (m as { id: number }).id), [9007199254740991]);
  assertEquals(text.length, 3);
  for (const [line, raw] of text.map((t, i) => [t, ["9007199254740993", "-1e400", "1.5"][i]])) {
    assert(line.startsWith(`{"jsonrpc":"2.0","id":${raw},"error":{"code":-32600,`), line);
    assertMatch(
      line,
      /is not an integer of at most 9007199254740991 in magnitude.*send a string id or a smaller integer"\}\}\n$/,
    );
  }
  // An oversized message's id, recovered from its edges, comes back as written too.
  const huge = `{"jsonrpc":"2.0","method":"tools/call","params":{"x":"${"a".repeat(5000)}"},"id":12345678901234567890}`;
  const over = await run([enc.encode(huge + "\n")], 2048);
  assert(over.text[0].startsWith('{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":-32600,'), over.text[0]);
  const bad = await run([enc.encode('{"jsonrpc":"2.0","id":90071992547409931,"method":\n')]);
  assert(bad.text[0].startsWith('{"jsonrpc":"2.0","id":90071992547409931,"error":{"code":-32700,'), bad.text[0]);
});

Deno.test("a byte order mark is accepted before the first message only; later it is a one-line error", async () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  const { messages, written } = await run([
    bom,
    enc.encode(`${ping(1)}\n`),
    bom,
    enc.encode(`${ping(2)}\n${ping(3)}\n`),
  ]);
  assertEquals(messages.map((m) => (m as { id: number }).id), [1, 3]);
  assertEquals(written.length, 1);
  assertEquals(written[0].id, 2);
  assertEquals(written[0].error.code, -32700);
  assertMatch(
    written[0].error.message,
    /byte order mark \(U\+FEFF\), which only the first line may: send JSON lines without/,
  );
  // A first line with a mark that is not valid JSON is the usual parse error, under its id.
  const cut = await run([bom, enc.encode('{"jsonrpc":"2.0","id":5,"method":\n')]);
  assertEquals(cut.written, [{ jsonrpc: "2.0", id: 5, error: { code: -32700, message: "Message is not valid JSON" } }]);
});

Deno.test("a U+FEFF inside a message is kept, also right after a byte that is not UTF-8", () => {
  const bytes = new Uint8Array([...enc.encode('"a'), 0xff, ...enc.encode('\uFEFFb\uFEFF"')]);
  assertEquals(decodeKeepingInvalid(bytes), '"a\uDCFF\uFEFFb\uFEFF"');
  assertEquals(decodeKeepingInvalid(enc.encode("\uFEFFx")), "\uFEFFx");
});

Deno.test("a last message ended by the end of input instead of a newline is handled like the others", async () => {
  const whole = await run([enc.encode(`${ping(1)}\n${ping(2)}`)]);
  assertEquals(whole.messages.map((m) => (m as { id: number }).id), [1, 2]);
  const cut = await run([enc.encode(`${ping(1)}\n{"jsonrpc":"2.0","id":3,"meth`)]);
  assertEquals(cut.messages.length, 1);
  assertEquals(cut.written, [{ jsonrpc: "2.0", id: 3, error: { code: -32700, message: "Message is not valid JSON" } }]);
  // Over stdio: the client writes its request without a newline and closes its end; the answer still comes.
  const tmux = await startTmux();
  const s = rawServer(tmux.socketName);
  try {
    await s.initialize("2025-11-25");
    await s.writer.write(enc.encode('{"jsonrpc":"2.0","id":"last","method":"tools/list"}'));
    await s.writer.close();
    const reply = await s.next();
    assertEquals(reply.id, "last");
    assert(Array.isArray((reply.result as { tools?: unknown }).tools), JSON.stringify(reply).slice(0, 300));
  } finally {
    await s.stop();
    await tmux.kill();
  }
});

Deno.test("a message that is not JSON-RPC 2.0 is answered in one line saying what is wrong with it", async () => {
  const lines = [
    ['{"jsonrpc":"1.0","id":1,"method":"ping"}', 1, 'its "jsonrpc" must be "2.0"'],
    ['{"jsonrpc":"2.0","id":2}', 2, 'send a request or notification with a "method"'],
    ['{"jsonrpc":"2.0","id":3,"method":7}', 3, 'its "method" must be a string'],
    ['{"jsonrpc":"2.0","id":null,"method":"ping"}', null, 'its "id" must be a string or an integer'],
    ['{"jsonrpc":"2.0","id":true,"method":"ping"}', null, 'its "id" must be a string or an integer'],
    ['{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}', 4, 'its "params" must be an object'],
    ['{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}', null, 'its "params" must be an object'],
    ['{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":{"progressToken":{}}}}', 5, "the MCP schema"],
    ["42", null, "send a JSON object, one per line"],
  ] as const;
  const { messages, written } = await run([enc.encode(lines.map(([l]) => l).join("\n") + "\n")]);
  assertEquals(messages, []);
  assertEquals(written.length, lines.length);
  for (const [i, [, id, why]] of lines.entries()) {
    assertEquals(written[i].id, id);
    assertEquals(written[i].error.code, -32600);
    const message: string = written[i].error.message;
    assert(message.startsWith("Message is not a JSON-RPC 2.0 message: ") && message.includes(why), message);
  }
});
