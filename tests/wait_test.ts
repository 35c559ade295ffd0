import { assert, assertEquals, assertMatch } from "./assert.ts";
import { callAndCancel, callWithProgress, type ExecFixture, startWait, watchedIn, withShell } from "./exec_fixtures.ts";
import { tempDir, tmuxFormat, waitForPane, waitUntil } from "./pane_helpers.ts";
import { connect, textOf } from "./helpers.ts";
import type { CallToolResult } from "../lib/sdk.ts";

interface TextResult {
  outcome: string;
  session_id?: string;
  matched_pattern: string | null;
  matched_line: string | null;
  tail: string;
  elapsed_ms: number;
  pane_id: string;
  visible_in_tail?: true;
  continue?: string;
  warnings: { kind: string; message: string }[];
}

interface QuietResult {
  outcome: string;
  output_bytes: number;
  tail: string;
  pane_id: string;
  warnings: { kind: string; message: string }[];
}

/** Types a line into the pane as a user would (not through run-command). */
async function type(fx: ExecFixture, line: string, pane = fx.pane): Promise<void> {
  await fx.tmux("send-keys", "-t", pane, "-l", line);
  await fx.tmux("send-keys", "-t", pane, "Enter");
}

async function screenHas(fx: ExecFixture, text: string, pane = fx.pane): Promise<boolean> {
  return (await fx.tmux("capture-pane", "-p", "-t", pane)).includes(text);
}

Deno.test("wait-for-text finds a prompt that ends in a space, on the screen and in new output", async () => {
  await withShell("bash", async (fx) => {
    // A REPL's prompt: python3's `>>> `, read from the screen (printed before the wait) and from new output.
    const fresh = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["REPL> "],
      new_only: true,
      timeout_ms: 60_000,
    });
    await fresh.armed;
    await type(fx, `read -rp 'REP''L> ' answer`);
    const live = await fresh.done;
    assertEquals([live.outcome, live.matched_line], ["matched", "REPL> "]);
    const later = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["REPL> "],
      timeout_ms: 60_000,
    });
    assertEquals([later.outcome, later.matched_line], ["matched", "REPL> "]);
    // A regex that wants the space at the line's end, too.
    const re = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["^REPL> $"],
      regex: true,
      timeout_ms: 60_000,
    });
    assertEquals(re.outcome, "matched");
  });
});

Deno.test("wait-for-text does not take the echo of a line send-keys or paste-text typed for its output", async () => {
  await withShell("bash", async (fx) => {
    // The agents' way: type a command that prints a marker when done, then wait for the marker. Its prompt line
    // (`$ sleep 0.5; echo TYPED-DONE`) shows the marker at once, half a second before the command prints it.
    await fx.mcp.ok("send-keys", { target: fx.pane, text: "sleep 0.5; echo TYPED-DONE", enter: true });
    const done = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["TYPED-DONE"],
      timeout_ms: 60_000,
    });
    assertEquals([done.outcome, done.matched_line], ["matched", "TYPED-DONE"]);
    // Typed, not submitted: nothing printed it, so the wait times out, and does not call the echo a sighting.
    await fx.mcp.ok("paste-text", { target: fx.pane, text: "echo NEVER-SUBMITTED-42" });
    await waitUntil("the pasted line on screen", () => screenHas(fx, "NEVER-SUBMITTED-42"));
    const never = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["NEVER-SUBMITTED-42"],
      timeout_ms: 300,
    });
    assertEquals([never.outcome, never.visible_in_tail], ["timeout", undefined]);
    // The prompt and output around an echo still match: only the echo line itself is left out.
    await fx.mcp.ok("send-keys", { target: fx.pane, keys: ["C-u"] });
    await fx.mcp.ok("send-keys", { target: fx.pane, text: "echo lines-of-the-output", enter: true });
    const out = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["lines-of-the-output"],
      timeout_ms: 60_000,
    });
    assertEquals(out.matched_line, "lines-of-the-output");
  });
});

