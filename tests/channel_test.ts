/**
 * The control-mode command channel and the buffer read route built on it
 * (the tmux server writes the buffer into our private directory), against
 * real tmux servers on private sockets.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { startTmux, uniqueSocketName, withServer } from "./helpers.ts";
import { ChannelUnavailable, type CommandChannel, createCommandChannel, quoteCommandArg } from "../lib/tmux/channel.ts";
import { createServerFileReader } from "../lib/buffers/server_file.ts";
import { createBufferStore } from "../lib/buffers/store.ts";
import { createSpawnExecutor, TmuxError } from "../lib/tmux/executor.ts";
import { UserError } from "../lib/errors.ts";

const enc = new TextEncoder();

const HOSTILE = [
  "a'b",
  "x;",
  "#{pane_id}",
  "#(touch /tmp/tmcp-channel-pwned)",
  "$HOME",
  "~",
  "{ a }",
  "a b\tc",
  "back\\slash",
  '"dq"',
  "-x",
  "é中🙂",
  "'",
  "''",
];

async function clients(socketName: string): Promise<string[]> {
  const out = await new Deno.Command("tmux", {
    args: ["-L", socketName, "list-clients", "-F", "#{client_control_mode}:#{client_session}"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter(Boolean);
}

async function withChannel(
  fn: (channel: CommandChannel, socketName: string, tmux: (...a: string[]) => Promise<string>) => Promise<void>,
  idleMs?: number,
) {
  const fx = await startTmux("chan");
  const channel = createCommandChannel({ bin: "tmux", socketArgs: ["-L", fx.socketName], idleMs });
  try {
    await fn(channel, fx.socketName, fx.tmux);
  } finally {
    await channel.close();
    await fx.kill();
  }
}

Deno.test("quoted command words carry quotes, ;, #, $, ~, braces and spaces; line breaks are refused", () => {
  assertEquals(quoteCommandArg("a'b"), `'a'"'"'b'`);
  assertEquals(quoteCommandArg("x;"), "'x;'");
  assertEquals(quoteCommandArg("a\nb"), undefined);
  assertEquals(quoteCommandArg("a\rb"), undefined);
  assertEquals(quoteCommandArg("a\0b"), undefined);
});

Deno.test("the channel passes every argument to tmux literally", async () => {
  await withChannel(async (channel, socketName) => {
    // The executor, not the fixture: it keeps a trailing ";" from splitting the command line.
    const exec = createSpawnExecutor({ bin: "tmux", socketName, maxConcurrency: 1 });
    for (const [i, name] of HOSTILE.entries()) {
      // set-buffer's data is not format-expanded, so both name and value must arrive byte for byte.
      await channel.run(["set-buffer", "-b", name, "--", `${name}|${i}`]);
      assertEquals(await exec.text(["show-buffer", "-b", name]), `${name}|${i}`, JSON.stringify(name));
    }
    let pwned = true;
    await Deno.stat("/tmp/tmcp-channel-pwned").catch(() => pwned = false);
    assertEquals(pwned, false);
    await assertRejects(() => channel.run(["set-buffer", "-b", "a\nb", "x"]));
    await channel.run(["set-buffer", "-b", "a\nb", "x"]).catch((e) => assert(e instanceof ChannelUnavailable));
  });
});

Deno.test("the channel answers concurrent commands in order, each with its own output", async () => {
  await withChannel(async (channel) => {
    const outs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => channel.run(["display-message", "-p", `reply ${i}`])),
    );
    assertEquals(outs, Array.from({ length: 40 }, (_, i) => [`reply ${i}`]));
  });
});

Deno.test("a failing command rejects with tmux's message and the channel goes on", async () => {
  await withChannel(async (channel) => {
    const e = await channel.run(["show-buffer", "-b", "nope"]).catch((e) => e);
    assert(e instanceof TmuxError && e.kind === "failed", String(e));
    assertEquals(e.message, "no buffer nope");
    assertEquals(await channel.run(["display-message", "-p", "still here"]), ["still here"]);
  });
});

Deno.test("the channel's client is read-only, ignores size, gets no output, and leaves when idle", async () => {
  await withChannel(async (channel, socket, tmux) => {
    await channel.run(["display-message", "-p", "x"]);
    const flags = await tmux("list-clients", "-F", "#{client_control_mode} #{client_flags}");
    assertMatch(flags, /^1 .*ignore-size/);
    assertMatch(flags, /no-output/);
    assertMatch(flags, /read-only/);
    for (let i = 0; i < 50 && (await clients(socket)).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assertEquals(await clients(socket), []);
    // The next command attaches again.
    assertEquals(await channel.run(["display-message", "-p", "again"]), ["again"]);
  }, 150);
});

Deno.test("without a session the channel is unavailable, and it tries again after a second", async () => {
  const socketName = uniqueSocketName("chan-empty");
  const tmux = (...args: string[]) =>
    new Deno.Command("tmux", { args: ["-L", socketName, "-f", "/dev/null", ...args], stdout: "null", stderr: "null" })
      .output();
  await tmux("start-server", ";", "set", "-g", "exit-empty", "off");
  const channel = createCommandChannel({ bin: "tmux", socketArgs: ["-L", socketName] });
  try {
    const e = await channel.run(["display-message", "-p", "x"]).catch((e) => e);
    assert(e instanceof ChannelUnavailable, String(e));
    assertMatch(e.message, /no sessions/);
    await tmux("new-session", "-d", "-s", "late");
    const soon = await channel.run(["display-message", "-p", "x"]).catch((e) => e);
    assert(soon instanceof ChannelUnavailable, "retried within a second");
    await new Promise((r) => setTimeout(r, 1100));
    assertEquals(await channel.run(["display-message", "-p", "x"]), ["x"]);
  } finally {
    await channel.close();
    await tmux("kill-server");
  }
});

Deno.test("when the session it attached to is killed, the next command attaches to another", async () => {
  await withChannel(async (channel, socket, tmux) => {
    await tmux("new-session", "-d", "-s", "other");
    await channel.run(["display-message", "-p", "x"]);
    const [attached] = await clients(socket);
    await tmux("kill-session", "-t", "=" + attached.slice(2));
    for (let i = 0; i < 50 && (await clients(socket)).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const out = await channel.run(["display-message", "-p", "x"]).catch((e) => e);
    // Either the old client was already gone (a fresh one answers) or it went away under this command.
    if (out instanceof ChannelUnavailable) assertEquals(await channel.run(["display-message", "-p", "x"]), ["x"]);
    else assertEquals(out, ["x"]);
  });
});

Deno.test("buffer reads through the server's file are byte-exact and leave no file behind", async () => {
  const fx = await startTmux("chan-read");
  const exec = createSpawnExecutor({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4 });
  const channel = createCommandChannel({ bin: "tmux", socketArgs: ["-L", fx.socketName] });
  const parent = await Deno.makeTempDir();
  const files = createServerFileReader(channel, parent);
  const store = createBufferStore(exec, { files });
  try {
    // Every byte value, invalid UTF-8, NUL, and a large buffer.
    const all = Uint8Array.from({ length: 256 * 3 }, (_, i) => i % 256);
    const large = new Uint8Array(9 * 1024 * 1024).map((_, i) => (i * 31 + 7) % 251);
    for (const [name, bytes] of [["all bytes", all], ["large", large], ["it's;#{x}", enc.encode("q")]] as const) {
      await fx.tmuxStdin(bytes, "load-buffer", "-b", name, "-");
      const direct = await files.read(name);
      assert(direct !== undefined, "the file route was used");
      assertEquals(direct.length, bytes.length);
      assert(direct.every((b, i) => b === bytes[i]), `${name}: bytes differ`);
      assertEquals((await store.read(name)).length, bytes.length);
    }
    const e = await store.read("missing").catch((e) => e);
    assert(e instanceof UserError, String(e));
    assertMatch(e.message, /no buffer named "missing": call list-buffers/);
    // A name a command line cannot carry goes through show-buffer.
    await fx.tmuxStdin(enc.encode("two lines"), "load-buffer", "-b", "a\nb", "-");
    assertEquals(await files.read("a\nb"), undefined);
    assertEquals(new TextDecoder().decode(await store.read("a\nb")), "two lines");
    const [dir, ...more] = [...Deno.readDirSync(parent)];
    assertEquals(more, []);
    const leftovers = [...Deno.readDirSync(`${parent}/${dir.name}`)];
    assertEquals(leftovers, []);
  } finally {
    await channel.close();
    await files.close();
    assertEquals([...Deno.readDirSync(parent)], [], "close removes the private directory");
    await Deno.remove(parent);
    await fx.kill();
  }
});

Deno.test("a route that cannot work here is dropped for show-buffer after the first try", async () => {
  const fx = await startTmux("chan-fallback");
  const exec = createSpawnExecutor({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4 });
  // A tmux server that answers but writes elsewhere (another file system or mount namespace): a
  // real one cannot be arranged here, so the channel only pretends the save succeeded.
  let calls = 0;
  const elsewhere: CommandChannel = {
    run: () => (calls++, Promise.resolve([])),
    close: () => Promise.resolve(),
  };
  const files = createServerFileReader(elsewhere);
  const store = createBufferStore(exec, { files });
  try {
    await fx.tmuxStdin(enc.encode("content"), "load-buffer", "-b", "b", "-");
    assertEquals(new TextDecoder().decode(await store.read("b")), "content");
    assertEquals(new TextDecoder().decode(await store.read("b")), "content");
    assertEquals(calls, 1);
  } finally {
    await files.close();
    await fx.kill();
  }
});

Deno.test("without any session, buffers are still read (through show-buffer)", async () => {
  const socketName = uniqueSocketName("chan-nosession");
  await new Deno.Command("tmux", {
    args: [
      "-L",
      socketName,
      "-f",
      "/dev/null",
      "start-server",
      ";",
      "set",
      "-g",
      "exit-empty",
      "off",
      ";",
      "set-buffer",
      "-b",
      "lonely",
      "still here",
    ],
  }).output();
  const exec = createSpawnExecutor({ bin: "tmux", socketName, maxConcurrency: 4 });
  const channel = createCommandChannel({ bin: "tmux", socketArgs: ["-L", socketName] });
  const files = createServerFileReader(channel);
  try {
    const store = createBufferStore(exec, { files });
    assertEquals(new TextDecoder().decode(await store.read("lonely")), "still here");
    assertEquals(await files.read("lonely"), undefined);
  } finally {
    await channel.close();
    await files.close();
    await new Deno.Command("tmux", { args: ["-L", socketName, "kill-server"] }).output();
  }
});

Deno.test("the channel's timeout ends a stuck command with a clear error", async () => {
  await withChannel(async (channel) => {
    // A running run-shell holds this client's command queue until the shell command ends.
    await channel.run(["run-shell", "sleep 2"]);
    const e = await channel.run(["display-message", "-p", "x"], { timeoutMs: 200 }).catch((e) => e);
    assert(e instanceof TmuxError && e.kind === "timeout", String(e));
    assertMatch(e.message, /display-message timed out after 200 ms/);
    assertEquals(await channel.run(["display-message", "-p", "fresh"]), ["fresh"]);
  });
});

Deno.test("search-buffer and show-buffer read through the control client, not a show-buffer per call", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmuxStdin(enc.encode("alpha\nbeta needle\n"), "load-buffer", "-b", "log", "-");
    const r = await mcp.ok<{ total_matches: number }>("search-buffer", { query: "needle", buffers: ["log"] });
    assertEquals(r.total_matches, 1);
    // The server's read-only control client is attached, with no pane output sent to it.
    assertMatch(await tmux.tmux("list-clients", "-F", "#{client_control_mode} #{client_flags}"), /^1 .*no-output/);
  });
});

Deno.test("without a tmux binary the channel is unavailable and the store reports the executor's clear error", async () => {
  const channel = createCommandChannel({ bin: "/nonexistent/tmux", socketArgs: [] });
  const e = await channel.run(["display-message", "-p", "x"]).catch((e) => e);
  assert(e instanceof ChannelUnavailable, String(e));
  const exec = createSpawnExecutor({ bin: "/nonexistent/tmux", maxConcurrency: 1 });
  const files = createServerFileReader(channel);
  const err = await createBufferStore(exec, { files }).read("x").catch((e) => e);
  assertMatch(String(err), /tmux is not installed/);
  await channel.close();
  await files.close();
});
