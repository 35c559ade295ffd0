/**
 * Memory over a long session: the pieces that keep the server's
 * RSS bounded. The soak itself is a bench (tests/bench/memory_soak.ts).
 */
import { assert, assertEquals } from "./assert.ts";
import { waitUntil } from "./pane_helpers.ts";
import { byteReader } from "../lib/byte_reader.ts";
import { fullCollector, startMemoryReducer } from "../lib/server/memory.ts";
import { readLines } from "../lib/tmux/control_client.ts";

Deno.test("byteReader reads a process pipe into one reused buffer, not a new one per read", async () => {
  // Three writes, each after we have read the one before: three reads.
  const child = new Deno.Command("sh", {
    args: ["-c", "printf 'one\\n'; read x; printf 'two\\n'; read x; printf 'three\\n'"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const input = child.stdin.getWriter();
  const reader = byteReader(child.stdout);
  const chunks: Uint8Array[] = [];
  let text = "";
  for (let c; (c = await reader.read()) !== undefined;) {
    text += new TextDecoder().decode(c);
    chunks.push(c);
    if (chunks.length < 3) await input.write(new TextEncoder().encode("\n"));
  }
  reader.releaseLock();
  await input.close();
  await child.status;
  assertEquals(text, "one\ntwo\nthree\n");
  assertEquals(chunks.length, 3);
  // Every earlier chunk's memory was handed to the next read (its view is detached):
  // the same buffer went round, where Deno's default reader allocates 64 KiB per read.
  for (const c of chunks.slice(0, -1)) assertEquals(c.byteLength, 0, "an earlier chunk should be detached");
});

Deno.test("byteReader falls back to a plain reader for a stream that is not a byte stream", async () => {
  const stream = ReadableStream.from([new Uint8Array([1, 2]), new Uint8Array([3])]);
  const reader = byteReader(stream);
  assertEquals(await reader.read(), new Uint8Array([1, 2]));
  assertEquals(await reader.read(), new Uint8Array([3]));
  assertEquals(await reader.read(), undefined);
});

Deno.test("readLines keeps lines whole across reads of the reused buffer", async () => {
  const child = new Deno.Command("sh", {
    args: ["-c", "printf 'alp'; sleep 0.1; printf 'ha\\nbeta\\ngam'; sleep 0.1; printf 'ma\\n'"],
    stdout: "piped",
  }).spawn();
  const lines: string[] = [];
  await readLines(child.stdout, (b, start, end) => lines.push(new TextDecoder().decode(b.subarray(start, end))));
  await child.status;
  assertEquals(lines, ["alpha", "beta", "gamma"]);
});

Deno.test("the memory reducer collects once garbage piles up, and stops", async () => {
  assert(await fullCollector() !== undefined, "gc should be obtainable at run time");
  const reducer = startMemoryReducer({ intervalMs: 20, garbageBytes: 1024 * 1024 });
  try {
    // Garbage that survives young-generation collection long enough to reach the old generation.
    let keep: unknown[] = [];
    await waitUntil("a collection", () => {
      keep = Array.from({ length: 50_000 }, (_, i) => ({ i, s: `garbage-${i}` }));
      return Promise.resolve(reducer.collections > 0);
    });
    keep.length = 0;
  } finally {
    reducer.stop();
  }
});
