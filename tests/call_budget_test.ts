/**
 * No call blocks longer than --call-budget-ms: a run-command or wait still
 * going at the budget answers `running` with a continue token, and the next
 * call picks up where the last one left. Also: run-command's long output is
 * reachable whole, and waits on pty sessions.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { callWithProgress, withShell } from "./exec_fixtures.ts";
import { connect, textOf } from "./helpers.ts";
import { tempDir, waitUntil } from "./pane_helpers.ts";
import type { McpFixture } from "./helpers.ts";

interface Run {
  exit_code: number | null;
  output: string;
  output_lines: number;
  output_truncated: boolean;
  full_output_buffer?: string;
  timed_out: boolean;
  continue?: string;
  elapsed_ms: number;
}

interface TextWait {
  outcome: string;
  matched_line: string | null;
  tail: string;
  continue?: string;
  pane_id?: string;
}

/** Follows a run through its continuations; returns every answer. */
async function follow(mcp: McpFixture, first: Record<string, unknown>): Promise<Run[]> {
  const answers = [await mcp.ok<Run>("run-command", first)];
  while (answers.at(-1)!.continue !== undefined) {
    answers.push(await mcp.ok<Run>("run-command", { continue: answers.at(-1)!.continue }));
  }
  return answers;
}

/** The lines of the answers' outputs, in order: output_lines tells a page of one blank line from an empty one. */
const linesOf = (answers: Run[]) =>
  answers.flatMap((a) => {
    const lines = a.output_lines === 0 ? [] : a.output.split("\n");
    assertEquals(lines.length, a.output_lines, `output_lines of ${JSON.stringify(a.output)}`);
    return lines;
  });

Deno.test("a build far longer than the call budget is followed to its end: every line once, the exit code right", async () => {
  const dir = await tempDir("tmcp-build-");
  // ~20 s of numbered lines, a blank line, a line printed in two halves across more than the budget, exit 3.
  await Deno.writeTextFile(
    `${dir}/build.sh`,
    `for i in $(seq 1 100); do echo "step $i of 100"; sleep 0.2; done\n` +
      `echo\nprintf 'half-'\nsleep 3\necho done\nexit 3\n`,
  );
  await withShell("bash", async (fx) => {
    const answers = await follow(fx.mcp, {
      target: fx.pane,
      command: `bash ${dir}/build.sh`,
      timeout_ms: 600_000,
    });
    const expected = [...Array.from({ length: 100 }, (_, i) => `step ${i + 1} of 100`), "", "half-done"];
    assertEquals(linesOf(answers), expected);
    const last = answers.at(-1)!;
    assertEquals([last.exit_code, last.timed_out, last.output_truncated], [3, false, false]);
    // The budget split the run: several running answers, each with a token and no exit code.
    assert(answers.length >= 4, `only ${answers.length} answers`);
    for (const a of answers.slice(0, -1)) assertEquals([a.exit_code, typeof a.continue], [null, "string"]);
    // The pane's shell is usable afterwards.
    assertEquals((await fx.mcp.ok<Run>("run-command", { target: fx.pane, command: "echo after" })).output, "after");
  }, { serverArgs: ["--call-budget-ms", "2000"] });
});

Deno.test("continue tokens: a bad, unknown or foreign one is a clear error; the text says how to go on", async () => {
  await withShell("bash", async (fx) => {
    assertMatch(await fx.mcp.err("run-command", { continue: "nonsense" }), /not a token this server returned/);
    assertMatch(
      await fx.mcp.err("run-command", { continue: "c0123456789abcdef" }),
      /is unknown: .*; look at the pane \(capture-pane\) before running the command again: it may have run, or still run$/,
    );
    assertMatch(
      await fx.mcp.err("wait", { what: "quiet", continue: "c0123456789abcdef" }),
      /is unknown: .*; start again$/,
    );
    assertMatch(await fx.mcp.err("run-command", {}), /give command/);
    const r = await fx.mcp.call("run-command", {
      target: fx.pane,
      command: "echo one; read -r x; echo two",
      timeout_ms: 600_000,
    });
    const running = r.structuredContent as unknown as Run;
    assertEquals([running.exit_code, running.output], [null, "one"]);
    assertMatch(textOf(r), /continue: \\"c[0-9a-f]{16}\\"/);
    assertMatch(
      await fx.mcp.err("wait", { what: "text", continue: running.continue }),
      /belongs to run-command: call run-command with it/,
    );
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    const rest = await follow(fx.mcp, { continue: running.continue });
    assertEquals([linesOf(rest), rest.at(-1)!.exit_code], [["", "two"], 0]); // "" : the Enter typed at the read
  }, { serverArgs: ["--call-budget-ms", "1500"] });
});

