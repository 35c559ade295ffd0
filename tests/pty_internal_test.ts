// The shared pty-* suite on the internal PTY backend (Deno FFI + @xterm/headless).
import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { libc } from "../lib/terminal/pty/ffi.ts";
import { textOf } from "./helpers.ts";
import { cursorSnapshotTest, exitCleanupTest, pty, ptySuite, ptyWaitTest, until, withPty } from "./pty_suite.ts";

ptySuite("pty");
exitCleanupTest("pty");
cursorSnapshotTest("pty");
ptyWaitTest("pty");

Deno.test("96 idle sessions leave the server's file operations alone", async () => {
  // Deno runs a blocking FFI call (a poll() that waits) on its pool of 32 threads, which every file operation
  // shares: one waiting poll() per session held them all, so each file open queued for seconds.
  await withPty("pty", async (mcp) => {
    const p = pty(mcp);
    const ids: string[] = [];
    for (let i = 0; i < 96; i += 16) {
      ids.push(...await Promise.all(Array.from({ length: 16 }, () => p.launch({ command: "exec sleep 60", rows: 5 }))));
    }
    const dir = await Deno.makeTempDir({ prefix: "pty-many-" });
    try {
      const started = Date.now();
      await mcp.ok("pty-capture", { pty_id: ids[0], output_file: `${dir}/out` });
      const ms = Date.now() - started;
      assert(ms < 1500, `pty-capture's file open took ${ms} ms with 96 sessions`);
    } finally {
      await Promise.all(ids.map((id) => p.kill(id)));
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("a server keeps at most 256 pty sessions, and says how to make room", async () => {
  // Each holds one of the machine's terminals (4096 for all its users by default): a runaway loop took them all.
  await withPty("pty", async (mcp) => {
    const p = pty(mcp);
    const ids: string[] = [];
    for (let i = 0; i < 256; i += 32) {
      ids.push(...await Promise.all(Array.from({ length: 32 }, () => p.launch({ command: "exec sleep 60", rows: 2 }))));
    }
    try {
      assertMatch(
        await mcp.err("pty-launch", { command: "true" }),
        /^this server has 256 pty sessions, the most it keeps: end those you are done with by pty-kill-session/,
      );
      await p.kill(ids.pop()!);
      ids.push(await p.launch({ command: "exec sleep 60", rows: 2 }));
    } finally {
      for (let i = 0; i < ids.length; i += 32) await Promise.all(ids.slice(i, i + 32).map((id) => p.kill(id)));
    }
  });
});

Deno.test({
  name: "the descriptors a child must not keep are listed as /proc shows them (glibc before 2.34)",
  ignore: Deno.build.os !== "linux",
  fn: () => {
    // Both listings open the directory on the lowest free descriptor, so they list the same numbers.
    const listed = libc().openDescriptors();
    const proc = [...Deno.readDirSync("/proc/self/fd")].map((e) => Number(e.name));
    assertEquals(listed?.sort((a, b) => a - b), proc.sort((a, b) => a - b));
  },
});

Deno.test("a session flooding output that is slow to parse can be killed, and the list answers", async () => {
  // Each ESC # 8 fills the whole 500x1000 screen: parsing what the program writes takes minutes. The list waited
  // for every session's output to be parsed and the kill for the parser, both past their call budget.
  await withPty("pty", async (mcp) => {
    const p = pty(mcp);
    const flood = await p.launch({ command: "yes \"$(printf '\\033#8')\" | tr -d '\\n'", rows: 500, cols: 1000 });
    const idle = await p.launch({ command: "echo ready; exec sleep 60" });
    await p.waitScreen(idle, "the other session", (s) => s.startsWith("ready"));
    const listed = await p.list();
    assertEquals(listed.map((s) => [s.pty_id, s.status]), [[flood, "running"], [idle, "running"]]);
    await p.kill(flood);
    assertEquals((await p.list()).map((s) => s.pty_id), [idle]);
    await p.kill(idle);
  });
});

Deno.test("a pty call cut at its budget by a session's flood says so, not that tmux is stuck", async () => {
  // The internal backend runs no tmux: the error blamed it (and pointed at list {what: "hosts"}).
  await withPty("pty", async (mcp) => {
    const p = pty(mcp);
    const flood = await p.launch({ command: "yes \"$(printf '\\033#8')\" | tr -d '\\n'", rows: 500, cols: 1000 });
    // Once output is queued (not before the program wrote any), a screen waits for its parse.
    const cut = await until("a screen cut at the budget", () => mcp.call("pty-get-screen", { pty_id: flood }), (r) => {
      return r.isError === true;
    }, 120_000);
    const message = textOf(cut);
    assertMatch(message, /^pty-get-screen did not finish within the call budget .*pty-kill-session ends it\)$/);
    assert(!message.includes("tmux"), message);
    await p.kill(flood);
  }, ["--call-budget-ms", "10000"]);
});
