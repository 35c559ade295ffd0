/**
 * The shared pty-* suite on the tmux backend, plus what only tmux can do: a
 * human attaching for request-input, and sessions kept across server runs.
 */
import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import type { CallToolResult } from "../lib/sdk.ts";
import { connect, type McpFixture, removeSocket, textOf, type TmuxFixture, uniqueSocketName } from "./helpers.ts";
import { BASH, cursorSnapshotTest, exitCleanupTest, pty, ptySuite, ptyWaitTest, until, withPty } from "./pty_suite.ts";

ptySuite("tmux");
exitCleanupTest("tmux");
cursorSnapshotTest("tmux");
ptyWaitTest("tmux");

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** Calls request-input, collecting its progress notifications. */
function requestInput(mcp: McpFixture, args: Record<string, unknown>, progress: Progress[]) {
  return mcp.client.callTool({ name: "request-input", arguments: args }, undefined, {
    timeout: 60_000,
    onprogress: (p: Progress) => void progress.push(p),
  }) as Promise<CallToolResult>;
}

async function tmuxSessionOf(tmux: TmuxFixture, id: string): Promise<string> {
  const names = (await tmux.tmux("list-sessions", "-F", "#{session_name}")).split("\n");
  const name = names.find((n) => n.endsWith(`-${id}`));
  assert(name, `no tmux session for ${id} in ${names.join(", ")}`);
  return name;
}

