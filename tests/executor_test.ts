import { assert, assertEquals, assertRejects } from "./assert.ts";
import { COMMAND_SEPARATOR, createSpawnExecutor, escapeArg, TmuxError } from "../lib/tmux/executor.ts";
import { fakeTmux as script, startTmux } from "./helpers.ts";

Deno.test("escapeArg protects a trailing ';' from tmux's command splitting", () => {
  assertEquals(escapeArg("a;"), "a\\;");
  assertEquals(escapeArg(";"), "\\;");
  assertEquals(escapeArg("a;b"), "a;b");
  assertEquals(escapeArg("plain"), "plain");
});

Deno.test("an argument ending in ';' cannot inject a second tmux command", async () => {
  const tmux = await startTmux();
  try {
    const exec = createSpawnExecutor({ bin: "tmux", socketName: tmux.socketName, maxConcurrency: 2 });
    await exec.run(["load-buffer", "-b", "x;", "-"], { stdin: new TextEncoder().encode("data") });
    // Would be `set-buffer -b y` then `kill-server` if the ';' were not escaped.
    await exec.run(["set-buffer", "-b", "y;", "kill-server"]);
    assertEquals(await exec.text(["show-buffer", "-b", "y;"]), "kill-server");
    assertEquals(await exec.text(["show-buffer", "-b", "x;"]), "data");
    // The explicit separator still chains commands.
    await exec.run(["set-buffer", "-b", "a", "1", COMMAND_SEPARATOR, "set-buffer", "-b", "b", "2"]);
    assertEquals(await tmux.tmux("show-buffer", "-b", "b"), "2");
  } finally {
    await tmux.kill();
  }
});

Deno.test("a hung tmux is killed at the timeout and its slot is released", async () => {
  const fake = await script("sleep 30");
  try {
    const exec = createSpawnExecutor({ bin: fake.path, maxConcurrency: 1, timeoutMs: 150 });
    const started = Date.now();
    let err: unknown;
    try {
      await exec.run(["list-buffers"]);
    } catch (e) {
      err = e;
    }
    assert(err instanceof TmuxError && err.kind === "timeout", String(err));
    assert(Date.now() - started < 5000, "killed promptly");
    // The single slot is free again: a second call also reaches its own timeout instead of waiting forever.
    await assertRejects(() => exec.run(["list-buffers"], { timeoutMs: 100 }));
  } finally {
    await Deno.remove(fake.dir, { recursive: true });
  }
});

Deno.test("an aborted call kills tmux and reports cancellation", async () => {
  const fake = await script("sleep 30");
  try {
    const exec = createSpawnExecutor({ bin: fake.path, maxConcurrency: 1 });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    let err: unknown;
    try {
      await exec.run(["list-buffers"], { signal: ctl.signal });
    } catch (e) {
      err = e;
    }
    assert(err instanceof TmuxError && err.kind === "aborted", String(err));
  } finally {
    await Deno.remove(fake.dir, { recursive: true });
  }
});

Deno.test("tmux's stderr becomes one concise error line", async () => {
  const fake = await script('echo "first problem" >&2; echo "usage: lots of text" >&2; exit 1');
  try {
    const exec = createSpawnExecutor({ bin: fake.path, maxConcurrency: 1 });
    let err: unknown;
    try {
      await exec.run(["anything"]);
    } catch (e) {
      err = e;
    }
    assert(err instanceof TmuxError && err.kind === "failed");
    assertEquals((err as TmuxError).message, "first problem");
  } finally {
    await Deno.remove(fake.dir, { recursive: true });
  }
});