Deno.test("wait-for-text finds a line already on the screen; new_only waits for new output and says what the tail shows", async () => {
  await withShell("bash", async (fx) => {
    await type(fx, "echo READY-$((0+1))"); // the typed line itself does not match
    await waitUntil("READY-1 on screen", () => screenHas(fx, "\nREADY-1"));
    // The agents' case: the ready line was printed before the wait started.
    const ready = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["READY-1"],
      timeout_ms: 60_000,
    });
    assertEquals([ready.outcome, ready.matched_line], ["matched", "READY-1"]);

    const old = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["READY-1"],
      new_only: true,
      timeout_ms: 500,
    });
    assertEquals([old.outcome, old.matched_line, old.visible_in_tail], ["timeout", null, true]);
    assertMatch(old.tail, /READY-1/);

    const waiting = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["GO-42"],
      new_only: true,
      timeout_ms: 10_000,
    });
    await waiting.armed;
    await type(fx, "echo GO-$((40+2))"); // the typed line itself does not contain GO-42
    const hit = await waiting.done;
    assertEquals([hit.outcome, hit.matched_pattern, hit.matched_line], ["matched", "GO-42", "GO-42"]);
    assertEquals(hit.pane_id, fx.pane);
    assertEquals(hit.visible_in_tail, undefined);
  });
});

Deno.test("wait-for-text new_only sees a line printed while its watch of the pane starts", async () => {
  await withShell("bash", async (fx) => {
    await fx.mcp.ok("capture-since", { target: fx.pane }); // the server's own start-up reads are over
    const tty = (await fx.tmux("display-message", "-p", "-t", fx.pane, "#{pane_tty}")).trim();
    // The line comes right after the call's first read of the pane (the target's resolution), while the server
    // still starts following the pane's output: a hook that runs once, after the next display-message.
    await fx.tmux(
      "set-hook",
      "-g",
      "after-display-message",
      `set-hook -gu after-display-message ; run-shell -b "printf 'GO-%s\\\\n' 42 > ${tty}"`,
    );
    const hit = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["GO-42"],
      new_only: true,
      timeout_ms: 20_000,
    });
    assertEquals([hit.outcome, hit.matched_line], ["matched", "GO-42"]);
  });
});

Deno.test("wait-for-text: a line after an insert of millions of blanks is still found", async () => {
  await withShell("bash", async (fx) => {
    const waiting = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["GO-42"],
      new_only: true,
      timeout_ms: 30_000,
    });
    await waiting.armed;
    // CSI n @ (insert n blanks) with a count no terminal line has, in the same write as the line waited for.
    await type(fx, "printf 'ab\\r\\033[3000000@cd\\nGO-%d\\n' $((40+2))");
    const hit = await waiting.done;
    assertEquals([hit.outcome, hit.matched_line], ["matched", "GO-42"]);
    assert(!/watcher failed/.test(fx.mcp.stderr()), fx.mcp.stderr());
  });
});

/**
 * Waits for HEAD-43 and END-42 (new output only) around one line of `columns` x's, typed into the pane; their answers.
 */
async function waitsAroundLongLine(fx: ExecFixture, columns: number): Promise<[TextResult, TextResult]> {
  const wait = (pattern: string) =>
    startWait<TextResult>(fx, "wait", { what: "text", target: fx.pane, patterns: [pattern], new_only: true });
  const head = wait("HEAD-43"), end = wait("END-42");
  await Promise.all([head.armed, end.armed]);
  await type(fx, `printf 'HEAD-%d' $((40+3)); head -c ${columns} /dev/zero | tr '\\0' x; printf 'END-%d\\n' $((40+2))`);
  return [await head.done, await end.done];
}

Deno.test("wait-for-text finds text anywhere in a line longer than 4096 columns, its start and its end", async () => {
  await withShell("bash", async (fx) => {
    // The columns past 4,096 were cut before any check (a timeout, the text on screen).
    const [head, end] = await waitsAroundLongLine(fx, 9000);
    assertEquals([head.outcome, end.outcome], ["matched", "matched"]);
  });
});

