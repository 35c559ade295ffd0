/**
 * The SSH route to a remote tmux (lib/tmux/ssh.ts) against a real sshd on
 * 127.0.0.1 (tests/ssh_fixture.ts): quoting of the remote command line,
 * connection sharing, the master's lifetime, and ssh's failures as one-line
 * errors.
 */
import fc from "fast-check";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { type SshFixture, startSshd } from "./ssh_fixture.ts";
import { tempDir, waitUntil } from "./pane_helpers.ts";
import { ROOT } from "./helpers.ts";
import { parseConfig, UsageError } from "../lib/config.ts";
import {
  classifySshFailure,
  type ClientLaunch,
  controlDirPath,
  controlSocket,
  localLaunch,
  makeControlDir,
  RemoteError,
  remoteTmuxLine,
  removeStaleSocket,
  sshArgv,
  sshLaunch,
  type SshTarget,
} from "../lib/tmux/ssh.ts";
import { COMMAND_SEPARATOR, escapeArg, type SocketSpec, type TmuxArg } from "../lib/tmux/executor.ts";
import { launchControl } from "./ssh_control.ts";

const dec = new TextDecoder();

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a launch to completion; a generous bound so a hung ssh fails the test instead of hanging it. */
async function runLaunch(l: ClientLaunch, stdin?: Uint8Array): Promise<Ran> {
  const child = new Deno.Command(l.command, {
    args: l.args,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).spawn();
  if (stdin) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A stand-in for tmux that prints its argv NUL-separated, to see what arrives. */
async function argvPrinter(dir: string): Promise<string> {
  const path = `${dir}/print-argv`;
  await Deno.writeTextFile(path, "#!/bin/sh\nprintf '%s\\0' \"$@\"\n", { mode: 0o755 });
  return path;
}

/** Hostile words: shell syntax, option look-alikes, globs, `~`, quotes, newlines, tmux's `;`. */
const hostileWord = (canary: string) =>
  fc.oneof(
    fc.constantFrom(
      `$(touch ${canary})`,
      `\`touch ${canary}\``,
      `; touch ${canary}`,
      `' ; touch ${canary} ; '`,
      `" ; touch ${canary} ; "`,
      `\\'; touch ${canary}; #`,
      "-x",
      "--",
      "*",
      "~",
      "~/x",
      "a\nb",
      "x;",
      ";",
      "",
      "#{pane_id}",
      "é 中 🙂",
    ),
    fc.string({
      unit: fc.constantFrom(
        "'",
        '"',
        "\\",
        "$",
        "`",
        ";",
        " ",
        "\n",
        "\t",
        "-",
        "*",
        "?",
        "[",
        "~",
        "&",
        "|",
        "a",
        "é",
      ),
    }),
  );

/** What tmux receives for our arguments: a trailing ";" escaped as the executor does. */
const tmuxArgv = (args: string[]) => args.map(escapeArg);

function splitNul(s: string): string[] {
  return s.split("\0").slice(0, -1);
}

const canaryExists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("remoteTmuxLine: fixed words and quoted values, read back byte-exact by sh -c", async () => {
  const dir = await tempDir();
  const bin = await argvPrinter(dir);
  const canary = `${dir}/canary`;
  // The remote login shell may be any of these (sshd runs `$SHELL -c LINE`).
  const shells = [["sh"], ["dash"], ["bash"], ["zsh"], ["zsh", "-o", "rcquotes"], ["fish", "--no-config"]];
  await fc.assert(
    fc.asyncProperty(
      fc.array(hostileWord(canary), { maxLength: 6 }),
      hostileWord(canary),
      fc.constantFrom(...shells),
      async (args, name, shell) => {
        fc.pre(name !== "");
        const line = remoteTmuxLine(bin, { socketName: name }, args);
        const r = await runLaunch({ command: shell[0], args: [...shell.slice(1), "-c", line] });
        assertEquals(r.code, 0, `${shell.join(" ")}: ${r.stderr}`);
        assertEquals(splitNul(r.stdout), ["-u", "-L", name, ...tmuxArgv(args)], shell.join(" "));
      },
    ),
    { numRuns: 200 },
  );
  assert(!(await canaryExists(canary)), "no hostile word ran a command");
  assertEquals(remoteTmuxLine("tmux", {}, ["-C", "attach"]), "exec 'tmux' -u '-C' 'attach'");
  assertEquals(
    remoteTmuxLine("/opt/t m/tmux", { socketPath: "/tmp/a'b" }, ["list-sessions", COMMAND_SEPARATOR, "x;"]),
    "exec '/opt/t m/tmux' -u -S '/tmp/a'\\''b' 'list-sessions' ';' 'x'\\\\';'",
  );
  // -S wins over -L, as in tmux and the local executor.
  assertMatch(remoteTmuxLine("tmux", { socketName: "n", socketPath: "/p" }, []), / -S '\/p'$/);
  assertEquals(remoteTmuxLine("~/bin/tmux", {}, []), "exec ~/'bin/tmux' -u");
});

Deno.test("localLaunch: the spawn executor's argv", () => {
  assertEquals(localLaunch("tmux", { socketName: "w" }, ["a", COMMAND_SEPARATOR, "b;"]), {
    command: "tmux",
    args: ["-u", "-L", "w", "a", ";", "b\\;"],
  });
});

Deno.test("sshArgv: options, destination and the line after --; bad destinations refused", () => {
  const t: SshTarget = { destination: "devbox", configFile: "/c", controlDir: "/tmp/tmux-mcp-1-ssh" };
  const master = sshArgv(t, "master", "exec 'tmux'");
  assertEquals(master.slice(0, 3), ["-F", "/c", "-T"]);
  assertEquals(master.slice(-3), ["devbox", "--", "exec 'tmux'"]);
  for (
    const kv of [
      "BatchMode=yes",
      "ControlMaster=yes",
      "ControlPath=/tmp/tmux-mcp-1-ssh/m",
      "ControlPersist=no",
      "RemoteCommand=none",
    ]
  ) {
    assert(master.includes(kv), kv);
  }
  assert(sshArgv(t, "shared", "x").includes("ControlMaster=no"));
  assert(!sshArgv({ ...t, configFile: undefined }, "shared", "x").includes("-F"));
  for (const bad of ["-oProxyCommand=x", "a b", "a\nb", "a\0b", ""]) {
    let threw = false;
    try {
      sshArgv({ ...t, destination: bad }, "shared", "x");
    } catch (e) {
      threw = true;
      assertMatch((e as Error).message, /^--ssh: /);
    }
    assert(threw, `refused ${JSON.stringify(bad)}`);
  }
});

Deno.test("controlDirPath: private name under TMPDIR, /tmp when a socket path would not fit", () => {
  assertEquals(controlDirPath(42, "/var/tmp/"), "/var/tmp/tmux-mcp-42-ssh");
  assertEquals(controlDirPath(42, undefined), "/tmp/tmux-mcp-42-ssh");
  const deep = "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/" + "x".repeat(40);
  assertEquals(controlDirPath(42, deep), "/tmp/tmux-mcp-42-ssh");
  // A macOS TMPDIR (49 characters) still fits: socket + ssh's 17-character temporary suffix < 104.
  const mac = "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/";
  assert(controlSocket(controlDirPath(99999, mac)).length + 17 < 104);
});

Deno.test("classifySshFailure: ssh's messages (OpenSSH 9 wording) → the five kinds", () => {
  const ctx = { destination: "devbox", bin: "tmux", socket: { socketName: "w" } as SocketSpec };
  const cases: [number, string, string | undefined][] = [
    [255, "ssh: connect to host 10.0.0.9 port 22: Connection refused\r\n", "unreachable"],
    [255, "ssh: connect to host 10.0.0.9 port 22: Connection timed out\r\n", "unreachable"],
    [255, "ssh: Could not resolve hostname nosuch: Name or service not known\r\n", "unreachable"],
    [255, "ssh: connect to host 10.0.0.9 port 22: No route to host\r\n", "unreachable"],
    [255, "root@127.0.0.1: Permission denied (publickey).\r\n", "auth"],
    [
      255,
      "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\r\n" +
      "Host key verification failed.\r\n",
      "host-key",
    ],
    [
      255,
      "@@@@@@@\r\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n@@@@@@@\r\n" +
      "Host key verification failed.\r\n",
      "host-key",
    ],
    [255, "mux_client_request_session: session request failed: Session open refused by peer\r\n", "ssh-failed"],
    [127, "bash: line 1: exec: /nonexistent/tmux: not found\n", "tmux-missing"],
    [127, "zsh:1: command not found: tmux\n", "tmux-missing"],
    [1, "no server running on /tmp/tmux-0/w\n", "no-server"],
    [1, "error connecting to /tmp/tmux-0/w (No such file or directory)\n", "no-server"],
    [1, "can't find session: nosuch\n", undefined],
  ];
  for (const [code, stderr, kind] of cases) {
    const e = classifySshFailure(code, stderr, ctx);
    assertEquals(e?.remote, kind, stderr);
    if (e) {
      assert(!e.message.includes("\n"), `one line: ${e.message}`);
      assertMatch(e.message, /ssh host "devbox"/);
    }
  }
});

// ---- against the real sshd ----------------------------------------------

interface Remote {
  fx: SshFixture;
  target: SshTarget;
  launch(role: "master" | "shared", args: readonly TmuxArg[], bin?: string, socket?: SocketSpec): ClientLaunch;
}

async function withRemote(fn: (r: Remote) => Promise<void>): Promise<void> {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    const controlDir = await makeControlDir(Deno.pid, fx.dir);
    const target: SshTarget = { destination: fx.alias, configFile: fx.configPath, controlDir };
    await fn({
      fx,
      target,
      launch: (role, args, bin = "tmux", socket = { socketName: fx.socketName }) =>
        sshLaunch(target, role, bin, socket, args),
    });
  } finally {
    await fx.cleanup();
  }
}

/** Classifies a failed run, asserting it is one of ours. */
function remoteError(r: Ran, remote: Remote, bin = "tmux", socket: SocketSpec = {}): RemoteError {
  assert(r.code !== 0, `expected a failure, got ${JSON.stringify(r)}`);
  const e = classifySshFailure(r.code, r.stderr, { destination: remote.target.destination, bin, socket });
  assert(e instanceof RemoteError, `not classified: ${r.code} ${r.stderr}`);
  assert(!e.message.includes("\n"), e.message);
  return e;
}

Deno.test("ssh: hostile arguments of a spawned (fallback) client arrive byte-exact over sshd; no canary", async () => {
  await withRemote(async (remote) => {
    const bin = await argvPrinter(remote.fx.dir);
    const canary = `${remote.fx.dir}/canary`;
    // One master so the many runs below share one login.
    const master = await launchControl(remote.launch("master", ["-C", "attach-session", "-t", "main"]));
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(hostileWord(canary), { maxLength: 5 }), async (args) => {
          const r = await runLaunch(remote.launch("shared", args, bin));
          assertEquals(r.code, 0, r.stderr);
          assertEquals(splitNul(r.stdout), ["-u", "-L", remote.fx.socketName, ...tmuxArgv(args)]);
        }),
        { numRuns: 40 },
      );
    } finally {
      await master.close();
    }
    assert(!(await canaryExists(canary)), "no hostile word ran a command on the remote side");
    // And a real tmux gets them too: a session name full of shell syntax, made and read back.
    const name = `$(touch ${canary})\`touch ${canary}\`'"; x`;
    const made = await runLaunch(remote.launch("shared", ["new-session", "-d", "-s", name]));
    assertEquals(made.code, 0, made.stderr);
    const listed = await remote.fx.tmux("list-sessions", "-F", "#{session_name}");
    assert(listed.split("\n").includes(name), listed);
    assert(!(await canaryExists(canary)));
  });
});

