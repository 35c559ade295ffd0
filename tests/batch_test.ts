/**
 * The batch tool through the MCP client: inner calls run in order through the
 * same pipeline (tier, validation, audit, budget) as calls from the client.
 */
import assert from "node:assert/strict";
import { withServer } from "./helpers.ts";
import { estimateTokens } from "../lib/budget/estimate.ts";
import { resultBuffers } from "./budget_helpers.ts";

interface BatchResult {
  results: Array<{ tool: string; ok: boolean; result?: Record<string, unknown>; error?: string }>;
  completed: number;
  stopped_at?: number;
}

Deno.test("batch runs its calls in order and returns their results in order", async () => {
  await withServer(async (mcp, tmux) => {
    const r = await mcp.ok<BatchResult>("batch", {
      calls: [
        { tool: "set-buffer", arguments: { name: "one", content: "first" } },
        { tool: "append-buffer", arguments: { name: "one", content: " second" } },
        { tool: "show-buffer", arguments: { name: "one" } },
        { tool: "list-buffers" },
      ],
    });
    assert.deepEqual(r.results.map((x) => [x.tool, x.ok]), [
      ["set-buffer", true],
      ["append-buffer", true],
      ["show-buffer", true],
      ["list-buffers", true],
    ]);
    assert.equal(r.completed, 4);
    assert.equal(r.stopped_at, undefined);
    assert.equal(r.results[2].result!.text, "first second", "the calls ran in order");
    assert.equal(await tmux.tmux("show-buffer", "-b", "one"), "first second");
  });
});

Deno.test("batch stops at the first error unless continue_on_error", async () => {
  await withServer(async (mcp, tmux) => {
    const calls = [
      { tool: "set-buffer", arguments: { name: "a", content: "1" } },
      { tool: "show-buffer", arguments: { name: "missing" } },
      { tool: "set-buffer", arguments: { name: "b", content: "2" } },
    ];
    const stopped = await mcp.ok<BatchResult>("batch", { calls });
    assert.equal(stopped.stopped_at, 1);
    assert.equal(stopped.completed, 1);
    assert.equal(stopped.results.length, 2);
    assert.equal(stopped.results[1].ok, false);
    assert.match(stopped.results[1].error!, /no buffer named "missing"/);
    await assert.rejects(tmux.tmux("show-buffer", "-b", "b"), Error, "the call after the error did not run");

    const all = await mcp.ok<BatchResult>("batch", { calls, continue_on_error: true });
    assert.deepEqual(all.results.map((x) => x.ok), [true, false, true]);
    assert.equal(all.completed, 2);
    assert.equal(all.stopped_at, undefined);
    assert.equal(await tmux.tmux("show-buffer", "-b", "b"), "2");
  });
});

