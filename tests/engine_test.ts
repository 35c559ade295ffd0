/**
 * The engine (lib/tmux/engine.ts), its control-mode connection and the
 * buffer read route built on it, against real tmux servers on private
 * sockets; and through the MCP server: two servers on one tmux server, and a
 * SIGKILLed server leaving no client behind.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, fakeTmux, ROOT, START_PERMISSIONS, startTmux, uniqueSocketName, withServer } from "./helpers.ts";
import {
  ConnectionUnavailable,
  controlLine,
  createTmuxEngine,
  tmuxBuild,
  type TmuxEngine,
} from "../lib/tmux/engine.ts";
import { createControlConnection } from "../lib/tmux/connection.ts";
import { stepOffLine } from "../lib/tmux/control_client.ts";
import { createSessionScope } from "../lib/tmux/scope.ts";
import { AttachGate } from "../lib/tmux/attach_gate.ts";
import { localLauncher } from "../lib/tmux/launcher.ts";
import { tmuxCommandWord } from "../lib/tmux/quote.ts";
import { createServerFileReader } from "../lib/buffers/server_file.ts";
import { createBufferStore } from "../lib/buffers/store.ts";
import { COMMAND_SEPARATOR, createSpawnExecutor, type TmuxArg, TmuxError } from "../lib/tmux/executor.ts";
import { UserError } from "../lib/errors.ts";
import { getPane } from "../lib/tmux/panes.ts";
import { floodPane, waitUntil } from "./pane_helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

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
  "%end 1 2 1",
  // Line breaks travel double-quoted, with everything tmux would read in double quotes escaped.
  "two\nlines",
  "cr\r\nlf",
  "\n",
  "~home\n$HOME ${HOME} \\n \\0 \\u00e9 \"q\" 'sq' #{pane_id} ;",
  "\n~\n%end 1 2 1\n\\",
];

/** How long a condition may take to hold (generous: the machine may be busy). */
const SOON = 15_000;

