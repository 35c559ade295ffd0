/**
 * Secret redaction (lib/text/redact.ts, applied by the pipeline): a corpus of
 * real-shaped, fake secrets printed in panes, kept in buffers and printed by
 * run-command never reaches a tool result; search offsets stay true to the
 * buffer; `--redact off` shows them; `redact: false` per call only at
 * `--safety destructive`.
 *
 * The secrets are built at run time from pieces, so that this file itself
 * holds none of the shapes a scanner looks for.
 */
import fc from "fast-check";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { withServer } from "./helpers.ts";
import { withShell } from "./exec_fixtures.ts";
import { tempDir, waitForPane } from "./pane_helpers.ts";
import type { CallToolResult } from "../lib/sdk.ts";
import { createRedactor, earlyRedactor, findSecrets, loadRedactor, RulesNeeded } from "../lib/text/redact.ts";

const rep = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);
const b64 = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFla";

/** Each secret as it is printed, and the part of it that must not appear (the value itself). */
export const CORPUS: readonly { kind: string; line: string; value: string }[] = (() => {
  const v = (kind: string, value: string, line = value) => ({ kind, line, value });
  const pem =
    ["OPENSSH"].map((k) =>
      `-----BEGIN ${k} PRIVATE KEY-----\n${rep(b64, 64)}\n${rep(b64.slice(7), 64)}\n${rep(b64, 40)}\n` +
      `-----END ${k} PRIVATE KEY-----`
    )[0];
  return [
    v("aws key id", "AKIA" + "Q7XWERTYU2PASDF3"),
    v(
      "aws secret",
      "k7Mdeng9bPxRfiCYzz8zKEYwJalrXUtnF3Mi4ab1",
      "export AWS_SECRET_ACCESS_KEY=" + "k7Mdeng9bPxRfiCYzz8zKEYwJalrXUtnF3Mi4ab1",
    ),
    v("github", "ghp" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    v("github fine", "github" + "_pat_" + "11ABCDEFG0" + rep("aZ09", 72)),
    v("gitlab", "glpat" + "-" + "xYz12345678901234567"),
    v("slack", "xoxb" + "-123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx"),
    v("openai", "sk-" + "a1b2c3d4e5f6g7h8i9j0" + "T3Blbk" + "FJ" + "k1l2m3n4o5p6q7r8s9t0"),
    v("anthropic", "sk-ant-" + "api03-" + rep("Qx7_b-9Lm2", 93) + "AA"),
    v("jwt", "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    v("bearer", "Zk3LmQ9pW2xR7tY5vB8nC4", "curl -H 'Authorization: Bearer " + "Zk3LmQ9pW2xR7tY5vB8nC4'"),
    v("password", "Hunter2horse!battery", "DB_PASSWORD=" + "Hunter2horse!battery"),
    v("password quoted", "s3cr3t-Staple-99", 'password: "' + "s3cr3t-Staple-99" + '"'),
    v("url", "pa55wOrdUrl", "https://deploy:" + "pa55wOrdUrl" + "@git.example.com/r.git"),
    v("private key", rep(b64.slice(7), 64), pem),
    v("redis url", "Hunter2cachePw", "redis://:" + "Hunter2cachePw" + "@cache.internal:6379/0"),
    v(
      "azure account key",
      rep(b64, 86) + "==",
      "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + rep(b64, 86) +
        "==;EndpointSuffix=core.windows.net",
    ),
    v("cli password", "Hunter2dockerPw", "docker login --password " + "Hunter2dockerPw" + " registry.example.com"),
    v("curl user", "Hunter2curlPw", "curl -u admin:" + "Hunter2curlPw" + " https://api.example.com/v1"),
    v("password quoted with blanks", "Hunter2 horse; staple", "export DB_PASSWORD='" + "Hunter2 horse; staple" + "'"),
  ];
})();

const corpusText = CORPUS.map((c) => c.line).join("\n") + "\n";

/** Fails when any corpus value appears anywhere in a result (text, structured, as JSON). */
function assertClean(what: string, r: CallToolResult | Record<string, unknown>) {
  const all = JSON.stringify(r);
  for (const c of CORPUS) {
    // A long value: any 12-unit piece of its middle counts too (a marker must hide all of it).
    const probe = c.value.length > 24 ? c.value.slice(6, 18) : c.value;
    assert(!all.includes(probe), `${what}: ${c.kind} secret reached the result: ${all.slice(0, 300)}`);
  }
}

async function corpusFile(): Promise<string> {
  const dir = await tempDir("tmcp-redact-");
  const path = `${dir}/corpus.txt`;
  await Deno.writeTextFile(path, corpusText);
  return path;
}

/** A window, wide enough for every secret on one row, showing the corpus. */
async function paneShowing(tmux: { tmux(...args: string[]): Promise<string> }, path: string) {
  const pane = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", `cat ${path}; exec sleep 600`))
    .trim();
  await tmux.tmux("resize-window", "-t", pane, "-x", "200", "-y", "50");
  await waitForPane(tmux, pane, /END OPENSSH PRIVATE KEY/);
  return pane;
}

Deno.test("redaction: no corpus secret reaches a result from panes, buffers or run-command; markers are stable", async () => {
  const path = await corpusFile();
  await withShell("bash", async (fx) => {
    const { mcp } = fx;
    const pane = await paneShowing(fx, path);
    const cap = await mcp.call("capture-pane", { target: pane, max_lines: 100 });
    assertClean("capture-pane", cap);
    assertMatch(JSON.stringify(cap), /\[redacted:github:[0-9a-f]{8}\]/);
    assertMatch(JSON.stringify(cap), /\[redacted:[a-z-]+:[0-9a-f]{8}\]/);
    assertClean("capture-pane colors", await mcp.call("capture-pane", { target: pane, colors: true }));
    assertClean("snapshot-pane", await mcp.call("snapshot-pane", { target: pane }));
    assertClean("search-panes", await mcp.call("search-panes", { query: "ghp_", target: pane }));
    // A pane's content resource reaches the model too.
    const resource = await mcp.client.readResource({ uri: `tmux://panes/${encodeURIComponent(pane)}/content` });
    assertClean("resource", resource as unknown as Record<string, unknown>);
    assertMatch(JSON.stringify(resource), /\[redacted:github:/);

    // A buffer: show-buffer, search-buffer; offsets stay those of the buffer's bytes.
    await fx.tmux("load-buffer", "-b", "leak", path);
    assertClean("show-buffer", await mcp.call("show-buffer", { name: "leak" }));
    const q = "github_pat_";
    const found = await mcp.call("search-buffer", { buffers: ["leak"], query: q, context_bytes: 40 });
    assertClean("search-buffer", found);
    const m = (found.structuredContent as { matches: { offset_bytes: number; match_len: number }[] }).matches[0];
    assertEquals(m.offset_bytes, new TextEncoder().encode(corpusText.slice(0, corpusText.indexOf(q))).length);
    assertEquals(m.match_len, q.length);

    // run-command output.
    const run = await mcp.call("run-command", { target: fx.pane, command: `cat ${path}`, timeout_ms: 60_000 });
    assert(!run.isError, JSON.stringify(run).slice(0, 300));
    assertClean("run-command", run);

    // The same value gives the same marker, in every call.
    const markers = (r: CallToolResult) => JSON.stringify(r).match(/\[redacted:github:[0-9a-f]{8}\]/g) ?? [];
    const again = await mcp.call("capture-pane", { target: pane, max_lines: 100 });
    assertEquals(markers(again)[0], markers(cap)[0]);
    assertEquals(markers(await mcp.call("show-buffer", { name: "leak" }))[0], markers(cap)[0]);
  });
});

Deno.test("redaction: a starting server's first call redacts before the rule preset has loaded too", async () => {
  const path = await corpusFile();
  // Each the first call of its server: the preset loads after it (lib/text/redact.ts earlyRedactor).
  const firsts: [string, Record<string, unknown>][] = [
    ["capture-pane", { max_lines: 100 }],
    ["snapshot-pane", { format: "svg" }],
    ["show-buffer", { name: "leak" }],
  ];
  for (const [tool, args] of firsts) {
    await withServer(async (mcp, tmux) => {
      const pane = await paneShowing(tmux, path);
      await tmux.tmux("load-buffer", "-b", "leak", path);
      const r = await mcp.call(tool, tool === "show-buffer" ? args : { ...args, target: pane });
      assert(!r.isError, JSON.stringify(r).slice(0, 300));
      assertClean(`first call ${tool}`, r);
      if (tool !== "snapshot-pane") assertMatch(JSON.stringify(r), /\[redacted:github:[0-9a-f]{8}\]/);
    });
  }
});

Deno.test("redaction: --redact off shows the secrets as printed", async () => {
  const path = await corpusFile();
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("load-buffer", "-b", "leak", path);
    const shown = JSON.stringify(await mcp.call("show-buffer", { name: "leak" }));
    for (const c of CORPUS) assert(shown.includes(c.value.slice(0, 12)), `${c.kind} missing with --redact off`);
    assert(!shown.includes("[redacted:"));
  }, { args: ["--redact", "off"] });
});

Deno.test("redaction: redact:false per call is refused below --safety destructive and honoured at it", async () => {
  const path = await corpusFile();
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("load-buffer", "-b", "leak", path);
    const refused = await mcp.err("show-buffer", { name: "leak", redact: false });
    assertMatch(refused, /needs --safety destructive/);
    assertClean("refused opt-out", { refused });
    assertMatch(await mcp.err("show-buffer", { name: "leak", redact: true }), /redact takes only false/);
  });
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("load-buffer", "-b", "leak", path);
    const shown = JSON.stringify(await mcp.call("show-buffer", { name: "leak", redact: false }));
    assert(shown.includes(CORPUS[2].value), "the opt-out at destructive shows the value");
    assertClean("without opt-out", await mcp.call("show-buffer", { name: "leak" }));
  }, { args: ["--safety", "destructive"] });
});