Deno.test("wait answers running at the budget, keeps watching between calls, and sends readable progress", async () => {
  await withShell("bash", async (fx) => {
    const { result: first, progress } = await callWithProgress<TextWait>(fx, "wait", {
      what: "text",
      target: fx.pane,
      patterns: ["LATE-7"],
      new_only: true,
      timeout_ms: 600_000,
    });
    assertEquals(first.outcome, "running");
    assert(typeof first.continue === "string");
    assert(progress.length > 0);
    assertMatch(progress[0].message ?? "", /^waiting for "LATE-7" in %\d+: \d+\.\d s elapsed/);
    // Printed while no call is waiting: the background wait sees it; new_only keeps the screen out of it.
    await fx.tmux("send-keys", "-t", fx.pane, "-l", "echo LATE-$((3+4))");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    await waitUntil(
      "LATE-7 printed",
      async () => (await fx.tmux("capture-pane", "-p", "-t", fx.pane)).includes("\nLATE-7"),
    );
    let r = first;
    while (r.outcome === "running") r = await fx.mcp.ok<TextWait>("wait", { what: "text", continue: r.continue });
    assertEquals([r.outcome, r.matched_line], ["matched", "LATE-7"]);
    assertMatch(await fx.mcp.err("wait", { what: "text", continue: first.continue }), /is unknown/);
  }, { serverArgs: ["--call-budget-ms", "1500"] });
});

Deno.test("works left running are capped: a new one past the cap is refused, then takes an uncollected result's place", async () => {
  await withShell("bash", async (fx) => {
    const wait = (pattern: string) => ({
      what: "text",
      target: fx.pane,
      patterns: [pattern],
      new_only: true,
      timeout_ms: 600_000,
    });
    // The first wait ends at PARK-9; the 31 others never do. Each answers running at the budget.
    const first = await fx.mcp.ok<TextWait>("wait", wait("PARK-9"));
    const rest = await Promise.all(Array.from({ length: 31 }, () => fx.mcp.ok<TextWait>("wait", wait("never"))));
    for (const r of [first, ...rest]) assertEquals(r.outcome, "running");
    const refused = await fx.mcp.err("wait", wait("never"));
    assertMatch(refused, /32 waits and runs left running by earlier calls still go on/);
    assertMatch(refused, new RegExp(`is ${first.continue}\\) or let one reach its timeout_ms, then retry$`));
    assert(!refused.includes("\n"), refused);

    await fx.tmux("send-keys", "-t", fx.pane, "-l", "echo PARK-$((4+5))");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    // Once the first wait has matched, its uncollected result makes room for a new wait.
    const next = await waitUntil("a new wait to be taken", async () => {
      const r = await fx.mcp.call("wait", wait("never"));
      return r.isError ? undefined : r.structuredContent as unknown as TextWait;
    }, 60_000);
    assertEquals(next.outcome, "running");
    assertMatch(await fx.mcp.err("wait", { what: "text", continue: first.continue }), /made room for newer ones/);
    assertEquals((await fx.mcp.ok<TextWait>("wait", { what: "text", continue: rest[0].continue })).outcome, "running");
  }, { serverArgs: ["--call-budget-ms", "100"] });
});

Deno.test("run-command: 2 MB of output says it was cut and every byte is in the buffer it names", async () => {
  const dir = await tempDir("tmcp-big-");
  const lines = Array.from({ length: 45_000 }, (_, i) => `row ${String(i + 1).padStart(6, "0")} ${"x".repeat(36)}`);
  const expected = lines.join("\n") + "\n";
  assert(expected.length > 2_000_000);
  await Deno.writeTextFile(`${dir}/big.txt`, expected);
  await withShell("bash", async (fx) => {
    const r = await fx.mcp.call("run-command", { target: fx.pane, command: `cat ${dir}/big.txt`, timeout_ms: 600_000 });
    assert(!r.isError && r.structuredContent, textOf(r));
    const run = r.structuredContent as unknown as Run;
    assertEquals([run.exit_code, run.output_truncated], [0, true]);
    assertEquals(run.output.split("\n").length, 400);
    assertEquals(run.output.split("\n").at(-1), lines.at(-1));
    assert(run.full_output_buffer, "no full_output_buffer");
    assertMatch(textOf(r), /whole output is in buffer mcp-result-/);
    let got = "";
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { text: string; next_offset_bytes: number | null } = await fx.mcp.ok("show-buffer", {
        name: run.full_output_buffer,
        offset_bytes: offset,
        max_bytes: 1024 * 1024,
      });
      got += page.text;
      offset = page.next_offset_bytes;
    }
    assertEquals(got.length, expected.length);
    assert(got === expected, "the buffer differs from the output");
  }, { serverArgs: ["--call-budget-ms", "600000"] });
});

