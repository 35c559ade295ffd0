/**
 * Response budgets through the MCP client over stdio, against real tmux:
 * over-budget results become a preview plus a result buffer that pages back
 * byte-exact; under-budget results are untouched; alwaysBuffer, depth
 * truncation, TTL, the 32-buffer cap, exit cleanup, errors. Text results
 * paged back byte-exact: tests/budget_capture_test.ts; natively paged tools
 * (show-buffer, search-buffer), which are never buffered: tests/budget_paging_test.ts.
 */
import assert from "node:assert/strict";
import { connect, startTmux, withServer } from "./helpers.ts";
import { asBuffered, pageThrough, resultBuffers, withConfig } from "./budget_helpers.ts";
import { waitUntil } from "./pane_helpers.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { neverBuffered } from "../lib/tools/tool.ts";
import { estimateTokens } from "../lib/budget/estimate.ts";

const enc = new TextEncoder();

/** Creates `count` buffers named `item-NNN` in one tmux call. */
async function makeBuffers(tmux: { tmux(...args: string[]): Promise<string> }, count: number): Promise<void> {
  const args: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) args.push(";");
    args.push("set-buffer", "-b", `item-${String(i).padStart(3, "0")}`, `value ${i}`);
  }
  await tmux.tmux(...args);
}

Deno.test("a result under budget is returned untouched", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("set-buffer", "-b", "small", "hello 世界");
    const r = await mcp.call("show-buffer", { name: "small" });
    const facts = { name: "small", size_bytes: 12, offset_bytes: 0, returned_bytes: 12, next_offset_bytes: null };
    assert.deepEqual(r.structuredContent, { ...facts, text: "hello 世界" });
    assert.deepEqual(r.content, [{ type: "text", text: "hello 世界" }, { type: "text", text: JSON.stringify(facts) }]);
    assert.deepEqual(await resultBuffers(tmux), []);
  });
});

Deno.test("an over-budget list keeps its first items in the preview and the whole list as JSON in the buffer", async () => {
  await withConfig(
    `{
    // lists get a small budget; show-buffer a large one to read the result back in one page
    "maxTokensPerResponse": 400,
    "toolConfigs": { "show-buffer": { "maxTokens": 1000000 } },
  }`,
    async (mcp, tmux) => {
      await makeBuffers(tmux, 150);
      const all = await tmux.tmux("list-buffers", "-F", "#{buffer_name}");
      const b = asBuffered((await mcp.call("list-buffers")).structuredContent);
      assert.equal(b.metadata.item_count, 150);
      assert.equal(b.metadata.max_depth, 3);
      assert.equal(b.metadata.truncated_at_depth, undefined, "depth 3 is within the default limit");
      const shown = (b.preview as { buffers: Array<{ name: string; order_index: number }> }).buffers;
      assert.ok(shown.length > 0 && shown.length < 150, `preview holds some items, got ${shown.length}`);
      assert.deepEqual(shown.map((x) => x.name), all.split("\n").slice(0, shown.length), "the first items, in order");
      assert.match(b.note, new RegExp(`the first ${shown.length} of 150 items of buffers`));

      const page = await mcp.ok<{ text: string }>("show-buffer", { name: b.buffer_id!, max_bytes: 1024 * 1024 });
      const full = JSON.parse(page.text) as { buffers: Array<{ name: string }> };
      assert.deepEqual(full.buffers.map((x) => x.name), all.trimEnd().split("\n"), "the buffer holds the whole list");
    },
  );
});

Deno.test("alwaysBuffer buffers one tool's small results and leaves other tools alone", async () => {
  await withConfig(`{ "toolConfigs": { "list-buffers": { "alwaysBuffer": true } } }`, async (mcp, tmux) => {
    await tmux.tmux("set-buffer", "-b", "one", "1");
    const b = asBuffered((await mcp.call("list-buffers")).structuredContent);
    assert.equal(b.metadata.would_exceed_limit, false);
    assert.deepEqual(b.preview, { buffers: [{ name: "one", size_bytes: 1, order_index: 0 }] });
    assert.match(b.note, /always buffered/);
    const kept = await tmux.tmux("show-buffer", "-b", b.buffer_id!);
    assert.deepEqual(JSON.parse(kept), { buffers: [{ name: "one", size_bytes: 1, order_index: 0 }] });
    // Another tool is untouched.
    assert.deepEqual(await mcp.ok("set-buffer", { name: "two", content: "22" }), { name: "two", size_bytes: 2 });
  });
});