Deno.test("redactor: every corpus kind is found, markers carry the kind, plain text is left as it is", async () => {
  const r = await loadRedactor();
  for (const c of CORPUS) {
    const out = r.redact(`before ${c.line} after`);
    assert(!out.includes(c.value), `${c.kind}: ${out}`);
    assertMatch(out, /^before .*\[redacted:[a-z0-9-]+:[0-9a-f]{8}\].* after$/s);
  }
  // A token wrapped onto the next row, or cut at a page's edge: both pieces hidden.
  const long = CORPUS[3].value;
  const wrapped = r.redact(`$ echo ${long.slice(0, 40)}\n${long.slice(40)} done`);
  assert(!wrapped.includes(long.slice(20, 32)) && !wrapped.includes(long.slice(50, 62)), wrapped);
  assert(!r.redact(long.slice(30) + "\nthe next line").includes(long.slice(40, 52)));
  const plain = "max_tokens: 4096\nPWD=/home/user\ntoken=true\nls -la /usr/bin | grep password\n";
  assertEquals(r.redact(plain), plain);
  // Colour sequences inside a token do not hide it; a marker is not redacted twice.
  const coloured = `\x1b[32m${CORPUS[2].value}\x1b[0m`;
  const once = r.redact(coloured);
  assert(!once.includes(CORPUS[2].value.slice(4)), once);
  assertEquals(r.redact(r.redact(`DB_PASSWORD=${CORPUS[10].value}`)), r.redact(`DB_PASSWORD=${CORPUS[10].value}`));
});

