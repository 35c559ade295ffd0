/**
 * What tools/list advertises, checked strictly: every input and output
 * schema compiles under Ajv strict mode (no `["string","null"]` type
 * arrays, as MCP Inspector --strict warns about them), and every object
 * with properties lists its `required` ones. A server with every toolset at
 * the highest tier lists every tool (output objects only: an input may
 * have nothing but optional parameters); the listing of a tool does not depend
 * on the toolsets or tier served, so this covers every toolset and tier.
 * The same listing gives no finding under the rules of MCP Inspector's
 * `--strict` (inspectorFindings). Also: unknown tools and parameters are answered with the closest valid name.
 */
import assert from "node:assert/strict";
import { withServer } from "./helpers.ts";
import { inspectorFindings, missingRequired, strictValidator, typeArrays } from "./schema_check.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { closest, editDistance } from "../lib/tools/closest.ts";
import fc from "fast-check";
import { z } from "zod";
import { defineTool } from "../lib/tools/declared.ts";

Deno.test("every listed schema is strict: no type arrays, required declared, compiles under Ajv strict mode", async () => {
  await withServer(async (mcp) => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS.map((t) => t.name).sort(), "every tool is listed");
    const problems: string[] = [];
    for (const t of tools) {
      for (const [which, schema] of [["input", t.inputSchema], ["output", t.outputSchema]] as const) {
        problems.push(...typeArrays(schema).map((p) => `${t.name} ${which}: type array at ${p}`));
        problems.push(...inspectorFindings(schema).map((p) => `${t.name} ${which}: Inspector --strict: ${p}`));
        // An input may have only optional parameters; a result always has fields a client can rely on.
        if (which === "output") {
          problems.push(...missingRequired(schema).map((p) => `${t.name} ${which}: no required at ${p}`));
        }
        try {
          strictValidator(schema as Record<string, unknown>);
        } catch (e) {
          problems.push(`${t.name} ${which}: ${e instanceof Error ? e.message : e}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  }, { args: ["--safety", "destructive"] });
});

Deno.test("a field that is sometimes absent is optional and says when it is there", () => {
  const undocumented: string[] = [];
  const walk = (node: Record<string, unknown>, path: string) => {
    const props = node.properties as Record<string, Record<string, unknown>> | undefined;
    const required = new Set(node.required as string[] | undefined);
    for (const [k, v] of Object.entries(props ?? {})) {
      if (!required.has(k) && !/present|absent|omitted|only/i.test(String(v.description ?? ""))) {
        undocumented.push(`${path}.${k}`);
      }
      walk(v, `${path}.${k}`);
    }
    if (node.items) walk(node.items as Record<string, unknown>, `${path}[]`);
  };
  for (const t of TOOLS) walk(t.output.toJSONSchema({ io: "output" }) as Record<string, unknown>, t.name);
  assert.deepEqual(undocumented, []);
});

Deno.test("an unknown tool or parameter gets a one-line error naming the closest valid one", async () => {
  await withServer(async (mcp) => {
    assert.equal(
      await mcp.err("show_buffer", { name: "x" }),
      'unknown tool "show_buffer": did you mean show-buffer? call tools/list to see the tools this server offers',
    );
    assert.match(
      await mcp.err("show-buffer", { name: "x", max_byte: 10 }),
      /^invalid arguments for show-buffer: arguments: unknown parameter\(s\) max_byte \(did you mean max_bytes\?\)$/,
    );
    assert.match(
      await mcp.err("search-buffer", { query: "x", ignorecase: true }),
      /unknown parameter\(s\) ignorecase \(did you mean ignore_case\?\)/,
    );
    // Far from every name: no guess, the name alone.
    assert.match(await mcp.err("show-buffer", { name: "x", zzzzzzzz: 1 }), /unknown parameter\(s\) zzzzzzzz$/);
    // A merged tool's former names say how to call it now, and what to change when this server refuses it.
    assert.match(
      await mcp.err("kill-session", { target: "x" }),
      /^unknown tool "kill-session": it is now kill with what: "session", and tool kill is destructive; this server runs with --safety mutating/,
    );
    assert.match(await mcp.err("list-panes", {}), /it is now list with what: "panes"/);
    assert.match(await mcp.err("show-hooks", {}), /it is now show with what: "hooks"/);
    // Phase 3's merges: the creating tools and display-message, each error one line naming the new call.
    for (
      const [old, now] of [
        ["new-session", 'new with what: "session"'],
        ["new-window", 'new with what: "window"'],
        ["split-window", 'new with what: "pane"'],
        ["display-message", 'show with what: "format"'],
      ]
    ) {
      const e = await mcp.err(old, { target: "x" });
      assert.equal(e, `unknown tool "${old}": it is now ${now}. call tools/list to see the tools this server offers`);
    }
    // The pty tools' former snake_case names and field name say what replaced them.
    assert.equal(
      await mcp.err("pty_launch", { command: "true" }),
      'unknown tool "pty_launch": it is now pty-launch. call tools/list to see the tools this server offers',
    );
    assert.match(await mcp.err("pty_get_screen", { session_id: "s1" }), /it is now pty-get-screen\./);
    assert.match(
      await mcp.err("pty-get-screen", { session_id: "s1" }),
      /unknown parameter\(s\) session_id \(renamed pty_id\)$/,
    );
    // A near miss of a former name finds the call that replaced it.
    assert.equal(
      await mcp.err("new_session", {}),
      'unknown tool "new_session": did you mean new with what: "session"? call tools/list to see the tools this ' +
        "server offers",
    );
    // A member's required parameter, missing: the family's error names it, and what it takes.
    assert.equal(
      await mcp.err("new", { what: "pane" }),
      "invalid arguments for new (what: pane): direction: missing: give one of left, right, up, down",
    );
    // A required parameter not given is called missing, with its type; one given null is not told to leave it out.
    assert.equal(
      await mcp.err("show", {}),
      "invalid arguments for show: what: missing: give one of options, environment, hooks, format",
    );
    assert.equal(
      await mcp.err("set-buffer", { name: "a" }),
      "invalid arguments for set-buffer: content: missing: give a string",
    );
    assert.equal(
      await mcp.err("set-buffer", { name: "a", content: null }),
      "invalid arguments for set-buffer: content: null is not a value here: give a string",
    );
    // One given wrong keeps zod's words.
    assert.match(
      await mcp.err("set-buffer", { name: "a", content: 5 }),
      /content: Invalid input: expected string, received number$/,
    );
    // A parameter the chosen member does not take is still an error.
    assert.match(
      await mcp.err("list", { what: "sessions", all: true }),
      /list \(what: sessions\).*unknown parameter\(s\) all/,
    );
    assert.match(
      await mcp.err("new", { what: "session", direction: "up" }),
      /new \(what: session\).*unknown parameter\(s\) direction/,
    );
    // A parameter of another member, checked the way that member checks it, was refused in its words: an
    // environment variable's name for show environment was "option name is a tmux option like status-left".
    assert.equal(
      await mcp.err("show", { what: "environment", name: "PATH" }),
      "invalid arguments for show (what: environment): arguments: unknown parameter(s) name (what: environment " +
        "takes what, target)",
    );
  });
  // A served tool is suggested before one the server does not serve; one it does not serve, when nothing else is near.
  await withServer(async (mcp) => {
    assert.match(await mcp.err("show_buffer", { name: "x" }), /did you mean show-buffer\?/);
    assert.match(await mcp.err("send_keys", { target: "x" }), /did you mean send-keys\?/);
    assert.match(await mcp.err("send-keys", { target: "x", keys: ["a"] }), /--safety mutating/);
  }, { args: ["--safety", "readonly"] });
  assert.equal(closest("kill-pain", ["kill-pane", "kill-window"]), "kill-pane");
  assert.equal(closest("qqq", ["kill-pane"]), undefined);
});

/** The whole Levenshtein table, no shortcut: what closest's cut-off computation must agree with. */
function fullDistance(a: string, b: string): number {
  const [x, y] = [a, b].map((s) => s.toLowerCase().replaceAll("_", "-"));
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1), prev[j] + 1, cur[j - 1] + 1);
    }
    prev = cur;
  }
  return prev[y.length];
}

Deno.test("closest stops computing a distance once it cannot matter, and picks what the whole table picks", () => {
  // A small alphabet, so that near names, contained names and ties are common.
  const word = fc.string({ unit: fc.constantFrom("a", "b", "c", "-", "_", "A"), maxLength: 14 });
  fc.assert(
    fc.property(word, fc.array(word, { maxLength: 12 }), (name, candidates) => {
      let expected: string | undefined;
      let best = Infinity;
      for (const c of candidates) {
        const d = fullDistance(name, c);
        const near = d <= Math.max(2, Math.floor(Math.max(name.length, c.length) / 3)) ||
          (name.length >= 3 && c.toLowerCase().includes(name.toLowerCase()));
        if (near && d < best) [expected, best] = [c, d];
      }
      assert.equal(closest(name, candidates), expected);
      for (const c of candidates) assert.equal(editDistance(name, c), fullDistance(name, c));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("a declared target kind is the one source of the target parameter", () => {
  for (const t of TOOLS.filter((t) => t.target !== undefined)) {
    const param = (t.input.shape as Record<string, z.ZodType>).target;
    assert.ok(param, `${t.name} declares target "${t.target}" and gets the parameter`);
    assert.equal(Object.keys(t.input.shape)[0], "target", `${t.name}: target comes first`);
    // A plain pane target is undescribed: the tool's own description names the pane.
    const want = t.exactTarget ? `exact ${t.target}` : t.target === "pane" ? undefined : t.target;
    const inner = (param instanceof z.ZodOptional ? param.unwrap() : param) as z.ZodType;
    assert.equal(inner.description, want, `${t.name}: described by its kind`);
    assert.equal(param.safeParse(undefined).success, !t.exactTarget && !t.targetRequired, `${t.name}: optional?`);
  }
  const twice = () =>
    defineTool({
      name: "x",
      title: "x",
      description: "x",
      toolset: "workspace",
      tier: "readonly",
      target: "pane",
      input: z.object({ target: z.string() }),
      output: z.object({}),
      handler: () => Promise.resolve({ structured: {} }),
    });
  assert.throws(twice, /comes from the declared kind/);
});
