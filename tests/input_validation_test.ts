/**
 * Numbers and names as the server says them back: through the MCP client against a real tmux, in the words and
 * units a model can use in its next call. The hostile-input corpus (tests/hostile_corpus_test.ts) holds the
 * injection payloads and one-line checks; these are the cases that need a server started differently.
 */
import { assertEquals, assertMatch } from "./assert.ts";
import { withServer } from "./helpers.ts";

Deno.test("request-input cut short by the call budget says a whole number of milliseconds", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = (await tmux.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    // Inside a batch the question cannot park: it waits for what is left of the call budget, a fraction of a ms.
    const r = await mcp.ok<{ results: { ok: boolean; result?: { outcome: string; message: string } }[] }>("batch", {
      calls: [{ tool: "request-input", arguments: { target: pane, prompt: "type ok" } }],
    });
    assertEquals(r.results[0].result?.outcome, "timeout");
    assertMatch(r.results[0].result!.message, /^nobody finished within \d+ (ms|s);/);
  }, { args: ["--call-budget-ms", "1000"] });
});

Deno.test("show format cut at its output limit never ends in half a character", async () => {
  await withServer(async (mcp, tmux) => {
    // Two sessions whose windows are named with 128 emoji (two UTF-16 units each): after a one-character prefix
    // the limit falls between the two halves of an emoji.
    const name = "\u{1F600}".repeat(128);
    await tmux.tmux("rename-window", "-t", "main:", name);
    await tmux.tmux("new-session", "-d", "-s", "second", "-n", name);
    const r = await mcp.ok<{ text?: string; truncated?: boolean; preview?: { text: string; truncated: boolean } }>(
      "show",
      { what: "format", format: `a#{S:${"#{window_name}".repeat(140)}}` },
    );
    // Over the response budget, the answer is a buffered page whose preview is the end of the text.
    const shown = r.preview ?? r;
    assertEquals(shown.truncated, true);
    assertEquals(shown.text!.includes("\uFFFD"), false);
    assertEquals(shown.text!.endsWith("\u{1F600}"), true);
  });
});