Deno.test("redactor: a string asked again gives the same answer; a secret is redacted every time it is asked", async () => {
  const r = await loadRedactor();
  const clean = "/home/user/project";
  for (let i = 0; i < 3; i++) assertEquals(r.redact(clean), clean);
  for (const c of CORPUS) {
    const line = `title ${c.line}`;
    const first = r.redact(line);
    assert(!first.includes(c.value), `${c.kind}: ${first}`);
    assertEquals(r.redact(line), first, c.kind);
  }
  // More clean strings than the redactor remembers, then the secrets again: still redacted.
  for (let i = 0; i < 5000; i++) r.redact(`/srv/app/${i}/log`);
  for (const c of CORPUS) assert(!r.redact(`title ${c.line}`).includes(c.value), c.kind);
});

Deno.test("redactor: a value that is one token (a cursor the server made) is left whole", async () => {
  const r = await loadRedactor();
  const cursor = "tmc1." +
    btoa(JSON.stringify({ p: "%12", q: 4242, r: 17, x: 3, a: "9f8e7d6c5b4a", b: "0a1b2c3d4e5f" }));
  assertEquals(r.redact(cursor), cursor);
});

Deno.test("redactor: secrets among hashes, commits, UUIDs and rules of dashes are found; those alone are left", async () => {
  const r = await loadRedactor();
  const sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  const noise = [
    `${sha}  ./dist/app.js`,
    "commit 3f2a9c0d1e4b5a6f7c8d9e0f1a2b3c4d5e6f7a8b",
    "request 123e4567-e89b-12d3-a456-426614174000 done",
    "-".repeat(60),
  ];
  assertEquals(r.redact(noise.join("\n")), noise.join("\n"));
  for (const c of CORPUS) {
    const text = [...noise, `${sha} ${c.line}`, ...noise].join("\n");
    const out = r.redact(text);
    assert(!out.includes(c.value), `${c.kind} among hashes: ${out}`);
    assert(out.startsWith(noise.join("\n")), `${c.kind}: the noise before it is unchanged`);
  }
});

Deno.test("redactor: each rule of the preset still sees a secret of its shape on a line among others", async () => {
  const preset = await import("@secretlint/secretlint-rule-preset-recommend");
  const rules = (preset as unknown as { rules: NonNullable<Parameters<typeof findSecrets>[0]> }).rules;
  const r = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);
  const SAMPLES: Record<string, string> = {
    aws: "AKIA" + "Q7XWERTYU2PASDF3",
    npm: "npm" + "_" + r("aB3dE5gH7j", 36),
    slack: "xoxb" + "-123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    basicauth: "https://deploy:" + "pa55wOrdUrl" + "@git.example.com/r.git",
    openai: "sk-" + "a1b2c3d4e5f6g7h8i9j0" + "T3Blbk" + "FJ" + "k1l2m3n4o5p6q7r8s9t0",
    anthropic: "sk-ant-" + "api03-" + r("Qx7_b-9Lm2", 93) + "AA",
    groq: "gsk" + "_" + r("aB3dE5gH7j", 52),
    huggingface: "hf" + "_" + r("aBcDeFgHiJ", 34),
    linear: "lin_api" + "_" + r("aB3dE5gH7j", 40),
    notion: "ntn" + "_" + "12345678901" + r("aB3dE5gH7j", 35),
    sendgrid: "SG" + "." + r("aB3dE5gH7j", 22) + "." + r("kL9mN0pQ1r", 43),
    shopify: "shpat" + "_" + r("a1b2c3d4e5f6", 32),
    stripe: "sk_live" + "_" + r("aB3dE5gH7j", 24),
    github: "ghp" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    gitlab: "glpat" + "-" + "xYz12345678901234567",
    grafana: "glc" + "_" + r("aB3dE5gH7j", 40),
    "database-connection-string": "postgres://admin:" + "Sup3rS3cretPw" + "@db.example.com:5432/app",
    "hashicorp-vault": "hvs" + "." + r("aB3dE5gH7j", 95),
    vercel: "vcp" + "_" + r("aB3dE5gH7j", 30),
    databricks: "dapi" + r("0123456789abcdef", 32),
    docker: "dckr_pat" + "_" + r("aB3dE5gH7j", 27),
    figma: "figd" + "_" + r("aB3dE5gH7j", 45),
    cloudflare: "cfk" + "_" + r("aB3dE5gH7j", 40) + "0123abcd",
    tailscale: "tskey" + "-auth-" + "kAbCdEf123CNTRL" + "-" + r("aB3dE5gH7j", 30),
  };
  // Covered elsewhere: privatekey by the corpus's key block, gcp (a key file's JSON) and 1password (a token of
  // base64 JSON) by their key block and base64 runs; filter-comments is never run.
  const elsewhere = ["privatekey", "gcp", "1password", "filter-comments"];
  const ids = rules.map((r) => r.meta.id.replace("@secretlint/secretlint-rule-", ""));
  assertEquals(ids.filter((id) => !(id in SAMPLES) && !elsewhere.includes(id)), [], "a rule without a sample");
  for (const [kind, value] of Object.entries(SAMPLES)) {
    const rule = rules.filter((r) => r.meta.id.endsWith(`-${kind}`));
    const spans = findSecrets(rule, `echo done\nvalue: ${value} (x)\nnext line`);
    assert(spans.some((s) => s.kind === kind), `${kind}: ${JSON.stringify(spans)}`);
  }
});