Deno.test("run-command: a line over 1 MiB is cut in its full output buffer, and the note says so", async () => {
  const dir = await tempDir("tmcp-long-line-");
  const long = "y".repeat(1536 * 1024);
  await Deno.writeTextFile(
    `${dir}/long.txt`,
    `${long}\n${Array.from({ length: 20 }, (_, i) => `after ${i}`).join("\n")}\n`,
  );
  await withShell("bash", async (fx) => {
    const r = await fx.mcp.call("run-command", {
      target: fx.pane,
      command: `cat ${dir}/long.txt`,
      timeout_ms: 120_000,
      max_lines: 5,
    });
    assert(!r.isError && r.structuredContent, textOf(r));
    const run = r.structuredContent as unknown as Run;
    assertEquals([run.exit_code, run.output_truncated, run.output.split("\n").at(-1)], [0, true, "after 19"]);
    assertMatch(textOf(r), /the kept output is in buffer mcp-result-\S+ \(1 line\(s\) cut to their first 1 MiB\)/);
    // The line's first 1 MiB, then the next line.
    const at: { text: string } = await fx.mcp.ok("show-buffer", {
      name: run.full_output_buffer,
      offset_bytes: 1024 * 1024 - 4,
      max_bytes: 16,
    });
    assertMatch(at.text, /^yyyy\nafter 0/);
  }, { serverArgs: ["--call-budget-ms", "120000"] });
});

