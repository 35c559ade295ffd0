/**
 * A listing of hundreds of panes is answered inline within the default
 * response budget: every fact of each pane when they fit, else compact rows
 * of the facts that pick a pane, saying which fields were left out.
 */
import { assert, assertEquals } from "./assert.ts";
import { withServer } from "./helpers.ts";

const PANES = 500;

Deno.test("list {what: panes} over 500 panes answers inline in compact rows; a window's panes come with every fact", async () => {
  await withServer(async (mcp, tmux) => {
    // A small server first: listed with every fact (and remembered as small, so the next listing asks for every
    // fact first and must still turn compact when the panes no longer fit).
    assertEquals((await mcp.ok<{ panes: unknown[] }>("list", { what: "panes" })).panes.length, 1);
    // 50 sessions of 10 one-pane windows (the fixture's main session is the first), each running sleep, not a shell.
    const lines: string[] = [];
    for (let s = 0; s < PANES / 10; s++) {
      const name = s === 0 ? "main" : `s${s}`;
      if (s > 0) lines.push(`new-session -d -s ${name} -x 80 -y 24 'exec sleep 3600'`);
      for (let w = 1; w < 10; w++) lines.push(`new-window -d -t ${name} 'exec sleep 3600'`);
    }
    const file = await Deno.makeTempFile();
    try {
      await Deno.writeTextFile(file, lines.join("\n") + "\n");
      await tmux.tmux("source-file", file);
    } finally {
      await Deno.remove(file);
    }
    const count = (await tmux.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n").length;
    assertEquals(count, PANES);

    const r = await mcp.call("list", { what: "panes" });
    assert(!r.isError, JSON.stringify(r.content).slice(0, 500));
    const s = r.structuredContent as {
      type?: string;
      panes?: unknown[];
      columns?: string[];
      rows?: unknown[][];
      omitted_fields?: string[];
    };
    assert(s.type !== "buffered_response", "answered inline, not moved into a result buffer");
    assertEquals(s.panes, undefined);
    assertEquals(s.rows?.length, PANES);
    assert(s.columns?.includes("pane_id") && s.columns.includes("window_name"), String(s.columns));
    assert(s.omitted_fields?.includes("current_command"), "says which facts it left out");
    const ids = s.rows!.map((row) => row[s.columns!.indexOf("pane_id")]);
    assertEquals(new Set(ids).size, PANES);
    assert(ids.every((id) => /^%\d+$/.test(String(id))), "every row names its pane");
    // Asked again (now known to be large): the same compact rows.
    const again = (await mcp.call("list", { what: "panes" })).structuredContent as typeof s;
    assertEquals([again.columns, again.rows?.length, again.omitted_fields], [s.columns, PANES, s.omitted_fields]);

    // Chosen fields of every pane: tmux is asked for those only, and they come inline as rows.
    const chosen = await mcp.call("list", { what: "panes", fields: ["pane_id", "current_command"] });
    const c = chosen.structuredContent as { type?: string; columns?: string[]; rows?: unknown[][] };
    assert(c.type !== "buffered_response", "chosen fields answered inline");
    assertEquals([c.columns, c.rows?.length], [["pane_id", "current_command"], PANES]);
    // The fixture's first pane runs its shell; the other 499 sleep.
    assertEquals(c.rows!.filter((r) => r.length === 2 && r[1] === "sleep").length, PANES - 1);

    // A target narrows the listing; its panes come with every fact.
    const one = await mcp.ok<{ panes: { current_path: string }[] }>("list", { what: "panes", target: "s7" });
    assertEquals(one.panes.length, 1);
    assertEquals(typeof one.panes[0].current_path, "string");
  });
});