Deno.test("previews summarize containers nested deeper than the tool's maxDepth", async () => {
  await withConfig(
    `{ "toolConfigs": { "list-buffers": { "alwaysBuffer": true, "maxDepth": 2 } } }`,
    async (mcp, tmux) => {
      await makeBuffers(tmux, 3);
      const b = asBuffered((await mcp.call("list-buffers")).structuredContent);
      assert.equal(b.metadata.max_depth, 3);
      assert.equal(b.metadata.truncated_at_depth, 2);
      assert.deepEqual(b.preview, { buffers: Array(3).fill("[Object: 3 properties, truncated]") });
    },
  );
  await withConfig(
    `{ "defaultMaxDepth": 1, "toolConfigs": { "list-buffers": { "alwaysBuffer": true } } }`,
    async (mcp, tmux) => {
      await makeBuffers(tmux, 4);
      const b = asBuffered((await mcp.call("list-buffers")).structuredContent);
      assert.equal(b.metadata.truncated_at_depth, 1);
      assert.deepEqual(b.preview, { buffers: "[Array: 4 items, truncated]" });
    },
  );
});

Deno.test("result buffers expire after bufferTTL, oldest first", async () => {
  await withConfig(
    `{ "bufferTTL": 3000, "toolConfigs": { "list-buffers": { "alwaysBuffer": true } } }`,
    async (mcp, tmux) => {
      const first = asBuffered((await mcp.call("list-buffers")).structuredContent).buffer_id!;
      const second = asBuffered((await mcp.call("list-buffers")).structuredContent).buffer_id!;
      assert.deepEqual((await resultBuffers(tmux)).sort(), [first, second].sort());
      // Watch them go: the older one never outlives the newer, and both go without another call.
      await waitUntil("both result buffers to expire", async () => {
        const left = await resultBuffers(tmux);
        assert.ok(!(left.includes(first) && !left.includes(second)), `${second} expired before ${first}`);
        return left.length === 0;
      }, 30_000);
      // Paging an expired one says what happened and what to do (list-buffers would not show it).
      assert.equal(
        await mcp.err("show-buffer", { name: first }),
        `no buffer named "${first}": result buffers are deleted when they expire, when newer ones push them out, ` +
          `or when their server exits: call the tool that returned it again for a new one`,
      );
    },
  );
});

Deno.test("run-command's full_output_buffer is a result buffer: it expires after bufferTTL too", async () => {
  // It was kept 10 minutes whatever bufferTTL said, and up to 16 more buffers beside the 32 of the caps.
  await withConfig(`{ "bufferTTL": 1000 }`, async (mcp, tmux) => {
    await tmux.tmux("set-option", "-g", "history-limit", "5000");
    const r = await mcp.ok<{ full_output_buffer?: string }>("run-command", { target: "main", command: "seq 1 3000" });
    const kept = r.full_output_buffer!;
    assert.match(kept ?? "", /^mcp-result-/, JSON.stringify(r).slice(0, 300));
    await waitUntil(
      "the full output buffer to expire",
      async () => !(await resultBuffers(tmux)).includes(kept),
      30_000,
    );
  });
});