Deno.test("wait for quiet on a pty session: quiet once its screen stops changing, not while it prints", async () => {
  const mcp = await connect({ args: ["--toolsets", "pty,exec"] });
  const dir = await tempDir();
  try {
    const stop = `${dir}/stop`;
    const id = (await mcp.ok<{ pty_id: string }>("pty-launch", {
      command:
        `sh -c 'i=0; while [ ! -e ${stop} ]; do i=$((i+1)); echo tick-$i; sleep 0.05; done; echo stopped; sleep 60'`,
    })).pty_id;
    // Started while it prints; the file that stops it is made once the wait has seen it print for a while.
    const wait = mcp.ok<{ outcome: string; tail: string; output_bytes?: number; pane_id?: string }>("wait", {
      what: "quiet",
      pty_id: id,
      quiet_ms: 3000,
      timeout_ms: 120_000,
    });
    await waitUntil("the pty printed 20 ticks", async () => {
      const s = await mcp.ok<{ screen: string }>("pty-get-screen", { pty_id: id });
      return s.screen.split("\n").some((l) => /^tick-(\d+)$/.test(l) && Number(l.slice(5)) > 20);
    }, 60_000);
    await Deno.writeTextFile(stop, "");
    const r = await wait;
    assertEquals([r.outcome, r.output_bytes, r.pane_id], ["quiet", undefined, undefined]);
    assertMatch(r.tail, /stopped$/);
    // Already quiet: answered after quiet_ms.
    const again = await mcp.ok<{ outcome: string; elapsed_ms: number }>("wait", {
      what: "quiet",
      pty_id: id,
      quiet_ms: 200,
      timeout_ms: 60_000,
    });
    assertEquals(again.outcome, "quiet");
    assert(again.elapsed_ms >= 200, `${again.elapsed_ms}`);
    assertMatch(
      await mcp.err("wait", { what: "quiet", pty_id: id, target: "%0" }),
      /pass target \(a pane\) or pty_id \(a pty session\), not both/,
    );
    assertMatch(await mcp.err("wait", { what: "quiet", pty_id: "nope" }), /no pty session "nope"/);
    await mcp.ok("pty-kill-session", { pty_id: id });
  } finally {
    await mcp.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("wait on a pty session: a line printed at launch is found, a later one too", async () => {
  const mcp = await connect({ args: ["--toolsets", "pty,exec"] });
  try {
    const id = (await mcp.ok<{ pty_id: string }>("pty-launch", {
      command: "sh -c 'echo pty-ready-$((6*7)); read x; echo got-$x; sleep 30'",
    })).pty_id;
    const ready = await mcp.ok<TextWait>("wait", { what: "text", pty_id: id, patterns: ["pty-ready-42"] });
    assertEquals([ready.outcome, ready.matched_line, ready.pane_id], ["matched", "pty-ready-42", undefined]);
    const old = await mcp.ok<TextWait>("wait", {
      what: "text",
      pty_id: id,
      patterns: ["pty-ready-42"],
      new_only: true,
      timeout_ms: 300,
    });
    assertEquals([old.outcome, (old as { visible_in_tail?: true }).visible_in_tail], ["timeout", true]);
    await mcp.ok("pty-send-keys", { pty_id: id, keys: "abc\n" });
    const got = await mcp.ok<TextWait>("wait", {
      what: "text",
      pty_id: id,
      patterns: ["got-abc"],
      timeout_ms: 60_000,
    });
    assertEquals([got.outcome, got.matched_line], ["matched", "got-abc"]);
    assertMatch(await mcp.err("wait", { what: "text", pty_id: "nope", patterns: ["x"] }), /no pty session "nope"/);
    await mcp.ok("pty-kill-session", { pty_id: id });
  } finally {
    await mcp.close();
  }
});

Deno.test("run-command waiting for a busy pane still sends progress (a heartbeat), then runs", async () => {
  await withShell("bash", async (fx) => {
    // The first command holds the pane until Enter; its call returns running at the budget.
    const first = await fx.mcp.ok<Run>("run-command", {
      target: fx.pane,
      command: "read -r x; echo first-done",
      timeout_ms: 600_000,
    });
    assert(first.continue);
    const beats: string[] = [];
    const second = fx.mcp.client.callTool(
      { name: "run-command", arguments: { target: fx.pane, command: "echo second", timeout_ms: 600_000 } },
      undefined,
      { onprogress: (p) => void beats.push(p.message ?? ""), timeout: 120_000 },
    );
    // Two heartbeats while the second waits for the pane: it is not silent there.
    await waitUntil(
      "two heartbeats",
      () => Promise.resolve(beats.filter((m) => /still working/.test(m)).length >= 2),
      60_000,
    );
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    const r = (await second).structuredContent as unknown as Run;
    // Its budget may end while it waits: follow it.
    const answers = r.continue ? [r, ...(await follow(fx.mcp, { continue: r.continue })).slice(0)] : [r];
    assertEquals([linesOf(answers), answers.at(-1)!.exit_code], [["second"], 0]);
    const rest = await follow(fx.mcp, { continue: first.continue });
    assertEquals(linesOf(rest), ["", "first-done"]);
  }, { serverArgs: ["--call-budget-ms", "20000"] });
});

Deno.test("batch: its calls share one call budget; a call after the budget is spent is not run, and says so", async () => {
  await withShell("bash", async (fx) => {
    const t0 = performance.now();
    const r = await fx.mcp.ok<{
      results: { tool: string; ok: boolean; result?: { outcome?: string }; error?: string }[];
      completed: number;
      stopped_at?: number;
    }>("batch", {
      calls: [
        { tool: "wait", arguments: { what: "text", target: fx.pane, patterns: ["NEVER-PRINTED"], new_only: true } },
        { tool: "list", arguments: { what: "sessions" } },
      ],
    });
    // The wait answers running at the budget (counted from the batch's start); the list then has none left.
    assertEquals(r.results[0].result?.outcome, "running");
    assertEquals([r.completed, r.stopped_at, r.results[1].ok], [1, 1, false]);
    assertMatch(r.results[1].error!, /^not run: the batch used its call budget \(--call-budget-ms 1500\)/);
    assert(performance.now() - t0 < 1500 + 15_000, `the batch took ${Math.round(performance.now() - t0)} ms`);
  }, { serverArgs: ["--call-budget-ms", "1500"] });
});

Deno.test("continue with other arguments is refused, naming them: the continuation would ignore them", async () => {
  await withShell("bash", async (fx) => {
    const w = await fx.mcp.ok<TextWait>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["FIRST-PATTERN"],
      new_only: true,
      timeout_ms: 600_000,
    });
    assertEquals(w.outcome, "running");
    // A model that changed its pattern would believe it waits for the new one.
    assertMatch(
      await fx.mcp.err("wait", { what: "text", continue: w.continue, patterns: ["OTHER"], timeout_ms: 5000 }),
      /^invalid arguments for wait: continue resumes the call .* so patterns, timeout_ms would be ignored: call with only continue \(and what\)/,
    );
    const r = await fx.mcp.call("run-command", { target: fx.pane, command: "sleep 600", timeout_ms: 600_000 });
    const run = r.structuredContent as unknown as Run;
    assertMatch(
      await fx.mcp.err("run-command", { continue: run.continue, command: "rm -rf /tmp/x" }),
      /so command would be ignored: call with only continue, or make a new call/,
    );
    // The refused calls left both works as they were: each continues.
    assertEquals((await fx.mcp.ok<TextWait>("wait", { what: "text", continue: w.continue })).outcome, "running");
    assertEquals((await fx.mcp.ok<Run>("run-command", { continue: run.continue })).exit_code, null);
    await fx.tmux("send-keys", "-t", fx.pane, "C-c");
  }, { serverArgs: ["--call-budget-ms", "1500"] });
});
