import { assert, assertEquals, assertMatch } from "./assert.ts";
import { type ExecFixture, withShell } from "./exec_fixtures.ts";
import { waitUntil } from "./pane_helpers.ts";

interface Since {
  pane_id: string;
  text: string;
  line_count: number;
  first_call: boolean;
  lines_missed: boolean;
  dropped_lines: number;
  cursor: string;
}

function tools(fx: ExecFixture) {
  return {
    run: (command: string) => fx.mcp.ok("run-command", { target: fx.pane, command }),
    since: (args: Record<string, unknown>) => fx.mcp.ok<Since>("capture-since", args),
  };
}

/** The lines of `text` that are plain numbers, in order. */
function numbers(text: string): number[] {
  return text.split("\n").filter((l) => /^\d+$/.test(l)).map(Number);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

Deno.test("capture-since returns the screen first, then only new lines, across scrolling", async () => {
  await withShell("bash", async (fx) => {
    const { run, since } = tools(fx);
    await run("echo BEFORE");
    const c0 = await since({ target: fx.pane });
    assert(c0.first_call);
    assertMatch(c0.text, /BEFORE/);
    await run("seq 1 150");
    const c1 = await since({ cursor: c0.cursor });
    assertEquals(numbers(c1.text), range(1, 150));
    assert(!c1.text.includes("BEFORE"), c1.text);
    assertEquals([c1.first_call, c1.lines_missed, c1.pane_id], [false, false, fx.pane]);
    // Nothing new: nothing returned.
    const idle = await since({ cursor: c1.cursor });
    assertEquals(idle.text, "");
    await run("seq 200 210");
    assertEquals(numbers((await since({ cursor: idle.cursor })).text), range(200, 210));
  });
});

Deno.test("capture-since after clear-history: only new lines, or lines_missed when the cursor was cleared", async () => {
  await withShell("bash", async (fx) => {
    const { run, since } = tools(fx);
    await run("seq 1 100");
    const c1 = await since({ target: fx.pane });
    await fx.tmux("clear-history", "-t", fx.pane);
    await run("echo AFTER1; echo AFTER2");
    const c2 = await since({ cursor: c1.cursor });
    assertMatch(c2.text, /AFTER1\nAFTER2/);
    assertEquals(numbers(c2.text), []);
    assertEquals(c2.lines_missed, false);

    // The cursor's row scrolls into history, then history is cleared: lines are lost.
    await run("seq 1 80");
    await fx.tmux("clear-history", "-t", fx.pane);
    await run("echo LATEST");
    const c3 = await since({ cursor: c2.cursor });
    assertEquals(c3.lines_missed, true);
    assertMatch(c3.text, /LATEST/);
  });
});

Deno.test("capture-since follows the cursor when tmux trims a full history", async () => {
  await withShell("bash", async (fx) => {
    const { run, since } = tools(fx);
    await run("seq 1 90");
    let c = await since({ target: fx.pane });
    for (const [from, to] of [[1000, 1030], [2000, 2045], [3000, 3012]]) {
      await run(`seq ${from} ${to}`);
      const next = await since({ cursor: c.cursor });
      assertEquals([numbers(next.text), next.lines_missed], [range(from, to), false]);
      c = next;
    }
  }, { historyLimit: 100 });
});

Deno.test("capture-since bounds its answer and keeps the newest lines", async () => {
  await withShell("bash", async (fx) => {
    const { run, since } = tools(fx);
    const c0 = await since({ target: fx.pane });
    await run("seq 1 300");
    const c1 = await since({ cursor: c0.cursor, max_lines: 50 });
    assertEquals(c1.line_count, 50);
    assert(c1.dropped_lines > 250);
    assertEquals(numbers(c1.text).at(-1), 300);
  });
});

Deno.test("capture-since after emoji tmux draws two columns wide returns only the new text on that row", async () => {
  await withShell("bash", async (fx) => {
    // cat echoes what is typed (the terminal's echo) and prints nothing until Enter: the cursor stays on the row.
    const pane = await fx.newPane({ command: "cat" });
    const shows = (text: string) =>
      waitUntil(`${JSON.stringify(text)} in ${pane}`, async () => {
        return (await fx.tmux("capture-pane", "-p", "-t", pane)).includes(text);
      });
    await fx.tmux("send-keys", "-t", pane, "-l", "ok \u2705 \u26a1 \u{1f680} ab");
    await shows("\u{1f680} ab");
    const c0 = await fx.mcp.ok<Since>("capture-since", { target: pane });
    await fx.tmux("send-keys", "-t", pane, "-l", "cd");
    await shows("abcd");
    const c1 = await fx.mcp.ok<Since>("capture-since", { cursor: c0.cursor });
    assertEquals([c1.text, c1.lines_missed], ["cd", false]);
  });
});

Deno.test("capture-since refuses a cursor of another pane, a respawned pane or a damaged cursor", async () => {
  await withShell("bash", async (fx) => {
    const { since } = tools(fx);
    const c = await since({ target: fx.pane });
    const other = await fx.newPane("bash");
    assertMatch(await fx.mcp.err("capture-since", { target: other, cursor: c.cursor }), /belongs to pane/);
    assertMatch(await fx.mcp.err("capture-since", { cursor: c.cursor.slice(0, -4) + "AAAA" }), /cursor/);
    assertMatch(await fx.mcp.err("capture-since", { cursor: "hello" }), /omit cursor/);
    await fx.tmux("respawn-pane", "-k", "-t", fx.pane, "sh");
    assertMatch(await fx.mcp.err("capture-since", { cursor: c.cursor }), /respawned/);
    // The pane of a cursor is its target when none is given; once gone, the error says to start over.
    const onOther = await since({ target: other });
    assertEquals([onOther.pane_id, (await since({ cursor: onOther.cursor })).pane_id], [other, other]);
    await fx.tmux("kill-pane", "-t", other);
    assertEquals(
      await fx.mcp.err("capture-since", { cursor: onOther.cursor }),
      `pane ${other} of this cursor no longer exists: call list (what: panes), then capture-since without cursor`,
    );
    assertMatch(await fx.mcp.err("capture-since", { target: "%999" }), /^unknown target "%999" .*call list/);
  });
});

interface SincePage extends Since {
  truncated_by_budget?: true;
  type?: string;
}

/** Follows cursors from `cursor` until a page is not cut by the budget; returns the pages. */
async function walkSince(fx: ExecFixture, cursor: string): Promise<SincePage[]> {
  const pages: SincePage[] = [];
  for (;;) {
    const p = await fx.mcp.ok<SincePage>("capture-since", { cursor, max_lines: 20_000 });
    assertEquals(p.type, undefined, "a page is never a buffered response");
    pages.push(p);
    if (!p.truncated_by_budget) return pages;
    assert(p.cursor !== cursor, "a cut page moves the cursor");
    cursor = p.cursor;
    assert(pages.length < 5_000, "the walk ends");
  }
}

async function resultBuffers(fx: ExecFixture): Promise<string[]> {
  return (await fx.tmux("list-buffers", "-F", "#{buffer_name}").catch(() => ""))
    .split("\n").filter((n) => n.startsWith("mcp-result-"));
}

Deno.test("capture-since pages 19,000 new lines under a small budget: every line once, no buffer created", async () => {
  await withShell("bash", async (fx) => {
    const c0 = await fx.mcp.ok<Since>("capture-since", { target: fx.pane });
    await fx.mcp.ok("run-command", { target: fx.pane, command: "seq 1 19000", max_lines: 1 });
    const before = await resultBuffers(fx);
    const pages = await walkSince(fx, c0.cursor);
    assert(pages.length > 10, `a small budget gives many pages, got ${pages.length}`);
    assertEquals(numbers(pages.map((p) => p.text).join("\n")), range(1, 19000));
    assert(pages.every((p) => p.line_count === p.text.split("\n").length && !p.lines_missed));
    assertEquals(await resultBuffers(fx), before, "paging created no result buffer");
    // The last cursor is the usual one: nothing new, nothing returned.
    const idle = await fx.mcp.ok<SincePage>("capture-since", { cursor: pages.at(-1)!.cursor });
    assertEquals([idle.text, idle.truncated_by_budget], ["", undefined]);
  }, { historyLimit: 30_000, serverArgs: ["--max-tokens", "1000"] });
});

Deno.test("capture-since pages a wrapped line longer than a page by rows, never cutting a character", async () => {
  await withShell("bash", async (fx) => {
    const c0 = await fx.mcp.ok<Since>("capture-since", { target: fx.pane });
    const unit = "aé日😀bç本€";
    await fx.mcp.ok("run-command", {
      target: fx.pane,
      command: `python3 -c 'print("${unit}" * 1500)'; echo END`,
      max_lines: 1,
    });
    const pages = await walkSince(fx, c0.cursor);
    assert(pages.length > 3, `got ${pages.length} pages`);
    assert(pages.some((p) => p.truncated_by_budget && p.line_count === 1), "some page holds part of the long line");
    assert(pages.every((p) => !p.text.includes("\uFFFD")), "no page holds a broken character");
    // Pages inside the long line join without a newline: the line comes back whole, once.
    const flat = pages.map((p) => p.text).join("").replaceAll("\n", "").replaceAll(" ", "");
    assertEquals(flat.split(unit).length - 1, 1500, "every unit once");
    assert(flat.includes(unit.repeat(1500) + "END"), flat.slice(0, 200));
  }, { historyLimit: 30_000, serverArgs: ["--max-tokens", "500"] });
});