async function clients(socketName: string): Promise<string[]> {
  const out = await new Deno.Command("tmux", {
    args: ["-L", socketName, "list-clients", "-F", "#{client_control_mode}:#{client_session}"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return dec.decode(out.stdout).split("\n").filter(Boolean);
}

async function withEngine(
  fn: (engine: TmuxEngine, socketName: string, tmux: (...a: string[]) => Promise<string>) => Promise<void>,
  idleMs?: number,
) {
  const fx = await startTmux("engine");
  const engine = createTmuxEngine({
    bin: "tmux",
    socketName: fx.socketName,
    maxConcurrency: 8,
    controlMode: true,
    idleMs,
  });
  try {
    await fn(engine, fx.socketName, fx.tmux);
  } finally {
    await engine.close();
    await fx.kill();
  }
}

/**
 * A control client of its own attached to `session` on `socket`: it sees every client's session changes and
 * detaches, in order (`seen()`); `close()` detaches it, `kill()` ends it however it stands.
 */
async function observeClients(socket: string, session: string) {
  const child = new Deno.Command("tmux", {
    args: ["-L", socket, "-C", "attach", "-f", "read-only,no-output", "-t", session],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let seen = "";
  const reading = child.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (t) => void (seen += t) }),
  );
  await waitUntil("the observer to attach", () => Promise.resolve(seen.includes("%end")), SOON);
  return {
    seen: () => seen,
    async close() {
      await child.stdin.close();
      await reading;
      await child.status;
    },
    async kill() {
      child.kill("SIGKILL");
      await child.status;
    },
  };
}

Deno.test("quoted command words carry quotes, ;, #, $, ~, braces, spaces and line breaks; NUL is refused", () => {
  assertEquals(tmuxCommandWord("a'b"), `'a'"'"'b'`);
  assertEquals(tmuxCommandWord("x;"), "'x;'");
  assertEquals(tmuxCommandWord("a\nb"), `"a\\nb"`);
  assertEquals(tmuxCommandWord('~a\r$b\\"'), `"\\~a\\r\\$b\\\\\\""`);
  assertEquals(tmuxCommandWord("a\0b"), undefined);
});

Deno.test("the one routing choice: control mode only where it means the same as a spawned client", () => {
  const control = (...a: (string | typeof COMMAND_SEPARATOR)[]) => controlLine(a) !== undefined;
  assert(control("list-sessions", "-F", "#{session_id}"));
  assert(control("capture-pane", "-p", "-t", "%1", COMMAND_SEPARATOR, "display-message", "-p", "-t", "%1", "x"));
  assert(control("list-panes", "-a"));
  // No target: a control client's own session would be used instead of the most recent one.
  assert(!control("list-panes", "-F", "x"));
  assert(!control("display-message", "-p", "x"));
  // Shown on the issuing client; vis-escaped output; stdin; a queue-blocking command; a lost reply.
  assert(!control("display-message", "-t", "%1", "hello"));
  assert(!control("show-buffer", "-b", "x"));
  assert(controlLine(["load-buffer", "-b", "x", "-"], { stdin: enc.encode("x") }) === undefined);
  assert(!control("load-buffer", "-b", "x", "relative/path"));
  assert(!control("wait-for", "ch"));
  assert(control("wait-for", "-S", "ch"));
  assert(!control("kill-server"));
  // Processes start in the client's directory when spawned.
  assert(!control("new-session", "-d"));
  assert(!control("split-window", "-t", "%1"));
  // Any unsafe command in a chain sends the whole chain through a spawn.
  assert(!control("list-sessions", COMMAND_SEPARATOR, "run-shell", "true"));
  // A line break travels escaped; NUL cannot travel on a command line, so it is never sent half-escaped.
  assert(control("set-buffer", "-b", "x", "--", "two\nlines"));
  assert(!control("set-buffer", "-b", "x", "--", "nul\0"));
});

Deno.test("the engine passes every argument to tmux literally over the control connection", async () => {
  await withEngine(async (engine, socketName) => {
    const exec = createSpawnExecutor({ bin: "tmux", socketName, maxConcurrency: 1 });
    for (const [i, name] of HOSTILE.entries()) {
      const args = ["set-buffer", "-b", name, "--", `${name}|${i}`];
      assert(controlLine(args) !== undefined, "sent over the connection");
      // set-buffer's data is not format-expanded, so both name and value must arrive byte for byte.
      await engine.run(args);
      assertEquals(await exec.text(["show-buffer", "-b", name]), `${name}|${i}`, JSON.stringify(name));
    }
    let pwned = true;
    await Deno.stat("/tmp/tmcp-channel-pwned").catch(() => pwned = false);
    assertEquals(pwned, false);
    // Content with NUL (no command line carries it) goes in as load-buffer's stdin: still exact.
    await engine.run(["load-buffer", "-b", "a\nb", "-"], { stdin: enc.encode("x\0y") });
    assertEquals(await exec.run(["save-buffer", "-b", "a\nb", "-"]), enc.encode("x\0y"));
    assertEquals((await clients(socketName)).length, 1, "one control client carried the commands");
  });
});

Deno.test("the engine answers concurrent commands in order, each with its own output, as a spawn prints it", async () => {
  await withEngine(async (engine, socketName) => {
    const spawned = createSpawnExecutor({ bin: "tmux", socketName, maxConcurrency: 4 });
    const outs = await Promise.all(
      Array.from({ length: 60 }, (_, i) => engine.text(["display-message", "-p", "-t", "main", `reply ${i}`])),
    );
    assertEquals(outs, Array.from({ length: 60 }, (_, i) => `reply ${i}\n`));
    // Multi-command lines, empty lines and raw escape sequences come out as a spawned client prints them.
    await engine.run(["send-keys", "-t", "main", "printf '\\033[31mRED\\033[0m\\n\\n'", "Enter"]);
    // Best effort: the session's shell may still be reading its rc files; the comparison below holds either way.
    await waitUntil(
      "the red line",
      async () => (await engine.text(["capture-pane", "-p", "-t", "main"])).includes("RED\n"),
      SOON,
    ).catch(() => {});
    for (
      const args of <TmuxArg[][]> [
        ["capture-pane", "-p", "-e", "-t", "main"],
        ["list-panes", "-a", "-F", "#{pane_id} #{session_name}"],
        [
          "capture-pane",
          "-p",
          "-t",
          "main",
          "-S",
          "0",
          "-E",
          "0",
          COMMAND_SEPARATOR,
          "display-message",
          "-p",
          "-t",
          "main",
          "x",
        ],
      ]
    ) {
      assert(controlLine(args) !== undefined);
      // Polled: the shell may still be drawing its prompt between the two reads.
      const same = async () => dec.decode(await engine.run(args)) === dec.decode(await spawned.run(args));
      await waitUntil(`the same reply to ${JSON.stringify(args)}`, same, SOON);
    }
  });
});

Deno.test("a failing command rejects with tmux's message, also mid-chain, and the engine goes on", async () => {
  await withEngine(async (engine) => {
    const e = await engine.run(["kill-window", "-t", "nope:9"]).catch((e) => e);
    assert(e instanceof TmuxError && e.kind === "failed", String(e));
    assertMatch(e.message, /can't find (session|window)/);
    const chained = await engine.run([
      ...["display-message", "-p", "-t", "main", "first"],
      COMMAND_SEPARATOR,
      ...["capture-pane", "-p", "-t", "nope"],
      COMMAND_SEPARATOR,
      ...["display-message", "-p", "-t", "main", "never"],
    ]).catch((e) => e);
    assert(chained instanceof TmuxError, String(chained));
    assertEquals(chained.message, "can't find pane: nope");
    assertEquals(await engine.text(["display-message", "-p", "-t", "main", "still here"]), "still here\n");
  });
});

Deno.test("the control client is read-only, ignores size, gets no output, and leaves when idle", async () => {
  await withEngine(async (engine, socket, tmux) => {
    await engine.run(["display-message", "-p", "-t", "main", "x"]);
    const flags = await tmux("list-clients", "-F", "#{client_control_mode} #{client_flags}");
    assertMatch(flags, /^1 .*ignore-size/);
    assertMatch(flags, /no-output/);
    assertMatch(flags, /read-only/);
    await waitUntil("the idle client to leave", async () => (await clients(socket)).length === 0, SOON);
    // The next command attaches again.
    assertEquals(await engine.text(["display-message", "-p", "-t", "main", "again"]), "again\n");
    assertEquals((await clients(socket)).length, 1);
  }, 2000); // long enough for the list-clients spawn right after "again" on a busy machine
});

Deno.test("an idle client holding the last of a destroy-unattached session steps off it before it leaves", async () => {
  await withEngine(async (engine, socket, tmux) => {
    await engine.run(["display-message", "-p", "-t", "main", "x"]);
    await tmux("new-session", "-d", "-s", "other");
    await tmux("set-option", "-t", "main", "destroy-unattached", "on"); // ours alone keeps main now
    // Clients coming and going while ours leaves (see the test below for why that mattered).
    let churning = true;
    const churn = (async () => {
      while (churning) await tmux("display-message", "-p", "x").catch(() => {});
    })();
    try {
      await waitUntil("the idle client to leave", async () => (await clients(socket)).length === 0, SOON);
    } finally {
      churning = false;
      await churn;
    }
    assertEquals(await tmux("list-sessions", "-F", "#{session_name}"), "other\n", "main went, the server is alive");
  }, 2000);
});

Deno.test("a wait's client holding the last of a destroy-unattached session steps off it before it leaves", async () => {
  await withEngine(async (engine, socket, tmux) => {
    await tmux("new-session", "-d", "-s", "other");
    const [sessionId, paneId] = (await tmux("display-message", "-p", "-t", "main", "#{session_id} #{pane_id}"))
      .trim().split(" ");
    const stop = await engine.hub.watch(sessionId, paneId, { output() {} });
    assertEquals(await clients(socket), ["1:main"], "the wait's client is attached to main");
    await tmux("set-option", "-t", "main", "destroy-unattached", "on"); // it alone keeps main now
    const observer = await observeClients(socket, "other");
    stop();
    await engine.hub.close(); // as at the end of the server; an idle hub client leaves the same way
    const detached = () => /%client-detached (client-\d+)\n/.exec(observer.seen());
    await waitUntil("the wait's client to leave", () => Promise.resolve(detached() !== null), SOON);
    const name = detached()![1];
    const moved = observer.seen().indexOf(`%client-session-changed ${name} $`);
    assert(
      moved >= 0 && moved < observer.seen().indexOf(`%client-detached ${name}`),
      `${name} stepped off main first:\n${observer.seen()}`,
    );
    await observer.close();
    assertEquals(await tmux("list-sessions", "-F", "#{session_name}"), "other\n", "main went, the server is alive");
  });
});

/** A session as the step-off query lists it: destroy-unattached, server pid, id, name, @mcp tag. */
const row = (id: string, destroy: string, name: string) => `${destroy} 9 ${id} ${name}  \n`;

Deno.test("stepOffLine: a switch-client only off a destroy-unattached session ours alone holds, to one without", () => {
  const main = row("$0", "1", "main");
  assertEquals(stepOffLine(`1 1\n${main}${row("$4", "0", "a")}${row("$5", "0", "b")}`), "switch-client -E -t '$4'");
  assertEquals(stepOffLine(`0 1\n${row("$0", "0", "main")}${row("$1", "0", "a")}`), undefined, "not on one");
  assertEquals(
    stepOffLine(`1 2\n${main}${row("$1", "0", "a")}`),
    undefined,
    "a person holds it too: leaving destroys nothing",
  );
  assertEquals(stepOffLine(`1 1\n${main}${row("$2", "1", "a")}`), undefined, "nowhere to go");
  assertEquals(stepOffLine(`1 1\n${row("main", "0", "x")}${row("$0;", "0", "y")}`), undefined, "only ids are taken");
  // tmux 3.4 made the option a choice: on, off, keep-last, keep-group.
  assertEquals(
    stepOffLine(`on 1\n${row("$0", "on", "main")}${row("$3", "keep-last", "a")}${row("$4", "off", "b")}`),
    "switch-client -E -t '$4'",
  );
  // A session scope: only a session in it is switched to, whatever comes first.
  const inScope = (s: { session_name: string }) => s.session_name !== "out";
  assertEquals(
    stepOffLine(`1 1\n${row("$1", "0", "out")}${main}${row("$2", "0", "in")}`, inScope),
    "switch-client -E -t '$2'",
  );
  assertEquals(stepOffLine(`1 1\n${row("$1", "0", "out")}${main}`, inScope), undefined, "none in scope: it stays");
  // Names are read as tmux escapes them: a name with spaces is one field.
  assertEquals(
    stepOffLine(`1 1\n${main}${row("$6", "0", "a\\ b")}`, (s) => s.session_name === "a b"),
    "switch-client -E -t '$6'",
  );
});

Deno.test("under a session scope, a client leaving a destroy-unattached session never steps off to one out of scope", async () => {
  const fx = await startTmux("stepoff-scope");
  // "a-out" comes first in tmux's list (by name) and has no destroy-unattached: the step-off's first pick before.
  const scope = createSessionScope({ patterns: [{ glob: "main" }, { glob: "z-*" }], tagged: false }, "local");
  const engine = createTmuxEngine({
    bin: "tmux",
    socketName: fx.socketName,
    maxConcurrency: 8,
    controlMode: true,
    scope,
  });
  let observer: Awaited<ReturnType<typeof observeClients>> | undefined;
  try {
    await fx.tmux("new-session", "-d", "-s", "a-out");
    await fx.tmux("new-session", "-d", "-s", "z-keep");
    const ids = Object.fromEntries(
      (await fx.tmux("list-sessions", "-F", "#{session_name} #{session_id}")).trim().split("\n").map((l) =>
        l.split(" ")
      ),
    );
    const paneId = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    const stop = await engine.hub.watch(ids.main, paneId, { output() {} });
    await fx.tmux("set-option", "-t", "main", "destroy-unattached", "on"); // it alone keeps main now
    const watching = observer = await observeClients(fx.socketName, "z-keep");
    stop();
    await engine.hub.close(); // as at the end of the server
    const detached = () => /%client-detached (client-\d+)\n/.exec(watching.seen());
    await waitUntil("the wait's client to leave", () => Promise.resolve(detached() !== null), SOON);
    const name = detached()![1];
    assert(
      !watching.seen().includes(`%client-session-changed ${name} ${ids["a-out"]} `),
      `it went out of scope:\n${watching.seen()}`,
    );
    assert(
      watching.seen().includes(`%client-session-changed ${name} ${ids["z-keep"]} `),
      `it stepped off to z-keep:\n${watching.seen()}`,
    );
    await observer.close();
    observer = undefined;
    assertEquals(await fx.tmux("list-sessions", "-F", "#{session_name}"), "a-out\nz-keep\n", "main went");
  } finally {
    await observer?.kill();
    await engine.close();
    await fx.kill();
  }
});

Deno.test("a person leaving a destroy-unattached session: our client leaves too, so tmux destroys it", async () => {
  await withEngine(async (engine, socket, tmux) => {
    await engine.run(["display-message", "-p", "-t", "main", "x"]);
    assertEquals(await clients(socket), ["1:main"], "the engine's client is attached to main");
    await tmux("new-session", "-d", "-s", "other");
    // Set while ours is attached: set with none, tmux would destroy main as soon as the setting client left.
    await tmux("set-option", "-t", "main", "destroy-unattached", "on");
    // A control client (no terminal, like ours) coming and going does not make ours leave.
    await new Deno.Command("tmux", { args: ["-L", socket, "-C", "attach", "-t", "other"], stdin: "null" }).output();
    assertEquals(await clients(socket), ["1:main"], "a control client leaving is not a person leaving");
    // A person: a real terminal (script(1) gives tmux a pty) attaches to main, then detaches.
    const person = new Deno.Command("script", {
      args: ["-qfc", `tmux -L ${socket} attach -t main`, "/dev/null"],
      env: { TERM: "xterm" },
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      await waitUntil("the person's client to attach", async () => (await clients(socket)).includes("0:main"), SOON);
      const name = (await tmux("list-clients", "-F", "#{client_control_mode} #{client_name}"))
        .split("\n").find((l) => l.startsWith("0 "))!.slice(2);
      // Other clients come and go meanwhile (a status script, the user's shell): a client of ours ending on
      // main while it becomes destroyable would let tmux free main under it (tmux/tmux#5497), and the
      // tmux server crashed (3.3a, about 1 run in 10 with this churn before ours stepped off main first).
      let churning = true;
      const churn = (async () => {
        while (churning) await tmux("display-message", "-p", "x").catch(() => {});
      })();
      await tmux("detach-client", "-t", name);
      try {
        await waitUntil(
          "main to be destroyed once the person left (ours did not keep it attached)",
          async () => !(await engine.text(["list-sessions", "-F", "#{session_name}"])).includes("main"),
          SOON,
        );
      } finally {
        churning = false;
        await churn;
      }
      assertEquals(await tmux("list-sessions", "-F", "#{session_name}"), "other\n", "the tmux server is alive");
      assertEquals(await engine.text(["list-sessions", "-F", "#{session_name}"]), "other\n");
    } finally {
      try {
        person.kill("SIGKILL");
      } catch {
        // already gone
      }
      await person.status;
      await person.stdin.close().catch(() => {});
    }
  });
});

Deno.test("without a session commands are spawned; once one exists, the engine attaches", async () => {
  const socketName = uniqueSocketName("engine-empty");
  const tmux = (...args: string[]) =>
    new Deno.Command("tmux", { args: ["-L", socketName, "-f", "/dev/null", ...args], stdout: "null", stderr: "null" })
      .output();
  await tmux("start-server", ";", "set", "-g", "exit-empty", "off");
  const engine = createTmuxEngine({ bin: "tmux", socketName, maxConcurrency: 4, controlMode: true });
  try {
    await engine.run(["set-buffer", "-b", "b", "kept"]);
    assertEquals(await engine.text(["list-buffers", "-F", "#{buffer_name}"]), "b\n");
    assertEquals(await clients(socketName), []);
    await engine.run(["new-session", "-d", "-s", "late"]);
    assertEquals(await engine.text(["list-sessions", "-F", "#{session_name}"]), "late\n");
    assertEquals(await clients(socketName), ["1:late"], "attached right after new-session");
  } finally {
    await engine.close();
    await tmux("kill-server");
  }
});

Deno.test("when the session it attached to is killed, commands go on (another session, or a spawn)", async () => {
  await withEngine(async (engine, socket) => {
    await engine.run(["new-session", "-d", "-s", "other"]);
    await engine.run(["display-message", "-p", "-t", "main", "x"]);
    const [attached] = await clients(socket);
    const name = attached.slice(2);
    // Killed by our own command, with more commands queued behind it on the same connection.
    const results = await Promise.all([
      engine.run(["kill-session", "-t", "=" + name]),
      ...Array.from({ length: 20 }, (_, i) => engine.text(["list-sessions", "-F", `#{session_name} ${i}`])),
    ]);
    for (const [i, r] of results.slice(1).entries()) assertMatch(String(r), new RegExp(` ${i}\\n$`));
    const left = name === "main" ? "other" : "main";
    assertEquals(await engine.text(["list-sessions", "-F", "#{session_name}"]), `${left}\n`);
    assertEquals(await engine.text(["display-message", "-p", "-t", left, "ok"]), "ok\n");
  });
});

Deno.test("the tmux server killed mid-command: one-line error; after it is back, calls work without a restart", async () => {
  const fx = await startTmux("engine-restart");
  const launcher = localLauncher("tmux", { socketName: fx.socketName });
  const conn = createControlConnection({ launcher, gate: new AttachGate() });
  const engine = createTmuxEngine({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4, controlMode: true });
  try {
    // run-shell holds this client's queue until its shell command ends: the command behind it is in
    // flight when the server is SIGKILLed (a kill-server would answer it first). The reply of run-shell
    // itself ends with its fence, which waits in that queue too.
    const serverPid = Number(await fx.tmux("display-message", "-p", "#{pid}"));
    await conn.send(["display-message -p -t main x"], { name: "display-message", timeoutMs: 10_000 });
    const held = conn.send(["run-shell 'sleep 5'"], { name: "run-shell", timeoutMs: 30_000 }).catch((e) => e);
    const inFlight = conn.send(["display-message -p -t main x"], {
      name: "display-message",
      timeoutMs: 30_000,
    }).catch((e) => e);
    assertEquals(await engine.text(["display-message", "-p", "-t", "main", "before"]), "before\n");
    Deno.kill(serverPid, "SIGKILL");
    // Never begun, so never run: the engine would spawn it, which says there is no server.
    const e = await inFlight;
    assert(e instanceof ConnectionUnavailable, String(e));
    // It fails too, with one line.
    const h = await held;
    assert(h instanceof Error && !h.message.includes("\n"), String(h));
    const down = await engine.run(["list-sessions"]).catch((e) => e);
    assert(down instanceof TmuxError && down.kind === "no-server", String(down));
    assert(!down.message.includes("\n"));
    await fx.tmux("-f", "/dev/null", "new-session", "-d", "-s", "again");
    assertEquals(await engine.text(["list-sessions", "-F", "#{session_name}"]), "again\n");
    assertEquals(await engine.text(["display-message", "-p", "-t", "again", "back"]), "back\n");
    // Within a second of a failed attach commands are spawned; then the engine attaches again by itself.
    const reattached = async () =>
      (await engine.text(["display-message", "-p", "-t", "again", "x"])) === "x\n" &&
      (await clients(fx.socketName)).length >= 1;
    await waitUntil("a control client to attach again", reattached, SOON);
  } finally {
    await conn.close();
    await engine.close();
    await fx.kill();
  }
});

Deno.test("a stuck command times out with a clear error and the next command gets a fresh client", async () => {
  const fx = await startTmux("engine-stuck");
  const conn = createControlConnection({
    launcher: localLauncher("tmux", { socketName: fx.socketName }),
    gate: new AttachGate(),
  });
  try {
    const opts = { name: "display-message", timeoutMs: 200 };
    // A running run-shell holds this client's command queue until the shell command ends.
    const held = conn.send(["run-shell 'sleep 2'"], { name: "run-shell", timeoutMs: 10_000 })
      .catch((e) => e);
    const e = await conn.send(["display-message -p -t main x"], opts).catch((e) => e);
    assert(e instanceof TmuxError && e.kind === "timeout", String(e));
    assertMatch(
      e.message,
      /^tmux did not answer display-message within 200 ms \(stopped or overloaded\?\); the next call retries$/,
    );
    await held;
    // A new client answers (a client that ended before tmux began a command says so: the engine spawns then).
    const fresh = () =>
      conn.send(["display-message -p -t main fresh"], { ...opts, timeoutMs: 10_000 }).then(
        (out) => dec.decode(out) === "fresh\n",
        (e) => e instanceof ConnectionUnavailable ? false : Promise.reject(e),
      );
    await waitUntil("a fresh client to answer", fresh, SOON);
  } finally {
    await conn.close();
    await fx.kill();
  }
});

Deno.test("buffer reads through the server's file are byte-exact and leave no file behind", async () => {
  await withEngine(async (engine, socketName) => {
    const fx = { tmuxStdin: (s: Uint8Array, ...a: string[]) => engine.run(a, { stdin: s }) };
    const parent = await Deno.makeTempDir();
    const files = createServerFileReader(engine, parent);
    const store = createBufferStore(engine, { files });
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
        const viaStore = await store.read(name);
        assert(viaStore.length === bytes.length && viaStore.every((b, i) => b === bytes[i]), `${name}: store`);
      }
      const e = await store.read("missing").catch((e) => e);
      assert(e instanceof UserError, String(e));
      assertMatch(e.message, /no buffer named "missing": call list-buffers/);
      // A name with a line break travels escaped: the file route serves it too.
      await fx.tmuxStdin(enc.encode("two lines"), "load-buffer", "-b", "a\nb", "-");
      assertEquals(dec.decode((await files.read("a\nb"))!), "two lines");
      assertEquals(dec.decode(await store.read("a\nb")), "two lines");
      const [dir, ...more] = [...Deno.readDirSync(parent)];
      assertEquals(more, []);
      assertMatch(dir.name, new RegExp(`^tmux-mcp-${Deno.pid}-`));
      assertEquals([...Deno.readDirSync(`${parent}/${dir.name}`)], []);
      assertEquals((await clients(socketName)).length, 1);
    } finally {
      await files.close();
      assertEquals([...Deno.readDirSync(parent)], [], "close removes the private directory");
      await Deno.remove(parent);
    }
  });
});

Deno.test("stdin content reaches tmux through a private file over the connection, byte-exact, nothing left", async () => {
  const tmp = Deno.env.get("TMPDIR") ?? "/tmp";
  const mine = () => [...Deno.readDirSync(tmp)].filter((e) => e.name.startsWith(`tmux-mcp-${Deno.pid}-stdin-`));
  await withEngine(async (engine, socketName) => {
    const spawned = createSpawnExecutor({ bin: "tmux", socketName, maxConcurrency: 1 });
    const all = Uint8Array.from({ length: 256 * 4 }, (_, i) => i % 256);
    for (const name of ["plain", "it's;#{x} %d", "line\nbreak"]) {
      await engine.run(["load-buffer", "-b", name, "-"], { stdin: all });
      const back = await spawned.run(["save-buffer", "-b", name, "-"]);
      assert(back.length === all.length && back.every((b, i) => b === all[i]), name);
    }
    assertEquals(mine().length, 1, "one private directory while the engine runs");
    assertEquals([...Deno.readDirSync(`${tmp}/${mine()[0].name}`)], [], "each file deleted at once");
  });
  assertEquals(mine(), [], "removed on close");
});

Deno.test("a route that cannot work here is dropped for show-buffer after the first try", async () => {
  const fx = await startTmux("engine-fallback");
  const exec = createSpawnExecutor({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4 });
  // A tmux server that answers but writes elsewhere (another file system or mount namespace): a
  // real one cannot be arranged here, so the engine only pretends the save succeeded.
  let calls = 0;
  const files = createServerFileReader({ runAttached: () => (calls++, Promise.resolve(new Uint8Array())) });
  const store = createBufferStore(exec, { files });
  try {
    await fx.tmuxStdin(enc.encode("content"), "load-buffer", "-b", "b", "-");
    assertEquals(dec.decode(await store.read("b")), "content");
    assertEquals(dec.decode(await store.read("b")), "content");
    assertEquals(calls, 1);
  } finally {
    await files.close();
    await fx.kill();
  }
});

Deno.test("buffers are read through show-buffer when the file route's private directory cannot be made", async () => {
  const fx = await startTmux("engine-nodir");
  const exec = createSpawnExecutor({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4 });
  // Its parent is a file, as a full or missing temporary folder fails the same make.
  const parent = await Deno.makeTempFile();
  let calls = 0;
  const files = createServerFileReader({ runAttached: () => (calls++, Promise.resolve(new Uint8Array())) }, parent);
  const store = createBufferStore(exec, { files });
  try {
    await fx.tmuxStdin(enc.encode("content"), "load-buffer", "-b", "b", "-");
    assertEquals(dec.decode(await store.read("b")), "content");
    assertEquals(dec.decode(await store.read("b")), "content");
    assertEquals(calls, 0);
  } finally {
    await files.close();
    await Deno.remove(parent);
    await fx.kill();
  }
});

Deno.test("with control mode off nothing attaches, and buffers are read through show-buffer", async () => {
  const fx = await startTmux("engine-off");
  const engine = createTmuxEngine({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4, controlMode: false });
  const files = createServerFileReader(engine);
  try {
    await engine.run(["set-buffer", "-b", "b", "plain"]);
    assertEquals(await files.read("b"), undefined);
    assertEquals(dec.decode(await createBufferStore(engine, { files }).read("b")), "plain");
    assertEquals(await engine.text(["display-message", "-p", "-t", "main", "x"]), "x\n");
    assertEquals(await clients(fx.socketName), []);
    const e = await engine.runAttached(["list-sessions"]).catch((e) => e);
    assert(e instanceof ConnectionUnavailable, String(e));
  } finally {
    await engine.close();
    await files.close();
    await fx.kill();
  }
});

Deno.test("a --tmux-bin that is missing, prints garbage or hangs gets one line saying what to do", async () => {
  const missing = createTmuxEngine({ bin: "/nonexistent/tmux", maxConcurrency: 1, controlMode: true });
  const e1 = await missing.run(["list-sessions"]).catch((e) => e);
  assert(e1 instanceof TmuxError && e1.kind === "missing", String(e1));
  assertMatch(e1.message, /tmux is not installed .* --tmux-bin PATH/);
  const files = createServerFileReader(missing);
  const e2 = await createBufferStore(missing, { files }).read("x").catch((e) => e);
  assertMatch(String(e2), /tmux is not installed/);
  await files.close();

  const garbage = await fakeTmux('echo "hello from a wrapper"; cat >/dev/null');
  const hung = await fakeTmux("sleep 30");
  try {
    const g = createTmuxEngine({ bin: garbage.path, maxConcurrency: 1, controlMode: true });
    const e3 = await g.run(["list-sessions"]).catch((e) => e);
    assert(e3 instanceof TmuxError, String(e3));
    assertMatch(e3.message, /is not tmux \(its -V printed "hello from a wrapper\\n"\): pass --tmux-bin PATH/);
    await g.close();
    const h = createTmuxEngine({
      bin: hung.path,
      maxConcurrency: 1,
      controlMode: true,
      timeoutMs: 300,
      connectTimeoutMs: 1500,
    });
    const e4 = await h.run(["list-sessions"]).catch((e) => e);
    assert(e4 instanceof TmuxError && e4.kind === "timeout", String(e4));
    // Slow, not broken: the start's bound is --connect-timeout-ms, and the message says what to raise.
    assertEquals(
      e4.message,
      "tmux -V did not answer within 1.5 s: the machine is slow or tmux is stuck; raise --connect-timeout-ms (now 1500)",
    );
    await h.close();
    // Nothing the fakes started is left running.
    const ps = await new Deno.Command("pgrep", { args: ["-f", hung.path], stdout: "piped" }).output();
    assertEquals(dec.decode(ps.stdout).trim(), "");
  } finally {
    await Deno.remove(garbage.dir, { recursive: true });
    await Deno.remove(hung.dir, { recursive: true });
  }
});

Deno.test("new-session on a socket path whose directory does not exist: one line, what to do", async () => {
  const engine = createTmuxEngine({
    bin: "tmux",
    socketPath: "/nonexistent-tmcp-dir/sock",
    maxConcurrency: 1,
    controlMode: true,
  });
  const e = await engine.run(["new-session", "-d", "-s", "x"]).catch((e) => e);
  assert(e instanceof TmuxError, String(e));
  assertMatch(e.message, /directory of --socket-path "\/nonexistent-tmcp-dir\/sock" does not exist: create it/);
  await engine.close();
});

Deno.test("search-buffer reads through the control client, not a show-buffer per call", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmuxStdin(enc.encode("alpha\nbeta needle\n"), "load-buffer", "-b", "log", "-");
    const r = await mcp.ok<{ total_matches: number }>("search-buffer", { query: "needle", buffers: ["log"] });
    assertEquals(r.total_matches, 1);
    // The server's read-only control client is attached, with no pane output sent to it.
    assertMatch(await tmux.tmux("list-clients", "-F", "#{client_control_mode} #{client_flags}"), /^1 .*no-output/);
  }, { env: { TMUX_MCP_CONTROL_MODE: "on" } });
});