Deno.test("ssh: destinations as alias, user@host and ssh://user@host:port", async () => {
  await withRemote(async (remote) => {
    const { fx } = remote;
    for (const destination of [fx.alias, `${fx.user}@127.0.0.1`, `ssh://${fx.user}@127.0.0.1:${fx.port}`]) {
      const t = { ...remote.target, destination };
      const r = await runLaunch(
        sshLaunch(t, "shared", "tmux", { socketName: fx.socketName }, ["display-message", "-p", "ok"]),
      );
      assertEquals([r.code, r.stdout], [0, "ok\n"], `${destination}: ${r.stderr}`);
    }
  });
});

Deno.test("ssh: one login serves the control client and many spawned clients; control mode answers", async () => {
  await withRemote(async (remote) => {
    const before = await remote.fx.loginCount();
    const master = await launchControl(remote.launch("master", ["-C", "attach-session", "-t", "main"]));
    try {
      const reply = await master.command("display-message -p ok");
      assertEquals(reply, { ok: true, lines: ["ok"] });
      for (let i = 0; i < 10; i++) {
        const r = await runLaunch(remote.launch("shared", ["display-message", "-p", `n${i}`]));
        assertEquals([r.code, r.stdout], [0, `n${i}\n`], r.stderr);
      }
      // stdin travels over the shared connection too (load-buffer -).
      const big = new Uint8Array(1 << 20).fill(0x61);
      const loaded = await runLaunch(remote.launch("shared", ["load-buffer", "-b", "big", "-"]), big);
      assertEquals(loaded.code, 0, loaded.stderr);
      assertEquals((await master.command("show-buffer -b big")).lines[0]?.length, 1 << 20);
      assertEquals(await remote.fx.loginCount() - before, 1, "one ssh login for everything");
    } finally {
      await master.close();
    }
    // The master's exit removed its socket.
    await waitUntil(
      "control socket removed",
      async () => !(await canaryExists(controlSocket(remote.target.controlDir))),
    );
  });
});