Deno.test("redactor: lines the rules found clean are not given to them again; secrets printed among them since are found", async () => {
  const preset = await import("@secretlint/secretlint-rule-preset-recommend");
  const rules = (preset as unknown as { rules: NonNullable<Parameters<typeof createRedactor>[0]> }).rules;
  // A rule that records what the rules are given.
  const given: string[] = [];
  const recorder = {
    meta: { id: "recorder" },
    create: () => ({ file: (source: unknown) => void given.push((source as { content: string }).content) }),
  };
  const r = createRedactor([...rules, recorder]);
  // A build's screen: every line has a run of 16 token characters with digits, so every line is a candidate.
  const screen = Array.from({ length: 40 }, (_, i) => `step ${i}: compiled /home/user/Proj3ct/module_${i}.ts`);
  assertEquals(r.redact(screen.join("\n")), screen.join("\n"));
  assertEquals(given.pop()!.split("\n").length, 40);
  const next = "step 40: compiled /home/user/Proj3ct/module_40.ts";
  r.redact([...screen, next].join("\n"));
  assertEquals(given.pop(), next, "only the new line goes to the rules");
  for (const c of CORPUS.filter((c) => !c.line.includes("\n"))) {
    const text = [...screen.slice(0, 20), `out: ${c.line}`, ...screen.slice(20)].join("\n");
    const out = r.redact(text);
    assert(!out.includes(c.value), `${c.kind} among lines seen before: ${out}`);
    // Seen again, the secret is still hidden: a line holding one is never remembered as clean.
    assert(!r.redact(text + "\nmore").includes(c.value), `${c.kind}, read a second time`);
  }
});

Deno.test("redactResult: a text tool's facts block is rebuilt from the redacted facts, escaped multi-line secrets too", async () => {
  const redactor = await loadRedactor();
  const { redactResult } = await import("../lib/server/pipeline.ts");
  const pem = CORPUS.find((c) => c.line.includes("PRIVATE KEY-----\n"))!;
  const token = CORPUS.find((c) => !c.line.includes("\n") && c.line.length >= 20)!;
  // As capture-pane, snapshot-pane and show-buffer answer: the text, then the other fields as JSON.
  const facts = { name: "buf", label: pem.line, lines: 3, warnings: [{ kind: "x", message: `saw ${token.line}` }] };
  const text = `before\n${token.line}\nafter`;
  const result = {
    structuredContent: { ...facts, text },
    content: [{ type: "text" as const, text }, { type: "text" as const, text: JSON.stringify(facts) }],
  };
  const r = redactResult(result, redactor);
  const blocks = r.content.map((b) => (b as { text: string }).text);
  const structured = r.structuredContent as typeof result.structuredContent;
  for (const out of [...blocks, JSON.stringify(structured)]) {
    for (const secret of [pem.value, token.value]) {
      assert(!out.includes(secret) && !out.includes(JSON.stringify(secret).slice(1, -1)), `a secret left in ${out}`);
    }
  }
  const { text: redactedText, ...redactedFacts } = structured;
  assertEquals(blocks, [redactedText, JSON.stringify(redactedFacts)]);
  // A block that is no field's JSON is scanned as text.
  const other = redactResult({ ...result, content: [{ type: "text", text: `note: ${token.line}` }] }, redactor);
  assert(!(other.content[0] as { text: string }).text.includes(token.value));
});

Deno.test("early redactor: text a rule must see is never passed unredacted; other text comes out as the full redactor's", async () => {
  // What earlyRedactor gives until the preset has loaded (the tests above loaded it).
  const early = createRedactor(undefined);
  // Lines the preset's shapes may be on: refused, never returned as they are (colour sequences included).
  for (
    const text of [
      "key ghp_abcdefghijklmnopqrstuvwxyz0123456789 here",
      "\x1b[31mAKIAIOSFODNN7EXAMPL\x1b[0mE1 x",
      "postgres://u:pw@db/x",
    ]
  ) {
    assert(
      (() => {
        try {
          early.redact(text);
          return false;
        } catch (e) {
          return e instanceof RulesNeeded;
        }
      })(),
      `early redactor passed ${JSON.stringify(text)}`,
    );
  }
  const full = await loadRedactor();
  const rules = (await import("@secretlint/secretlint-rule-preset-recommend") as unknown as {
    rules: NonNullable<Parameters<typeof createRedactor>[0]>;
  }).rules;
  // No line with a run the preset would see: the same answer, the extra shapes (same salt) found alike.
  for (
    const text of [
      "$ ls\nfile.txt",
      "password: s3cretvalue ok",
      "Authorization: Bearer abcd.efgh.ijkl.mn",
    ]
  ) {
    const out = createRedactor(undefined, "s").redact(text);
    assertEquals(out, createRedactor(rules, "s").redact(text));
    if (text.includes("s3cret") || text.includes("Bearer")) assertMatch(out, /\[redacted:/);
  }
  assertEquals(earlyRedactor(), full, "once loaded, the early redactor is the full one");
});

/** What show-buffer returns for `content` stored in a buffer of the server's tmux. */
async function shownBuffer(content: string): Promise<string> {
  let shown = "";
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "plain", content });
    shown = (await mcp.ok<{ text: string }>("show-buffer", { name: "plain" })).text;
  });
  return shown;
}

