/**
 * The response-budget config file: JSONC accepted; unknown keys, wrong
 * types, unknown tool names and broken files stop the server at startup
 * with exit code 2 and one stderr line naming the key.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ROOT, START_PERMISSIONS } from "./helpers.ts";
import { asBuffered, configFile, withConfig } from "./budget_helpers.ts";
import { parseJsonc, stripJsonc } from "../lib/budget/jsonc.ts";

/** Starts main.ts with a config file; stdin is closed, so a healthy server would exit 0 at once. */
async function startWith(text: string, opts: { viaEnv?: boolean } = {}) {
  const path = await configFile(text);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...START_PERMISSIONS, ROOT + "main.ts", ...(opts.viaEnv ? [] : ["--config", path])],
      env: opts.viaEnv ? { TMUX_MCP_CONFIG: path } : {},
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, stderr: dec.decode(out.stderr), stdout: dec.decode(out.stdout) };
  } finally {
    await Deno.remove(path);
  }
}

async function startupError(text: string): Promise<string> {
  const r = await startWith(text);
  assert.equal(r.code, 2, `exit code 2 expected; stderr: ${r.stderr}`);
  assert.equal(r.stdout, "", "nothing on stdout (it carries JSON-RPC only)");
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one stderr line, got: ${r.stderr}`);
  return lines[0];
}

Deno.test("config file: an unknown key is a startup error naming it", async () => {
  const line = await startupError(`{ "maxTokensPerResponse": 1000, "maxTokenz": 5 }`);
  assert.match(line, /^tmux-mcp: config file \S+: unknown key "maxTokenz" \(known keys: maxTokensPerResponse, /);
});

Deno.test("config file: an unknown key inside toolConfigs names the tool and the key", async () => {
  const line = await startupError(`{ "toolConfigs": { "show-buffer": { "max_tokens": 5 } } }`);
  assert.match(
    line,
    /unknown key "max_tokens" in toolConfigs\.show-buffer \(known keys: maxTokens, maxDepth, alwaysBuffer\)/,
  );
});

Deno.test("config file: alwaysBuffer for a tool never buffered is a startup error saying why", async () => {
  for (const tool of ["set-buffer", "show-buffer"]) {
    assert.match(
      await startupError(`{ "toolConfigs": { "${tool}": { "alwaysBuffer": true } } }`),
      new RegExp(`: toolConfigs\\.${tool}\\.alwaysBuffer: ${tool} results are never buffered .*: remove alwaysBuffer`),
    );
  }
});

Deno.test("config file: a wrong type is a startup error naming the key", async () => {
  assert.match(await startupError(`{ "enableBuffering": "yes" }`), /: enableBuffering: expected true or false/);
  assert.match(
    await startupError(`{ "toolConfigs": { "list-buffers": { "maxDepth": 0 } } }`),
    /: toolConfigs\.list-buffers\.maxDepth: expected a whole number from 1 to 64/,
  );
  assert.match(await startupError(`{ "bufferTTL": 1.5 }`), /: bufferTTL: expected a whole number/);
  assert.match(await startupError(`{ "toolConfigs": [] }`), /: toolConfigs: expected an object/);
  assert.match(await startupError(`[1, 2]`), /: \(top level\): expected an object/);
});

Deno.test("a budget below the smallest buffered answer (150 tokens) is a startup error, in the file or as a flag", async () => {
  // At 100 every buffered answer was about 125 tokens: its required fields alone are over it.
  for (
    const [key, text] of [
      ["maxTokensPerResponse", `{ "maxTokensPerResponse": 149 }`],
      ["toolConfigs.list.maxTokens", `{ "toolConfigs": { "list": { "maxTokens": 100 } } }`],
    ]
  ) {
    assert.match(await startupError(text), new RegExp(`: ${key}: expected a whole number from 150 to 10000000`));
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...START_PERMISSIONS, ROOT + "main.ts", "--max-tokens", "100"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /--max-tokens: 100 is out of range \(150\.\.10000000\)/);
});

Deno.test("config file: an unknown tool name is a startup error naming it", async () => {
  const line = await startupError(`{ "toolConfigs": { "capture-pain": { "maxTokens": 500 } } }`);
  assert.match(line, /: toolConfigs\.capture-pain: unknown tool "capture-pain" \(known tools: .*show-buffer/);
  // JSON.parse keeps "__proto__" as a key of its own; the validated record had dropped it without a word.
  assert.match(
    await startupError(`{ "toolConfigs": { "__proto__": { "maxTokens": 500 } } }`),
    /: toolConfigs\.__proto__: unknown tool "__proto__" \(known tools: /,
  );
});

Deno.test("config file: a former tool name is a startup error naming the tool that replaced it", async () => {
  // A file written for an earlier version got only the list of today's tools.
  assert.match(
    await startupError(`{ "toolConfigs": { "kill-session": { "maxTokens": 500 } } }`),
    /: toolConfigs\.kill-session: the tool kill-session is now kill: write toolConfigs\.kill instead[^\n]*$/,
  );
  assert.match(
    await startupError(`{ "toolConfigs": { "pty_get_screen": { "maxTokens": 500 } } }`),
    /: toolConfigs\.pty_get_screen: the tool pty_get_screen is now pty-get-screen: write toolConfigs\.pty-get-screen /,
  );
});

Deno.test("config file: broken JSON and a missing file are startup errors", async () => {
  assert.match(await startupError(`{ "maxTokensPerResponse": 1000 `), /not valid JSON\/JSONC: /);
  assert.match(await startupError(`{ "a": 1 } }`), /not valid JSON\/JSONC: .*line 1 column 12/);
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...START_PERMISSIONS, ROOT + "main.ts", "--config", "/nonexistent/tmux-mcp.json"],
    stdin: "null",
    stderr: "piped",
  }).output();
  assert.equal(r.code, 2);
  assert.match(
    new TextDecoder().decode(r.stderr),
    /^tmux-mcp: config file \/nonexistent\/tmux-mcp\.json: cannot read the file/,
  );
});

Deno.test("config file: TMUX_MCP_CONFIG is read like --config", async () => {
  const r = await startWith(`{ "defaultMaxDepth": "deep" }`, { viaEnv: true });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^tmux-mcp: config file \S+: defaultMaxDepth: expected a whole number from 1 to 64/);
});

Deno.test("config file: JSONC comments and trailing commas are accepted and the settings apply", async () => {
  const jsonc = `// budgets for tests
  {
    /* a small budget, so a modest result is over it */
    "maxTokensPerResponse": 150, // tokens
    "toolConfigs": {
      "list-buffers": { "alwaysBuffer": true, },
    },
  }`;
  await withConfig(jsonc, async (mcp) => {
    const b = asBuffered(await mcp.ok("list-buffers"));
    assert.equal(b.metadata.limit_tokens, 150);
  });
});

Deno.test("stripJsonc keeps strings intact and positions unchanged", () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  const comment = fc.constantFrom("", " // c\n", "/* c */", " /* a // b */ ", "//x\n");
  fc.assert(fc.property(json, comment, comment, (value, c1, c2) => {
    const text = `${c1}${JSON.stringify(value, null, 1)}${c2}`;
    const stripped = stripJsonc(text);
    assert.equal(stripped.length, text.length);
    assert.deepEqual(parseJsonc(text), JSON.parse(JSON.stringify(value)));
  }));
  assert.deepEqual(parseJsonc(`{"url": "http://x//y", "c": "/* no */", "q": "a\\"//b",}`), {
    url: "http://x//y",
    c: "/* no */",
    q: 'a"//b',
  });
  assert.deepEqual(parseJsonc(`[1, 2, /* three */ ]`), [1, 2]);
});