Deno.test("two MCP servers on one tmux server never see each other's replies, nor count as attached", async () => {
  const fx = await startTmux("engine-two");
  const env = { TMUX_MCP_CONTROL_MODE: "on" };
  const a = await connect({ socketName: fx.socketName, env });
  const b = await connect({ socketName: fx.socketName, env });
  try {
    const calls = Array.from({ length: 30 }, (_, i) => [
      a.ok<{ output: string }>("show", { what: "format", target: "main", format: `from-a ${i}` }),
      b.ok<{ output: string }>("show", { what: "format", target: "main", format: `from-b ${i}` }),
    ]).flat();
    const outs = (await Promise.all(calls)).map((r) => JSON.stringify(r));
    for (const [i, out] of outs.entries()) {
      const who = i % 2 === 0 ? "a" : "b";
      assertMatch(out, new RegExp(`from-${who} ${i >> 1}\\b`));
      assert(!out.includes(`from-${who === "a" ? "b" : "a"}`), out);
    }
    assertEquals((await clients(fx.socketName)).filter((c) => c.startsWith("1:")).length, 2);
    // Neither server's own client is shown to the model as an attached client.
    const { sessions } = await a.ok<{ sessions: { attached_clients: number }[] }>("list", { what: "sessions" });
    assertEquals(sessions.map((x) => x.attached_clients), [0]);
    assertEquals(Number(await fx.tmux("display-message", "-p", "-t", "main", "#{session_attached}")), 2);
  } finally {
    await a.close();
    await b.close();
    await fx.kill();
  }
});