Deno.test("redaction: 'Basic authentication' and 'Token authentication' in ordinary output are words, not credentials", async () => {
  const words = ["Basic authentication enabled for the admin interface", "Token authentication required; see docs"];
  const shown = await shownBuffer(words.join("\n") + "\n");
  for (const w of words) assert(shown.includes(w), `left as printed: ${w}\n${shown}`);
  // A credential after those words, or any value of an Authorization header, is still one.
  const r = await loadRedactor();
  // A line that ends in the word: the next line is not its credential.
  const ending = "auth_scheme: Bearer\nsession_timeout: 30m\n";
  assertEquals(await shownBuffer(ending), ending);
  for (const line of ["Basic dXNlcm5hbWU6cGFzc3dvcmQ=", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz"]) {
    assertMatch(r.redact(line), /^(Authorization: )?(Basic|Bearer) \[redacted:auth-header:[0-9a-f]{8}\]$/);
  }
});

Deno.test("redaction: a yarn.lock's integrity hashes are shown as printed; a long mixed token cut at a line's end is not", async () => {
  const lock = [
    '"left-pad@^1.3.0":',
    '  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e"',
    "  integrity sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQEQtsXBd2ZsKfJ7Dqq8X1JErdH2Gv8Mh1kmJ+FOmMCIEGXA==",
    "  integrity sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
    "  integrity sha1-2bWhG8GV1jkbXmR6yd/7AX2fXjk=",
    "",
  ].join("\n");
  const shown = await shownBuffer(lock);
  assertEquals(shown, lock);
  // Not a whole digest (a character more than the hash has): the rest of something cut, redacted.
  const r = await loadRedactor();
  const cut =
    "  integrity sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQEQtsXBd2ZsKfJ7Dqq8X1JErdH2Gv8Mh1kmJ+FOmMCIEGXA==x";
  assertMatch(r.redact(cut), /^ {2}integrity \[redacted:cut:[0-9a-f]{8}\]$/);
});

Deno.test("redaction: a word that only begins with password, secret or token names no secret ('tokenizer:', 'passwordless:')", async () => {
  const text = "Created tokenizer: BertTokenizerFast\npasswordless: enabled\nsecretary: Jane Smithers\n";
  assertEquals(await shownBuffer(text), text);
  // The names a secret goes by still do.
  const r = await loadRedactor();
  for (const line of ["passwords: Hunter2horse", "db_password: Hunter2horse", "tokenSecret: Hunter2horse"]) {
    assertMatch(r.redact(line), /^[A-Za-z_]+: \[redacted:password:[0-9a-f]{8}\]$/);
  }
});

Deno.test("show-environment: a withheld variable's multi-line value shows no line of it as another variable", async () => {
  await withServer(async (mcp, tmux) => {
    const key = `-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAB12cdEF==\n-----END PRIVATE KEY-----`;
    const plain = 'two\nlines with "quotes", a $dollar, a `tick` and a \\ backslash';
    const session = (await mcp.ok<{ session_id: string }>("new", { what: "session", name: "envs" })).session_id;
    await tmux.tmux("set-environment", "-t", session, "DEPLOY_PRIVATE_KEY", key);
    await tmux.tmux("set-environment", "-t", session, "NOTES", plain);
    await tmux.tmux("set-environment", "-t", session, "-r", "GONE");
    const vars = (await mcp.ok<{ variables: { name: string; value: string | null; removed: boolean }[] }>(
      "show",
      { what: "environment", target: session },
    )).variables;
    const all = JSON.stringify(vars);
    assert(!all.includes("MIIEvQ") && !all.includes("AB12cdEF"), all);
    assertEquals(vars.find((v) => v.name === "DEPLOY_PRIVATE_KEY")?.value, null);
    assertEquals(vars.find((v) => v.name === "NOTES")?.value, plain);
    assertEquals(vars.find((v) => v.name === "GONE")?.removed, true);
    assertEquals(vars.filter((v) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v.name)), []);
  });
});

Deno.test("show-environment: a variable named as a key, a PAT, a DSN, a PWD or a connection string is withheld; names that only hold the letters are not", async () => {
  await withServer(async (mcp, tmux) => {
    const session = (await mcp.ok<{ session_id: string }>("new", { what: "session", name: "keys" })).session_id;
    const withheld = ["RAILS_MASTER_KEY", "ENCRYPTION_KEY", "GITHUB_PAT", "SENTRY_DSN", "SIM_PIN", "KEY"];
    // A password under a short name (MySQL's own variable), a connection string with the password in it.
    withheld.push("MYSQL_PWD", "SMTP_PASS", "AZURE_STORAGE_CONNECTION_STRING", "DB_CONN_STR", "AUTHORIZATION_HEADER");
    const shown = ["KEYBOARD_LAYOUT", "MONKEY", "PATH_EXTRA", "SPINNER", "OLDPWD", "COMPASS_HOME", "CONNECT_TIMEOUT"];
    shown.push("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"); // a person, not a credential
    for (const name of [...withheld, ...shown]) {
      await tmux.tmux("set-environment", "-t", session, name, "0f3c9a7e5b1d2468ace13579bdf02468");
    }
    const vars = (await mcp.ok<{ variables: { name: string; value: string | null; redacted: boolean }[] }>(
      "show",
      { what: "environment", target: session },
    )).variables;
    const of = (names: string[]) => names.map((n) => [n, vars.find((v) => v.name === n)?.redacted]);
    assertEquals(of(withheld), withheld.map((n) => [n, true]));
    assertEquals(of(shown), shown.map((n) => [n, false]));
  });
});