Deno.test("wait-for-text finds text at the start of a line longer than 4096 columns already on the screen", async () => {
  await withShell("bash", async (fx) => {
    // 4,307 columns: 36 rows of the 40-row screen, so all of it shows.
    await type(fx, `printf 'HEAD-%d' $((40+3)); head -c 4300 /dev/zero | tr '\\0' x; echo`);
    await waitUntil("the long line on screen", () => screenHas(fx, "HEAD-43"));
    const r = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["HEAD-43"],
      timeout_ms: 3000,
    });
    assertEquals(r.outcome, "matched");
  });
});

Deno.test("wait-for-text: a match in a line only the full redaction rules may judge is answered, not waited for again", async () => {
  await withShell("bash", async (fx) => {
    // A 3,000-character token-like line before the server's rules were loaded: the call was run a second time with
    // them, and that wait, armed after the line, answered timeout.
    const [head, end] = await waitsAroundLongLine(fx, 3000);
    assertEquals(head.outcome, "matched");
    assertEquals([end.outcome, end.matched_line?.length], ["matched", 1000], JSON.stringify(end).slice(-300));
  });
});

Deno.test("wait-for-text with timeout_ms 0 (look now) matches the text the screen already shows", async () => {
  await withShell("bash", async (fx) => {
    await type(fx, "echo NOW-$((6*7))");
    await waitUntil("NOW-42 on screen", () => screenHas(fx, "\nNOW-42"));
    for (const regex of [false, true]) {
      const now = await fx.mcp.ok<TextResult>("wait", {
        what: "text",
        target: fx.pane,
        patterns: [regex ? "NOW-\\d+" : "NOW-42"],
        regex,
        timeout_ms: 0,
      });
      assertEquals([now.outcome, now.matched_line, now.visible_in_tail], ["matched", "NOW-42", undefined]);
    }
    const none = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["NOW-43"],
      timeout_ms: 0,
    });
    assertEquals([none.outcome, none.matched_line], ["timeout", null]);
  });
});

Deno.test("wait-for-text with timeout_ms 0 on a pty session matches the line it already printed", async () => {
  const mcp = await connect({ args: ["--toolsets", "pty,exec"] });
  try {
    const id = (await mcp.ok<{ pty_id: string }>("pty-launch", { command: "sh -c 'echo NOW-$((6*7)); sleep 60'" }))
      .pty_id;
    await waitUntil("NOW-42 in the pty", async () => {
      return (await mcp.ok<{ screen: string }>("pty-get-screen", { pty_id: id })).screen.includes("NOW-42");
    });
    const now = await mcp.ok<TextResult>("wait", { what: "text", pty_id: id, patterns: ["NOW-42"], timeout_ms: 0 });
    assertEquals([now.outcome, now.matched_line], ["matched", "NOW-42"]);
    await mcp.ok("pty-kill-session", { pty_id: id });
  } finally {
    await mcp.close();
  }
});

Deno.test("wait-for-text: stop beats patterns; regex and ignore_case work; partial lines match", async () => {
  await withShell("bash", async (fx) => {
    const both = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["done"],
      stop: ["FAIL"],
      timeout_ms: 10_000,
    });
    await both.armed;
    await type(fx, `printf 'build %s with %s\\n' d""one F""AIL`); // the typed line matches neither
    const stopped = await both.done;
    assertEquals([stopped.outcome, stopped.matched_pattern], ["stopped", "FAIL"]);
    assertEquals(stopped.matched_line, "build done with FAIL");

    const re = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["^RESULT=\\d+$"],
      regex: true,
      ignore_case: true,
      timeout_ms: 10_000,
    });
    await re.armed;
    await type(fx, "echo result=$((10+7))");
    assertEquals((await re.done).matched_line, "result=17");

    // A prompt without a newline, as password prompts are.
    const prompt = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["Password: "],
      timeout_ms: 10_000,
    });
    await prompt.armed;
    await type(fx, `read -r -s -p "Pass""word: " x`);
    const p = await prompt.done;
    assertEquals(p.outcome, "matched");
    assert(p.warnings.some((w) => w.kind === "input_prompt"), JSON.stringify(p.warnings));
    await fx.tmux("send-keys", "-t", fx.pane, "C-c");
  });
});