/**
 * Starts the server, arms both of its clients (the command connection and a wait's), runs `beforeKill`, SIGKILLs the
 * server and checks that tmux is left with no client of ours.
 */
async function sigkillLeavesNoClient(
  label: string,
  beforeKill: (child: Deno.ChildProcess, fx: Awaited<ReturnType<typeof startTmux>>) => Promise<void>,
) {
  const fx = await startTmux(label);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...START_PERMISSIONS, ROOT + "main.ts", "--socket-name", fx.socketName],
    env: { TMUX_MCP_CONTROL_MODE: "on" },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const send = (msg: unknown) => writer.write(enc.encode(JSON.stringify(msg) + "\n"));
  let got = "";
  const reply = async (id: number) => {
    while (!got.split("\n").some((l) => l.includes(`"id":${id}`))) {
      const { value, done } = await reader.read();
      if (done) throw new Error("server ended");
      got += value;
    }
  };
  try {
    await send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    await reply(1);
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // A wait arms the hub's client too; list-panes goes over the command connection.
    await send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list", arguments: { what: "panes" } } });
    await reply(2);
    await send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: {
        name: "wait",
        arguments: { what: "text", target: "main", patterns: ["never-printed"], timeout_ms: 60_000 },
      },
    });
    await waitUntil("command and hub clients to attach", async () => (await clients(fx.socketName)).length >= 2, SOON);
    await beforeKill(child, fx);
    child.kill("SIGKILL");
    await child.status;
    await waitUntil("every client to leave", async () => (await clients(fx.socketName)).length === 0, 30_000)
      .catch(async (e) => {
        // Which clients stayed, and whether their processes still run, for a failure's message.
        const left = await fx.tmux("list-clients", "-F", "#{client_name} pid #{client_pid}").catch(String);
        throw new Error(`${e.message}; clients left behind: ${left}`);
      });
  } finally {
    try {
      child.kill("SIGKILL"); // still running when the test failed before its kill
    } catch {
      // killed already
    }
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
    await fx.kill();
  }
}

