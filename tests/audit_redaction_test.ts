/**
 * The audit redacts by declaration: every tool entry says which arguments
 * are secret, unknown parameters and unknown tool names are hidden, and
 * messages that quote a secret are redacted in the audit line only (the
 * model still gets the whole message). Read from the --audit-log file.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, startTmux } from "./helpers.ts";
import { tempDir, waitUntil } from "./pane_helpers.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { createAuditSink, redact, redactMessage } from "../lib/server/audit.ts";

Deno.test("every tool declares its secrets, naming only its own parameters", () => {
  for (const t of TOOLS) {
    assert(Array.isArray(t.secrets), `${t.name} declares secrets`);
    const params = Object.keys(t.input.shape);
    for (const s of t.secrets!) assert(params.includes(s), `${t.name}: secret ${s} is one of its parameters`);
  }
  const secretOf = (name: string) => TOOLS.find((t) => t.name === name)!.secrets;
  // Content, not identity: what is typed, run, searched for or evaluated.
  assertEquals(secretOf("send-keys"), ["text", "keys"]);
  assertEquals(secretOf("search-buffer"), ["query"]);
  assertEquals(secretOf("search-panes"), ["query"]);
  assertEquals(secretOf("show"), ["format"]);
  assertEquals(secretOf("set")?.toSorted(), ["name", "value"]);
});

Deno.test("redact hides declared and unknown arguments; redactMessage hides what they quote", () => {
  const r = redact({ name: "a", content: "pw-12345", extra: "/home/u/.ssh/id_rsa" }, ["content"], [
    "name",
    "content",
  ]);
  const args = r.args as Record<string, unknown>;
  assertEquals(args.name, "a");
  assertEquals((args.content as { len: number }).len, 8);
  assertEquals("extra" in args, false);
  assert("unknown_parameters" in args);
  assertEquals(
    redactMessage('bad "pw-12345" and extra at /home/u/.ssh/id_rsa', r.hidden),
    'bad "[redacted]" and [redacted] at [redacted]',
  );
  assertEquals(redactMessage('key "x" is bad, x stays', ["x"]), 'key "[redacted]" is bad, x stays');
  assertEquals(redactMessage("a\\nb-secret quoted", ["a\nb-secret"]), "[redacted] quoted");
});

Deno.test("audit log: secrets echoed by messages, undeclared fields and unknown parameters never appear", async () => {
  const tmux = await startTmux("audit");
  const dir = await tempDir();
  const log = `${dir}/audit.jsonl`;
  const mcp = await connect({ socketName: tmux.socketName, args: ["--audit-log", log] });
  const S = (n: number) => `hunter2-${n}-zq`;
  try {
    const pane = (await mcp.ok<{ panes: { pane_id: string }[] }>("list", { what: "panes" })).panes[0].pane_id;
    const calls: Array<[string, Record<string, unknown>, boolean]> = [
      ["send-keys", { target: pane, keys: [`password=${S(1)}`] }, true],
      ["set", { what: "environment", name: `DB_PASSWORD=${S(2)}`, value: "x" }, true],
      ["set", { what: "environment", name: "OK_NAME", value: S(3) }, false],
      ["new", { what: "session", name: "aud", env: { [`BAD NAME ${S(4)}`]: "v" } }, true],
      ["set-buffer", { name: "b", content: `line with ${S(5)}\n` }, false],
      ["search-buffer", { query: S(5) }, false],
      ["search-buffer", { query: `(${S(6)}`, mode: "regex" }, true],
      ["search-panes", { query: S(7) }, false],
      ["search-panes", { query: `[${S(8)}`, regex: true }, true],
      ["show", { what: "format", format: `#{${S(9)}}` }, false],
      ["wait", { what: "text", patterns: [S(10)], timeout_ms: 0 }, false],
      ["load-buffer", { name: "x", path: "/etc/hostname", [`extra_${S(11)}`]: `/home/u/${S(12)}` }, true],
      ["list-buffers", { unknown: S(13) }, true],
      [`tool-${S(14)}`, { a: S(15) }, true],
      ["paste-text", { target: "%99999", text: S(16) }, true],
      ["kill-server", { note: S(17) }, true],
      ["append-buffer", { name: "b", content: S(18) }, false],
      // Its inner call writes a line of its own (before the batch's): an unknown tool's name is hidden in both.
      ["batch", { calls: [{ tool: `tool-${S(19)}`, arguments: { a: S(20) } }, { tool: "list" }] }, false],
    ];
    const lineCount = calls.length + 1;
    const modelSaw: string[] = [];
    for (const [tool, args, fails] of calls) {
      const r = await mcp.call(tool, args);
      assertEquals(Boolean(r.isError), fails, `${tool} ${JSON.stringify(args)}`);
      if (r.isError) modelSaw.push(r.content.map((c) => c.type === "text" ? c.text : "").join(""));
    }
    // The model gets its full error: the key name it got wrong is quoted back.
    assertMatch(modelSaw[0], new RegExp(`password=${S(1)}`));
    const lines = await waitUntil(`${calls.length} audit lines`, async () => {
      const text = await Deno.readTextFile(log).catch(() => "");
      const ls = text.split("\n").filter((l) => l);
      return ls.length >= lineCount + 1 ? text : undefined; // + the list-panes above
    });
    assert(!lines.includes("hunter2"), `no secret in the audit log:\n${lines}`);
    const parsed = lines.trim().split("\n").map((l) => JSON.parse(l)).slice(1);
    assertEquals(parsed.length, lineCount);
    assertEquals(parsed.at(-1).tool, "batch");
    assertEquals(parsed.at(-1).args.calls[1], "list", "a known tool's name stays readable");
    assertEquals(parsed[11].args.name, "x", "identity fields stay readable");
    assert(parsed[11].args.unknown_parameters, "unknown parameters are one fingerprint");
    assertMatch(parsed[13].tool, /^unknown tool /);
    assertMatch(parsed[0].message, /\[redacted\]/);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("the audit sink writes queued lines at flush, in order; arguments that cannot be serialised do not stop it", async () => {
  const dir = await tempDir();
  const path = `${dir}/audit.jsonl`;
  const sink = createAuditSink(path);
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  sink({ tool: "list", outcome: "ok", duration_ms: 1, args: { what: "sessions" }, known: ["what"] });
  sink({ tool: "tool-pw-9876", outcome: "invalid", duration_ms: 1, args: { a: 1n } });
  sink({ tool: "set", outcome: "ok", duration_ms: 2, args: circular, known: ["self"] });
  sink({ tool: "list", outcome: "ok", duration_ms: 3, args: { what: "panes" }, known: ["what"] });
  assertEquals(await Deno.readTextFile(path), "", "lines wait to be written together");
  await sink.flush!();
  const lines = (await Deno.readTextFile(path)).trim().split("\n").map((l) => JSON.parse(l));
  assertEquals(lines.map((l) => [l.tool, l.outcome, l.args]), [
    ["list", "ok", { what: "sessions" }],
    ["unknown tool", "invalid", "[unloggable]"],
    ["set", "ok", "[unloggable]"],
    ["list", "ok", { what: "panes" }],
  ]);
  assert(!(await Deno.readTextFile(path)).includes("pw-9876"), "an unknown tool's name stays hidden");
});
