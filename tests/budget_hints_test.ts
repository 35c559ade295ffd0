/**
 * The next calls a buffered response suggests work when followed literally:
 * each `tool {json}` suggestion is called exactly as written. run-command
 * output has no place to continue, so an over-budget one is buffered.
 */
import assert from "node:assert/strict";
import { withShell } from "./exec_fixtures.ts";
import { asBuffered, withConfig } from "./budget_helpers.ts";

const LINES = 3000;

Deno.test("every suggested call of a buffered run-command output works as written; the suggested search finds the ERROR lines", async () => {
  await withShell("bash", async ({ mcp, pane }) => {
    const b = asBuffered(
      await mcp.ok("run-command", {
        target: pane,
        command: `awk 'BEGIN { for (i = 1; i <= ${LINES}; i++) printf "%05d %s request done\\n", i, ` +
          `(i % 100 == 0 ? "ERROR" : "INFO") }'`,
        max_lines: LINES + 100,
        timeout_ms: 60_000,
      }),
    );
    assert.ok(b.buffer_id);
    const calls = b.suggested_refinements.map((s) => /^(\S+) (\{\S*\})/.exec(s)).filter((m) => m !== null);
    assert.ok(calls.some((m) => m[1] === "search-buffer"), `a search is suggested: ${b.suggested_refinements}`);
    assert.ok(calls.some((m) => m[1] === "show-buffer"));
    for (const [, tool, json] of calls) {
      const r = await mcp.call(tool, JSON.parse(json));
      assert.ok(!r.isError, `${tool} ${json} works as written`);
      if (tool !== "search-buffer") continue;
      // Under this small budget the search pages itself: go on with resume_from_offset as the response says.
      const snippets: string[] = [];
      let s = r.structuredContent as {
        matches: { snippet: string }[];
        truncated_buffers: string[];
        resume_from_offset: Record<string, number>;
      };
      for (let page = 0;; page++) {
        snippets.push(...s.matches.map((m) => m.snippet));
        if (!s.truncated_buffers.length) break;
        assert.ok(page < 100, "the search ends");
        s = await mcp.ok("search-buffer", { ...JSON.parse(json), resume_from_offset: s.resume_from_offset });
      }
      assert.equal(snippets.length, LINES / 100, "the suggested search finds every ERROR line");
      assert.ok(snippets.every((t) => t.includes("ERROR")));
    }
  }, { historyLimit: 10_000, serverArgs: ["--max-tokens", "2000"] });
});

Deno.test("the show-buffer pages suggested for a buffered list fit show-buffer's budget: no page comes back cut", async () => {
  await withConfig(
    `{ "maxTokensPerResponse": 400, "toolConfigs": { "show-buffer": { "maxTokens": 2000 } } }`,
    async (mcp, tmux) => {
      const args: string[] = [];
      for (let i = 0; i < 150; i++) args.push(...(i ? [";"] : []), "set-buffer", "-b", `item-${i}`, `"value" ${i}`);
      await tmux.tmux(...args);
      const b = asBuffered(await mcp.ok("list-buffers"));
      const [, json] = /^show-buffer (\{\S*\}) reads it from the start/.exec(b.suggested_refinements[0]) ?? [];
      assert.ok(json, `a page from the start is suggested: ${b.suggested_refinements}`);
      type Page = { next_offset_bytes: number | null; truncated_by_budget?: true };
      let page: Page = await mcp.ok("show-buffer", JSON.parse(json));
      // The stored result is indented JSON, which a page carries as a JSON string: its quotes escaped, its indents
      // kept. The page size came from the compact JSON's estimate and was cut by the budget on every page.
      let n = 0;
      for (; page.next_offset_bytes !== null; n++) {
        assert.equal(page.truncated_by_budget, undefined, `page ${n} at the suggested size fits`);
        assert.ok(n < 1000, "paging ends");
        page = await mcp.ok("show-buffer", { ...JSON.parse(json), offset_bytes: page.next_offset_bytes });
      }
      assert.ok(n >= 2, `the list takes several pages (${n + 1})`);
    },
  );
});
