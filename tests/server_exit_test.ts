/**
 * How the server ends, through a real process over raw stdio: a client that
 * writes its requests and closes stdin at once still gets every answer; a
 * server with nothing in flight exits at end of input; SIGTERM, SIGINT,
 * SIGHUP and SIGQUIT end the calls in flight with a one-line error each, then the server
 * exits cleanly, leaving no control client on the tmux server and no pty job
 * (a server started with SIGHUP or SIGINT ignored keeps serving).
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { startTmux, type TmuxFixture } from "./helpers.ts";
import { envelope, exitWithin, rawServer } from "./raw_stdio.ts";
import { newPane, waitForPane, waitUntil } from "./pane_helpers.ts";
import { processGone } from "./process_helpers.ts";
import { settle } from "./exec_fixtures.ts";

const enc = new TextEncoder();

type Raw = ReturnType<typeof rawServer>;
type Message = Record<string, unknown>;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

function toolCall(id: number, name: string, args: Record<string, unknown>, progressToken?: number): Message {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, ...(progressToken === undefined ? {} : { _meta: { progressToken } }) },
  };
}

/** Every line the server writes until it closes stdout. */
async function allOutput(s: Raw): Promise<Message[]> {
  const out: Message[] = [];
  while (true) {
    try {
      out.push(await s.next());
    } catch {
      return out;
    }
  }
}

/** The next message that is not a notification. */
async function nextAnswer(s: Raw): Promise<Message> {
  while (true) {
    const m = await s.next();
    if (!("method" in m)) return m;
  }
}

/** Waits for a progress notification (whose message matches `what`): the call's wait is armed. */
async function armed(s: Raw, what = /./): Promise<void> {
  while (true) {
    const m = await s.next();
    if (m.method === "notifications/progress" && what.test((m.params as { message?: string }).message ?? "")) return;
  }
}

/** A pane running bash without rc files, at its prompt. */
async function bashPane(tmux: TmuxFixture): Promise<string> {
  const pane = await newPane(tmux, "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color bash --norc");
  await settle(tmux.socketName, pane);
  return pane;
}

/** Fails unless the server exits with status 0 within a minute (then killed, so the test cannot hang). */
async function exitsCleanly(s: Raw, when: string): Promise<void> {
  const status = await exitWithin(s.child, 60_000);
  if (status === undefined) s.child.kill("SIGKILL");
  assertEquals(status?.code, 0, `the server exited cleanly ${when}`);
}

function errorText(answer: Message): string {
  const r = answer.result as { isError?: boolean; content: { text: string }[] };
  assertEquals(r.isError, true, JSON.stringify(answer));
  return r.content.map((c) => c.text).join("\n");
}

Deno.test("requests written with stdin closed right after are all answered before the server exits", async () => {
  const tmux = await startTmux("eof");
  const pane = await bashPane(tmux);
  const s = rawServer(tmux.socketName);
  try {
    // As `printf '…' | tmux-mcp`: one write, then end of input, while the command takes a moment.
    const lines = [
      INITIALIZE,
      INITIALIZED,
      toolCall(1, "run-command", { target: pane, command: "sleep 1; echo printed-late", timeout_ms: 30_000 }),
      toolCall(2, "wait", { what: "text", target: pane, patterns: ["never-printed-xyzzy"], timeout_ms: 1000 }),
    ];
    await s.writer.write(enc.encode(lines.map((l) => JSON.stringify(l) + "\n").join("")));
    await s.writer.close();
    const out = await allOutput(s);
    const byId = new Map(out.filter((m) => "id" in m).map((m) => [m.id, m]));
    assertEquals([...byId.keys()].sort(), [0, 1, 2], JSON.stringify(out));
    const run = (byId.get(1)!.result as { structuredContent: { exit_code: number; output: string } }).structuredContent;
    assertEquals([run.exit_code, run.output], [0, "printed-late"]);
    const wait = (byId.get(2)!.result as { structuredContent: { outcome: string } }).structuredContent;
    assertEquals(wait.outcome, "timeout");
    assertEquals((await s.child.status).code, 0);
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
  }
});

