/**
 * The budget stage in-process (SDK client over an in-memory transport) with
 * test tools that need no tmux: results when no tmux server is reachable,
 * nested structured results, and the result registry's byte cap against a
 * real tmux server.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { InMemoryTransport as InMemoryTransportJs } from "@modelcontextprotocol/sdk/inMemory.js";
import type { InMemoryTransport as InMemoryTransportTyped } from "@modelcontextprotocol/sdk/inMemory";
import { parseConfig } from "../lib/config.ts";
import { createApp } from "../lib/server/server.ts";
import { READ_ONLY } from "../lib/tools/tool.ts";
import { defineTool } from "../lib/tools/declared.ts";
import showBuffer from "../lib/tools/buffers/show_buffer.ts";
import { createResultRegistry } from "../lib/budget/registry.ts";
import { createBufferStore } from "../lib/buffers/store.ts";
import { createSpawnExecutor } from "../lib/tmux/executor.ts";
import { estimateTokens } from "../lib/budget/estimate.ts";
import { fitPrefix, fitSuffix, tailStart } from "../lib/budget/preview.ts";
import { nestingDepth, shrink } from "../lib/budget/shape.ts";
import { resultTokens } from "../lib/server/budget.ts";
import { asBuffered, configFile, resultBuffers } from "./budget_helpers.ts";
import { Client, startTmux, uniqueSocketName } from "./helpers.ts";

const InMemoryTransport: typeof InMemoryTransportTyped = InMemoryTransportJs;
import fc from "fast-check";

const emitText = defineTool({
  name: "emit-text",
  title: "test: emit text",
  description: "test tool: returns `lines` numbered lines",
  toolset: "buffers",
  tier: "readonly",
  annotations: READ_ONLY,
  textField: "text",
  refinements: ["pass fewer lines"],
  input: z.object({ lines: z.number().int().min(1).max(100_000), colored: z.boolean().default(false) }),
  output: z.object({ source: z.string(), text: z.string() }),
  handler({ lines, colored }) {
    // colored: lines as `capture-pane -e` or a log with escapes returns them, control characters and tabs
    const line = (n: number) => colored ? `\x1b[1;31m\x01E\x1b[0m\t\t${n}\x7f\x02` : `output line ${n}`;
    const text = Array.from({ length: lines }, (_, i) => line(i + 1)).join("\n");
    return Promise.resolve({ structured: { source: "test", text } });
  },
});

const emitTree = defineTool({
  name: "emit-tree",
  title: "test: emit a nested result",
  description: "test tool: returns many nested records",
  toolset: "buffers",
  tier: "readonly",
  annotations: READ_ONLY,
  input: z.object({ count: z.number().int().min(1).max(10_000) }),
  output: z.object({
    total: z.number(),
    records: z.array(z.object({ id: z.number(), meta: z.object({ tags: z.array(z.string()) }) })),
  }),
  handler({ count }) {
    const records = Array.from({ length: count }, (_, i) => ({ id: i, meta: { tags: [`t${i}`, "x"] } }));
    return Promise.resolve({ structured: { total: count, records } });
  },
});

async function inProcess(args: string[], fn: (client: Client) => Promise<void>): Promise<void> {
  const app = await createApp(parseConfig([...args, "--audit-log", "/dev/null"], {}), [showBuffer, emitText, emitTree]);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "budget-stage-test", version: "0" });
  app.serve(serverSide);
  await client.connect(clientSide);
  try {
    await fn(client);
  } finally {
    await client.close();
    await app.close();
  }
}

Deno.test("without a reachable tmux server an over-budget result is the preview with a note", async () => {
  await inProcess(["--socket-name", uniqueSocketName("none"), "--max-tokens", "500"], async (client) => {
    const r = await client.callTool({ name: "emit-text", arguments: { lines: 5000 } });
    assert.equal(r.isError, undefined);
    const b = asBuffered(r.structuredContent);
    assert.equal(b.buffer_id, null);
    assert.match(b.note, /could not be kept in a tmux buffer \(no tmux server is running/);
    assert.match(b.note, /this preview is all there is/);
    assert.deepEqual(b.suggested_refinements, ["pass fewer lines"]);
    assert.equal(b.preview.source, "test");
    assert.ok((b.preview.text as string).endsWith("output line 5000"));
    assert.ok((b.preview.text as string).startsWith("output line "));
    assert.ok(estimateTokens(JSON.stringify(b.preview)) <= 250, "the preview fits half the budget");
  });
});

Deno.test("a preview of text full of control characters fits its budget as the JSON the client receives", async () => {
  // Each control character reaches the client as a 6-character \u00XX escape: measured on the raw text, the preview
  // was ~3.5× its budget and the buffered response ~2× the tool's.
  await inProcess(["--socket-name", uniqueSocketName("none"), "--max-tokens", "4000"], async (client) => {
    const r = await client.callTool({ name: "emit-text", arguments: { lines: 5000, colored: true } });
    const b = asBuffered(r.structuredContent);
    const preview = b.preview.text as string;
    assert.ok(preview.endsWith("\t\t5000\x7f\x02"), "the preview keeps the end");
    assert.ok(preview.startsWith("\x1b[1;31m"), "at a line start");
    assert.ok(estimateTokens(JSON.stringify(b.preview)) <= 2000, "the preview fits half the budget, as JSON");
    const total = resultTokens(r as Parameters<typeof resultTokens>[0], 0) ?? 0;
    assert.ok(total <= 4000, `the buffered response is ${total} tokens, over the 4000-token budget`);
  });
});

Deno.test("a buffered response fits the tool's budget: under a small one the preview gives way to the note", async () => {
  // The preview got half the budget whatever the rest cost: at 500 tokens a buffered response was ~560-630.
  const tmux = await startTmux("small");
  try {
    // A per-tool budget of a few hundred tokens: the note and suggestions give way too (at 200: ~320 tokens before).
    for (const max of [150, 200, 300, 500, 700]) {
      await inProcess(["--socket-name", tmux.socketName, "--max-tokens", String(max)], async (client) => {
        for (const [name, args] of [["emit-text", { lines: 5000 }], ["emit-tree", { count: 3000 }]] as const) {
          const r = await client.callTool({ name, arguments: args });
          const b = asBuffered(r.structuredContent);
          assert.match(b.buffer_id ?? "", /^mcp-result-/);
          const total = resultTokens(r as Parameters<typeof resultTokens>[0], 0) ?? 0;
          assert.ok(total <= max, `${name}: the buffered response is ${total} tokens, over the ${max}-token budget`);
          if (max >= 500) assert.ok(JSON.stringify(b.preview).length > 20, `${name}: a preview is left`);
          assert.match(b.note, /show-buffer/, `${name}: the note says how to read the rest`);
        }
      });
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test('the note says how long the result buffer is kept as set, never "0 s" or "1 minutes"', async () => {
  const tmux = await startTmux("ttl");
  try {
    for (const [ttl, said] of [[100, "100 ms"], [1500, "1500 ms"], [90_000, "90 s"], [60_000, "1 minute"]] as const) {
      const path = await configFile(`{ "bufferTTL": ${ttl} }`);
      try {
        await inProcess(["--socket-name", tmux.socketName, "--config", path, "--max-tokens", "500"], async (client) => {
          const b = asBuffered(
            (await client.callTool({ name: "emit-text", arguments: { lines: 5000 } })).structuredContent,
          );
          assert.match(b.note, new RegExp(`is in tmux buffer "${b.buffer_id}" for up to ${said}; page it`));
        });
      } finally {
        await Deno.remove(path);
      }
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test("a nested structured result keeps its first records with deep values summarized", async () => {
  await inProcess(["--socket-name", uniqueSocketName("none"), "--max-tokens", "1000"], async (client) => {
    const b = asBuffered((await client.callTool({ name: "emit-tree", arguments: { count: 2000 } })).structuredContent);
    assert.equal(b.metadata.item_count, 2000);
    assert.equal(b.metadata.max_depth, 5, "result, records, record, meta, tags");
    assert.equal(b.metadata.truncated_at_depth, 3);
    const preview = b.preview as { total: number; records: unknown[] };
    assert.equal(preview.total, 2000);
    assert.ok(preview.records.length > 5 && preview.records.length < 2000);
    assert.deepEqual(preview.records[1], { id: 1, meta: "[Object: 1 properties, truncated]" });
  });
});

Deno.test("the registry keeps at most maxBytes of result buffers, oldest deleted first", async () => {
  const tmux = await startTmux("reg");
  const exec = createSpawnExecutor({ bin: "tmux", socketName: tmux.socketName, maxConcurrency: 4 });
  const registry = createResultRegistry(createBufferStore(exec), {
    ttlMs: 60_000,
    maxCount: 32,
    maxBytes: 100,
    sweep: true,
  });
  try {
    const forty = new Uint8Array(40).fill(0x61);
    const a = await registry.store(forty);
    const b = await registry.store(forty);
    assert.deepEqual((await resultBuffers(tmux)).sort(), [a, b].sort());
    const c = await registry.store(forty);
    assert.deepEqual(registry.names(), [b, c]);
    assert.deepEqual((await resultBuffers(tmux)).sort(), [b, c].sort());
    const huge = await registry.store(new Uint8Array(500).fill(0x62));
    assert.deepEqual(registry.names(), [huge], "one result larger than the cap is still kept, alone");
    assert.deepEqual(await resultBuffers(tmux), [huge]);
    await tmux.tmux("delete-buffer", "-b", huge); // the model may delete a result buffer itself
    await registry.clear();
    assert.deepEqual(registry.names(), []);
  } finally {
    await registry.clear();
    await tmux.kill();
  }
});

Deno.test("a result buffer renamed away or deleted takes no room under the registry's caps", async () => {
  const tmux = await startTmux("reggone");
  const exec = createSpawnExecutor({ bin: "tmux", socketName: tmux.socketName, maxConcurrency: 4 });
  const store = createBufferStore(exec);
  const registry = createResultRegistry(store, { ttlMs: 60_000, maxCount: 3, maxBytes: 100, sweep: false });
  try {
    const forty = new Uint8Array(40).fill(0x61);
    const a = await registry.store(forty);
    const b = await registry.store(forty);
    await store.rename(b, "kept", false); // as rename-buffer does, to keep a result
    const c = await registry.store(forty);
    assert.deepEqual((await resultBuffers(tmux)).sort(), [a, c].sort(), "80 bytes of results are under the cap");
    await store.delete(a);
    const d = await registry.store(forty);
    const e = await registry.store(forty);
    assert.deepEqual((await resultBuffers(tmux)).sort(), [d, e].sort(), "c made room for e; the deleted a took none");
    assert.deepEqual(registry.names(), [d, e]);
  } finally {
    await registry.clear();
    await tmux.kill();
  }
});

Deno.test("tail previews fit their budget, start at a line and never split a character", () => {
  const line = fc.string({ unit: fc.constantFrom("a", "Z", "7", " ", "-", "é", "語", "🚀"), maxLength: 40 });
  fc.assert(fc.property(fc.array(line, { maxLength: 60 }), fc.integer({ min: 1, max: 200 }), (lines, budget) => {
    const text = lines.join("\n");
    const start = tailStart(text, budget);
    const tail = text.slice(start);
    const suffix = fitSuffix(text, budget);
    assert.ok(estimateTokens(text.slice(suffix)) <= budget);
    assert.ok(start >= suffix);
    if (start > suffix) assert.equal(text[start - 1], "\n", "moved forward to a line start");
    assert.ok(!/^[\udc00-\udfff]/.test(tail), "no lone low surrogate at the start");
    const end = fitPrefix(text, budget);
    assert.ok(estimateTokens(text.slice(0, end)) <= budget);
    assert.ok(!/[\ud800-\udbff]$/.test(text.slice(0, end)), "no lone high surrogate at the end");
  }));
});

Deno.test("shrink summarizes containers deeper than maxDepth and cuts long strings", () => {
  const value = { a: 1, b: { c: [1, 2, { d: "x".repeat(50) }] }, e: "short" };
  assert.equal(nestingDepth(value), 4);
  assert.deepEqual(shrink(value, { maxDepth: 2, maxStringChars: 10 }), {
    value: { a: 1, b: { c: "[Array: 3 items, truncated]" }, e: "short" },
    depthTruncated: true,
  });
  assert.deepEqual(shrink(value, { maxDepth: 4, maxStringChars: 10 }), {
    value: { a: 1, b: { c: [1, 2, { d: "xxxxxxxxxx… [40 more characters]" }] }, e: "short" },
    depthTruncated: false,
  });
});
