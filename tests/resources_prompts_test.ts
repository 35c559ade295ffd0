import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, startTmux, uniqueSocketName, withServer } from "./helpers.ts";
import { windowRunning } from "./workspace_fixtures.ts";
import { waitForPane } from "./pane_helpers.ts";
import { estimateTokens } from "../lib/budget/estimate.ts";

async function readText(client: { readResource(p: { uri: string }): Promise<unknown> }, uri: string) {
  const r = await client.readResource({ uri }) as { contents: { uri: string; text?: string; mimeType?: string }[] };
  assertEquals(r.contents.length, 1);
  assertEquals(r.contents[0].uri, uri);
  return { text: r.contents[0].text ?? "", mimeType: r.contents[0].mimeType };
}

async function readError(client: { readResource(p: { uri: string }): Promise<unknown> }, uri: string) {
  try {
    await client.readResource({ uri });
  } catch (e) {
    return e as { code: number; message: string };
  }
  throw new Error(`reading ${uri} unexpectedly succeeded`);
}

Deno.test("resources list sessions and panes and read them; a missing object is resource-not-found", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await windowRunning(tmux, "main:1", "seq 1 700");
    const { client } = mcp;
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assertEquals(templates.sort(), [
      "tmux://panes/{pane_id}",
      "tmux://panes/{pane_id}/content",
      "tmux://sessions/{session}",
    ]);
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    const paneUri = `tmux://panes/${encodeURIComponent(pane)}`;
    for (const uri of ["tmux://sessions", "tmux://sessions/$0", "tmux://panes/%250", paneUri]) {
      assert(listed.includes(uri), `${uri} is not listed (${listed.join(" ")})`);
    }

    const sessions = JSON.parse((await readText(client, "tmux://sessions")).text);
    assertEquals(sessions.sessions.map((s: { session_name: string }) => s.session_name), ["main"]);
    for (const uri of ["tmux://sessions/$0", "tmux://sessions/main"]) {
      const tree = JSON.parse((await readText(client, uri)).text);
      assertEquals(tree.session.session_name, "main");
      assertEquals(tree.windows.length, 2);
      assert(tree.panes.some((p: { pane_id: string }) => p.pane_id === pane));
    }
    for (const uri of [paneUri, `tmux://panes/${pane.slice(1)}`]) {
      const facts = JSON.parse((await readText(client, uri)).text);
      assertEquals([facts.pane_id, facts.window_index], [pane, 1]);
    }

    await waitForPane(tmux, pane, (t) => t.includes("700\n"), 30_000);
    const content = await readText(client, `${paneUri}/content`);
    assertEquals(content.mimeType, "text/plain");
    const lines = content.text.split("\n");
    assertEquals(lines.length, 500, "bounded");
    assertEquals([lines[0], lines.at(-1)], ["201", "700"], "the newest lines are kept");

    for (
      const uri of [
        "tmux://panes/%25999",
        "tmux://panes/999/content",
        "tmux://panes/abc",
        "tmux://sessions/nosuch",
        "tmux://sessions/$999",
        "tmux://sessions/mai", // a prefix is not a name
        "tmux://nothing-here",
      ]
    ) {
      const e = await readError(client, uri);
      assertEquals(e.code, -32602, `${uri}: ${e.message}`); // invalid params, as the 2026-07-28 specification says
      assertMatch(e.message, /resource not found/);
    }
    // A URI the client sent with a line break, or a very long one: quoted and cut, the message stays one short line.
    for (
      const uri of ["tmux://sessions/a\nb", "file:///etc/passwd\nsecond line", `tmux://sessions/${"x".repeat(5000)}`]
    ) {
      const e = await readError(client, uri);
      assertEquals(e.code, -32602, `${uri.slice(0, 40)}: ${e.message}`);
      assert(!/[\r\n]/.test(e.message), `more than one line: ${e.message}`);
      assert(e.message.length < 400, `${e.message.length} characters: ${e.message.slice(0, 200)}`);
      const quoted = `resource not found: ${JSON.stringify(uri).slice(0, 30)}`;
      assert(e.message.includes(quoted), `${quoted} not in ${e.message.slice(0, 200)}`);
    }
  });
});

Deno.test("prompts give the discover, act, wait, read recipe in terms of the served tools", async () => {
  await withServer(async (mcp) => {
    const names = (await mcp.client.listPrompts()).prompts.map((p) => p.name).sort();
    assertEquals(names, ["drive-pane", "inspect-workspace"]);
    const r = await mcp.client.getPrompt({ name: "drive-pane", arguments: { task: "run the tests", target: "%1" } });
    const text = (r.messages[0].content as { text: string }).text;
    assertMatch(text, /^Task: run the tests\n/);
    assertMatch(text, /on pane "%1"/);
    for (const step of ["1. Discover: call snapshot-pane", "Wait:", "Read: capture-pane"]) {
      assert(text.includes(step), `missing ${step}: ${text}`);
    }
    // The act step names a typing tool exactly when one is served (they come with mutating tools).
    const served = new Set((await mcp.client.listTools()).tools.map((t) => t.name));
    const act = ["run-command", "send-keys"].find((t) => served.has(t));
    if (act) assertMatch(text, new RegExp(`Act: .*call ${act} `));
    else assert(!text.includes("Act:"), "no act step without a tool that types");
    const survey = await mcp.client.getPrompt({ name: "inspect-workspace" });
    assertMatch((survey.messages[0].content as { text: string }).text, /"sessions"[\s\S]*"panes"/);
  });
});

