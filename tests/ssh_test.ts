/**
 * The SSH route to a remote tmux (lib/tmux/ssh.ts) against a real sshd on
 * 127.0.0.1 (tests/ssh_fixture.ts): quoting of the remote command line, one
 * shared connection for every client, the connection's lifetime, and ssh's
 * failures as one-line errors.
 */
import fc from "fast-check";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { type SshFixture, startSshd } from "./ssh_fixture.ts";
import { floodPane, tempDir, waitUntil } from "./pane_helpers.ts";
import { ROOT } from "./helpers.ts";
import { parseConfig, UsageError } from "../lib/config.ts";
import {
  classifySshFailure,
  controlDirPath,
  controlSocket,
  createSshLauncher,
  makeControlDir,
  masterLine,
  masterReady,
  RemoteError,
  remoteTmuxLine,
  sshArgv,
  type SshLauncher,
  type SshTarget,
} from "../lib/tmux/ssh.ts";
import { escapeArg, type SocketSpec, spawnTmux, TmuxError, TmuxTimeout } from "../lib/tmux/executor.ts";
import { createTmuxEngine } from "../lib/tmux/engine.ts";
import { launchControl } from "./ssh_control.ts";
import { newSentinel } from "../lib/tmux/login_frame.ts";
import { findOnPath } from "../lib/host/binaries.ts";

const dec = new TextDecoder();

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Waits for a started client (stdout, stderr piped) to end; a generous bound so a hung ssh fails the test. */
async function collect(child: Deno.ChildProcess, stdin?: Uint8Array): Promise<Ran> {
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    if (stdin) {
      const w = child.stdin.getWriter();
      await w.write(stdin);
      await w.close();
    }
    const out = await child.output();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `command args` to completion. */
const run = (command: string, args: string[]) =>
  collect(new Deno.Command(command, { args, stdin: "null", stdout: "piped", stderr: "piped" }).spawn());

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
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      async (args, name, shell, tied, marked, withPid) => {
        fc.pre(name !== "");
        // The sentinel (lib/tmux/login_frame.ts) comes first on stdout and on stderr, then (a persistent
        // client's line) the pid tmux will run as, then tmux's argv, untouched.
        const sentinel = marked ? newSentinel() : undefined;
        const line = remoteTmuxLine(bin, { socketName: name }, args, tied, sentinel, withPid);
        const r = await run(shell[0], [...shell.slice(1), "-c", line]);
        assertEquals(r.code, 0, `${shell.join(" ")}: ${r.stderr}`);
        const mark = sentinel === undefined ? "" : sentinel + "\n";
        assert(r.stdout.startsWith(mark), r.stdout);
        assertEquals(r.stderr, mark, shell.join(" "));
        let rest = r.stdout.slice(mark.length);
        if (withPid) {
          const pid = /^[1-9]\d*\n/.exec(rest)?.[0];
          assert(pid !== undefined, `${shell.join(" ")}: no pid line in ${JSON.stringify(rest)}`);
          rest = rest.slice(pid.length);
        }
        assertEquals(splitNul(rest), ["-u", "-L", name, ...args], shell.join(" "));
      },
    ),
    { numRuns: 200 },
  );
  assert(!(await canaryExists(canary)), "no hostile word ran a command");
  assertEquals(remoteTmuxLine("tmux", {}, ["-C", "attach"]), "exec 'tmux' -u '-C' 'attach'");
  assertEquals(
    remoteTmuxLine("/opt/t m/tmux", { socketPath: "/tmp/a'b" }, ["list-sessions", ";", escapeArg("x;")]),
    "exec '/opt/t m/tmux' -u -S '/tmp/a'\\''b' 'list-sessions' ';' 'x'\\\\';'",
  );
  // -S wins over -L, as in tmux and the local executor.
  assertMatch(remoteTmuxLine("tmux", { socketName: "n", socketPath: "/p" }, []), / -S '\/p'$/);
  assertEquals(remoteTmuxLine("~/bin/tmux", {}, []), "exec ~/'bin/tmux' -u");
  assertEquals(remoteTmuxLine("tmux", {}, ["-C"], true), "exec setpriv --pdeathsig TERM -- 'tmux' -u '-C'");
  assertEquals(
    remoteTmuxLine("tmux", {}, ["-C"], true, undefined, true),
    `exec sh -c 'echo $$; exec "$@"' sh setpriv --pdeathsig TERM -- 'tmux' -u '-C'`,
  );
  assertEquals(
    remoteTmuxLine("tmux", {}, ["-V"], false, "tmux-mcp-00ff"),
    "echo 'tmux-mcp-00ff'; echo 'tmux-mcp-00ff' >&2; exec 'tmux' -u '-V'",
  );
});