Deno.test("request_input ends once the program has read the password, which the model never sees", async () => {
  await withPty("tmux", async (mcp, tmux) => {
    const p = pty(mcp);
    const id = await p.launch({ command: BASH });
    await p.idle(id);
    await p.send(id, "read -r -s -p 'Password: ' pw; echo; echo got-${#pw}\n");
    await p.waitScreen(id, "the password prompt", (s) => s.includes("Password:"));
    const progress: Progress[] = [];
    const call = requestInput(mcp, { pty_id: id, prompt: "Enter the test password", timeout_ms: 30_000 }, progress);
    // The human types into the session (as through an attached client).
    await until("the first progress notification", () => Promise.resolve(progress.length), (n) => n > 0);
    const name = await tmuxSessionOf(tmux, id);
    await tmux.tmux("send-keys", "-t", `=${name}:`, "-l", "hunter2-secret");
    await tmux.tmux("send-keys", "-t", `=${name}:`, "Enter");
    const result = await call;
    const structured = result.structuredContent as Record<string, unknown>;
    assertEquals(structured.outcome, "input_received");
    assert(!JSON.stringify(result).includes("hunter2"), "the result must not contain what the human typed");
    assertMatch(progress[0].message!, /^Enter the test password — run `tmux -S \S+ attach-session -t '=mcp-pty-/);
    assertEquals(progress[0].total, 30);
    const screen = await p.waitScreen(id, "the program to go on", (s) => s.includes("got-14"));
    assert(!screen.includes("hunter2"), "the secret is not echoed");
  });
});

Deno.test("request_input ends when the human attaches with the given command and detaches", async () => {
  await withPty("tmux", async (mcp, tmux) => {
    const p = pty(mcp);
    const id = await p.launch({ command: "cat" });
    const progress: Progress[] = [];
    const call = requestInput(mcp, { pty_id: id, prompt: "Have a look", timeout_ms: 30_000 }, progress);
    await until("the first progress notification", () => Promise.resolve(progress.length), (n) => n > 0);
    const attach = /`([^`]+)`/.exec(progress[0].message!)![1];
    // The human runs the command from the progress message in a terminal: a window of the test's tmux.
    await tmux.tmux(
      "new-session",
      "-d",
      "-s",
      "human",
      "-x",
      "100",
      "-y",
      "30",
      "--",
      "env",
      "-u",
      "TMUX",
      "sh",
      "-c",
      attach,
    );
    const name = await tmuxSessionOf(tmux, id);
    await until(
      "the human to attach",
      () => tmux.tmux("display-message", "-p", "-t", `=${name}:`, "#{session_attached}"),
      (n) => n.trim() === "1",
    );
    await until(
      "a progress message saying so",
      () => Promise.resolve(progress),
      (ps) => ps.some((x) => x.message?.startsWith("the human is attached")),
    );
    await tmux.tmux("detach-client", "-s", `=${name}`);
    const result = await call;
    assertEquals((result.structuredContent as Record<string, unknown>).outcome, "detached", textOf(result));
  });
});

Deno.test("request_input does not take a control-mode client (like this server's own) for a human", async () => {
  await withPty("tmux", async (mcp, tmux) => {
    const id = await pty(mcp).launch({ command: "cat" });
    const name = await tmuxSessionOf(tmux, id);
    const control = new Deno.Command("tmux", {
      args: ["-L", tmux.socketName, "-C", "attach-session", "-t", `=${name}`, "-f", "read-only,no-output"],
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await until(
      "the control client to attach",
      () => tmux.tmux("display-message", "-p", "-t", `=${name}:`, "#{session_attached}"),
      (n) => n.trim() === "1",
    );
    const progress: Progress[] = [];
    const call = requestInput(mcp, { pty_id: id, prompt: "p", timeout_ms: 2000 }, progress);
    await until("the wait to be armed", () => Promise.resolve(progress.length), (n) => n > 0);
    await control.stdin.close(); // it leaves: a human who had attached would now have detached
    await control.status;
    const result = await call;
    assertEquals((result.structuredContent as Record<string, unknown>).outcome, "timeout", textOf(result));
    assert(!progress.some((x) => x.message?.startsWith("the human is attached")));
  });
});

Deno.test("request_input ends when the program exits, and refuses waits over --max-wait-ms", async () => {
  await withPty("tmux", async (mcp) => {
    const p = pty(mcp);
    const id = await p.launch({ command: "read -r x" });
    const progress: Progress[] = [];
    const call = requestInput(mcp, { pty_id: id, prompt: "p", timeout_ms: 2500 }, progress);
    await until("the wait to be armed", () => Promise.resolve(progress.length), (n) => n > 0);
    await p.send(id, "\n");
    assertEquals(((await call).structuredContent as Record<string, unknown>).outcome, "exited");
    assertMatch(
      await mcp.err("request-input", { pty_id: id, prompt: "p", timeout_ms: 5000 }),
      /timeout_ms 5000 is above this server's limit of 3000 ms \(--max-wait-ms\): pass at most 3000/,
    );
  }, ["--max-wait-ms", "3000"]);
});

Deno.test("with --keep-sessions a later server run takes the sessions over; without it they end", async () => {
  await withPty("tmux", async (_mcp, tmux) => {
    const first = await connect({
      socketName: tmux.socketName,
      args: ["--terminal-backend", "tmux", "--keep-sessions"],
    });
    const p1 = pty(first);
    await p1.launch({ command: "echo kept; exec cat", pty_id: "keep1" });
    await p1.waitScreen("keep1", "the output", (s) => s.startsWith("kept"));
    // The command is kept with the session, also one as long as pty-launch takes (over tmux's limit per call twice).
    const long = "exec cat #" + "x".repeat(8182);
    await p1.launch({ command: long, pty_id: "keep2" });
    await first.close();
    assertMatch(await tmux.tmux("list-sessions", "-F", "#{session_name}"), /^mcp-pty-\d+-keep1$/m);

    const second = await connect({ socketName: tmux.socketName, args: ["--terminal-backend", "tmux"] });
    const p2 = pty(second);
    const listed = await p2.list();
    assertEquals(listed.map((s) => [s.pty_id, s.command, s.status]), [
      ["keep1", "echo kept; exec cat", "running"],
      ["keep2", long, "running"],
    ]);
    assert((await p2.screen("keep1")).screen.startsWith("kept"));
    await p2.send("keep1", "again\n");
    await p2.waitScreen("keep1", "the echo", (s) => s.includes("again\nagain"));
    await second.close();
    assert(!(await tmux.tmux("list-sessions", "-F", "#{session_name}")).includes("mcp-pty-"));
  });
});

Deno.test("a command too long for one tmux call is refused with what to do, and leaves no session", async () => {
  await withPty("tmux", async (mcp, tmux) => {
    assertMatch(
      await mcp.err("pty-launch", { command: "echo " + "中".repeat(5000) }),
      /^command and working_dir are \d+ bytes in UTF-8, over the \d+ the tmux backend [^\n]*script file[^\n]*$/,
    );
    assertEquals(await pty(mcp).list(), []);
    assert(!(await tmux.tmux("list-sessions", "-F", "#{session_name}").catch(() => "")).includes("mcp-pty-"));
  });
});

Deno.test("an adopted kept session gets allow-passthrough off again, whatever it had", async () => {
  await withPty("tmux", async (_mcp, tmux) => {
    const first = await connect({
      socketName: tmux.socketName,
      args: ["--terminal-backend", "tmux", "--keep-sessions"],
    });
    const p1 = pty(first);
    await p1.launch({ command: "exec cat", pty_id: "kept" });
    const name = await tmuxSessionOf(tmux, "kept");
    await first.close();
    // Kept by a server that did not turn it off (an older version), or turned on since by the user's own hands.
    await tmux.tmux("set-option", "-p", "-t", `=${name}:`, "allow-passthrough", "on");
    const second = await connect({ socketName: tmux.socketName, args: ["--terminal-backend", "tmux"] });
    try {
      assertEquals((await pty(second).list()).map((s) => s.pty_id), ["kept"]);
      const pane = `=${await tmuxSessionOf(tmux, "kept")}:`;
      assertEquals((await tmux.tmux("show-options", "-p", "-v", "-t", pane, "allow-passthrough")).trim(), "off");
    } finally {
      await second.close();
    }
  });
});

Deno.test("a program's passthrough escapes never reach an attached human's terminal, whatever allow-passthrough says", async () => {
  await withPty("tmux", async (mcp, tmux) => {
    // As a user's tmux.conf may say (image previewers want it): then tmux hands `ESC P tmux; ... ESC \` through.
    await tmux.tmux("set-option", "-g", "allow-passthrough", "on");
    const p = pty(mcp);
    const id = await p.launch({ command: "cat" });
    const name = await tmuxSessionOf(tmux, id);
    const dir = await Deno.makeTempDir({ prefix: "pty-passthrough-" });
    try {
      // The human's terminal: script(1) records every byte their tmux client writes to it.
      const typescript = `${dir}/typescript`;
      const attach = `tmux -L ${tmux.socketName} attach-session -t '=${name}'`;
      await tmux.tmux(
        ...["new-session", "-d", "-s", "human", "-x", "100", "-y", "30", "--"],
        ...["env", "-u", "TMUX", "script", "-q", "-f", "-c", attach, typescript],
      );
      await until(
        "the human to attach",
        () => tmux.tmux("display-message", "-p", "-t", `=${name}:`, "#{session_attached}"),
        (n) => n.trim() === "1",
      );
      // cat prints the line it reads: OSC 52 (set the clipboard) and a title report request (whose answer a
      // terminal types into the session) wrapped for passthrough, then a mark; the echo of the typed line shows
      // ESC as ^[.
      await p.send(id, "\x1bPtmux;\x1b\x1b]52;c;SEVMTE8=\x07\x1b\x1b[21t\x1b\\PASSMARK\n");
      await p.waitScreen(id, "cat's copy of the line", (s) => /PASSMARK\n(.*\n)*PASSMARK/.test(s));
      // Passthrough is written to the client before the rows after it are drawn.
      const seen = await until(
        "the human's terminal to show both lines",
        () => Deno.readTextFile(typescript),
        (t) => t.split("PASSMARK").length >= 3,
      );
      assert(!seen.includes("\x1b]52;"), "OSC 52 reached the human's terminal");
      assert(!seen.includes("\x1b[21t"), "a title report request reached the human's terminal");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

/** An older tmux to check against (the oldest supported is 3.2; tmux 3.3a is what the suite runs on). */
const OLD_TMUX = Deno.env.get("TMUX_MCP_TEST_OLD_TMUX");

Deno.test({
  name: "pty sessions start on an older tmux (TMUX_MCP_TEST_OLD_TMUX), at the size asked for",
  ignore: OLD_TMUX === undefined,
  fn: async () => {
    // tmux 3.2 has no remain-on-exit-format: every pty-launch failed with "invalid option", and its new windows
    // took default-size (80x24) whatever the rows and cols asked for.
    const socketName = uniqueSocketName("old");
    const old = (...args: string[]) =>
      new Deno.Command(OLD_TMUX!, { args: ["-L", socketName, ...args], stderr: "null" });
    // A server already running, as a user's is.
    await old("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40").output();
    const mcp = await connect({ socketName, args: ["--terminal-backend", "tmux", "--tmux-bin", OLD_TMUX!] });
    try {
      const p = pty(mcp);
      const id = await p.launch({ command: "echo ready; exec sleep 60", rows: 5, cols: 30 });
      await p.waitScreen(id, "the program", (s) => s.startsWith("ready"));
      const listed = (await p.list()).find((s) => s.pty_id === id)!;
      assertEquals([listed.rows, listed.cols, listed.status], [5, 30, "running"]);
      await p.kill(id);
    } finally {
      await mcp.close();
      await old("kill-server").output();
      removeSocket(socketName);
    }
  },
});

Deno.test("a session whose tmux session was killed outside the server is gone for every pty tool", async () => {
  // display-message answers for a pane it cannot find, every field empty: pty-capture failed with an internal
  // error, and pty-kill-session took the gone program for a running one and hung up whatever had its pid since.
  await withPty("tmux", async (mcp, tmux) => {
    const p = pty(mcp);
    const dir = await Deno.makeTempDir({ prefix: "pty-gone-" });
    try {
      const calls: [string, (id: string) => Record<string, unknown>][] = [
        ["pty-capture", (id) => ({ pty_id: id, output_file: `${dir}/raw`, format: "raw" })],
        ["pty-capture", (id) => ({ pty_id: id, output_file: `${dir}/a.cast`, format: "asciicast" })],
        ["pty-kill-session", (id) => ({ pty_id: id })],
      ];
      for (const [name, args] of calls) {
        const id = await p.launch({ command: "exec sleep 60" });
        await tmux.tmux("kill-session", "-t", `=${await tmuxSessionOf(tmux, id)}`);
        assertMatch(await mcp.err(name, args(id)), new RegExp(`^no pty session "${id}": call pty-list-sessions`));
        assertEquals((await p.list()).map((s) => s.pty_id), []);
      }
      assertEquals([...Deno.readDirSync(dir)], []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