Deno.test("wait-for-text rejects bad regular expressions and survives catastrophic ones", async () => {
  await withShell("bash", async (fx) => {
    assertMatch(
      await fx.mcp.err("wait", { what: "text", target: fx.pane, patterns: ["(unclosed"], regex: true }),
      /invalid regex/,
    );
    // Output is matched line by line: a pattern that needs a line break would only ever time out.
    for (const [patterns, regex] of [[["ok", "done\nok"], false], [["done\\r?\\nok"], true]] as const) {
      assertMatch(
        await fx.mcp.err("wait", { what: "text", target: fx.pane, patterns, regex, timeout_ms: 60_000 }),
        /^pattern "done.*" contains a line break, but patterns match within one line: wait for the text of one/,
      );
    }
    // An optional line break, one in a character class, a group or a lookahead: patterns that can match.
    await type(fx, "echo one-line");
    for (const p of ["one-\\n?line", "one[^\\n]line", "one-line(?!\\n)", "one-(\\r?\\n)?line"]) {
      const r = await fx.mcp.ok<TextResult>("wait", { what: "text", target: fx.pane, patterns: [p], regex: true });
      assertEquals(r.outcome, "matched");
    }
    // A stop pattern with a line break could never match.
    assertMatch(
      await fx.mcp.err("wait", { what: "text", target: fx.pane, patterns: ["ok"], stop: ["fail\nnow"] }),
      /^pattern "fail\\nnow" contains a line break/,
    );
    const slow = startWait(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["^(a+)+$"],
      regex: true,
      timeout_ms: 20_000,
    });
    await slow.armed;
    await type(fx, `echo ${"a".repeat(40)}!`);
    const err = await slow.done.then(() => "", (e) => String(e));
    assertMatch(err, /backtrack/);
    // The server still answers.
    assertEquals(
      (await fx.mcp.ok<QuietResult>("wait", { what: "quiet", target: fx.pane, quiet_ms: 50 })).outcome,
      "quiet",
    );
    // A wait that times out before the regex's deadline (3 s), or watches new output only, still says why its
    // pattern never matched the line on the screen, instead of a plain timeout.
    for (const extra of [{ timeout_ms: 500 }, { timeout_ms: 500, new_only: true }]) {
      const e = await fx.mcp.err("wait", {
        what: "text",
        target: fx.pane,
        patterns: ["(a+)+$"],
        regex: true,
        ...extra,
      });
      assertMatch(e, /took too long.*backtrack/);
    }
    // A stop pattern is not looked for on the screen at the end: one too slow for an old line there, never checked
    // against new output, leaves the answer a timeout, in time.
    const stopped = await fx.mcp.ok<TextResult>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["never-printed"],
      stop: ["(a+)+$"],
      regex: true,
      new_only: true,
      timeout_ms: 500,
    });
    assertEquals(stopped.outcome, "timeout");
  });
});

Deno.test("wait-for-text and wait-for-quiet report a pane whose program exits", async () => {
  await withShell("bash", async (fx) => {
    // Programs that end when we press Enter, once the waits are armed.
    const pane = await fx.newPane({ command: "sh -c 'read x'" });
    const text = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: pane,
      patterns: ["never"],
      timeout_ms: 30_000,
    });
    await text.armed;
    await fx.tmux("send-keys", "-t", pane, "Enter");
    assertEquals((await text.done).outcome, "pane_exited");
    const pane2 = await fx.newPane({ command: "sh -c 'while :; do echo tick; sleep 0.1; done & read x; kill $!'" });
    const quiet = startWait<QuietResult>(fx, "wait", {
      what: "quiet",
      target: pane2,
      quiet_ms: 5000,
      timeout_ms: 30_000,
    });
    await quiet.armed;
    await fx.tmux("send-keys", "-t", pane2, "Enter");
    const q = await quiet.done;
    assertEquals(q.outcome, "pane_exited");
  });
});