Deno.test("without show-buffer served, no answer names a buffer the model cannot read", async () => {
  // `--toolsets exec,workspace` (the README's short list): run-command named a full_output_buffer and said to page
  // it with show-buffer, which that server refuses; an over-budget result says it was not kept.
  await withServer(async (mcp, tmux) => {
    const cut = await mcp.call("run-command", { target: "main", command: "seq 1 50", max_lines: 5 });
    const run = cut.structuredContent as { output: string; output_truncated: boolean; full_output_buffer?: string };
    assert.equal(run.output, "46\n47\n48\n49\n50");
    assert.equal(run.output_truncated, true);
    assert.equal(run.full_output_buffer, undefined, JSON.stringify(run));
    const said = (cut.content as { text: string }[])[1].text;
    assert.doesNotMatch(said, /show-buffer with|search-buffer searches/);
    assert.match(said, /max_lines/);
    const over = asBuffered(await mcp.ok("run-command", { target: "main", command: "seq 1 3000", max_lines: 3000 }));
    assert.equal(over.buffer_id, null);
    assert.match(over.note, /show-buffer, needed to read it, is not served/);
    assert.deepEqual(await resultBuffers(tmux), []);
  }, { args: ["--toolsets", "exec,workspace", "--max-tokens", "1000"] });
});

Deno.test("at most 32 result buffers are kept, the oldest deleted first", async () => {
  await withConfig(`{ "toolConfigs": { "list-buffers": { "alwaysBuffer": true } } }`, async (mcp, tmux) => {
    await tmux.tmux("set-buffer", "-b", "seed", "a buffer to list");
    const ids: string[] = [];
    for (let i = 0; i < 35; i++) ids.push(asBuffered(await mcp.ok("list-buffers")).buffer_id!);
    assert.equal(new Set(ids).size, 35, "every result buffer has its own name");
    assert.deepEqual((await resultBuffers(tmux)).sort(), ids.slice(3).sort());
  });
});

Deno.test("result buffers are deleted when the server exits normally", async () => {
  const tmux = await startTmux();
  try {
    await tmux.tmux("set-buffer", "-b", "mine", "the user's own buffer");
    const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "150"] });
    await makeBuffers(tmux, 100);
    const b = asBuffered(await mcp.ok("list-buffers"));
    assert.deepEqual(await resultBuffers(tmux), [b.buffer_id]);
    await mcp.close();
    assert.deepEqual(await resultBuffers(tmux), []);
    assert.equal(await tmux.tmux("show-buffer", "-b", "mine"), "the user's own buffer", "other buffers stay");
  } finally {
    await tmux.kill();
  }
});

Deno.test("a result buffer takes no writes (they would go with it), and renamed away it is kept", async () => {
  const tmux = await startTmux();
  try {
    const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "150"] });
    await makeBuffers(tmux, 100);
    const id = asBuffered(await mcp.ok("list-buffers")).buffer_id!;
    const refused = /^invalid arguments for \S+: (name|to): buffer is a result page its server deletes when it expires/;
    // Each was taken, and deleted with the result at its expiry or the server's exit.
    assert.match(await mcp.err("set-buffer", { name: id, content: "notes" }), refused);
    assert.match(await mcp.err("append-buffer", { name: id, content: "notes" }), refused);
    await mcp.ok("set-buffer", { name: "notes", content: "mine" });
    assert.match(await mcp.err("rename-buffer", { from: "notes", to: id }), refused);
    await mcp.ok("rename-buffer", { from: id, to: "kept" });
    await mcp.close();
    assert.equal(await tmux.tmux("show-buffer", "-b", "notes"), "mine");
    assert.match(await tmux.tmux("show-buffer", "-b", "kept"), /"buffers"/);
    assert.deepEqual(await resultBuffers(tmux), []);
  } finally {
    await tmux.kill();
  }
});

Deno.test("autoTruncate returns the preview without keeping the full result", async () => {
  await withConfig(`{ "autoTruncate": true, "maxTokensPerResponse": 200 }`, async (mcp, tmux) => {
    await makeBuffers(tmux, 100);
    const b = asBuffered(await mcp.ok("list-buffers"));
    assert.equal(b.buffer_id, null);
    assert.match(b.note, /autoTruncate/);
    assert.ok((b.preview.buffers as unknown[]).length > 0);
    assert.ok(!b.suggested_refinements.some((s) => s.includes("mcp-result-")));
    assert.deepEqual(await resultBuffers(tmux), []);
  });
});

