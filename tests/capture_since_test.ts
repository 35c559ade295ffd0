import { assert, assertEquals, assertMatch } from "./assert.ts";
import { type ExecFixture, withShell } from "./exec_fixtures.ts";

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
  });
});
