/**
 * Calls that find their work done already say so: `changed: false` in the
 * result and "nothing changed: already …" first in its text (select, rename,
 * set, resize), through the MCP client on real tmux. A kill of what is gone
 * is an error.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { type McpFixture, textOf, withServer } from "./helpers.ts";
import { tmuxFormat } from "./pane_helpers.ts";

/** Calls a tool twice with the same arguments: the first changes something, the second says it changed nothing. */
async function twice(mcp: McpFixture, tool: string, args: Record<string, unknown>, already: RegExp) {
  const first = await mcp.call(tool, args);
  assert(!first.isError, textOf(first));
  assertEquals((first.structuredContent as { changed: boolean }).changed, true, `${tool} ${JSON.stringify(args)}`);
  assert(!textOf(first).includes("nothing changed"), textOf(first));
  const again = await mcp.call(tool, args);
  assert(!again.isError, textOf(again));
  assertEquals((again.structuredContent as { changed: boolean }).changed, false, `${tool} ${JSON.stringify(args)}`);
  const [said] = (again.content as { text: string }[]).map((c) => c.text);
  assertMatch(said, already);
  assertMatch(said, /^nothing changed: already /);
  return again.structuredContent as Record<string, unknown>;
}

Deno.test("select, rename, set and resize say changed: false and 'already …' when they change nothing", async () => {
  await withServer(async (mcp, tmux) => {
    const w = await mcp.ok<{ session_id: string; window_id: string; pane_id: string }>("new", {
      what: "window",
      target: "main",
    });
    const split = await mcp.ok<{ pane_id: string }>("new", { what: "pane", target: w.pane_id, direction: "right" });
    const size = await tmuxFormat(tmux, split.pane_id, "#{pane_width}");
    const r = await twice(mcp, "resize-pane", { target: split.pane_id, width: Number(size) - 2 }, /already \d+x\d+/);
    assertEquals([r.width, r.note], [Number(size) - 2, undefined]);
    await twice(mcp, "resize-pane", { target: split.pane_id, zoom: true }, /, zoomed$/);
    await twice(mcp, "resize-pane", { target: split.pane_id, zoom: false }, /, not zoomed$/);
    // new-window -d and split-window -d leave the selection where it was.
    await twice(mcp, "select", { what: "pane", target: split.pane_id }, /active pane of the current window/);
    await twice(mcp, "select", { what: "window", target: `${w.session_id}:0` }, /current window of its session/);
    await twice(mcp, "select", { what: "layout", target: w.window_id, layout: "tiled" }, /in that layout/);

    const s = await twice(mcp, "rename", { what: "session", target: w.session_id, name: "work" }, /named "work"/);
    assertEquals(s.name, "work");
    // A rename of a window to its own name still stops tmux renaming it: changed the first time only.
    const name = await tmuxFormat(tmux, w.window_id, "#{window_name}");
    await twice(mcp, "rename", { what: "window", target: w.window_id, name }, /named /);

    await twice(mcp, "set", { what: "option", scope: "session", name: "status-left", value: "[x] " }, /set to that/);
    await twice(mcp, "set", { what: "option", scope: "window", global: true, name: "@mark", value: "-v" }, /set to/);
    await twice(mcp, "set", { what: "option", scope: "window", global: true, name: "@mark", unset: true }, /default/);
    await twice(mcp, "set", { what: "option", scope: "session", name: "status-left", unset: true }, /unset at that/);
    await twice(mcp, "set", { what: "option", scope: "server", name: "escape-time", value: "7" }, /set to/);
    await twice(mcp, "set", { what: "environment", name: "NOOP_VAR", value: "a b\nc" }, /set to that value/);
    await twice(mcp, "set", { what: "environment", name: "NOOP_VAR", unset: true }, /already unset/);
    await twice(mcp, "set", { what: "environment", global: true, name: "NOOP_G", value: "1" }, /set to/);

    // Bad input is still refused with its own error, and a kill of what is gone is an error.
    assertMatch(await mcp.err("set", { what: "option", scope: "session", name: "status-left" }), /give a value/);
    assertMatch(await mcp.err("select", { what: "pane", target: "%999" }), /%999/);
  });
});

Deno.test("a kill of a pane, window or session already gone is an error, not a quiet success", async () => {
  await withServer(async (mcp) => {
    const w = await mcp.ok<{ window_id: string; pane_id: string; session_id: string }>("new", {
      what: "window",
      target: "main",
    });
    await mcp.ok("kill", { what: "pane", target: w.pane_id });
    assertMatch(await mcp.err("kill", { what: "pane", target: w.pane_id }), new RegExp(w.pane_id.replace("%", "%")));
    assertMatch(await mcp.err("kill", { what: "window", target: w.window_id }), new RegExp(w.window_id));
    const s = await mcp.ok<{ session_id: string }>("new", { what: "session", name: "gone" });
    await mcp.ok("kill", { what: "session", target: s.session_id });
    assertMatch(await mcp.err("kill", { what: "session", target: s.session_id }), /\$\d+|gone/);
  }, { args: ["--safety", "destructive"] });
});