Deno.test("enableBuffering false returns every result whole", async () => {
  await withConfig(`{ "enableBuffering": false, "maxTokensPerResponse": 150 }`, async (mcp, tmux) => {
    const text = "alpha beta\n".repeat(500);
    await tmux.tmuxStdin(enc.encode(text), "load-buffer", "-b", "big", "-");
    assert.equal((await mcp.ok<{ text: string }>("show-buffer", { name: "big" })).text, text);
  });
});

Deno.test("--max-tokens overrides maxTokensPerResponse from the config file", async () => {
  await withConfig(`{ "maxTokensPerResponse": 1000000 }`, async (mcp, tmux) => {
    await makeBuffers(tmux, 100);
    const b = asBuffered(await mcp.ok("list-buffers"));
    assert.equal(b.metadata.limit_tokens, 300);
  }, ["--max-tokens", "300"]);
});

Deno.test("errors are never buffered: shown whole, and trimmed to head and tail only when huge", async () => {
  await withServer(async (mcp, tmux) => {
    const small = await mcp.err("show-buffer", { name: "nope" });
    assert.equal(small, `no buffer named "nope": call list-buffers to see the buffers`);
    const args: Record<string, unknown> = { name: "x" };
    for (let i = 0; i < 5000; i++) args[`unknown_${i}`] = i;
    const huge = await mcp.err("show-buffer", args);
    assert.ok(huge.startsWith("invalid arguments for show-buffer: arguments: unknown parameter(s) unknown_0, "));
    assert.ok(huge.endsWith("unknown_4999"), "the tail is kept");
    assert.match(huge, /\[…\d+ characters of this message omitted…\]/);
    assert.ok(huge.length < 60_000 && huge.length > 1_000, `trimmed to about the budget, got ${huge.length}`);
    assert.deepEqual(await resultBuffers(tmux), []);
  }, { args: ["--max-tokens", "2000"] });
});

Deno.test("an error is trimmed to the budget of the tool called (toolConfigs), not only the global one", async () => {
  await withConfig(`{ "toolConfigs": { "show-buffer": { "maxTokens": 150 } } }`, async (mcp) => {
    const args: Record<string, unknown> = { name: "x" };
    for (let i = 0; i < 400; i++) args[`unknown_${i}`] = i;
    const err = await mcp.err("show-buffer", args);
    assert.match(
      err,
      /^invalid arguments for show-buffer: .*\[…\d+ characters of this message omitted…\].*unknown_399$/,
    );
    assert.ok(estimateTokens(err) <= 150, `the error fits show-buffer's 150 tokens, got ${estimateTokens(err)}`);
    // Another tool keeps the global budget: the same mistake comes back whole.
    const whole = await mcp.err("list-buffers", args);
    assert.ok(!whole.includes("omitted"), whole.slice(0, 200));
  }, ["--max-tokens", "20000"]);
});

Deno.test("tools/list declares the buffered shape in every output schema but those of tools never buffered", async () => {
  await withServer(async (mcp) => {
    const { tools } = await mcp.client.listTools();
    assert.ok(tools.length > 0);
    const paged = new Set(TOOLS.filter(neverBuffered).map((t) => t.name));
    assert.ok(paged.has("show-buffer") && paged.has("search-buffer") && paged.has("set-buffer") && paged.has("new"));
    assert.ok(!paged.has("list-buffers") && !paged.has("run-command"));
    for (const t of tools) {
      const schema = t.outputSchema as {
        type: string;
        properties?: Record<string, unknown>;
        anyOf?: Array<{ properties: Record<string, unknown>; required: string[] }>;
      };
      assert.equal(schema.type, "object", t.name);
      if (paged.has(t.name)) {
        // Paged natively or a small confirmation: its own result only, and no field of it is the buffered branch's discriminator.
        assert.equal(schema.anyOf, undefined, t.name);
        assert.ok(!("type" in (schema.properties ?? {})), t.name);
        continue;
      }
      assert.equal(schema.anyOf?.length, 2, t.name);
      // The branches tell apart by `type`, which only a buffered response has.
      assert.deepEqual(schema.anyOf![1].required, ["type"], t.name);
      assert.ok("type" in schema.anyOf![1].properties, t.name);
      assert.ok(!("type" in schema.anyOf![0].properties), `${t.name}: its own result has no type field`);
    }
  });
});