Deno.test("redaction: wait's matched_line cut at 1000 characters inside a secret shows no part of it", async () => {
  const token = CORPUS[2].value; // a GitHub token
  const dir = await tempDir("tmcp-redact-");
  const path = `${dir}/long.txt`;
  // The token starts at column 990: the cut at 1000 keeps its first 10 characters alone.
  await Deno.writeTextFile(path, `MARK-7 ${"word ".repeat(196)}${token} end\n`);
  await withShell("bash", async (fx) => {
    // A window wide enough for the line on one row.
    const pane = (await fx.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", `cat ${path}; exec sleep 600`))
      .trim();
    await fx.tmux("resize-window", "-t", pane, "-x", "1100", "-y", "10");
    await waitForPane(fx, pane, /end$/m);
    const hit = await fx.mcp.ok<{ outcome: string; matched_line: string }>("wait", {
      what: "text",
      target: pane,
      patterns: ["MARK-7"],
      timeout_ms: 20_000,
    });
    assertEquals(hit.outcome, "matched", JSON.stringify(hit).slice(0, 2000));
    assert(hit.matched_line.startsWith("MARK-7 word word"), hit.matched_line.slice(0, 40));
    assert(!hit.matched_line.includes(token.slice(0, 10)), hit.matched_line.slice(-60));
    assertMatch(hit.matched_line, /\[redacted:github:[0-9a-f]{8}\]$/);
  });
});

Deno.test("redaction: an error quoting a pattern with 'token' or 'password' in it keeps its words", async () => {
  await withServer(async (mcp) => {
    for (const pattern of ["(token", "(password"]) {
      const error = await mcp.err("wait", { what: "text", patterns: [pattern], regex: true, timeout_ms: 0 });
      assertMatch(error, new RegExp(`^invalid regex "\\${pattern}": Unterminated group`), error);
    }
  });
  // A quoted name with a quoted value is an assignment still.
  const r = await loadRedactor();
  assertMatch(r.redact('{"password": "Hunter2horse"}'), /^\{"password": "\[redacted:password:[0-9a-f]{8}\]"\}$/);
});

Deno.test("redaction: prose, masks, placeholders and code after 'token:' or 'password =' are shown as printed", async () => {
  const text = [
    "Fix token: handle expiry",
    "refresh token: rotate every hour",
    "password: ********",
    "api_key: <your-api-key>",
    "password_file: ~/secret.txt",
    "password = getpass()",
    'token = os.environ["TOKEN"]',
    'secret = os.getenv("SECRET")',
    "",
  ].join("\n");
  assertEquals(await shownBuffer(text), text);
  // A value in a config or a command line still is one, a lower-case word included.
  const r = await loadRedactor();
  for (
    const [line, value] of [
      ["password: letmein", "letmein"],
      ["password: letmein # the old one", "letmein"],
      ["PGPASSWORD=hunter psql -h db", "hunter"],
      ["token: handle", "handle"],
      ['{"token": "handle", "n": 1}', "handle"],
      ["password: Hunter2horse now", "Hunter2horse"],
      ["password = Passw0rd(1)", "Passw0rd(1)"],
      // Words after a password's own name are a passphrase, not prose.
      ["password: correct horse battery staple", "correct"],
      ["db_password: hunter two", "hunter"],
    ]
  ) {
    const out = r.redact(line);
    assert(!out.includes(value) && /\[redacted:password:[0-9a-f]{8}\]/.test(out), `${line} -> ${out}`);
  }
});

Deno.test("redactor: a URL's password in any scheme, and a quoted password with blanks, are hidden whole", async () => {
  const r = await loadRedactor();
  for (
    const [line, pieces] of [
      ["amqp://guest:" + "Rabbit5pw" + "@mq:5672/vhost", ["Rabbit5pw"]],
      ["rediss://default:" + "Hunter2cache" + "@cache:6380", ["Hunter2cache"]],
      ['Password = "' + "Hunter 2 horse" + '"', ["Hunter", "horse"]],
      ['{"password": "' + "a,b;c d" + '", "user": "x"}', ["a,b;c"]],
      // JSON's escaped quote inside the value: the part after it too.
      ['{"password": "' + 'Hunter2\\"horse' + '", "user": "x"}', ["Hunter2", "horse"]],
      // The other quote inside the value.
      ['password: "' + "Hunter2's horse" + '"', ["Hunter2", "s horse"]],
    ] as const
  ) {
    const out = r.redact(line);
    for (const p of pieces) assert(!out.includes(p), `${line} -> ${out}`);
  }
  // A URL without a password is left as it is.
  const plain = "http://localhost:8080/path ssh://git@github.com:22/x https://example.com:443/@user";
  assertEquals(r.redact(plain), plain);
  // A quoted name closed after its colon: the next quote starts no value.
  const quotedName = 'waits at a password prompt ("Password:") — call request-input {pty_id: "s1"}';
  assertEquals(r.redact(quotedName), quotedName);
});

Deno.test("redactor: a password on a command line is hidden; options that only name one are left as printed", async () => {
  const r = await loadRedactor();
  for (
    const [line, value] of [
      ["mysql -uroot -p" + "Hunter2mysql" + " app", "Hunter2mysql"],
      ["sshpass -p '" + "Hunter2ssh" + "' ssh deploy@host", "Hunter2ssh"],
      ["redis-cli -a " + "Hunter2redis" + " ping", "Hunter2redis"],
      ['deploy --api-token "' + "Hunter2 horse" + '" x', "Hunter2"],
    ]
  ) {
    const out = r.redact(line);
    assert(!out.includes(value) && /\[redacted:cli-password:[0-9a-f]{8}\]/.test(out), `${line} -> ${out}`);
  }
  const plain = [
    "docker login --password-stdin registry.example.com",
    "psql --no-password appdb",
    "mysql -uroot -p appdb",
    "curl -u admin https://api.example.com",
    "tool --bypass enabled-mode",
    "tool --token $TOKEN",
  ].join("\n");
  assertEquals(r.redact(plain), plain);
});

Deno.test("redaction: a long line of password-like names or URL-like words is answered at once, not after minutes", async () => {
  // Each a pattern's worst case: a name part that could start at every '-' or '.' and end at every 'token'.
  const text = ["token-".repeat(4000), "x:// " + "a.".repeat(16_000), "token " + "a-".repeat(16_000), ""].join("\n");
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "long", content: text });
    // The SDK's own request timeout (60 s) ends the call if redaction takes minutes; it takes milliseconds.
    const shown = (await mcp.ok<{ text: string }>("show-buffer", { name: "long" })).text;
    assert(shown.startsWith("token-token-") && !shown.includes("[redacted:"), shown.slice(0, 200));
  });
});