Deno.test("batch: an inner call above the server's tier is refused, and every inner call is audited", async () => {
  await withServer(async (mcp) => {
    const r = await mcp.ok<BatchResult>("batch", {
      calls: [{ tool: "list-buffers" }, { tool: "set-buffer", arguments: { name: "x", content: "secret-value" } }],
      continue_on_error: true,
    });
    assert.equal(r.results[0].ok, true);
    assert.match(r.results[1].error!, /set-buffer is mutating; this server runs with --safety readonly/);
    const err = await mcp.waitForStderr(/"tool":"batch","outcome":"ok"/);
    assert.match(err, /"tool":"list-buffers","outcome":"ok"/);
    assert.match(err, /"tool":"set-buffer","outcome":"refused"/);
    assert.match(err, /"tool":"batch","outcome":"ok"[^\n]*"args":\{"calls":\["list-buffers","set-buffer"\]/);
    assert.ok(!err.includes("secret-value"), "inner arguments are redacted, and the batch line names tools only");
  }, { args: ["--safety", "readonly"] });
});

Deno.test("batch refuses nested batches, empty and oversized batches, and unknown inner tools by name", async () => {
  await withServer(async (mcp) => {
    assert.match(
      await mcp.err("batch", { calls: [{ tool: "batch", arguments: { calls: [{ tool: "list-buffers" }] } }] }),
      /calls\.0\.tool: a batch cannot contain a batch/,
    );
    assert.match(await mcp.err("batch", { calls: [] }), /at least one call/);
    const many = Array.from({ length: 21 }, () => ({ tool: "list-buffers" }));
    assert.match(await mcp.err("batch", { calls: many }), /at most 20 calls/);
    assert.match(
      await mcp.err("batch", { calls: [{ tool: "list-buffers", argument: {} }] }),
      /calls\.0: unknown parameter\(s\) argument \(did you mean arguments\?\)/,
    );
    const r = await mcp.ok<BatchResult>("batch", { calls: [{ tool: "list-buffer" }] });
    assert.match(r.results[0].error!, /unknown tool "list-buffer": did you mean list-buffers\?/);
  });
});

Deno.test("a batch over its budget keeps its largest results in buffers of their own, every outcome in view", async () => {
  await withServer(async (mcp, tmux) => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i} of the big buffer`).join("\n");
    await tmux.tmux("set-buffer", "-b", "big", text);
    await tmux.tmux("set-buffer", "-b", "small", "tiny");
    const calls = [
      { tool: "show-buffer", arguments: { name: "big" } },
      { tool: "show-buffer", arguments: { name: "small" } },
      { tool: "show-buffer", arguments: { name: "nope" } },
      { tool: "show-buffer", arguments: { name: "big" } },
    ];
    const raw = await mcp.call("batch", { calls, continue_on_error: true });
    assert.ok(!raw.isError);
    assert.ok(estimateTokens(JSON.stringify(raw.structuredContent)) <= 1000);
    const r = raw.structuredContent as unknown as BatchResult;
    assert.deepEqual(r.results.map((x) => [x.tool, x.ok]), calls.map((c) => [c.tool, c.arguments.name !== "nope"]));
    assert.equal(r.completed, 3);
    assert.match(r.results[2].error!, /nope/);
    // The small result as it is; each big one as its own tool's buffered answer, whose buffer holds it whole (as JSON).
    assert.equal(r.results[1].result!.text, "tiny");
    for (const i of [0, 3]) {
      const b = r.results[i].result as { type: string; buffer_id: string; note: string };
      assert.equal(b.type, "buffered_response");
      assert.match(b.note, /share of the 1000-token budget of the batch/);
      assert.equal(JSON.parse(await tmux.tmux("show-buffer", "-b", b.buffer_id)).text, text);
    }
  }, { args: ["--max-tokens", "1000"] });
});

Deno.test("a batch stores its calls' results in buffers only when its answer then fits: none is left unnamed", async () => {
  // Fitted with a stand-in buffer name cheaper than most real ones, an answer was then over the budget: it was
  // buffered whole, and the buffers of its calls, already stored, pushed older results out unnamed.
  await withServer(async (mcp, tmux) => {
    const kinds = new Set<string>();
    for (let i = 0; i < 24; i++) {
      await tmux.tmux("set-buffer", "-b", "big", Array.from({ length: 60 + i * 3 }, (_, n) => `line ${n}`).join("\n"));
      const calls = [0, 1, 2].map(() => ({ tool: "show-buffer", arguments: { name: "big" } }));
      const raw = await mcp.call("batch", { calls });
      const tokens = estimateTokens(JSON.stringify(raw.structuredContent));
      assert.ok(tokens <= 500, `the batch is ${tokens} tokens`);
      const named = JSON.stringify(raw.structuredContent);
      kinds.add(named.startsWith(`{"type":"buffered_response"`) ? "whole" : "each");
      for (const b of await resultBuffers(tmux)) {
        assert.ok(named.includes(b), `${i}: result buffer ${b} is named nowhere in ${named}`);
        await tmux.tmux("delete-buffer", "-b", b);
      }
    }
    assert.ok(kinds.has("each"), "some answers keep each call's result in a buffer of its own");
  }, { args: ["--max-tokens", "500"] });
});

Deno.test("an inner result buffered under its own budget is not buffered again: its buffer and facts stay in view", async () => {
  await withServer(async (mcp, tmux) => {
    const target = (await mcp.ok<{ pane_id: string }>("new", { what: "session", name: "seq" })).pane_id;
    const calls = [
      { tool: "run-command", arguments: { target, command: "seq 1 5000" } },
      { tool: "list", arguments: { what: "sessions" } },
    ];
    const raw = await mcp.call("batch", { calls });
    assert.ok(estimateTokens(JSON.stringify(raw.structuredContent)) <= 400);
    const r = raw.structuredContent as unknown as BatchResult;
    assert.deepEqual(r.results.map((x) => [x.tool, x.ok]), [["run-command", true], ["list", true]]);
    // The run's own buffered answer, cut down: it names the buffer with the run's result and shows the exit code.
    const b = r.results[0].result as { type: string; buffer_id: string; preview: { exit_code?: number } };
    assert.equal(b.type, "buffered_response");
    assert.equal(b.preview.exit_code, 0, JSON.stringify(b));
    // The run's output, kept as text (not a buffer holding the buffered answer that names another buffer).
    assert.match(await tmux.tmux("show-buffer", "-b", b.buffer_id), /^4601\n(.|\n)*\n5000$/);
  }, { args: ["--max-tokens", "400"] });
});

Deno.test("a batch whose results cannot each fit a share of its budget is buffered whole", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("set-buffer", "-b", "big", "word ".repeat(400));
    const calls = Array.from({ length: 20 }, () => ({ tool: "show-buffer", arguments: { name: "big" } }));
    const r = await mcp.ok<{ type?: string; buffer_id?: string; preview: BatchResult }>("batch", { calls });
    assert.equal(r.type, "buffered_response");
    assert.match(r.buffer_id!, /^mcp-result-/);
    // The first calls shown with their result's own fields, not "[Object: 6 properties, truncated]"; the rest by
    // their outcome: every call is in view.
    assert.deepEqual(r.preview.results.map((x) => [x.tool, x.ok]), calls.map((c) => [c.tool, true]));
    const detailed = r.preview.results.filter((x) => x.result !== undefined);
    assert.ok(detailed.length > 0 && detailed.length < calls.length, `${detailed.length} calls shown with results`);
    assert.deepEqual(r.preview.results.slice(0, detailed.length), detailed, "the first calls, in order");
    for (const shown of detailed) {
      assert.equal(shown.result?.name, "big", JSON.stringify(shown));
      assert.match(String(shown.result?.text), /^word word .*… \[\d+ more characters\]$/);
    }
    // Kept in one buffer: one per call as well would push the agent's older results out of the few kept.
    assert.deepEqual(await resultBuffers(tmux), [r.buffer_id]);
  }, { args: ["--max-tokens", "1000"] });
});

Deno.test("a batch buffered whole under a small budget shows every call's tool and outcome, not an empty list", async () => {
  // No call's result fit beside the note: the preview was {"results": [], "completed": 3}.
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("set-option", "-g", "history-limit", "5000");
    // Four outputs each over a share of the budget: their buffered answers alone would be over it.
    const run = { tool: "run-command", arguments: { target: "main", command: "seq 1 2000" } };
    const calls = [run, { tool: "show-buffer", arguments: { name: "none" } }, run, run, run];
    const raw = await mcp.call("batch", { calls, continue_on_error: true });
    const tokens = estimateTokens(JSON.stringify(raw.structuredContent));
    assert.ok(tokens <= 500, `the batch is ${tokens} tokens`);
    const r = raw.structuredContent as { type?: string; preview: BatchResult };
    assert.equal(r.type, "buffered_response");
    assert.deepEqual(r.preview.results.map((x) => [x.tool, x.ok]), calls.map((c, i) => [c.tool, i !== 1]));
    assert.match(r.preview.results[1].error!, /^no buffer named "none"/, "a failed call shows its error's gist");
  }, { args: ["--max-tokens", "500"] });
});

Deno.test("a batch with a huge error text trims it to a share of its budget: every outcome stays in view", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("set-buffer", "-b", "big", "word ".repeat(400));
    // The error quotes the 1000-character name: about as many tokens as the whole budget.
    const calls = [
      { tool: "show-buffer", arguments: { name: "界".repeat(1000) } },
      { tool: "show-buffer", arguments: { name: "big" } },
      { tool: "list", arguments: { what: "sessions" } },
    ];
    const raw = await mcp.call("batch", { calls, continue_on_error: true });
    const tokens = estimateTokens(JSON.stringify(raw.structuredContent));
    assert.ok(tokens <= 1000, `the batch is ${tokens} tokens`);
    const r = raw.structuredContent as unknown as BatchResult;
    assert.deepEqual(r.results?.map((x) => [x.tool, x.ok]), calls.map((c, i) => [c.tool, i > 0]));
    assert.match(r.results[0].error!, /^no buffer named "界+ \[…\d+ characters of this message omitted…\] 界+": call/);
    assert.equal((r.results[1].result as { type: string }).type, "buffered_response");
    assert.equal((r.results[2].result as { sessions: unknown[] }).sessions.length, 1);
  }, { args: ["--max-tokens", "1000"] });
});

Deno.test("batch is announced read-only where every served tool is, and destructive where one is", async () => {
  const batchOf = async (args: string[]) => {
    let a: Record<string, unknown> | undefined;
    await withServer(async (mcp) => {
      a = (await mcp.client.listTools()).tools.find((t) => t.name === "batch")?.annotations;
    }, { args });
    return a;
  };
  assert.deepEqual(await batchOf(["--safety", "readonly"]), { readOnlyHint: true });
  assert.deepEqual(await batchOf([]), { destructiveHint: true });
});