Deno.test("waits say pane_exited, not quiet or timeout, for a program that exited and left its pane (remain-on-exit)", async () => {
  await withShell("bash", async (fx) => {
    await fx.tmux("set-option", "-g", "remain-on-exit", "on");
    const pane = await fx.newPane({ command: "sh -c 'read x'" });
    const dying = startWait<QuietResult>(fx, "wait", {
      what: "quiet",
      target: pane,
      quiet_ms: 200,
      timeout_ms: 30_000,
    });
    await dying.armed;
    await fx.tmux("send-keys", "-t", pane, "Enter");
    assertEquals((await dying.done).outcome, "pane_exited");
    await waitUntil(
      "the pane to be dead",
      async () => (await fx.tmux("display-message", "-p", "-t", pane, "#{pane_dead}")).trim() === "1",
    );
    const dead = await fx.mcp.ok<QuietResult>("wait", {
      what: "quiet",
      target: pane,
      quiet_ms: 100,
      timeout_ms: 30_000,
    });
    assertEquals([dead.outcome, dead.warnings.map((w) => w.kind)], ["pane_exited", ["pane_dead"]]);
    // Looking now (timeout_ms 0) at a dead pane: its screen read has found it dead, which the answer says.
    const now = await fx.mcp.ok<TextResult>("wait", { what: "text", target: pane, patterns: ["never"], timeout_ms: 0 });
    assertEquals(now.outcome, "pane_exited");
  });
});

Deno.test("wait-for-text follows a pane whose window moves to another session, ending the one it was in", async () => {
  await withShell("bash", async (fx) => {
    await fx.tmux("new-session", "-d", "-s", "solo", "sh -c 'read x; echo moved-$x; sleep 60'");
    const pane = (await fx.tmux("display-message", "-p", "-t", "solo:", "#{pane_id}")).trim();
    const waiting = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: pane,
      patterns: ["moved-42"],
      new_only: true,
      timeout_ms: 60_000,
    });
    await waiting.armed;
    await fx.tmux("move-window", "-s", pane, "-t", "main:"); // solo had only this window: it ends
    await watchedIn(fx, "main"); // as in the run-command test of a moved pane
    await fx.tmux("send-keys", "-t", pane, "-l", "42");
    await fx.tmux("send-keys", "-t", pane, "Enter");
    const hit = await waiting.done;
    const main = (await fx.tmux("display-message", "-p", "-t", "main:", "#{session_id}")).trim();
    assertEquals([hit.outcome, hit.matched_line, hit.session_id], ["matched", "moved-42", main]);
  });
});

Deno.test("a first wait cut at its budget while tmux stalls names its continue token, and the wait goes on", async () => {
  await withShell("bash", async (fx) => {
    const armed = Promise.withResolvers<void>();
    const call = fx.mcp.client.callTool(
      {
        name: "wait",
        arguments: { what: "text", target: fx.pane, patterns: ["late-42"], new_only: true, timeout_ms: 120_000 },
      },
      undefined,
      { onprogress: () => armed.resolve(), timeout: 120_000 },
    );
    await armed.promise;
    // tmux stops answering before the budget ends: the running answer cannot read the screen, and the call is cut.
    const pid = Number(await tmuxFormat(fx, fx.pane, "#{pid}"));
    Deno.kill(pid, "SIGSTOP");
    let cut: string;
    try {
      const r = await call as CallToolResult;
      assert(r.isError, JSON.stringify(r.structuredContent));
      cut = textOf(r);
    } finally {
      Deno.kill(pid, "SIGCONT");
    }
    const token = /call wait with \{what: "text", continue: "(c[0-9a-f]{16})"\} to follow it$/.exec(cut);
    assert(token, cut);
    await fx.tmux("send-keys", "-t", fx.pane, "echo late-$((6*7))", "Enter");
    let r = await fx.mcp.ok<TextResult>("wait", { what: "text", continue: token[1] });
    while (r.outcome === "running") r = await fx.mcp.ok<TextResult>("wait", { what: "text", continue: r.continue });
    assertEquals([r.outcome, r.matched_line], ["matched", "late-42"]);
  }, { serverArgs: ["--call-budget-ms", "5000"] });
});