Deno.test("redaction: a name about a secret (secretName, tokenURL, token_type) or a value for none is shown as printed", async () => {
  const text = [
    "  secretName: db-credentials",
    "  passwordSecretRef: mysecret-ref",
    "    tokenURL: https://auth.example.com/oauth/token",
    "token_type: Bearer",
    "token_expiry: 3600s",
    "password_hash_algorithm: argon2id",
    "DB_PASSWORD_FILE=run-secrets-db",
    "Using access token: (none)",
    "password = undefined",
    'password: "{{ vault_password }}"',
    "",
  ].join("\n");
  assertEquals(await shownBuffer(text), text);
  // The names of the secret itself still hide it, whatever words come before the last.
  const r = await loadRedactor();
  for (const name of ["GITHUB_TOKEN", "secret_key", "client_secret", "apiKey", "TOKEN_SECRET", "db.password"]) {
    assertMatch(r.redact(`${name}: Hunter2horse`), /^[A-Za-z_.]+: \[redacted:password:[0-9a-f]{8}\]$/, name);
  }
});

/** Keys of a known prefix (built from pieces), each with its body's alphabet for generated ones. */
const PREFIXED: readonly { kind: string; value: string; prefix: string; alphabet: string; length: number }[] = (() => {
  const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return [
    { kind: "github", value: CORPUS[2].value, prefix: "gh" + "p_", alphabet: alnum, length: 36 },
    { kind: "github", value: CORPUS[3].value, prefix: "github" + "_pat_", alphabet: alnum, length: 82 },
    { kind: "anthropic", value: CORPUS[7].value, prefix: "sk-ant-" + "api03-", alphabet: alnum + "_-", length: 95 },
    { kind: "aws", value: CORPUS[0].value, prefix: "AK" + "IA", alphabet: alnum.slice(0, 26) + "234567", length: 16 },
    { kind: "npm", value: "npm" + "_" + rep("Xa7Q2b", 36), prefix: "npm" + "_", alphabet: alnum, length: 36 },
  ];
})();

Deno.test("redaction: a key glued to the prompt after it (printf without a newline) is hidden in capture-pane", async () => {
  const dir = await tempDir("tmcp-redact-");
  await withShell("bash", async (fx) => {
    await fx.tmux("resize-window", "-t", fx.pane, "-x", "250", "-y", "40");
    for (const [i, k] of PREFIXED.entries()) {
      await Deno.writeTextFile(`${dir}/k${i}`, k.value);
      // The key is read from a file: the command line shows none of it, the output row shows it and the prompt.
      await fx.tmux("send-keys", "-t", fx.pane, "-l", `printf 'x %s' "$(cat ${dir}/k${i})"`);
      await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    }
    await waitForPane(fx, fx.pane, new RegExp(`^x ${PREFIXED.at(-1)!.prefix}.*[$#] $`, "m"));
    const cap = await fx.mcp.call("capture-pane", { target: fx.pane, max_lines: 100 });
    const all = JSON.stringify(cap);
    for (const k of PREFIXED) {
      assert(!all.includes(k.value.slice(k.prefix.length, k.prefix.length + 12)), `${k.kind}: ${all.slice(0, 2000)}`);
      assertMatch(all, new RegExp(`x \\[redacted:${k.kind}:[0-9a-f]{8}\\][@#$]`));
    }
  });
});

