/**
 * capture-pane and capture-since when one row alone is over the response budget (a wide pane,
 * colors): the row is cut to the characters that fit, a warning says so and
 * what to do, and the page still fits its budget.
 */
import assert from "node:assert/strict";
import { connect, startTmux } from "./helpers.ts";
import { windowRunning } from "./budget_helpers.ts";
import { waitUntil } from "./pane_helpers.ts";
import { resultTokens } from "../lib/server/budget.ts";

Deno.test("capture-pane: one colored row over the budget is cut to fit, with a warning, and paging goes on", async () => {
  const tmux = await startTmux("capwide");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "500"] });
  try {
    const pane = await windowRunning(
      tmux,
      `python3 -c 'import sys; sys.stdout.write("".join("\\033[3%dm%s" % (i % 8, "日x"[i % 2]) for i in range(1500)) + ` +
        `"\\033[0m\\nEND\\n")'; exec sleep 3600`,
    );
    await tmux.tmux("resize-window", "-t", pane, "-x", "3000");
    await waitUntil("the pane to print END", async () => {
      return (await tmux.tmux("capture-pane", "-p", "-t", pane)).includes("END");
    }, 30_000);
    const r = await mcp.call("capture-pane", { target: pane, colors: true, start: -100 });
    assert.ok(!r.isError, JSON.stringify(r.content));
    const tokens = resultTokens(r, 0) ?? 0;
    assert.ok(tokens <= 500, `the page fits the 500-token budget, got ${tokens}`);
    const page = r.structuredContent as {
      text: string;
      lines: number;
      warnings: { kind: string; message: string }[];
      truncated_by_budget?: true;
      next_start?: number;
    };
    assert.equal(page.lines, 1);
    assert.ok(page.text.length > 100, "the page holds the first part of the row");
    // deno-lint-ignore no-control-regex
    assert.ok(!/\x1b(\[[0-9;:?]*)?$/.test(page.text), "no escape sequence is cut");
    assert.ok(page.text.isWellFormed(), "no character is cut");
    const warning = page.warnings.find((w) => w.kind === "lines_missed");
    assert.match(
      warning?.message ?? "",
      /^line -?\d+ of pane %\d+ is cut to its first \d+ of \d+ characters to fit the response budget: capture it with colors false/,
    );
    assert.equal(page.truncated_by_budget, true);
    assert.equal(typeof page.next_start, "number");
    // The next page goes on after that row.
    const next = await mcp.ok<{ text: string }>("capture-pane", { target: pane, colors: true, start: page.next_start });
    assert.ok(next.text.includes("END"), next.text.slice(0, 200));
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("capture-since: one row over the budget is cut to fit, with a warning, and the cursor goes on after it", async () => {
  const tmux = await startTmux("sincewide");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "500"] });
  try {
    const pane = await windowRunning(tmux, `exec sleep 3600`);
    await tmux.tmux("resize-window", "-t", pane, "-x", "3000");
    await tmux.tmux(
      "respawn-pane",
      "-k",
      "-t",
      pane,
      `python3 -c 'print("日本語🙂" * 700); print("END")'; exec sleep 3600`,
    );
    await waitUntil("the pane to print END", async () => {
      return (await tmux.tmux("capture-pane", "-p", "-t", pane)).includes("END");
    }, 30_000);
    const r = await mcp.call("capture-since", { target: pane });
    assert.ok(!r.isError, JSON.stringify(r.content));
    const tokens = resultTokens(r, 0) ?? 0;
    assert.ok(tokens <= 500, `the page fits the 500-token budget, got ${tokens}`);
    const page = r.structuredContent as {
      text: string;
      cursor: string;
      warnings: { kind: string; message: string }[];
      truncated_by_budget?: true;
    };
    assert.ok(page.text.startsWith("日本語🙂"), page.text.slice(0, 50));
    assert.ok(page.text.isWellFormed(), "no character is cut");
    assert.equal(page.truncated_by_budget, true);
    assert.match(
      page.warnings.find((w) => w.kind === "lines_missed")?.message ?? "",
      /^a row of pane %\d+ is cut to its first \d+ of \d+ characters to fit the response budget: resize the window/,
    );
    // Following the cursor reaches the end, every page within the budget.
    let cursor = page.cursor;
    let seen = "";
    for (let i = 0; i < 20 && !seen.includes("END"); i++) {
      const next = await mcp.call("capture-since", { cursor });
      assert.ok((resultTokens(next, 0) ?? 0) <= 500, "every page fits the budget");
      const s = next.structuredContent as { text: string; cursor: string };
      seen += s.text + "\n";
      cursor = s.cursor;
    }
    assert.ok(seen.includes("END"), seen.slice(0, 200));
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("a budget below a page's own fields refuses in one line, never passing over a line it did not show", async () => {
  // At 100 tokens the ids, cursor and warning left room for no character: the page was over the budget with text ""
  // and its next_start (or cursor) one line on, so that line was never seen. The smallest budget taken is 150: two
  // warnings (one quoting a question) leave no room there.
  const tmux = await startTmux("toosmall");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "150"] });
  try {
    const pane = await windowRunning(
      tmux,
      `python3 -c 'print("x" * 100); print("END"); print("Go on with the " + "y" * 40 + " [y/N]? ", end="")'; exec sleep 3600`,
    );
    await waitUntil("the pane to ask its question", async () => {
      return (await tmux.tmux("capture-pane", "-p", "-t", pane)).includes("[y/N]?");
    }, 30_000);
    const refused = (tool: string) =>
      new RegExp(
        `^a page with (line 0|a row) of pane %\\d+ is over this server's 150-token budget for ${tool}: ask the ` +
          `user to raise toolConfigs\\.${tool}\\.maxTokens \\(or --max-tokens\\) to 300 or more$`,
      );
    assert.match(await mcp.err("capture-pane", { target: pane, start: 0 }), refused("capture-pane"));
    assert.match(await mcp.err("capture-since", { target: pane }), refused("capture-since"));
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});