Deno.test("with nothing in flight, the server exits at end of input without waiting", async () => {
  const tmux = await startTmux("eof-idle");
  // A long --max-wait-ms: a server that waited for its drain bound would outlive the bound below by far.
  const s = rawServer(tmux.socketName, ["--max-wait-ms", "3600000"]);
  try {
    await s.initialize();
    await s.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    assertEquals((await s.next()).id, 1);
    await s.writer.close();
    await exitsCleanly(s, "at end of input");
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
  }
});

Deno.test("an open subscriptions/listen stream (2026 era) does not keep the server from exiting at end of input", async () => {
  const tmux = await startTmux("eof-listen");
  // The default --max-wait-ms (an hour) bounds the drain: a server that waited for the stream would stay that long.
  const s = rawServer(tmux.socketName);
  try {
    // As the v2 SDK client opens one when given ClientOptions.listChanged, and never cancels it before it closes.
    await s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "subscriptions/listen",
      params: { _meta: envelope(), notifications: { toolsListChanged: true } },
    });
    const ack = await s.next();
    assertEquals(ack.method, "notifications/subscriptions/acknowledged", JSON.stringify(ack));
    assertEquals((await s.modern(2, "tools/list")).id, 2);
    await s.writer.close();
    const status = await exitWithin(s.child, 30_000);
    if (status === undefined) s.child.kill("SIGKILL");
    assertEquals(status?.code, 0, "the server exited cleanly at end of input");
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
  }
});

Deno.test("a 2026-era call parked on its question to the human at end of input ends with its audit line", async () => {
  const tmux = await startTmux("eof-parked");
  const pane = await bashPane(tmux);
  await tmux.tmux("send-keys", "-t", pane, "-l", "read -r -p 'Overwrite it? [y/N] ' yn\n");
  await waitForPane(tmux, pane, /Overwrite it\? \[y\/N\] $/m, 30_000);
  const s = rawServer(tmux.socketName);
  try {
    const _meta = envelope({ "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } });
    const ask = { target: pane, prompt: "Overwrite the file?", timeout_ms: 600_000 };
    await s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "request-input", arguments: ask, _meta },
    });
    const asked = (await s.next()).result as { resultType?: string };
    assertEquals(asked.resultType, "input_required", JSON.stringify(asked));
    // The client goes without retrying: the call waits for nobody.
    await s.writer.close();
    await exitsCleanly(s, "at end of input, with a call parked");
    const line = (await s.stderr).split("\n").find((l) => l.includes('"tool":"request-input"'));
    assert(line, await s.stderr);
    assertEquals(
      JSON.parse(line.slice(line.indexOf("{"))).message,
      "the server is shutting down (its client is gone)",
      line,
    );
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
  }
});

Deno.test("the audit lines of the calls answered just before end of input are all written, in order, before exit", async () => {
  const tmux = await startTmux("eof-audit");
  const s = rawServer(tmux.socketName);
  try {
    await s.initialize();
    // Lines wait a few ms to be written together (lib/server/audit.ts): the last ones are still queued at the end.
    const tools = ["list", "no-such-tool", "capture-pane", "list", "show-buffer"];
    const args = [{ what: "sessions" }, {}, { target: "main" }, { what: "panes" }, { name: "no-such-buffer" }];
    const before = Date.now();
    for (const [i, tool] of tools.entries()) {
      await s.send(toolCall(i + 1, tool, args[i]));
      assertEquals((await nextAnswer(s)).id, i + 1);
    }
    await s.writer.close();
    await exitsCleanly(s, "at end of input");
    const lines = (await s.stderr).split("\n").filter((l) => l.startsWith("audit ")).map((l) => JSON.parse(l.slice(6)));
    assertEquals(lines.map((l) => l.outcome), ["ok", "invalid", "ok", "ok", "error"]);
    assertEquals(lines.map((l) => l.tool.startsWith("unknown tool") ? "unknown" : l.tool), [
      ...["list", "unknown", "capture-pane", "list", "show-buffer"],
    ]);
    const times = lines.map((l) => Date.parse(l.time));
    assert(times.every((t, i) => t >= before && (i === 0 || t >= times[i - 1])), `times in call order: ${times}`);
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
  }
});