Deno.test("redactor: keys of a known prefix glued to any text after them are hidden; prose and code are kept", async () => {
  const r = await loadRedactor();
  const glue = fc.stringMatching(/^[A-Za-z0-9_]{0,12}(?:[@:.$#/ ][ -~]{0,20})?$/);
  const key = fc.constantFrom(...PREFIXED).chain((k) =>
    fc.tuple(
      fc.constant(k),
      fc.string({ unit: fc.constantFrom(...k.alphabet), minLength: k.length, maxLength: k.length }),
    )
      .filter(([, body]) => /[0-9]/.test(body) && /[A-Za-z]/.test(body)).map(([k, body]) => k.prefix + body)
  );
  fc.assert(
    fc.property(fc.constantFrom("x ", "", "echo '", "$ ", "KEY="), key, glue, (before, k, after) => {
      const out = r.redact(`${before}${k}${after}\nnext line`);
      const body = k.slice(-Math.min(16, k.length - 4));
      return !out.includes(body) && out.endsWith("\nnext line");
    }),
    { numRuns: 300 },
  );
  // Words and names that start with, or are, a prefix stay as printed: snake_case, camelCase, placeholders.
  const word = fc.constantFrom(
    "ghp_",
    "gho_token",
    "github_pat_",
    "sk-ant-",
    "sk-proj-",
    "AKIA",
    "ASIA",
    "ASIAPACIFICSOUTHEASTREGION",
    "AKIAXXXXXXXXXXXXXXXXEXAMPLE",
    "npm_package_devDependencies_typescript_version",
    "npm_config_user_agent",
    "hf_hub_download",
    "gsk_",
    "ghp_someVeryLongCamelCaseIdentifierForTheDocs",
    "ghp_" + "x".repeat(40),
    "xoxb-",
    "glpat-",
    "the",
    "token",
    "build",
    "release",
    "v2.4.0",
    "main.ts:42",
    "root@vm:~#",
  );
  const ident = fc.array(fc.stringMatching(/^[a-z]{2,9}$/), { minLength: 1, maxLength: 6 }).map((w) => w.join("_"));
  const line = fc.array(fc.oneof(word, ident, fc.stringMatching(/^[a-z]{1,12}$/)), { maxLength: 12 })
    .chain((ws) => fc.constantFrom(" ", " (", ", ").map((sep) => ws.join(sep)));
  // AWS's documentation example key, which the preset leaves as printed.
  const example = "see AKIA" + "IOSFODNN7EXAMPLE in the docs";
  assertEquals(r.redact(example), example);
  fc.assert(
    fc.property(fc.array(line, { maxLength: 6 }), (lines) => {
      const text = lines.join("\n");
      return r.redact(text) === text;
    }),
    { numRuns: 300 },
  );
});

Deno.test("redactor: a long run of glued key prefixes is answered in milliseconds, not after seconds", async () => {
  const r = await loadRedactor();
  // Each prefix starts a glued key whose span reaches the run's end: widened once, not once per prefix.
  for (const unit of ["sk-ant-" + "api03-", "gh" + "p_a1B2", "AK" + "IA7Q2W"]) {
    const text = `x ${unit.repeat(Math.ceil(300_000 / unit.length))}\n`;
    const started = performance.now();
    const out = r.redact(text);
    const ms = performance.now() - started;
    // Linear work takes tens of milliseconds here; widening per prefix took tens of seconds.
    assert(ms < 5_000, `${unit}: ${ms.toFixed(0)} ms`);
    assertMatch(out, /^x \[redacted:[a-z]+:[0-9a-f]{8}\]\n$/);
  }
});

Deno.test("redaction: a key of a known prefix wrapped over a narrow pane's rows is hidden in every row (join_wrapped false)", async () => {
  const dir = await tempDir("tmcp-redact-");
  // On 30 columns: the GitHub token splits 20/20 (each piece shorter than the cut-token rule takes), the
  // Anthropic key runs over five rows and ends 11 characters into the last.
  const [gh, ant] = [PREFIXED[0].value, PREFIXED[2].value];
  await Deno.writeTextFile(`${dir}/wrap.txt`, `MARK abcd ${gh} tail\nMARK abcdefgh ${ant} end of it\n`);
  await withServer(async (mcp, tmux) => {
    const pane = (await tmux.tmux(
      ...["new-session", "-d", "-s", "narrow", "-x", "30", "-y", "20", "-P", "-F", "#{pane_id}", "--"],
      `cat ${dir}/wrap.txt; exec sleep 600`,
    )).trim();
    await waitForPane(tmux, pane, /end of it/);
    const r = await mcp.ok<{ text: string }>("capture-pane", { target: pane, join_wrapped: false });
    assert(r.text.split("\n").length >= 7, r.text);
    for (const value of [gh, ant]) {
      for (let i = 4; i + 6 <= value.length; i++) assert(!r.text.includes(value.slice(i, i + 6)), r.text);
    }
    assertMatch(r.text, /^MARK abcd \[redacted:github:[0-9a-f]{8}\]\n\[redacted:github:[0-9a-f]{8}\] tail$/m);
  });
  // Rows of any width from 20 columns, the key starting anywhere in one: every piece is hidden, the rest kept.
  const r = await loadRedactor();
  fc.assert(
    fc.property(
      fc.constantFrom(...PREFIXED),
      fc.integer({ min: 20, max: 60 }),
      fc.integer({ min: 0, max: 59 }),
      (k, width, column) => {
        const text = `${"x ".repeat(30).slice(0, column % width).replace(/x$/, " ")}${k.value} y`;
        const rows = Array.from(
          { length: Math.ceil(text.length / width) },
          (_, n) => text.slice(n * width, (n + 1) * width),
        );
        const out = r.redact(rows.join("\n"));
        const body = k.value.slice(k.prefix.length);
        for (let i = 0; i + 6 <= body.length; i++) if (out.includes(body.slice(i, i + 6))) return false;
        return out.endsWith("y") && out.startsWith(text.slice(0, text.indexOf(k.prefix)));
      },
    ),
    { numRuns: 300 },
  );
});