Deno.test("the master's remote command says whether setpriv works, in every login shell, then waits for EOF", async () => {
  const dir = await tempDir();
  // A PATH with everything the line needs but setpriv.
  const path = Deno.env.get("PATH") ?? "";
  for (const tool of ["cat", "env", "true"]) await Deno.symlink(findOnPath(tool, path)!, `${dir}/${tool}`);
  const shells = [["sh"], ["dash"], ["bash"], ["zsh"], ["fish", "--no-config"]];
  const sentinel = newSentinel();
  for (const shell of shells) {
    for (const [searched, want] of [[path, "tied"], [dir, "untied"]]) {
      const r = await new Deno.Command(findOnPath(shell[0], path)!, {
        args: [...shell.slice(1), "-c", masterLine(sentinel)],
        env: { PATH: searched, HOME: dir },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = dec.decode(r.stdout);
      assertEquals(r.code, 0, `${shell[0]}: ${dec.decode(r.stderr)}`);
      const ready = masterReady(out, sentinel);
      assertEquals(ready && [ready.noise, ready.tied ? "tied" : "untied"], ["", want], `${shell[0]}: ${out}`);
      // A login that printed first: its text is noise, the answer is the same; a stale sentinel is not the ready.
      assertEquals(masterReady(`Welcome!\n${sentinel} tied\n`, sentinel), { noise: "Welcome!\n", tied: true });
      assertEquals(masterReady(`${newSentinel()} tied\n`, sentinel), undefined);
    }
  }
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
      "ClearAllForwardings=yes",
      "ForwardAgent=no",
      "ForwardX11=no",
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
  // ssh reads a space, %x, ${X} and quotes in a ControlPath: such a TMPDIR is not used.
  for (const odd of ["/tmp/my dir", "/tmp/a%h", "/tmp/${HOME}", "/tmp/a'b", '/tmp/a"b']) {
    assertEquals(controlDirPath(42, odd), "/tmp/tmux-mcp-42-ssh", odd);
  }
  // A macOS TMPDIR (49 characters) still fits: socket + ssh's 17-character temporary suffix < 104.
  const mac = "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/";
  assert(controlSocket(controlDirPath(99999, mac)).length + 17 < 104);
});

Deno.test("makeControlDir: 0700, re-used when ours, refused when a symlink or a file", async () => {
  const base = await tempDir();
  const dir = await makeControlDir(7, base);
  assertEquals(dir, `${base}/tmux-mcp-7-ssh`);
  assertEquals((await Deno.stat(dir)).mode! & 0o777, 0o700);
  await Deno.chmod(dir, 0o755);
  assertEquals(await makeControlDir(7, base), dir);
  assertEquals((await Deno.stat(dir)).mode! & 0o777, 0o700);
  const elsewhere = await tempDir();
  await Deno.symlink(elsewhere, `${base}/tmux-mcp-8-ssh`);
  await Deno.writeTextFile(`${base}/tmux-mcp-9-ssh`, "");
  for (const pid of [8, 9]) {
    const e = await makeControlDir(pid, base).then(() => undefined, (e) => e);
    assertMatch(String(e), /exists and is not a directory of ours/);
  }
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
      "Unable to negotiate with 10.0.0.9 port 22: no matching host key type found. Their offer: ssh-rsa\r\n",
      "ssh-failed",
    ],
    [
      255,
      "Unable to negotiate with 10.0.0.9 port 22: no matching key exchange method found. Their offer: " +
      "diffie-hellman-group1-sha1\r\n",
      "ssh-failed",
    ],
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
  /** The launcher under test: `bin` on the fixture's tmux socket. */
  launcher: SshLauncher;
  /** One ssh client built by hand (another bin, socket or target), for the cases one launcher does not cover. */
  spawnWith(args: string[], o?: { bin?: string; socket?: SocketSpec; target?: SshTarget }): Promise<Ran>;
}

async function withRemote(fn: (r: Remote) => Promise<void>, bin = "tmux"): Promise<void> {
  const fx = await startSshd();
  let launcher: SshLauncher | undefined;
  try {
    await fx.startTmux();
    const socket = { socketName: fx.socketName };
    const target: SshTarget = {
      destination: fx.alias,
      configFile: fx.configPath,
      controlDir: await makeControlDir(Deno.pid, fx.dir),
    };
    launcher = createSshLauncher(target, bin, socket);
    await fn({
      fx,
      target,
      launcher,
      spawnWith: (args, o = {}) =>
        run("ssh", sshArgv(o.target ?? target, "shared", remoteTmuxLine(o.bin ?? "tmux", o.socket ?? socket, args))),
    });
  } finally {
    await launcher?.close();
    await fx.cleanup();
  }
}

/** Starts a client through the launcher and waits for it. */
const spawnRun = (l: SshLauncher, args: string[], stdin?: Uint8Array) =>
  collect(l.spawn(args, { stdin: stdin ? "piped" : "null" }), stdin);

/** A control-mode client through the launcher. */
const control = (l: SshLauncher, ...extra: string[]) =>
  launchControl(l.spawn(["-C", "attach-session", ...extra], { stdin: "piped" }));

/** Classifies a failed run, asserting it is one of ours and one line. */
function remoteError(r: Ran, remote: Remote, bin = "tmux", socket: SocketSpec = {}): RemoteError {
  assert(r.code !== 0, `expected a failure, got ${JSON.stringify(r)}`);
  const e = classifySshFailure(r.code, r.stderr, { destination: remote.target.destination, bin, socket });
  assert(e instanceof RemoteError, `not classified: ${r.code} ${r.stderr}`);
  assert(!e.message.includes("\n"), e.message);
  return e;
}

/** ssh processes still using this control directory (its path is on their command line). */
async function sshUsing(controlDir: string): Promise<string> {
  return (await run("pgrep", ["-a", "-f", `ControlPath=${controlDir}/`])).stdout.trim();
}

Deno.test("ssh: hostile arguments of spawned (fallback) clients arrive byte-exact over sshd; no canary; one login", async () => {
  const printer = await argvPrinter(await tempDir());
  await withRemote(async ({ fx, launcher }) => {
    const canary = `${fx.dir}/canary`;
    const before = await fx.loginCount();
    await launcher.ready();
    await fc.assert(
      fc.asyncProperty(fc.array(hostileWord(canary), { maxLength: 5 }), async (words) => {
        // The engine tmux-escapes its arguments before the launcher (spawnTmux); do the same.
        const args = words.map(escapeArg);
        const r = await spawnRun(launcher, args);
        assertEquals(r.code, 0, r.stderr);
        assertEquals(splitNul(r.stdout), ["-u", "-L", fx.socketName, ...args]);
      }),
      { numRuns: 40 },
    );
    assertEquals(await fx.loginCount() - before, 1, "every client rode the one connection");
    assert(!(await canaryExists(canary)), "no hostile word ran a command on the remote side");
  }, printer);
});

Deno.test("ssh: a real tmux gets a session name full of shell syntax; destination forms", async () => {
  await withRemote(async (remote) => {
    const { fx } = remote;
    const canary = `${fx.dir}/canary`;
    // (no backslash: tmux shows one doubled in names; the argv test above covers it)
    const name = `$(touch ${canary})\`touch ${canary}\`'"; x`;
    const made = await spawnRun(remote.launcher, ["new-session", "-d", "-s", name]);
    assertEquals(made.code, 0, made.stderr);
    const listed = await fx.tmux("list-sessions", "-F", "#{session_name}");
    assert(listed.split("\n").includes(name), listed);
    assert(!(await canaryExists(canary)));
    for (const destination of [fx.alias, `${fx.user}@127.0.0.1`, `ssh://${fx.user}@127.0.0.1:${fx.port}`]) {
      const r = await remote.spawnWith(["display-message", "-p", "ok"], { target: { ...remote.target, destination } });
      assertEquals([r.code, r.stdout], [0, "ok\n"], `${destination}: ${r.stderr}`);
    }
  });
});

Deno.test("ssh: one login serves control-mode clients (closed and reopened) and many spawns", async () => {
  await withRemote(async ({ fx, target, launcher }) => {
    const before = await fx.loginCount();
    await launcher.ready();
    const first = await control(launcher, "-t", "main");
    assertEquals(await first.command("display-message -p ok"), { ok: true, lines: ["ok"] });
    // The engine closes an idle control client and opens another later: same connection.
    await first.close();
    const ctl = await control(launcher, "-t", "main");
    try {
      for (let i = 0; i < 10; i++) {
        const r = await spawnRun(launcher, ["display-message", "-p", `n${i}`]);
        assertEquals([r.code, r.stdout], [0, `n${i}\n`], r.stderr);
      }
      // stdin travels over the shared connection too (load-buffer -).
      const loaded = await spawnRun(launcher, ["load-buffer", "-b", "big", "-"], new Uint8Array(1 << 20).fill(0x61));
      assertEquals(loaded.code, 0, loaded.stderr);
      assertEquals((await ctl.command("show-buffer -b big")).lines[0]?.length, 1 << 20);
      assertEquals(await fx.loginCount() - before, 1, "one ssh login for everything");
    } finally {
      await ctl.close();
    }
    await launcher.close();
    assertEquals(await sshUsing(target.controlDir), "", "no ssh left");
    assert(!(await canaryExists(controlSocket(target.controlDir))), "the master removed its socket");
  });
});

Deno.test("ssh: clients beyond sshd's MaxSessions (10, the master's included) still work, on their own connections", async () => {
  await withRemote(async ({ fx, launcher }) => {
    const before = await fx.loginCount();
    await launcher.ready();
    const clients = [];
    try {
      for (let i = 0; i < 11; i++) {
        const c = await control(launcher, "-t", "main");
        clients.push(c);
        assertEquals((await c.command(`display-message -p c${i}`)).lines, [`c${i}`]);
      }
    } finally {
      for (const c of clients) await c.close();
    }
    // 1 master + 9 clients share the connection; the 10th and 11th logged in by themselves.
    assertEquals(await fx.loginCount() - before, 3);
  });
});

/**
 * Starts a parent process that opens the connection and a control-mode client (persistent, as the engine's are),
 * says so, then waits to be killed; runs `beforeKill`, SIGKILLs the parent and checks that nothing of it is left.
 */
async function parentKilled(beforeKill: (fx: SshFixture) => Promise<void>, afterKill: () => void = () => {}) {
  await withRemote(async ({ fx, target }) => {
    const script = `
      import { createSshLauncher } from ${JSON.stringify(new URL("../lib/tmux/ssh.ts", import.meta.url).href)};
      const l = createSshLauncher(${JSON.stringify(target)}, "tmux", { socketName: ${JSON.stringify(fx.socketName)} });
      await l.ready();
      const c = l.spawn(["-C", "attach-session", "-t", "main"], { stdin: "piped", persistent: true });
      await c.stdout.getReader().read();
      console.log("up");
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
    while (!got.includes("up\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      got += value;
    }
    assertEquals(got, "up\n");
    assert((await sshUsing(target.controlDir)) !== "", "the master and the client run");
    assertEquals((await fx.tmux("list-clients", "-F", "#{client_control_mode}")).trim(), "1");
    await beforeKill(fx);
    parent.kill("SIGKILL");
    await parent.status;
    await reader.cancel().catch(() => {});
    afterKill();
    await waitUntil("every ssh of the parent to exit", async () => (await sshUsing(target.controlDir)) === "", 20_000);
    await waitUntil(
      "the remote control client to go",
      async () => (await fx.tmux("list-clients", "-F", "#{client_name}")).trim() === "",
      20_000,
    );
    assert(!(await canaryExists(controlSocket(target.controlDir))), "socket removed");
  });
}

Deno.test("ssh: the connection ends with its parent (SIGKILL): no ssh, no remote tmux client, no socket left", async () => {
  await parentKilled(async () => {});
});

Deno.test("ssh: a SIGKILLed parent leaves no remote tmux client, even one tmux still owes output", async () => {
  // tmux keeps a control client it owes output for good (lib/tmux/launcher.ts). Here the sshd process that carries the
  // connection is frozen while a pane of the client's session prints, so tmux falls behind writing to it; the parent
  // is SIGKILLed (its ssh processes end with it), then sshd goes on, sees the connection gone and closes the client's
  // pipes with output still owed. The client's setpriv parent-death signal is what lets tmux drop it.
  let sshd = 0;
  await parentKilled(async (fx) => {
    const client = Number(await fx.tmux("list-clients", "-F", "#{client_pid}"));
    const stat = await Deno.readTextFile(`/proc/${client}/stat`);
    sshd = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    assertMatch(await Deno.readTextFile(`/proc/${sshd}/cmdline`), /^sshd/, "the client's parent is sshd");
    Deno.kill(sshd, "SIGSTOP");
    // 4 000 lines are about 96 KB as %output lines, more than the pipe to sshd holds (64 KiB).
    await floodPane(fx, 4_000).catch((e) => {
      Deno.kill(sshd, "SIGCONT"); // the fixture's cleanup must be able to stop it
      throw e;
    });
  }, () => Deno.kill(sshd, "SIGCONT"));
});

Deno.test("ssh: sshd stopped → unreachable, started again → the connection heals", async () => {
  await withRemote(async ({ fx, target, launcher }) => {
    await launcher.ready();
    const ctl = await control(launcher, "-t", "main");
    assertEquals((await ctl.command("display-message -p up")).lines, ["up"]);
    await fx.stop();
    // The connection dropped: the control client and the master notice and exit.
    await waitUntil("the control client to exit", () => Promise.race([ctl.exited, Promise.resolve(undefined)]), 20_000);
    await waitUntil("the master to exit", async () => (await sshUsing(target.controlDir)) === "", 20_000);
    const down = await spawnRun(launcher, ["display-message", "-p", "x"]);
    const e = launcher.classify(down.code, down.stderr);
    assertEquals(e?.remote, "unreachable", down.stderr);
    assertMatch(e!.message, /^cannot reach ssh host ".*" \(.*Connection refused.*\): /);
    let refused: unknown;
    await launcher.ready().catch((err) => refused = err);
    assert(refused instanceof RemoteError && refused.remote === "unreachable", String(refused));
    await fx.start();
    const before = await fx.loginCount();
    // A start attempt made while sshd was down may still be failing: ask until one succeeds.
    await waitUntil("the connection to come back", () => launcher.ready().then(() => true), 20_000);
    const again = await control(launcher, "-t", "main");
    try {
      assertEquals((await again.command("display-message -p back")).lines, ["back"]);
      const r = await spawnRun(launcher, ["display-message", "-p", "y"]);
      assertEquals([r.code, r.stdout], [0, "y\n"], r.stderr);
    } finally {
      await again.close();
    }
    assertEquals(await fx.loginCount() - before, 1, "healed with one new login");
  });
});

Deno.test("ssh: wrong key → auth; changed and unknown host key → host-key, without hanging on a prompt", async () => {
  await withRemote(async (remote) => {
    const { fx } = remote;
    const base = await Deno.readTextFile(fx.configPath);
    const dir = fx.dir;
    let n = 0;
    /** A launcher whose ssh config is `text`, with its own control directory; its connection attempt's error. */
    const failure = async (text: string) => {
      const configFile = `${dir}/cfg-${n}`;
      await Deno.writeTextFile(configFile, text);
      const controlDir = `${dir}/ctl-${n++}`;
      await Deno.mkdir(controlDir, { mode: 0o700 });
      const t = { ...remote.target, configFile, controlDir };
      let err: unknown;
      await createSshLauncher(t, "tmux", {}).ready().catch((e) => err = e);
      assert(err instanceof RemoteError, `connection refused with a RemoteError: ${err}`);
      assert(!err.message.includes("\n"), err.message);
      // A spawned client without the connection fails the same way.
      const spawned = await remote.spawnWith(["display-message", "-p", "x"], { target: t });
      assertEquals(remoteError(spawned, remote).remote, err.remote);
      return err;
    };

    await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", `${dir}/other`]);
    const auth = await failure(base.replace(`IdentityFile ${fx.identity}`, `IdentityFile ${dir}/other`));
    assertEquals(auth.remote, "auth", auth.message);
    assertMatch(auth.message, /Permission denied \(publickey/);

    const otherHostKey = (await Deno.readTextFile(`${dir}/other.pub`)).trim().split(" ").slice(0, 2).join(" ");
    await Deno.writeTextFile(`${dir}/known_changed`, `[127.0.0.1]:${fx.port} ${otherHostKey}\n`);
    const changed = await failure(base.replace(fx.knownHosts, `${dir}/known_changed`));
    assertEquals(changed.remote, "host-key", changed.message);
    assertMatch(changed.message, /CHANGED/);

    // Unknown key and a config asking to confirm it: BatchMode turns the prompt into a failure.
    await Deno.writeTextFile(`${dir}/known_empty`, "");
    const unknown = await failure(
      base.replace(fx.knownHosts, `${dir}/known_empty`).replace(
        "StrictHostKeyChecking yes",
        "StrictHostKeyChecking ask",
      ),
    );
    assertEquals(unknown.remote, "host-key", unknown.message);
    assertMatch(unknown.message, /could not be verified/);
  });
});

Deno.test("ssh: a login shell stuck in its rc file fails the connection in bounded time, not forever", async () => {
  await withRemote(async ({ fx, target }) => {
    // Debian's bash reads ~/.bashrc even for `ssh host cmd` (sshd's sessions here have HOME=<fixture>/home).
    const rc = `${fx.dir}/home/.bashrc`;
    // It waits on stdin, which ends when the connection does: nothing lingers after the test.
    await Deno.writeTextFile(rc, "read -r _line\n");
    try {
      const controlDir = `${fx.dir}/ctl-stuck`;
      await Deno.mkdir(controlDir, { mode: 0o700 });
      let err: unknown;
      await createSshLauncher({ ...target, controlDir, connectTimeoutMs: 2000 }, "tmux", {}).ready().catch((e) =>
        err = e
      );
      assert(err instanceof RemoteError, String(err));
      assertEquals(err.remote, "slow");
      assertMatch(
        err.message,
        /did not start a session within 2 s: the machine or the login is slow; raise --connect-timeout-ms \(now 2000\)/,
      );
      // The hint is the command line the server runs: with its -F.
      assertMatch(err.message, new RegExp(`ssh -F ${fx.configPath} tmcp-remote true`));
    } finally {
      await Deno.remove(rc);
    }
  });
});

Deno.test("ssh: a login slower than a call's timeout is waited for (--connect-timeout-ms); past that bound → 'slow'", async () => {
  await withRemote(async ({ fx, target }) => {
    const socket = { socketName: fx.socketName };
    const controlDir = `${fx.dir}/ctl-slow`;
    await Deno.mkdir(controlDir, { mode: 0o700 });
    const launcher = createSshLauncher({ ...target, controlDir, connectTimeoutMs: 30_000 }, "tmux", socket);
    // Every command spawned (control mode off), each call's own timeout shorter than the login.
    const engine = createTmuxEngine({
      bin: "tmux",
      ...socket,
      maxConcurrency: 2,
      controlMode: false,
      timeoutMs: 1500,
      connectTimeoutMs: 30_000,
      launcher,
    });
    try {
      await fx.setLoginRc("sleep 3\n");
      assertEquals(await engine.text(["display-message", "-p", "slow-but-fine"]), "slow-but-fine\n");
      assertEquals(await engine.text(["list-sessions", "-F", "#{session_name}"]), "main\n");
    } finally {
      await engine.close();
      await fx.clearLoginRc();
    }
    // The connection is up; now each new login takes longer than the bound: one line saying what was slow.
    const strict = createSshLauncher({ ...target, controlDir, connectTimeoutMs: 2000 }, "tmux", socket);
    try {
      await strict.ready();
      await fx.setLoginRc("sleep 6\n");
      const e = await spawnTmux(strict, ["display-message", "-p", "x"], {}, 1000).catch((e) => e);
      assert(e instanceof TmuxError && e.kind === "timeout", String(e));
      assertEquals(
        e.message,
        'the login on ssh host "tmcp-remote" did not start tmux within 2 s: the machine or the login is slow; ' +
          "raise --connect-timeout-ms (now 2000)",
      );
      // An rc file that reads stdin gets none of a client's stdin: tmux gets it all, or the call fails.
      await fx.setLoginRc("read -r _line\n");
      const fed = await spawnTmux(strict, ["load-buffer", "-b", "eaten", "-"], {
        stdin: new TextEncoder().encode("first\nsecond\n"),
      }, 1000).catch((e) => e);
      assert(fed instanceof TmuxTimeout && fed.login, String(fed));
      assertEquals(await fx.tmux("list-buffers", "-F", "#{buffer_name}"), "");
      // A transfer cut by its timeout blames the slow party, not --tmux-bin.
      await fx.clearLoginRc();
      const big = new Uint8Array(32 << 20);
      const cut = await spawnTmux(strict, ["load-buffer", "-b", "big", "-"], { stdin: big, timeoutMs: 50 }, 1000)
        .catch((e) => e);
      assert(cut instanceof TmuxError && cut.kind === "timeout", String(cut));
      assertEquals(
        cut.message,
        "tmux on tmcp-remote did not answer load-buffer within 50 ms (stopped or overloaded?); the next call retries",
      );
    } finally {
      await fx.clearLoginRc();
      await strict.close();
    }
  });
});

Deno.test("ssh: remote tmux missing → tmux-missing; unused socket → no-server", async () => {
  await withRemote(async (remote) => {
    const missing = await remote.spawnWith(["list-sessions"], { bin: "/nonexistent/tmux" });
    const e = remoteError(missing, remote, "/nonexistent/tmux");
    assertEquals([e.remote, e.kind], ["tmux-missing", "missing"], e.message);
    assertMatch(e.message, /--tmux-bin/);

    const socket = { socketName: `${remote.fx.socketName}-unused` };
    const none = await remote.spawnWith(["list-sessions"], { socket });
    const n = remoteError(none, remote, "tmux", socket);
    assertEquals([n.remote, n.kind], ["no-server", "no-server"], n.message);
    assertMatch(n.message, /-L tmcp-ssh-.*-unused/);
    // A control-mode client answers in-band instead (tmux -C starts a server, which has no session):
    // the engine reads the attach's %error block.
    const unused = createSshLauncher(remote.target, "tmux", socket);
    const ctl = await control(unused);
    assertEquals(ctl.attach, { ok: false, lines: ["no sessions"] });
    await ctl.close();
  });
});

Deno.test("config: --ssh and --ssh-config (and env twins) validated", async () => {
  const file = `${await tempDir()}/ssh_config`;
  await Deno.writeTextFile(file, "");
  assertEquals(parseConfig(["--ssh-config", file], {}).sshConfig, file);
  assertEquals(parseConfig([], { TMUX_MCP_SSH_CONFIG: file }).sshConfig, file);
  assertEquals(parseConfig(["--ssh", "ssh://me@box:2222", "--ssh-config", file], {}).ssh, "ssh://me@box:2222");
  assertEquals(parseConfig([], { TMUX_MCP_SSH: "devbox" }).ssh, "devbox");
  const refused: [string[], Record<string, string>, RegExp][] = [
    [["--ssh=-oProxyCommand=touch x"], {}, /^--ssh: .*starts with "-"/],
    [[], { TMUX_MCP_SSH: "-F/etc/passwd" }, /^TMUX_MCP_SSH: .*starts with "-"/],
    [["--ssh", "a b"], {}, /^--ssh: .*whitespace/],
    // The host of user@HOST and ssh://… is refused at start too, not by ssh in the first call.
    [["--ssh", "me@-oProxyCommand=id"], {}, /^--ssh: .*its host "-oProxyCommand=id" starts with "-"/],
    [["--ssh", "ssh://me@-oProxyCommand=id:22"], {}, /^--ssh: .*starts with "-"/],
    [["--ssh", "ssh://-oProxyCommand=id"], {}, /^--ssh: .*starts with "-"/],
    [["--ssh", "web=me@"], {}, /^--ssh: .*names no host/],
    [["--ssh", "me@corp@-oX"], {}, /^--ssh: .*its host "-oX" starts with "-"/],
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