Deno.test("a running wait whose pane's window moved answers the session the pane is in now", async () => {
  await withShell("bash", async (fx) => {
    await fx.tmux("new-session", "-d", "-s", "solo", "sh -c 'sleep 600'");
    const pane = (await fx.tmux("display-message", "-p", "-t", "solo:", "#{pane_id}")).trim();
    const args = { what: "text", target: pane, patterns: ["never-printed"], timeout_ms: 120_000 };
    const first = await fx.mcp.ok<TextResult>("wait", args);
    assertEquals(first.outcome, "running");
    await fx.tmux("move-window", "-s", pane, "-t", "main:"); // solo had only this window: it ends
    const main = (await fx.tmux("display-message", "-p", "-t", "main:", "#{session_id}")).trim();
    const next = await fx.mcp.ok<TextResult>("wait", { what: "text", continue: first.continue });
    assertEquals([next.outcome, next.session_id], ["running", main]);
  }, { serverArgs: ["--call-budget-ms", "1000"] });
});

Deno.test("wait-for-text new_only sees a line printed right after the pane's window moved to another session", async () => {
  await withShell("bash", async (fx) => {
    await fx.tmux("new-session", "-d", "-s", "solo", "sh -c 'sleep 60'");
    const pane = (await fx.tmux("display-message", "-p", "-t", "solo:", "#{pane_id}")).trim();
    const tty = (await fx.tmux("display-message", "-p", "-t", pane, "#{pane_tty}")).trim();
    const waiting = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: pane,
      patterns: ["moved-42"],
      new_only: true,
      timeout_ms: 20_000,
    });
    await waiting.armed;
    await fx.tmux("move-window", "-s", pane, "-t", "main:");
    // Printed before the server follows the pane into main: no watch of it is live then.
    await Deno.writeTextFile(tty, "moved-42\r\n", { append: true });
    const hit = await waiting.done;
    assertEquals([hit.outcome, hit.matched_line], ["matched", "moved-42"]);
  });
});

Deno.test("wait-for-quiet returns once output stops, and times out on endless output", async () => {
  await withShell("bash", async (fx) => {
    // Output that runs until the test says stop: it is still printing when the wait is armed, however slow the
    // machine (a fixed burst could end before the wait is armed, or start only after a quiet period).
    const stop = `${await tempDir()}/stop`;
    await type(fx, `while [ ! -e ${stop} ]; do echo tick; sleep 0.1; done; echo step5`);
    await waitUntil("the loop to print", () => screenHas(fx, "tick"));
    const quiet = startWait<QuietResult>(fx, "wait", {
      what: "quiet",
      target: fx.pane,
      quiet_ms: 3000,
      timeout_ms: 60_000,
    });
    await quiet.armed;
    await Deno.writeTextFile(stop, "");
    const q = await quiet.done;
    assertEquals(q.outcome, "quiet");
    assert(q.output_bytes > 0);
    assertMatch(q.tail, /step5/);

    // Endless output (a line every 50 ms): a quiet period of 2 s never comes.
    const busy = await fx.newPane({ command: "sh -c 'while :; do echo tick; sleep 0.05; done'" });
    const t = await fx.mcp.ok<QuietResult>("wait", { what: "quiet", target: busy, quiet_ms: 2000, timeout_ms: 4000 });
    assertEquals(t.outcome, "timeout");
    assertMatch(t.tail, /tick/);
    // A quiet period longer than the wait could only time out (it did, after timeout_ms): refused at once.
    assertMatch(
      await fx.mcp.err("wait", { what: "quiet", target: fx.pane, quiet_ms: 5000, timeout_ms: 1000 }),
      /^quiet_ms \(5000\) is longer than timeout_ms \(1000\), so the wait could only time out: pass a timeout_ms/,
    );
    assertMatch(
      await fx.mcp.err("wait", { what: "quiet", target: fx.pane, quiet_ms: 1000, timeout_ms: 1000 }),
      /^quiet_ms \(1000\) is as long as timeout_ms \(1000\), so the wait could only time out/,
    );
  });
});