Deno.test("a readonly server's recipe has no typing step", async () => {
  const tmux = await startTmux();
  const mcp = await connect({ socketName: tmux.socketName, args: ["--safety", "readonly"] });
  try {
    const r = await mcp.client.getPrompt({ name: "drive-pane", arguments: { task: "look" } });
    const text = (r.messages[0].content as { text: string }).text;
    for (const tool of ["send-keys", "run-command"]) assert(!text.includes(tool), `${tool} in ${text}`);
    assertMatch(text, /snapshot-pane/);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("without the workspace toolset there are no workspace resources or prompts", async () => {
  const tmux = await startTmux();
  const mcp = await connect({ socketName: tmux.socketName, args: ["--toolsets", "buffers"] });
  try {
    const caps = mcp.client.getServerCapabilities();
    assertEquals([caps?.resources, caps?.prompts], [undefined, undefined]);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("without a tmux server, resources/list answers (no sessions, no panes) and reads say what is wrong", async () => {
  const mcp = await connect({ socketName: uniqueSocketName("none") });
  try {
    const listed = (await mcp.client.listResources()).resources.map((r) => r.uri);
    assertEquals(listed, ["tmux://sessions"]);
    const sessions = JSON.parse((await readText(mcp.client, "tmux://sessions")).text);
    assertEquals(sessions, { sessions: [] });
    const missing = await readError(mcp.client, "tmux://panes/%250");
    assertEquals(missing.code, -32602);
    assertMatch(missing.message, /no tmux server/i);
    assert(!/internal error/i.test(missing.message), missing.message);
  } finally {
    await mcp.close();
  }
});

Deno.test("a pane's content resource keeps the newest lines that fit the response budget and says what it left out", async () => {
  // 500 lines of ~100 characters were all returned, about 12,000 tokens at a 1000-token budget.
  await withServer(async ({ client }, tmux) => {
    await tmux.tmux("set-option", "-g", "history-limit", "5000");
    const line = (n: number) => `line ${String(n).padStart(4, "0")} ` + "word ".repeat(19);
    const pane = await windowRunning(
      tmux,
      "main",
      `for i in $(seq 1 700); do printf 'line %04d %s\\n' $i "$(printf 'word %.0s' $(seq 19))"; done; exec sleep 600`,
    );
    await waitForPane(tmux, pane, (t) => t.includes("line 0700"), 30_000);
    const { text } = await readText(client, `tmux://panes/${encodeURIComponent(pane)}/content`);
    const tokens = estimateTokens(JSON.stringify(text));
    assert(tokens <= 1000, `the content is ${tokens} tokens, over the 1000-token budget`);
    const [first, ...rest] = text.split("\n");
    const left = Number(
      first.match(/^\[(\d+) older lines left out, over this server's 1000-token budget: capture-pane/)?.[1],
    );
    assert(left > 0 && left < 500, first);
    assertEquals(rest.length, 500 - left, "every line not left out is there");
    assertEquals(rest.at(-1)?.trimEnd(), line(700).trimEnd(), "the newest line is kept");
    assertEquals(rest[0].trimEnd(), line(700 - rest.length + 1).trimEnd(), "from a line start");
  }, { args: ["--max-tokens", "1000"] });
});

Deno.test("resources/list names a pane once when its window is linked into two sessions", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("new-session", "-d", "-s", "other");
    await tmux.tmux("link-window", "-d", "-s", "main:0", "-t", "other:5");
    const uris = (await mcp.client.listResources()).resources.map((r) => r.uri);
    assertEquals(uris.filter((u) => u === "tmux://panes/%250").length, 1, uris.join(" "));
    assertEquals(uris.length, new Set(uris).size, uris.join(" "));
  });
});

Deno.test("the sessions resource over the response budget keeps the first sessions that fit and says what it left out", async () => {
  // 40 sessions with 40-character names were all returned, about 1,300 tokens at a 300-token budget.
  await withServer(async ({ client }, tmux) => {
    const names = Array.from({ length: 40 }, (_, i) => `session-${String(i).padStart(2, "0")}-` + "x".repeat(29));
    for (const name of names) await tmux.tmux("new-session", "-d", "-s", name);
    const { text, mimeType } = await readText(client, "tmux://sessions");
    assertEquals(mimeType, "application/json");
    const tokens = estimateTokens(JSON.stringify(text));
    assert(tokens <= 300, `the sessions are ${tokens} tokens, over the 300-token budget`);
    const shown = JSON.parse(text) as { sessions: { session_name: string }[]; note: string };
    assert(shown.sessions.length > 0, "the first sessions are shown");
    assertMatch(
      shown.note,
      new RegExp(`^over this server's 300-token budget: the first ${shown.sessions.length} of 41 sessions; list `),
    );
    // The first ones, in tmux's order (the fixture's "main" was made first).
    assertEquals(shown.sessions.map((s) => s.session_name), ["main", ...names].slice(0, shown.sessions.length));
  }, { args: ["--max-tokens", "300"] });
});
