/**
 * The next calls a buffered response suggests work when followed literally:
 * each `tool {json}` suggestion is called exactly as written. run-command
 * output has no place to continue, so an over-budget one is buffered.
 */
import assert from "node:assert/strict";
import { withShell } from "./exec_fixtures.ts";
import { asBuffered } from "./budget_helpers.ts";

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