Deno.test("a confirmation is never buffered, whatever the budget", async () => {
  const tmux = await startTmux();
  try {
    // The smallest budget a server takes, and a session name alone larger than it.
    const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "150"] });
    try {
      const name = "界".repeat(128);
      const made = await mcp.ok<{ session_id: string; session_name: string }>("new", { what: "session", name });
      assert.equal(made.session_name, name, "the confirmation itself, not a buffered preview");
      const renamed = await mcp.ok<{ name: string }>("rename", { what: "session", target: made.session_id, name: "t" });
      assert.equal(renamed.name, "t");
      assert.deepEqual(await resultBuffers(tmux), []);
    } finally {
      await mcp.close();
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test("a buffered result of a tool with many fields fits a budget of a few hundred tokens", async () => {
  // snapshot-pane's pane facts and run-command's ids and flags alone were over 150 and 250 tokens (about 320).
  for (const max of [150, 250]) {
    await withServer(async (mcp, tmux) => {
      await tmux.tmux("set-option", "-g", "history-limit", "5000");
      for (
        const [name, args] of [
          ["run-command", { target: "main", command: "seq 1 3000" }],
          ["snapshot-pane", { target: "main" }], // of the screen that output filled
        ] as const
      ) {
        const r = await mcp.call(name, args);
        const b = asBuffered(r.structuredContent);
        const total = estimateTokens(JSON.stringify(b));
        assert.ok(total <= max, `${name}: the buffered response is ${total} tokens, over the ${max}-token budget`);
        assert.match(b.buffer_id ?? "", /^mcp-result-/, `${name}: the full result is kept`);
        assert.match(b.note, /show-buffer/);
        // A field the preview left out is in the buffer: the result is kept whole, as JSON, not its text alone.
        const kept = new TextDecoder().decode(await pageThrough(mcp, b.buffer_id!, 200));
        const field = name === "run-command" ? "exit_code" : "cursor_y";
        if (!(field in b.preview)) assert.equal(typeof JSON.parse(kept)[field], "number", `${name}: ${field} is lost`);
        // Kept as JSON, it counts its lines or fields, not the 0 items of its empty warnings list.
        assert.ok(b.metadata.item_count > 0, `${name}: item_count ${b.metadata.item_count}`);
      }
    }, { args: ["--max-tokens", String(max)] });
  }
});

Deno.test("under a budget of a few hundred tokens a buffered preview uses the room its note leaves: ids, exit code, newest lines", async () => {
  // run-command previewed "output": "" (and snapshot-pane {}) with a quarter of the budget unused.
  for (const max of [150, 300, 400]) {
    await withServer(async (mcp, tmux) => {
      await tmux.tmux("set-option", "-g", "history-limit", "5000");
      const ran = asBuffered(
        (await mcp.call("run-command", { target: "main", command: "seq 1 3000" })).structuredContent,
      );
      const total = estimateTokens(JSON.stringify(ran));
      assert.ok(total <= max, `the buffered response is ${total} tokens, over the ${max}-token budget`);
      if (max >= 300) {
        assert.equal(ran.preview.exit_code, 0, `${max}: the exit code is shown`);
        assert.match(String(ran.preview.output), /\n2999\n3000$/, `${max}: the newest lines are shown`);
        return;
      }
      assert.equal(ran.preview.session_id, "$0", `${max}: the pane's ids are shown`);
      // Of the screen that output filled (under 400 tokens in all).
      const snap = asBuffered((await mcp.call("snapshot-pane", { target: "main" })).structuredContent);
      assert.ok(estimateTokens(JSON.stringify(snap)) <= max, "the snapshot's buffered response fits too");
      assert.equal(snap.preview.session_id, "$0", `${max}: the pane's ids are shown`);
    }, { args: ["--max-tokens", String(max)] });
  }
});