Deno.test("wait-for-quiet counts silence from when it watches the pane, not while tmux is slow to let it", async () => {
  await withShell("bash", async (fx) => {
    const printing = await fx.newPane({
      command: "sh -c 'for i in $(seq 1 200); do echo tick $i; sleep 0.02; done; echo DONE; sleep 600'",
    });
    await waitForPane(fx, printing, /tick \d+/);
    // tmux stalls 2 s on the wait's second capture-pane (its first read of the pane after its target's resolution):
    // longer than quiet_ms, while the pane prints every 20 ms.
    await fx.tmux(
      "set-hook",
      "-g",
      "after-capture-pane",
      `set-hook -g after-capture-pane 'set-hook -gu after-capture-pane ; run-shell "sleep 2"'`,
    );
    const r = await fx.mcp.ok<QuietResult>("wait", {
      what: "quiet",
      target: printing,
      quiet_ms: 1000,
      timeout_ms: 60_000,
    });
    assertEquals(r.outcome, "quiet");
    assert(r.output_bytes > 0, "quiet before the wait saw any of the pane's output");
  });
});

Deno.test("a second tool call is answered while a long wait is pending", async () => {
  await withShell("bash", async (fx) => {
    let waitDone = false;
    const long = startWait<TextResult>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["END-42"],
      timeout_ms: 60_000,
    });
    long.done.finally(() => waitDone = true);
    const runPane = await fx.newPane("bash");
    const slowRun = startWait<{ exit_code: number; output: string }>(fx, "run-command", {
      target: runPane,
      command: "read -r x; echo got-line",
      timeout_ms: 60_000,
    });
    slowRun.done.finally(() => waitDone = true);
    await Promise.all([long.armed, slowRun.armed]);
    for (let i = 0; i < 5; i++) {
      const r = await fx.mcp.ok<{ first_call: boolean }>("capture-since", { target: fx.pane });
      assert(r.first_call);
      assertEquals(await fx.mcp.ok("list-buffers"), { buffers: [] });
    }
    assert(!waitDone, "quick calls must be answered while the waits are still pending");
    await type(fx, "echo END-$((40+2))");
    assertEquals((await long.done).outcome, "matched");
    await fx.tmux("send-keys", "-t", runPane, "Enter"); // the command's read was waiting for it
    const run = await slowRun.done;
    assertEquals([run.exit_code, run.output.trim()], [0, "got-line"]); // the echoed Enter comes first
  });
});

Deno.test("wait-for-text: progress notifications and cancellation", async () => {
  await withShell("bash", async (fx) => {
    const { result, progress } = await callWithProgress<TextResult>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["never"],
      // One notification when armed, then one a second: a window of several ticks, so a loaded machine still
      // delivers at least two before the result.
      timeout_ms: 3500,
    });
    assertEquals(result.outcome, "timeout");
    assert(progress.length >= 2, `got ${progress.length} progress notifications`);
    assertMatch(progress[0].message ?? "", /never.*elapsed.*left/);

    const started = performance.now();
    await callAndCancel(fx, "wait", { what: "quiet", target: fx.pane, quiet_ms: 50_000, timeout_ms: 60_000 });
    await waitUntil(
      "the server to end the cancelled wait",
      () => Promise.resolve(/wait-for-quiet cancelled/.test(fx.mcp.stderr())),
    );
    assert(performance.now() - started < 30_000);
  });
});

Deno.test("waits in a batch send the batch's request progress, increasing across its calls", async () => {
  await withShell("bash", async (fx) => {
    const wait = { tool: "wait", arguments: { what: "text", target: fx.pane, patterns: ["never"], timeout_ms: 2500 } };
    const { result, progress } = await callWithProgress<{ completed: number }>(fx, "batch", { calls: [wait, wait] });
    assertEquals(result.completed, 2);
    // Each wait reports when armed, then every second: a client that restarts its timeout at each is kept waiting.
    assert(progress.length >= 4, `got ${progress.length} progress notifications`);
    for (let i = 1; i < progress.length; i++) {
      assert(progress[i].progress > progress[i - 1].progress, `progress went ${JSON.stringify(progress)}`);
    }
    assertMatch(progress[0].message ?? "", /never.*elapsed/);
  });
});