Deno.test("a SIGKILLed server leaves no tmux client behind", async () => {
  await sigkillLeavesNoClient("engine-sigkill", async () => {});
});

Deno.test("a SIGKILLed server leaves no tmux client behind, even one tmux still owes output", async () => {
  // tmux (3.3a) lets a control client go only once its queued output is written; after our end that output can never
  // be, and tmux would keep the client forever. Frozen, the server stops reading its wait's client, whose pane then
  // prints more than a pipe holds (4 000 lines of `seq` are about 96 KB as `%output` lines; a pipe holds 64 KiB): at
  // the kill, tmux still owes that client output. The pane then stalls (about 5 400 lines here): tmux reads a pane no
  // faster than its clients take the output.
  await sigkillLeavesNoClient("engine-sigkill-owed", async (child, fx) => {
    Deno.kill(child.pid, "SIGSTOP");
    await floodPane(fx, 4_000);
  });
});

Deno.test("a missing target still means the most recently used session, not the control client's", async () => {
  await withEngine(async (engine, socketName, tmux) => {
    await tmux("new-session", "-d", "-s", "newer");
    // The engine's client attaches to the most recent session ("newer")…
    await engine.run(["display-message", "-p", "-t", "main", "x"]);
    assertEquals(await clients(socketName), ["1:newer"]);
    // …then another client makes "main" the most recently used one.
    const other = new Deno.Command("tmux", {
      args: ["-L", socketName, "-C", "attach-session", "-t", "main"],
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      await waitUntil("client 1:main", async () => (await clients(socketName)).includes("1:main"), SOON);
      const { pane, defaulted } = await getPane(engine, undefined);
      assert(defaulted);
      assertEquals(pane.session_name, "main");
      assertEquals(await engine.text(["display-message", "-p", "#{session_name}"]), "main\n");
    } finally {
      await other.stdin.close();
      await other.status;
    }
  });
});

Deno.test("paste-text and global window options travel on the control connection: hostile names, nothing injected", async () => {
  const fx = await startTmux("engine-moved");
  const dir = await Deno.makeTempDir();
  const log = `${dir}/argv.log`;
  const pwned = `${dir}/pwned`;
  // The real tmux, each invocation's argv logged: a command that is spawned shows up here.
  const wrapper = await fakeTmux(`printf '%s\\n' "$*" >> '${log}'\nexec tmux "$@"`);
  const session = `x; kill-server #{pane_id} '"-x`;
  // new-session expands formats in -s: "##" makes a literal "#".
  await fx.tmux("new-session", "-d", "-s", session.replace("#", "##"), "--", `cat > '${dir}/out'`);
  const mcp = await connect({
    socketName: fx.socketName,
    args: ["--tmux-bin", wrapper.path],
    env: { TMUX_MCP_CONTROL_MODE: "on" },
  });
  try {
    const text = `a;b #{pane_id} #(touch ${pwned}) 'q' "dq" $HOME\n-x\n%end 1 2 1\n`;
    const r = await mcp.ok<{ pane_id: string }>("paste-text", { target: `=${session}`, text });
    const value = `v; kill-server 'q' "dq" -x`;
    await mcp.ok("set", { what: "option", scope: "window", global: true, name: "@moved", value });
    await mcp.ok("send-keys", { target: r.pane_id, keys: ["C-d"] });
    await waitUntil(
      "the text to be pasted exactly",
      async () => (await Deno.readTextFile(`${dir}/out`).catch(() => "")) === text,
      SOON,
    );
    assertEquals((await fx.tmux("show-options", "-gwv", "@moved")).trim(), value);
    assertEquals((await fx.tmux("list-buffers", "-F", "#{buffer_name}")).trim(), "", "no buffer left");
    const spawned = (await Deno.readTextFile(log)).split("\n").filter(Boolean);
    for (const cmd of ["load-buffer", "paste-buffer", "set-option"]) {
      assert(!spawned.some((l) => l.includes(cmd)), `${cmd} went over the connection: ${spawned.join(" | ")}`);
    }
    assert(spawned.some((l) => l.includes("-C attach-session")), "the control client was started through the wrapper");
    assertEquals(await Deno.stat(pwned).then(() => true, () => false), false, "no #() ran");
    assert((await fx.tmux("list-sessions", "-F", "#{session_name}")).includes("main"), "the tmux server still runs");
  } finally {
    await mcp.close();
    await fx.kill();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(wrapper.dir, { recursive: true });
  }
});

Deno.test("tmuxBuild: releases by number; OpenBSD's and git builds are tmux; anything else is not", () => {
  const yes = { control: true, handshakeSafe: false };
  assertEquals(tmuxBuild("tmux 3.3a\n"), yes);
  assertEquals(tmuxBuild("tmux next-3.8\n"), { control: true, handshakeSafe: true });
  assertEquals(tmuxBuild("tmux 3.1c\n"), { control: false, handshakeSafe: false });
  assertEquals(tmuxBuild("tmux openbsd-7.5\n"), yes);
  assertEquals(tmuxBuild("tmux openbsd-6.8\n"), { control: false, handshakeSafe: false });
  assertEquals(tmuxBuild("tmux master\n"), yes);
  for (const no of ["hello from a wrapper\n", "tmux: not found\n", "tmux master\nand more\n", ""]) {
    assertEquals(tmuxBuild(no), undefined, no);
  }
});