Deno.test("ssh: the master ends with its parent (SIGKILL): no ssh, no remote tmux client, no socket left", async () => {
  await withRemote(async (remote) => {
    const launch = remote.launch("master", ["-C", "attach-session", "-t", "main"]);
    // A parent process that starts the master with a pipe on its stdin, says the pid, then waits.
    const script = `
      const c = new Deno.Command(${JSON.stringify(launch.command)}, { args: ${JSON.stringify(launch.args)},
        stdin: "piped", stdout: "piped", stderr: "null", detached: true }).spawn();
      const r = c.stdout.getReader(); await r.read();
      console.log(c.pid);
      await new Promise(() => {});`;
    const parent = new Deno.Command(Deno.execPath(), {
      args: ["eval", script],
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = parent.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let got = "";
    while (!got.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      got += value;
    }
    const sshPid = Number(got.trim());
    assert(sshPid > 0, `ssh pid: ${got}`);
    const alive = (pid: number) =>
      new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).output().then((o) => o.success);
    assert(await alive(sshPid));
    assertEquals((await remote.fx.tmux("list-clients", "-F", "#{client_control_mode}")).trim(), "1");
    parent.kill("SIGKILL");
    await parent.status;
    reader.releaseLock();
    await parent.stdout.cancel().catch(() => {});
    await waitUntil("the master ssh to exit", async () => !(await alive(sshPid)), 20_000);
    await waitUntil(
      "the remote control client to go",
      async () => (await remote.fx.tmux("list-clients", "-F", "#{client_name}")).trim() === "",
      20_000,
    );
    assert(!(await canaryExists(controlSocket(remote.target.controlDir))), "socket removed");
  });
});

Deno.test("ssh: sshd stopped → unreachable, started again → a new master and spawns work", async () => {
  await withRemote(async (remote) => {
    const master = await launchControl(remote.launch("master", ["-C", "attach-session", "-t", "main"]));
    assertEquals((await master.command("display-message -p up")).lines, ["up"]);
    await remote.fx.stop();
    // The connection dropped: the master notices and exits (a hang fails here, not the whole run).
    await waitUntil("the master to exit", () => Promise.race([master.exited, Promise.resolve(undefined)]), 20_000);
    const down = await runLaunch(remote.launch("shared", ["display-message", "-p", "x"]));
    assertEquals(remoteError(down, remote).remote, "unreachable");
    assertMatch(remoteError(down, remote).message, /^cannot reach ssh host ".*" \(.*Connection refused.*\): /);
    await remote.fx.start();
    await removeStaleSocket(remote.target.controlDir);
    const again = await launchControl(remote.launch("master", ["-C", "attach-session", "-t", "main"]));
    try {
      assertEquals((await again.command("display-message -p back")).lines, ["back"]);
      const r = await runLaunch(remote.launch("shared", ["display-message", "-p", "y"]));
      assertEquals([r.code, r.stdout], [0, "y\n"], r.stderr);
    } finally {
      await again.close();
    }
  });
});

Deno.test("ssh: wrong key → auth; changed and unknown host key → host-key, without hanging on a prompt", async () => {
  await withRemote(async (remote) => {
    const { fx } = remote;
    const base = await Deno.readTextFile(fx.configPath);
    const dir = fx.dir;
    const variant = async (name: string, text: string) => {
      await Deno.writeTextFile(`${dir}/${name}`, text);
      return { ...remote.target, configFile: `${dir}/${name}` };
    };
    const spawn = (t: SshTarget) => runLaunch(sshLaunch(t, "shared", "tmux", {}, ["display-message", "-p", "x"]));

    await new Deno.Command("ssh-keygen", { args: ["-q", "-t", "ed25519", "-N", "", "-f", `${dir}/other`] }).output();
    const wrongKey = await variant("cfg-key", base.replace(`IdentityFile ${fx.identity}`, `IdentityFile ${dir}/other`));
    const auth = remoteError(await spawn(wrongKey), remote);
    assertEquals(auth.remote, "auth", auth.message);
    assertMatch(auth.message, /Permission denied \(publickey/);

    const otherHostKey = (await Deno.readTextFile(`${dir}/other.pub`)).trim().split(" ").slice(0, 2).join(" ");
    await Deno.writeTextFile(`${dir}/known_changed`, `[127.0.0.1]:${fx.port} ${otherHostKey}\n`);
    const changed = await variant("cfg-changed", base.replace(fx.knownHosts, `${dir}/known_changed`));
    const hk = remoteError(await spawn(changed), remote);
    assertEquals(hk.remote, "host-key", hk.message);
    assertMatch(hk.message, /CHANGED/);

    // Unknown key and a config asking to confirm it: BatchMode turns the prompt into a failure.
    await Deno.writeTextFile(`${dir}/known_empty`, "");
    const ask = await variant(
      "cfg-ask",
      base.replace(fx.knownHosts, `${dir}/known_empty`).replace(
        "StrictHostKeyChecking yes",
        "StrictHostKeyChecking ask",
      ),
    );
    const unknown = remoteError(await spawn(ask), remote);
    assertEquals(unknown.remote, "host-key", unknown.message);
    assertMatch(unknown.message, /could not be verified/);
  });
});

Deno.test("ssh: remote tmux missing → tmux-missing; unused socket → no-server", async () => {
  await withRemote(async (remote) => {
    const missing = await runLaunch(remote.launch("shared", ["list-sessions"], "/nonexistent/tmux"));
    const e = remoteError(missing, remote, "/nonexistent/tmux");
    assertEquals([e.remote, e.kind], ["tmux-missing", "missing"], e.message);
    assertMatch(e.message, /--tmux-bin/);

    const socket = { socketName: `${remote.fx.socketName}-unused` };
    const none = await runLaunch(remote.launch("shared", ["list-sessions"], "tmux", socket));
    const n = remoteError(none, remote, "tmux", socket);
    assertEquals([n.remote, n.kind], ["no-server", "no-server"], n.message);
    assertMatch(n.message, /-L tmcp-ssh-.*-unused/);
    // A control-mode client answers in-band instead (tmux -C starts a server, which has no session):
    // the engine reads the attach's %error block.
    const ctl = await launchControl(remote.launch("master", ["-C", "attach-session"], "tmux", socket));
    assertEquals(ctl.attach, { ok: false, lines: ["no sessions"] });
    await ctl.close();
  });
});

Deno.test("config: --ssh and --ssh-config (and env twins) validated", async () => {
  const file = `${await tempDir()}/ssh_config`;
  await Deno.writeTextFile(file, "");
  assertEquals(parseConfig(["--ssh-config", file], {}).sshConfig, file);
  assertEquals(parseConfig([], { TMUX_MCP_SSH_CONFIG: file }).sshConfig, file);
  const refused: [string[], Record<string, string>, RegExp][] = [
    // A valid destination is refused as a whole until the server drives remote tmux (never the local one instead).
    [["--ssh", "ssh://me@box:2222", "--ssh-config", file], {}, /^--ssh: remote hosts are not wired .* yet/],
    [[], { TMUX_MCP_SSH: "devbox" }, /^--ssh: remote hosts are not wired .* yet/],
    [["--ssh=-oProxyCommand=touch x"], {}, /^--ssh: .*starts with "-"/],
    [[], { TMUX_MCP_SSH: "-F/etc/passwd" }, /^TMUX_MCP_SSH: .*starts with "-"/],
    [["--ssh", "a b"], {}, /^--ssh: .*whitespace/],
    [["--ssh-config", `${file}-missing`], {}, /^--ssh-config: cannot read .*existing file/],
    [["--ssh-config", file.replace(/\/ssh_config$/, "")], {}, /^--ssh-config: .* is not a file/],
  ];
  for (const [args, env, re] of refused) {
    let msg = "";
    try {
      parseConfig(args, env);
    } catch (e) {
      assert(e instanceof UsageError);
      msg = e.message;
    }
    assertMatch(msg, re);
  }
});
