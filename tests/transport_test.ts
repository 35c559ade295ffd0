import { assert, assertEquals, assertMatch } from "./assert.ts";
import { LinearStdioTransport, recoverId } from "../lib/server/transport.ts";
import type { JSONRPCMessage } from "../lib/sdk.ts";
import { startTmux } from "./helpers.ts";
import { rawServer } from "./raw_stdio.ts";
import { waitUntil } from "./pane_helpers.ts";

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
  return { messages, written: written.map((w) => JSON.parse(w)), warnings };
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

Deno.test("recoverId finds only top-level ids at either end of a message", () => {
  assertEquals(recoverId('{"jsonrpc":"2.0","id":7,"method":"x"', ""), 7);
  assertEquals(recoverId("", ',"jsonrpc":"2.0","id":"abc"}'), "abc");
  assertEquals(recoverId('{"method":"x","params":{"id":3', 'zz"}}'), undefined);
  assertEquals(recoverId("", '"params":{"id":3}}'), undefined);
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
