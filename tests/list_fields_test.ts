/**
 * `list {what: panes, fields}`: a listing of panes with only the facts asked
 * for (columns and rows), checked against the known names (an unknown one is a one-line error
 * that lists them); without fields, every fact as before.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { withServer } from "./helpers.ts";

Deno.test("list {fields} returns rows of only the facts asked for, in that order; unknown names list the known ones", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("new", { what: "window", target: "main" });
    const panes = await mcp.ok<{ columns: string[]; rows: unknown[][]; panes?: unknown }>("list", {
      what: "panes",
      fields: ["current_command", "pane_id", "pane_id"],
    });
    assertEquals([panes.columns, panes.rows.length, panes.panes], [["current_command", "pane_id"], 2, undefined]);
    for (const [command, id] of panes.rows) {
      assertEquals(typeof command, "string");
      assertMatch(String(id), /^%\d+$/);
    }
    // Without fields: every fact, as before.
    const all = await mcp.ok<{ panes: Record<string, unknown>[] }>("list", { what: "panes" });
    assert(Object.keys(all.panes[0]).length > 20, Object.keys(all.panes[0]).join());

    const bad = await mcp.err("list", { what: "panes", fields: ["pane_id", "cmd", "pid"] });
    assertMatch(bad, /^unknown field "cmd" for panes: fields takes session_id, .*current_command.*history_limit$/);
    assert(!bad.includes("\n"), "one line");
    assertMatch(await mcp.err("list", { what: "windows", fields: ["window_id"] }), /fields/);
    assertMatch(await mcp.err("list", { what: "panes", fields: [] }), /fields/);
    assertMatch(await mcp.err("list", { what: "sessions", fields: ["session_id"] }), /fields/);
  });
});
