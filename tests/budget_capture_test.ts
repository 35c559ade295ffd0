/**
 * capture-pane pages natively under a response budget: an over-budget
 * capture returns the first lines that fit, `truncated_by_budget` and
 * `next_start` (the line to pass as start for the rest), and creates no
 * result buffer. Walked page by page, a pane with 20,000 numbered lines
 * comes back whole, every line exactly once, in order; wrapped lines longer
 * than a page are split between rows, never inside a character.
 */
import assert from "node:assert/strict";
import { connect, type McpFixture, startTmux, type TmuxFixture } from "./helpers.ts";
import { resultBuffers, windowRunning } from "./budget_helpers.ts";
import { waitUntil } from "./pane_helpers.ts";
import { estimateTokens } from "../lib/budget/estimate.ts";

const LINES = 20_000;

interface Page {
  text: string;
  lines: number;
  dropped_lines: number;
  truncated_by_budget?: true;
  next_start?: number;
  type?: string;
}

/** Polls until the pane shows `last` (the end of its output). */
async function printed(tmux: TmuxFixture, pane: string, last: string): Promise<void> {
  await waitUntil(
    `the pane to finish printing (${last})`,
    async () => (await tmux.tmux("capture-pane", "-p", "-J", "-t", pane)).includes(last),
    30_000,
  );
}

/** Walks capture-pane from `start` by next_start until a page is not cut; returns the pages. */
async function walk(mcp: McpFixture, args: Record<string, unknown>): Promise<Page[]> {
  const pages: Page[] = [];
  let start = args.start;
  for (;;) {
    const p = await mcp.ok<Page>("capture-pane", { ...args, start });
    assert.equal(p.type, undefined, "a page is never a buffered response");
    pages.push(p);
    if (!p.truncated_by_budget) {
      assert.equal(p.next_start, undefined, "an uncut page has no next_start");
      return pages;
    }
    assert.equal(typeof p.next_start, "number", "a cut page says where to go on");
    if (typeof start === "number") assert.ok((p.next_start as number) > start, "next_start moves forward");
    start = p.next_start;
    assert.ok(pages.length < 5_000, "the walk does not end");
  }
}

Deno.test("capture-pane walks 20,000 lines in budget-sized pages, every line once, no buffer created", async () => {
  const tmux = await startTmux("cappage");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "2000"] });
  try {
    const pane = await windowRunning(tmux, `seq -f 'log line %05g' 1 ${LINES}; exec sleep 3600`);
    await printed(tmux, pane, `log line ${LINES}`);
    const pages = await walk(mcp, { target: pane, start: -30_000, max_lines: 100_000 });
    assert.ok(pages.length > 10, `a small budget gives many pages, got ${pages.length}`);
    const got = pages.flatMap((p) => {
      assert.equal(p.lines, p.text.split("\n").length, "lines counts the page's lines");
      return p.text.split("\n");
    });
    const want = Array.from({ length: LINES }, (_, i) => `log line ${String(i + 1).padStart(5, "0")}`);
    assert.deepEqual(got, want, "the pages hold every line once, in order");
    assert.deepEqual(await resultBuffers(tmux), [], "paging created no result buffer");

    // The default call (newest max_lines) pages the same way: its first page starts max_lines back.
    const recent = await walk(mcp, { target: pane, max_lines: 3000 });
    assert.ok(recent.length > 1);
    assert.deepEqual(recent.flatMap((p) => p.text.split("\n")), want.slice(-3000));
    assert.deepEqual(await resultBuffers(tmux), []);

    // A start below the screen's last line is a one-line error that gives the range.
    const err = await mcp.err("capture-pane", { target: pane, start: 5000 });
    assert.match(err, /^start 5000 is below the last line of pane %\d+ \(lines run from -\d+ to \d+\): pass a start/);
    assert.ok(!err.includes("\n"));
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("capture-pane pages split a wrapped line longer than a page between rows, never inside a character", async () => {
  const tmux = await startTmux("capwrap");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "500"] });
  const large = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "10000000"] });
  try {
    // One joined line of ~12,000 columns mixing 1-, 2-, 3- and 4-byte characters (wide ones too), then short lines.
    const unit = "aé日😀bç本€";
    const pane = await windowRunning(
      tmux,
      `python3 -c 'print("${unit}" * 1000); print("\\n".join("after %d" % i for i in range(300)))'; exec sleep 3600`,
    );
    await printed(tmux, pane, "after 299");
    await tmux.tmux("resize-window", "-t", pane, "-x", "57"); // tmux rewraps the history at the odd width
    const whole = await large.ok<Page>("capture-pane", { target: pane, start: -5000, max_lines: 100_000 });
    assert.equal(whole.truncated_by_budget, undefined);
    const pages = await walk(mcp, { target: pane, start: -5000, max_lines: 100_000 });
    assert.ok(pages.length > 3, `got ${pages.length} pages`);
    assert.ok(pages.some((p) => p.truncated_by_budget && p.lines === 1), "some page holds only part of the long line");
    // Pages cut inside the long line join without a newline; no character is lost, repeated or cut.
    const flat = (s: string) => s.replaceAll("\n", "");
    assert.equal(flat(pages.map((p) => p.text).join("")), flat(whole.text));
    assert.ok(pages.every((p) => !p.text.includes("\uFFFD")), "no page holds a broken character");
    const long = whole.text.split("\n").find((l) => l.includes(unit))!;
    assert.ok(long.replaceAll(" ", "").startsWith(unit.repeat(1000)), "the joined line is whole in the reference");
    assert.deepEqual(await resultBuffers(tmux), []);
  } finally {
    await mcp.close();
    await large.close();
    await tmux.kill();
  }
});

Deno.test("capture-pane: a pane cleared between the over-budget read and the paging read returns what it holds now", async () => {
  const tmux = await startTmux("capclear");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "500"] });
  try {
    const pane = await windowRunning(tmux, `seq -f 'log line %05g' 1 3000; exec sleep 3600`);
    await printed(tmux, pane, "log line 03000");
    // tmux runs this after every capture-pane, so the pane is empty (screen and history) for the second read.
    await tmux.tmux("set-hook", "-g", "after-capture-pane", "respawn-pane -k 'exec sleep 3600' ; clear-history");
    const res = await mcp.call("capture-pane", { target: pane, max_lines: 3000 });
    assert.ok(!res.isError, JSON.stringify(res.content));
    const got = res.structuredContent as unknown as Page;
    assert.equal(got.text, "", "the pane holds nothing now");
    assert.equal(got.lines, 0);
    assert.equal(got.truncated_by_budget, undefined);
    const tokens = Math.max(
      estimateTokens(JSON.stringify(res.structuredContent)),
      estimateTokens(JSON.stringify(res.content)),
    );
    assert.ok(tokens <= 500, `the result fits the 500-token budget, got ${tokens}`);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});