Deno.test("a client gone entirely (stdin and stdout closed) mid-call: the server exits when the call ends", async () => {
  const tmux = await startTmux("gone");
  const s = rawServer(tmux.socketName);
  try {
    await s.initialize();
    await s.send(toolCall(1, "wait", { what: "text", patterns: ["never-printed-xyzzy"], timeout_ms: 2000 }));
    await s.writer.close();
    await s.reader.cancel();
    await exitsCleanly(s, "once its last call ended");
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal}: a wait in flight answers with a one-line error, then the server exits cleanly`, async () => {
    const tmux = await startTmux("sig");
    const s = rawServer(tmux.socketName);
    try {
      await s.initialize();
      await s.send(toolCall(1, "wait", { what: "text", patterns: ["never-printed-xyzzy"], timeout_ms: 120_000 }, 7));
      await armed(s);
      s.child.kill(signal);
      const answer = await nextAnswer(s);
      assertEquals(answer.id, 1);
      const text = errorText(answer);
      assertMatch(text, new RegExp(`^the server is shutting down \\(${signal}\\): wait-for-text cancelled$`));
      await exitsCleanly(s, `after ${signal}`);
      const stderr = await s.stderr;
      assert(stderr.includes('"outcome":"error"'), "the call is audited");
      // Its audit line says why it ended as its answer does: not as if the client had cancelled it.
      assert(stderr.includes(`"message":"the server is shutting down (${signal}): wait-for-text cancelled"`), stderr);
      assert(!stderr.includes("by the client"), stderr);
    } finally {
      await s.stop().catch(() => {});
      await tmux.kill();
    }
  });
}

Deno.test("SIGTERM during run-command: told what keeps running; no control client stays on tmux", async () => {
  const tmux = await startTmux("sig-run");
  const pane = await bashPane(tmux);
  const s = rawServer(tmux.socketName);
  try {
    await s.initialize();
    await s.send(toolCall(1, "run-command", { target: pane, command: "sleep 8; echo after-sigterm" }, 3));
    await armed(s, /to finish in/); // the command runs

    s.child.kill("SIGTERM");
    const text = errorText(await nextAnswer(s));
    assertMatch(text, /^the server is shutting down \(SIGTERM\): run-command cancelled.*keeps running in %\d+$/);
    await exitsCleanly(s, "after SIGTERM");
    assertEquals((await tmux.tmux("list-clients", "-F", "#{client_pid}")).trim(), "", "no client left attached");
    // The shell was released: the command finished and the prompt came back.
    await waitForPane(tmux, pane, /after-sigterm\n.*[#$] *$/m, 60_000);
  } finally {
    await s.stop().catch(() => {});
    await tmux.kill();
  }
});

/** A pty session whose job ignores SIGHUP (as `nohup` would make it); resolves with the job's pid. */
async function hupProofJob(s: Raw, id: number, dir: string): Promise<number> {
  const file = `${dir}/pid`;
  await s.send(toolCall(id, "pty-launch", { command: `sh -c 'trap "" HUP; echo $$ > ${file}; exec sleep 300'` }));
  const answer = await nextAnswer(s);
  assertEquals(answer.id, id, JSON.stringify(answer));
  let pid = 0;
  await waitUntil("the pty job to write its pid", async () => {
    pid = Number((await Deno.readTextFile(file).catch(() => "")).trim());
    return pid > 0 || undefined;
  }, 60_000);
  return pid;
}

for (
  const [sig, why] of [
    ["SIGHUP", "the client's terminal closed"],
    // Ctrl-\\ in the client's terminal: its default action (a core dump) ended the server without cleanup too.
    ["SIGQUIT", "Ctrl-\\ in the client's terminal"],
  ] as const
) {
  Deno.test(`${sig} (${why}): a wait answers with a one-line error, the server exits cleanly, its pty jobs end`, async () => {
    const tmux = await startTmux(sig.toLowerCase());
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-hup-" });
    const s = rawServer(tmux.socketName);
    let job = 0;
    try {
      await s.initialize();
      job = await hupProofJob(s, 1, dir);
      await s.send(toolCall(2, "wait", { what: "text", patterns: ["never-printed-xyzzy"], timeout_ms: 120_000 }, 7));
      await armed(s);
      s.child.kill(sig);
      const answer = await nextAnswer(s);
      assertEquals(answer.id, 2);
      assertMatch(errorText(answer), new RegExp(`^the server is shutting down \\(${sig}\\): wait-for-text cancelled$`));
      await exitsCleanly(s, `after ${sig}`);
      // Before, the signal's default action ended the server at once: this job, which ignores SIGHUP, outlived it.
      await waitUntil(
        "the pty job that ignores SIGHUP to end",
        () => Promise.resolve(processGone(job) || undefined),
        30_000,
      );
    } finally {
      if (job > 0 && !processGone(job)) Deno.kill(job, "SIGKILL");
      await s.stop().catch(() => {});
      await tmux.kill();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  });
}

for (
  const [sig, trap, why] of [
    ["SIGHUP", "HUP", "nohup"],
    // A job a non-interactive shell starts in the background (`tmux-mcp &`) has SIGINT ignored: before, Deno's
    // listener caught it anyway and a Ctrl-C meant for the shell ended the server.
    ["SIGINT", "INT", "a background job of a shell"],
  ] as const
) {
  Deno.test(`a server started with ${sig} ignored (${why}) keeps serving after ${sig}`, async () => {
    const tmux = await startTmux(`ign-${trap.toLowerCase()}`);
    const s = rawServer(tmux.socketName, [], ["sh", "-c", `trap "" ${trap}; exec "$@"`, "sh"]);
    try {
      await s.initialize();
      s.child.kill(sig);
      // A wait that runs to its own end: a signal acted on (an exit, or a shutdown that cancels calls) shows by then.
      await s.send(toolCall(1, "wait", { what: "text", patterns: ["never-printed-xyzzy"], timeout_ms: 2000 }));
      const waited = await nextAnswer(s);
      assertEquals(waited.id, 1);
      assert(!JSON.stringify(waited).includes("shutting down"), JSON.stringify(waited));
      await s.send(toolCall(2, "list", { what: "sessions" }));
      const answer = await nextAnswer(s);
      assertEquals(answer.id, 2);
      assertEquals((answer.result as { isError?: boolean }).isError, undefined, JSON.stringify(answer));
      await s.writer.close();
      await exitsCleanly(s, "at end of input");
    } finally {
      await s.stop().catch(() => {});
      await tmux.kill();
    }
  });
}

Deno.test("tmux stopped at end of input: the tmux cleanup waits out its bound; pty jobs end at once, no temp file is left", async () => {
  const tmux = await startTmux("stopped-exit");
  const pane = await bashPane(tmux);
  const tmuxPid = Number((await tmux.tmux("display-message", "-p", "#{pid}")).trim());
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-stopped-" });
  const s = rawServer(tmux.socketName);
  let job = 0;
  try {
    await s.initialize();
    job = await hupProofJob(s, 1, dir);
    // Output over the response budget: kept in a result buffer on tmux, which the cleanup deletes.
    await s.send(toolCall(2, "run-command", { target: pane, command: "seq 1 50000" }));
    const run = await nextAnswer(s);
    assertMatch(JSON.stringify(run), /"full_output_buffer":"mcp-result-/);
    // Content sent to tmux through a private file (its directory stays until the connection closes).
    await s.send(toolCall(3, "append-buffer", { name: "big", content: "x".repeat(20_000) }));
    assertEquals((await nextAnswer(s)).id, 3);
    Deno.kill(tmuxPid, "SIGSTOP");
    await s.writer.close();
    // Before, the hooks ran one after another: the buffer's delete waited on tmux until the 10 s bound cut the
    // cleanup off, and the pty session was never killed (its job, which ignores SIGHUP, outlived the server).
    await waitUntil(
      "the pty job that ignores SIGHUP to end",
      () => Promise.resolve(processGone(job) || undefined),
      30_000,
    );
    await exitsCleanly(s, "at end of input");
    // Its temp files (the run's, the stdin route's) need no tmux: none is left for a later server's sweep.
    const left = [...Deno.readDirSync(Deno.env.get("TMPDIR") || "/tmp")].map((e) => e.name)
      .filter((n) => n.startsWith(`tmux-mcp-${s.child.pid}-`));
    assertEquals(left, [], "no temp file of the server is left");
  } finally {
    try {
      Deno.kill(tmuxPid, "SIGCONT");
    } catch {
      // gone
    }
    if (job > 0 && !processGone(job)) Deno.kill(job, "SIGKILL");
    await s.stop().catch(() => {});
    await tmux.kill();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
