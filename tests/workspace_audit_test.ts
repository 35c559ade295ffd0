import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, startTmux } from "./helpers.ts";
import { tempDir, waitUntil } from "./pane_helpers.ts";

interface AuditLine {
  time: string;
  tool: string;
  outcome: string;
  duration_ms: number;
  args: Record<string, unknown>;
  target?: Record<string, string>;
  message?: string;
}

async function sha12(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(d.subarray(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function readAudit(path: string, count: number): Promise<AuditLine[]> {
  return await waitUntil(`${count} audit lines`, async () => {
    const lines = (await Deno.readTextFile(path).catch(() => "")).split("\n").filter((l) => l);
    return lines.length >= count ? lines.map((l) => JSON.parse(l) as AuditLine) : undefined;
  });
}

Deno.test("audit lines: every call with outcome, duration, resolved ids and secrets redacted", async () => {
  const tmux = await startTmux("audit");
  const dir = await tempDir();
  const log = `${dir}/audit.jsonl`;
  const secrets = ["hunter2-env", "sleep 1000 # secret-cmd", "secret-text", "secret-value", "secret-paste", "C-x"];
  const mcp = await connect({ socketName: tmux.socketName, args: ["--audit-log", log, "--safety", "destructive"] });
  try {
    const s = await mcp.ok<{ pane_id: string; session_id: string; window_id: string }>("new", {
      what: "session",
      name: "audited",
      command: secrets[1],
      env: { TOKEN: secrets[0] },
    });
    await mcp.ok("send-keys", { target: s.pane_id, text: secrets[2], keys: [secrets[5]] });
    await mcp.ok("set", { what: "option", target: "audited", scope: "session", name: "@k", value: secrets[3] });
    await mcp.ok("paste-text", { target: s.pane_id, text: secrets[4] });
    await mcp.err("send-keys", { target: s.pane_id, text: secrets[2], keys: ["NotAKey"] });
    await mcp.err("send-keys", { target: "%9999", text: secrets[2] });
    await mcp.ok("kill", { what: "session", target: "audited" });

    const lines = await readAudit(log, 7);
    const raw = await Deno.readTextFile(log);
    for (const secret of secrets) assert(!raw.includes(secret), `${secret} is not in the audit log`);
    assertEquals(lines.map((l) => [l.tool, l.outcome]), [
      ["new", "ok"],
      ["send-keys", "ok"],
      ["set", "ok"],
      ["paste-text", "ok"],
      ["send-keys", "invalid"],
      ["send-keys", "error"],
      ["kill", "ok"],
    ]);
    for (const l of lines) {
      assert(!Number.isNaN(Date.parse(l.time)), "time is ISO");
      assert(typeof l.duration_ms === "number" && l.duration_ms >= 0);
    }
    const [ns, keys, opt, paste, invalid, failed, kill] = lines;
    assertEquals(ns.args.name, "audited");
    assertEquals(ns.args.command, { len: secrets[1].length, sha256_12: await sha12(secrets[1]) });
    // env is declared secret whole: variable names can be secrets too (a name "PASSWORD=…").
    const env = JSON.stringify({ TOKEN: secrets[0] });
    assertEquals(ns.args.env, { len: env.length, sha256_12: await sha12(env) });
    assertEquals(ns.target, { session_id: s.session_id, window_id: s.window_id, pane_id: s.pane_id });
    assertEquals(keys.args.text, { len: secrets[2].length, sha256_12: await sha12(secrets[2]) });
    assertEquals(keys.args.keys, { len: 7, sha256_12: await sha12(JSON.stringify([secrets[5]])) });
    assertEquals(keys.args.target, s.pane_id);
    assertEquals(keys.target?.pane_id, s.pane_id);
    assertEquals(opt.args.value, { len: secrets[3].length, sha256_12: await sha12(secrets[3]) });
    assertEquals([opt.args.name, opt.target?.session_id], ["@k", s.session_id]);
    assertEquals(paste.args.text, { len: secrets[4].length, sha256_12: await sha12(secrets[4]) });
    // The message quotes a secret argument (a key name): the audit line hides it.
    assertMatch(invalid.message!, /unknown key name "\[redacted\]"/);
    assertEquals(invalid.args.text, keys.args.text, "equal values have equal fingerprints");
    assertMatch(failed.message!, /unknown target "%9999"/);
    assertEquals(failed.target, undefined);
    assertEquals(kill.target?.session_id, s.session_id);
    assert(!("result" in kill) && !raw.includes('"killed"'), "results are never logged");
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("audit: calls refused by the safety tier are logged with their secrets redacted", async () => {
  const tmux = await startTmux("audit");
  const dir = await tempDir();
  const log = `${dir}/audit.jsonl`;
  const mcp = await connect({ socketName: tmux.socketName, args: ["--audit-log", log, "--safety", "readonly"] });
  try {
    await mcp.err("send-keys", { text: "top-secret", enter: true });
    await mcp.err("kill", { what: "server" });
    const [keys, kill] = await readAudit(log, 2);
    assertEquals([keys.tool, keys.outcome, kill.tool, kill.outcome], [
      "send-keys",
      "refused",
      "kill",
      "refused",
    ]);
    assertEquals(keys.args, { text: { len: 10, sha256_12: await sha12("top-secret") }, enter: true });
    assert(!(await Deno.readTextFile(log)).includes("top-secret"));
    assertEquals(mcp.stderr().includes('"outcome":"refused"'), false, "with --audit-log, audit lines leave stderr");
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("audit on stderr: a file name a program chose cannot forge an audit line through a log message", async () => {
  // Any program on the machine can name a file in the temp directory; the next server's sweep of a dead server's
  // leftovers logs that name on stderr, where the audit lines go too.
  const tmux = await startTmux("audit-forge");
  const tmp = await tempDir("tmcp-tmp-");
  const gone = new Deno.Command("true").spawn();
  await gone.status;
  const forged = `audit {"time":"2026-01-01T00:00:00.000Z","tool":"kill","outcome":"ok","forged":1}`;
  const leftover = `${tmp}/tmux-mcp-${gone.pid}-x\n${forged}\n`;
  await Deno.writeTextFile(leftover, "");
  const mcp = await connect({ socketName: tmux.socketName, env: { TMPDIR: tmp } });
  try {
    await mcp.ok("list", { what: "sessions" });
    const stderr = await mcp.waitForStderr(/removed what exited servers left/);
    assert(!stderr.split("\n").some((l) => l.startsWith("audit ") && l.includes(`"forged"`)), stderr);
    assertMatch(stderr, /tmux-mcp info: removed what exited servers left: .*\\naudit \{/);
  } finally {
    await mcp.close();
    await tmux.kill();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
});
