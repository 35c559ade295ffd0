/**
 * The MCP server with `--ssh`, driven through the SDK client
 * against a real sshd on 127.0.0.1 and a tmux server only that sshd's
 * sessions reach (tests/ssh_fixture.ts): workspace tools, hostile names,
 * one login for many calls, the failure classes, sshd stopped and started.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, type McpFixture, ROOT, START_PERMISSIONS, startTmux, textOf } from "./helpers.ts";
import { cleanShellPane, NOISY_LOGIN, type SshFixture, startSshd } from "./ssh_fixture.ts";
import { quietHome, waitUntil } from "./pane_helpers.ts";
import { processGone } from "./process_helpers.ts";
import { remotePath } from "../lib/policy/files.ts";
import { typedLine } from "../lib/exec/shell.ts";
import { bufferScripts } from "../lib/exec/runtime.ts";
import { createTmuxEngine } from "../lib/tmux/engine.ts";

/** sshd + remote tmux + an MCP server with `--ssh`, torn down together. */
async function withRemote(
  fn: (mcp: McpFixture, fx: SshFixture) => Promise<void>,
  extra: string[] = [],
): Promise<void> {
  const fx = await startSshd();
  let mcp: McpFixture | undefined;
  try {
    await fx.startTmux();
    mcp = await connect({
      args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName, ...extra],
    });
    await fn(mcp, fx);
  } finally {
    await mcp?.close();
    await fx.cleanup();
  }
}

/** Files whose name starts with "canary" in `dir` (and below it, with `deep`). */
async function canaries(dir: string, deep: boolean): Promise<string[]> {
  const found: string[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      if (e.name.startsWith("canary")) found.push(`${d}/${e.name}`);
      if (deep && e.isDirectory && !e.isSymlink) await walk(`${d}/${e.name}`).catch(() => {});
    }
  };
  await walk(dir);
  return found;
}

Deno.test("ssh server: workspace tools drive the remote tmux; hostile names create no file; one login", async () => {
  await withRemote(async (mcp, fx) => {
    const info = await mcp.ok<{ ssh_host: string; socket_path: string }>("list", { what: "server" });
    assertEquals(info.ssh_host, fx.alias);
    assertMatch(info.socket_path, new RegExp(`${fx.dir}/tmux/`));
    const sessions = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
    assertEquals(sessions.sessions.map((s) => s.session_name), ["main"]);

    // Relative names: a shell that ran them would touch the file in its cwd (the remote HOME under fx.dir, or ours).
    const hostile = [
      "a$(touch canary1)",
      "`touch canary2`",
      "x; touch canary3",
      "x';touch canary4;'",
      'y"; touch canary5; "',
      "z;",
    ];
    for (const name of hostile) {
      const made = await mcp.ok<{ session_name: string; pane_id: string }>("new", { what: "session", name });
      assertEquals(made.session_name, name);
      await mcp.ok("send-keys", { target: made.pane_id, text: "echo remote-$((6*7))", enter: true });
      await waitUntil("the remote pane to show the echo", async () => {
        const cap = await mcp.ok<{ text: string }>("capture-pane", { target: made.pane_id });
        return /remote-42/.test(cap.text) || undefined;
      }, 20_000);
    }
    // tmux itself (no ssh) sees the names byte-exact.
    const names = (await fx.tmux("list-sessions", "-F", "#{session_name}")).trim().split("\n").sort();
    assertEquals(names, ["main", ...hostile].sort());
    for (const name of hostile) {
      await mcp.ok("kill", { what: "session", target: `=${name}` });
    }
    assertEquals((await fx.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
    assertEquals(await canaries(fx.dir, true), []);
    assertEquals(await canaries(Deno.cwd(), false), []);

    // Many calls, one login: the master connection carries every client.
    for (let i = 0; i < 50; i++) await mcp.ok("list", { what: "sessions" });
    for (let i = 0; i < 10; i++) await mcp.ok("list", { what: "panes" });
    assertEquals(await fx.loginCount(), 1);
  }, ["--safety", "destructive"]);
});

Deno.test("ssh server: sshd stopped → a one-line unreachable error; started again → calls work, same server process", async () => {
  await withRemote(async (mcp, fx) => {
    await mcp.ok("list", { what: "sessions" });
    await fx.stop();
    const msg = await mcp.err("list", { what: "sessions" });
    assertMatch(msg, /cannot reach ssh host "tmcp-remote" .*Connection refused/);
    assert(!msg.includes("\n"), msg);
    await fx.start();
    await waitUntil(
      "calls to work again",
      async () => (await mcp.call("list", { what: "sessions" })).isError ? undefined : true,
      30_000,
    );
    const sessions = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
    assertEquals(sessions.sessions.map((s) => s.session_name), ["main"]);
  });
});

Deno.test("ssh server: a TMPDIR that ssh would misread in a ControlPath (a space, %, $) still connects", async () => {
  const fx = await startSshd();
  const tmp = await Deno.makeTempDir({ prefix: "tmcp tmp %h ${X}-" });
  try {
    await fx.startTmux();
    const mcp = await connect({
      env: { TMPDIR: tmp },
      args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
    });
    try {
      const listed = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
      assertEquals(listed.sessions.map((x) => x.session_name), ["main"]);
      assertEquals(await fx.loginCount(), 1);
    } finally {
      await mcp.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
    await fx.cleanup();
  }
});

Deno.test("ssh server: a remote tmux whose -V names no release (OpenBSD's, a git build) is served in control mode", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    for (const version of ["tmux openbsd-7.5", "tmux master"]) {
      const bin = `${fx.dir}/tmux-${version.split(" ")[1]}`;
      await Deno.writeTextFile(
        bin,
        `#!/bin/sh\nfor a; do [ "$a" = -V ] && { echo '${version}'; exit 0; }; done\nexec tmux "$@"\n`,
      );
      await Deno.chmod(bin, 0o755);
      const mcp = await connect({
        args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName, "--tmux-bin", bin],
      });
      try {
        const listed = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
        assertEquals(listed.sessions.map((x) => x.session_name), ["main"], version);
        const clients = await fx.tmux("list-clients", "-F", "#{client_control_mode}");
        assertEquals(clients.trim(), "1", version);
      } finally {
        await mcp.close();
      }
      await waitUntil("the control client to leave", async () => (await fx.tmux("list-clients")) === "" || undefined);
    }
  } finally {
    await fx.cleanup();
  }
});

Deno.test("ssh server: reading the remote session leaves its environment alone (the user's SSH_AUTH_SOCK, DISPLAY)", async () => {
  await withRemote(async (mcp, fx) => {
    // What a person's own ssh login gave their session: the agent and display its new windows get.
    await fx.tmux("set-environment", "-t", "main", "SSH_AUTH_SOCK", "/tmp/the-users-agent.sock");
    await fx.tmux("set-environment", "-t", "main", "DISPLAY", "localhost:10.0");
    const env = () => fx.tmux("show-environment", "-t", "main");
    const before = await env();
    // Read-only calls: the command connection's attach, and the pane-output client's (a wait).
    const pane = (await mcp.ok<{ panes: { pane_id: string }[] }>("list", { what: "panes" })).panes[0].pane_id;
    await mcp.ok("capture-pane", { target: pane });
    await mcp.ok("wait", { what: "quiet", target: pane, quiet_ms: 200, timeout_ms: 60_000 });
    // Our clients come from an sshd session without an agent or a display: attaching must not copy that in.
    assertEquals(await env(), before);
    assertMatch(before, /^SSH_AUTH_SOCK=\/tmp\/the-users-agent\.sock$/m);
  });
});

Deno.test("ssh server: the user's ssh config forwarding their agent does not hand it to the remote sessions we make", async () => {
  const fx = await startSshd();
  // The user's own ssh-agent, and a config that forwards it to this host (common for interactive logins).
  const agentSock = `${fx.dir}/agent.sock`;
  const agent = new Deno.Command("ssh-agent", { args: ["-D", "-a", agentSock], stdout: "null", stderr: "null" })
    .spawn();
  let mcp: McpFixture | undefined;
  try {
    await waitUntil(
      "ssh-agent's socket",
      async () => (await Deno.lstat(agentSock).catch(() => undefined)) && true,
      15_000,
    );
    await Deno.writeTextFile(fx.configPath, "  ForwardAgent yes\n  ForwardX11 yes\n", { append: true });
    await fx.startTmux();
    mcp = await connect({
      args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
      env: { SSH_AUTH_SOCK: agentSock },
    });
    const made = await mcp.ok<{ session_name: string }>("new", { what: "session", name: "agentless" });
    // The session's environment comes from our client's (an sshd session's): it must hold no forwarded agent.
    const env = await fx.tmux("show-environment", "-t", `=${made.session_name}`);
    assert(!/^SSH_AUTH_SOCK=/m.test(env), env);
    assert(!/^DISPLAY=/m.test(env), env);
  } finally {
    await mcp?.close();
    agent.kill("SIGTERM");
    await agent.status;
    await fx.cleanup();
  }
});

Deno.test("ssh server: remote socket missing → no-server; remote tmux missing → tmux-missing; bad key → auth; no common algorithm", async () => {
  const fx = await startSshd();
  try {
    const base = ["--ssh", fx.alias, "--ssh-config", fx.configPath];
    const cases: [string[], RegExp][] = [
      [[...base, "--socket-name", "tmcp-none"], /no tmux server is running on ssh host "tmcp-remote"/],
      [[...base, "--tmux-bin", "/nonexistent/tmux"], /tmux is not installed or not on the PATH of ssh host/],
    ];
    const badConfig = `${fx.dir}/bad_config`;
    await Deno.writeTextFile(
      badConfig,
      (await Deno.readTextFile(fx.configPath)).replace(/IdentityFile .*/, `IdentityFile ${fx.dir}/nokey`),
    );
    cases.push([["--ssh", fx.alias, "--ssh-config", badConfig], /refused to log us in/]);
    const hostKeys = `${fx.dir}/bad_known_hosts`;
    await Deno.writeTextFile(hostKeys, "");
    const unknownKey = `${fx.dir}/unknown_config`;
    await Deno.writeTextFile(
      unknownKey,
      (await Deno.readTextFile(fx.configPath)).replace(/UserKnownHostsFile .*/, `UserKnownHostsFile ${hostKeys}`),
    );
    cases.push([
      ["--ssh", fx.alias, "--ssh-config", unknownKey],
      // The hint is the command line the server runs, with its -F.
      new RegExp(
        `host key of ssh host "tmcp-remote" could not be verified .*: connect once with \`ssh -F ${unknownKey} tmcp-remote\``,
      ),
    ]);
    // A client that accepts no host key type the sshd offers (an old sshd with ssh-rsa only, seen from a new client):
    // no key of the user's is wrong, so the advice is not about keys.
    const noCommonType = `${fx.dir}/rsa_only_config`;
    await Deno.writeTextFile(
      noCommonType,
      (await Deno.readTextFile(fx.configPath)) + "  HostKeyAlgorithms rsa-sha2-512\n",
    );
    cases.push([
      ["--ssh", fx.alias, "--ssh-config", noCommonType],
      /^(?!.*(?:refused to log us in|authorized_keys)).*ssh host "tmcp-remote" and ssh agree on no algorithm \(Unable to negotiate .*no matching host key type found.*\): .*HostKeyAlgorithms/,
    ]);
    for (const [args, re] of cases) {
      const mcp = await connect({ args });
      try {
        const msg = await mcp.err("list", { what: "sessions" });
        assertMatch(msg, re);
        assert(!msg.includes("\n"), msg);
      } finally {
        await mcp.close();
      }
    }
  } finally {
    await fx.cleanup();
  }
});

Deno.test("ssh server: 8 MiB buffers byte-exact both ways; search-buffer; files: save/load here with local_file, pipe-pane there", async () => {
  await withRemote(async (mcp, fx) => {
    const local = await Deno.makeTempDir({ prefix: "tmcp-sshbuf-" });
    try {
      // Every byte value, 8 MiB: through show-buffer and load-buffer's stdin over the shared connection.
      const size = 8 * 1024 * 1024;
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 11)) & 0xff;
      await Deno.writeFile(`${local}/in.bin`, bytes);
      const loaded = await mcp.ok<{ size_bytes: number; file_host: string }>("load-buffer", {
        name: "big",
        path: `${local}/in.bin`,
        local_file: true,
      });
      assertEquals([loaded.size_bytes, loaded.file_host], [size, "local"]);
      // tmux on the remote side holds exactly these bytes.
      const remoteCopy = `${fx.dir}/remote.bin`;
      await fx.tmux("save-buffer", "-b", "big", remoteCopy);
      assertEquals(await Deno.readFile(remoteCopy), bytes);
      await Deno.remove(remoteCopy);
      const saved = await mcp.ok<{ bytes_written: number }>("save-buffer", {
        name: "big",
        path: `${local}/out.bin`,
        local_file: true,
      });
      assertEquals(saved.bytes_written, size);
      assertEquals(await Deno.readFile(`${local}/out.bin`), bytes);

      // Small text goes as set-buffer on the connection's command line (no client spawned for its stdin):
      // byte-exact, whatever tmux's parser would read in it; NUL and invalid UTF-8 keep the stdin route.
      const hostile = "\uFEFFa\nb\r\n~x $HOME ${HOME} \"q\" 's' \\n \\ #{pane_id} ; %end 1 1 1\n\t\x1b[31m é中🙂\n";
      await mcp.ok("set-buffer", { name: "small", content: hostile });
      const smallCopy = `${fx.dir}/small.bin`;
      await fx.tmux("save-buffer", "-b", "small", smallCopy);
      assertEquals(await Deno.readFile(smallCopy), new TextEncoder().encode(hostile));
      await mcp.ok("set-buffer", { name: "small-nul", content: "a\u0000b\n" });
      await fx.tmux("save-buffer", "-b", "small-nul", smallCopy);
      assertEquals(await Deno.readFile(smallCopy), new TextEncoder().encode("a\u0000b\n"));
      await Deno.remove(smallCopy);
      const pasteInto = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
      await mcp.ok("paste-text", { target: pasteInto, text: "echo pasted-$((6*7))" });
      await mcp.ok("send-keys", { target: pasteInto, keys: ["Enter"] });
      await waitUntil("the pasted line to run", async () => {
        const screen = await fx.tmux("capture-pane", "-p", "-t", pasteInto);
        return /^pasted-42$/m.test(screen) || undefined;
      }, 20_000);

      // search-buffer reads a large text buffer over the connection too.
      const line = "some remote log line\n";
      const text = line.repeat(Math.floor(size / line.length)) + "needle-in-remote\n";
      await Deno.writeTextFile(`${local}/text.txt`, text);
      await mcp.ok("load-buffer", { name: "text", path: `${local}/text.txt`, local_file: true });
      const found = await mcp.ok<{ matches: { offset_bytes: number }[] }>("search-buffer", {
        query: "needle-in-remote",
        buffers: ["text"],
      });
      assertEquals(found.matches.map((m) => m.offset_bytes), [text.length - 17]);

      // pipe-pane's file is written by the remote tmux's shell (here: the fixture's directory).
      const pane = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
      const log = `${fx.dir}/pipe.log`;
      await mcp.ok("pipe-pane", { target: pane, path: log, append: false });
      await mcp.ok("send-keys", { target: pane, text: "echo piped-$((2*21))", enter: true });
      await waitUntil("the pipe file to get the output", async () => {
        const text = await Deno.readTextFile(log).catch(() => "");
        return text.includes("piped-42") || undefined;
      }, 20_000);
      await mcp.ok("pipe-pane", { target: pane });
      assertMatch(await mcp.err("pipe-pane", { target: pane, path: "/proc/self/fd/1" }), /files under \/proc/);
    } finally {
      await Deno.remove(local, { recursive: true });
    }
  });
});

Deno.test("ssh server: run-command in bash, zsh and fish on remote panes: exact output and exit codes, no buffers left", async () => {
  await withRemote(async (mcp, fx) => {
    const shells = { bash: "bash --norc --noprofile", zsh: "zsh -f", fish: "fish --no-config" };
    for (const [shell, argv] of Object.entries(shells)) {
      const home = `${fx.dir}/home-${shell}`;
      await quietHome(home);
      const pane = await cleanShellPane(fx, shell, argv, home);
      type Run = { exit_code: number | null; output: string; timed_out: boolean };
      const a = await mcp.ok<Run>("run-command", {
        target: pane,
        command: "printf 'x%s\\n' one \"t'wo\"; sh -c 'exit 7'",
        timeout_ms: 60_000,
      });
      assertEquals([a.exit_code, a.output, a.timed_out], [7, "xone\nxt'wo", false], shell);
      const b = await mcp.ok<Run>("run-command", { target: pane, command: `cd ${fx.dir} && pwd`, timeout_ms: 60_000 });
      assertEquals([b.exit_code, b.output], [0, fx.dir], shell);
      const c = await mcp.ok<Run>("run-command", { target: pane, command: "pwd\necho done", timeout_ms: 60_000 });
      assertEquals([c.exit_code, c.output], [0, `${fx.dir}\ndone`], shell);
      // The script travels on the control connection's command line, double-quoted around its line breaks:
      // what tmux's parser would read there ($, ~, \\, ", #{}, ;) reaches the shell as written.
      const hostile = ["~", "$HOME", "${HOME}", '"q"', "#{pane_id};", "%end 1 1 1", "a\\u00e9"];
      const d = await mcp.ok<Run>("run-command", {
        target: pane,
        command: `printf '%s\\n' ${hostile.map((w) => `'${w}'`).join(" ")}\necho "two  lines"`,
        timeout_ms: 60_000,
      });
      assertEquals([d.exit_code, d.output], [0, [...hostile, "two  lines"].join("\n")], shell);
      // Tracing on (bash and zsh: xtrace and verbose; fish: fish_trace): the typed line turns it off before it evals
      // the script (xtrace would show the text it evals), the script turns it back on for the command alone.
      const fish = shell === "fish";
      const traced = (command: string) => mcp.ok<Run>("run-command", { target: pane, command, timeout_ms: 60_000 });
      await traced(fish ? "set -g fish_trace 1" : "set -xv");
      const e = await traced(fish ? 'echo "trace=$fish_trace"' : 'echo "opts=$-"');
      assertEquals(e.exit_code, 0, shell);
      assertMatch(e.output, fish ? /^trace=1$/m : /^opts=\S*x/m, shell);
      await traced(fish ? "set -e fish_trace" : "set +xv");
      const shown = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane);
      assert(!/5379\\?;[0-9a-f]{16}/.test(shown), shown);
      // The script's buffer (it holds the nonce) is gone before the command starts: every nonce in a buffer, printed
      // back as an end marker with status 0, ends nothing.
      const socket = (await fx.tmux("display-message", "-p", "#{socket_path}")).trim();
      const inBuffers = `for b in $(tmux -S ${socket} list-buffers -F "#{buffer_name}"); do ` +
        `tmux -S ${socket} show-buffer -b "$b"; done | grep -oE "5379;[0-9a-f]{16};" | cut -c6-21`;
      const f = await traced(
        `sh -c 'for n in $(${inBuffers}); do printf "\\033]5379;%s;e;0;w\\007" "$n"; done; echo after; exit 7'`,
      );
      assertEquals([f.exit_code, f.output], [7, "after"], shell);
      // The script came from a tmux buffer (the typed line reads it), not from a file of ours.
      const typed = (await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane)).replaceAll("\n", "");
      assertMatch(typed, /show-buffer -b 'tmux-mcp-\d+-r-/);
      assert(!/ (\.|source) '\//.test(typed), typed);
      // The waits follow the remote pane's output through the hub's client on the same connection.
      const since = await mcp.ok<{ cursor: string }>("capture-since", { target: pane });
      const waiting = mcp.ok<{ outcome: string }>("wait", {
        what: "text",
        target: pane,
        patterns: ["ready-9"],
        timeout_ms: 60_000,
      });
      // Repeats until stopped: wait-for-text matches new output only, and its watch may start after the first line.
      const writer = "sh -c 'while :; do echo ready-$((3*3)); sleep 0.3; done'";
      await mcp.ok("send-keys", { target: pane, text: writer, enter: true });
      assertEquals((await waiting).outcome, "matched");
      const next = await mcp.ok<{ text: string }>("capture-since", { target: pane, cursor: since.cursor });
      assertMatch(next.text, /^ready-9$/m);
      await mcp.ok("send-keys", { target: pane, keys: ["C-c"] });
      await waitUntil(`${shell} back at its prompt`, async () => {
        const cmd = (await fx.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")).trim();
        return cmd === shell || undefined;
      }, 20_000);
    }
    const left = (await fx.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n").filter((n) =>
      n.startsWith("tmux-mcp-")
    );
    assertEquals(left, []);
  });
});

Deno.test("ssh server: run-command on a host whose --tmux-bin is ~/…: the pane's shell finds that tmux", async () => {
  await withRemote(async (mcp, fx) => {
    // A tmux only the host's own ~ leads to, as the server's lines and the pane's shell both reach it.
    const home = `${fx.dir}/home`;
    await Deno.mkdir(`${home}/bin`);
    await Deno.symlink("/usr/bin/tmux", `${home}/bin/tmux`);
    for (const [shell, argv] of [["bash", "bash --norc --noprofile"], ["fish", "fish --no-config"]]) {
      const pane = await cleanShellPane(fx, shell, argv, home);
      const run = await mcp.ok<{ exit_code: number | null; output: string }>("run-command", {
        target: pane,
        command: "echo ran; echo 42",
        timeout_ms: 60_000,
      });
      assertEquals([run.exit_code, run.output], [0, "ran\n42"], shell);
    }
  }, ["--tmux-bin", "~/bin/tmux"]);
});

Deno.test("ssh server: a remote run given up on at any point never leaves its shell waiting", async () => {
  await withRemote(async (mcp, fx) => {
    type Run = { exit_code: number | null; output: string; timed_out: boolean };
    // Bounds that end the call before the shell starts (it reads the script with a tmux client of its own), while
    // it waits at its start marker (which no longer checks the armed flag), or while the command runs.
    // Around 200 ms the bound ends near the end marker: the shell's end wait (which takes the armed flag) and
    // the server's deletion of the flag race, and whichever came first must decide.
    // Each shell's end wait is its own command substitution (fish: `true (…)`).
    const shells = { bash: "bash --norc --noprofile", zsh: "zsh -f", fish: "fish --no-config" };
    for (const [shell, argv] of Object.entries(shells)) {
      const pane = await cleanShellPane(fx, shell, argv, fx.dir);
      for (const [i, timeout_ms] of [0, 1, 3, 10, 30, 100, 190, 200, 205, 210, 220, 250, 300].entries()) {
        const r = await mcp.call("run-command", { target: pane, command: `sleep 0.2; echo given-up-${i}`, timeout_ms });
        const said = `${shell}: ${r.isError ? textOf(r) : JSON.stringify(r.structuredContent)}`;
        assert(
          r.isError || (r.structuredContent as Run).timed_out || (r.structuredContent as Run).exit_code === 0,
          said,
        );
        // The next run, sent at once, waits for the one given up on (whose command may still run: its shell read
        // the script before the server gave it up), then runs: that shell was released wherever it stood. A shell
        // left waiting in a handshake would fail it.
        const next = await mcp.ok<Run>("run-command", { target: pane, command: `echo next-${i}`, timeout_ms: 60_000 })
          .catch((e) => {
            throw new Error(`after ${said} (timeout_ms ${timeout_ms}): ${e instanceof Error ? e.message : e}`);
          });
        assertEquals([next.exit_code, next.output], [0, `next-${i}`], said);
      }
    }
    // This fixture's socket is in the command line of any tmux client its shells started. The last run's end
    // is released after its answer, so its shell may still wait for a moment.
    const waiting = async () =>
      new TextDecoder().decode(
        (await new Deno.Command("pgrep", { args: ["-af", `${fx.socketName}.* wait-for tmux-mcp-`] }).output()).stdout,
      );
    await waitUntil("no remote shell left in tmux wait-for", async () => await waiting() === "" || undefined, 20_000)
      .catch(async (e) => {
        throw new Error(`${e instanceof Error ? e.message : e}: ${await waiting()}`);
      });
    await waitUntil("the given-up runs' buffers deleted", async () => {
      const names = (await fx.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n");
      return names.every((n) => !n.startsWith("tmux-mcp-")) || undefined;
    }, 20_000);
  });
});

Deno.test("run scripts in buffers: the shell's end wait and the server's give-up take the armed flag, the first decides", async () => {
  // The primitive the --ssh end handshake rests on, against a real tmux (no ssh needed): a client's
  // `delete-buffer FLAG ; wait-for CH` stops at a failed delete, and each side learns who deleted the flag.
  const tmux = await startTmux("bufscripts");
  const engine = createTmuxEngine({ bin: "tmux", socketName: tmux.socketName, maxConcurrency: 4, controlMode: true });
  try {
    const scripts = bufferScripts(engine);
    const shellEndWait = (flag: string, channel: string) =>
      new Deno.Command("tmux", {
        args: ["-L", tmux.socketName, "delete-buffer", "-b", flag, ";", "wait-for", channel],
        stdout: "null",
        stderr: "null",
      }).spawn();
    const arm = async (id: string) => {
      const files = await scripts.files(id);
      await scripts.arm(files);
      await engine.run(scripts.write(files, "true\n").slice(0, -1));
      return files;
    };
    // The server first: the flag was still there, so the shell's client fails at once and never waits.
    const a = await arm("a");
    assertEquals(await scripts.take!(a.armed), true);
    assertEquals((await shellEndWait(a.armed, "tmux-mcp-a-e").status).success, false);
    // The shell first: its client took the flag and waits; the server learns it and releases it.
    const b = await arm("b");
    const waiting = shellEndWait(b.armed, "tmux-mcp-b-e");
    await waitUntil("the shell's client to take the flag", async () => {
      const names = (await tmux.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n");
      return !names.includes(b.armed) || undefined;
    }, 20_000);
    assertEquals(await scripts.take!(b.armed), false);
    await engine.run(["wait-for", "-S", "tmux-mcp-b-e"]);
    assertEquals((await waiting.status).success, true);
    await scripts.close();
    assertEquals((await tmux.tmux("list-buffers", "-F", "#{buffer_name}")).trim(), "");
  } finally {
    await engine.close();
    await tmux.kill();
  }
});

Deno.test("ssh server: load-buffer of an empty file on the tmux host is an error and leaves the buffer as it was", async () => {
  await withRemote(async (mcp, fx) => {
    const empty = `${fx.dir}/empty.txt`;
    await Deno.writeFile(empty, new Uint8Array());
    const refused = /^file ".*empty\.txt" is empty and tmux holds no empty buffer: "r" was left unchanged/;
    assertMatch(await mcp.err("load-buffer", { name: "r", path: empty }), refused);
    assertEquals((await mcp.ok<{ buffers: unknown[] }>("list-buffers")).buffers, []);
    await mcp.ok("set-buffer", { name: "r", content: "old content" });
    assertMatch(await mcp.err("load-buffer", { name: "r", path: empty }), refused);
    const { buffers } = await mcp.ok<{ buffers: { name: string; size_bytes: number }[] }>("list-buffers");
    assertEquals(buffers.map((b) => [b.name, b.size_bytes]), [["r", 11]]);
    assertEquals(await fx.tmux("show-buffer", "-b", "r"), "old content");
    // A file with content replaces it.
    await Deno.writeTextFile(`${fx.dir}/new.txt`, "new");
    assertEquals(
      (await mcp.ok<{ size_bytes: number }>("load-buffer", { name: "r", path: `${fx.dir}/new.txt` })).size_bytes,
      3,
    );
    assertEquals(await fx.tmux("show-buffer", "-b", "r"), "new");
    assertEquals((await fx.tmux("list-buffers", "-F", "#{buffer_name}")).trim(), "r");
  });
});

Deno.test("ssh server: load/save-buffer use the tmux host's files unless local_file; pty-* run there by default", async () => {
  await withRemote(async (mcp, fx) => {
    // tmux reads and writes these itself (format syntax in the names stays literal); the answer names the host.
    const src = `${fx.dir}/in#{session_name}.txt`;
    await Deno.writeTextFile(src, "from-the-tmux-host\n");
    const loaded = await mcp.ok<{ size_bytes: number; file_host: string }>("load-buffer", { name: "r", path: src });
    assertEquals([loaded.size_bytes, loaded.file_host], [19, fx.alias]);
    assertEquals(await fx.tmux("show-buffer", "-b", "r"), "from-the-tmux-host\n");
    const out = `${fx.dir}/out#{pane_id}.txt`;
    const saved = await mcp.ok<{ bytes_written: number; file_host: string }>("save-buffer", { name: "r", path: out });
    assertEquals([saved.bytes_written, saved.file_host], [19, fx.alias]);
    assertEquals(await Deno.readTextFile(out), "from-the-tmux-host\n");
    assertMatch(await mcp.err("load-buffer", { name: "r", path: `${fx.dir}/missing` }), /No such file/);
    assertMatch(await mcp.err("save-buffer", { name: "nope", path: `${fx.dir}/x` }), /nope/);
    // --files-root holds on the tmux host too (by name).
    assertMatch(await mcp.err("load-buffer", { name: "r", path: "/etc/hostname" }), /--files-root/);
    const here = await mcp.ok<{ file_host: string }>("load-buffer", { name: "h", path: src, local_file: true });
    assertEquals(here.file_host, "local");

    // No --terminal-backend: the pty-* tools run on the remote tmux, and say so.
    const launched = await mcp.ok<{ pty_id: string; runs_on: string }>("pty-launch", { command: "sh" });
    assertEquals(launched.runs_on, fx.alias);
    assertMatch(await fx.tmux("list-sessions", "-F", "#{session_name}"), new RegExp(`-${launched.pty_id}$`, "m"));
    await mcp.ok("pty-kill-session", { pty_id: launched.pty_id });
  }, ["--files-root", "/tmp"]);
});

Deno.test("ssh server: --terminal-backend pty asks for this machine's PTYs, and pty-launch says local", async () => {
  await withRemote(async (mcp, fx) => {
    const launched = await mcp.ok<{ pty_id: string; runs_on: string }>("pty-launch", { command: "sh" });
    assertEquals(launched.runs_on, "local");
    assert(!(await fx.tmux("list-sessions", "-F", "#{session_name}")).includes(launched.pty_id));
    await mcp.ok("pty-kill-session", { pty_id: launched.pty_id });
  }, ["--terminal-backend", "pty"]);
});

Deno.test("ssh server: pty-* on the tmux backend run on the remote tmux; the capture file is written there", async () => {
  await withRemote(async (mcp, fx) => {
    const { pty_id } = await mcp.ok<{ pty_id: string }>("pty-launch", {
      command: "env -i PATH=/usr/bin:/bin HOME=/nonexistent sh",
      rows: 20,
      cols: 70,
      working_dir: fx.dir,
    });
    // The program runs in a session of the remote tmux server.
    const names = await fx.tmux("list-sessions", "-F", "#{session_name}");
    assertMatch(names, new RegExp(`-${pty_id}$`, "m"));
    const log = `${fx.dir}/pty.log`;
    await mcp.ok("pty-capture", { pty_id, output_file: log });
    await mcp.ok("pty-send-keys", { pty_id, keys: "pwd; echo pty-$((5*5))\n" });
    await waitUntil("the remote program's output on the screen", async () => {
      const s = await mcp.ok<{ screen: string }>("pty-get-screen", { pty_id });
      return (s.screen.includes("pty-25") && s.screen.includes(fx.dir)) || undefined;
    }, 20_000);
    await waitUntil("the capture file on the tmux host", async () => {
      return (await Deno.readTextFile(log).catch(() => "")).includes("pty-25") || undefined;
    }, 20_000);
    await mcp.ok("pty-capture", { pty_id });
    // A background job is in the terminal's session but not in its foreground: the kill hangs up the session on
    // the tmux host (its pids are that host's; here the same machine, as another user).
    await mcp.ok("pty-send-keys", { pty_id, keys: "sleep 1000 & echo BG=$!\n" });
    const bg = Number(
      await waitUntil("the background job's pid", async () => {
        const s = await mcp.ok<{ screen: string }>("pty-get-screen", { pty_id });
        return /BG=(\d+)/.exec(s.screen)?.[1];
      }, 20_000),
    );
    assert(!processGone(bg), `the background sleep ${bg} runs`);
    await mcp.ok("pty-kill-session", { pty_id });
    assert(!(await fx.tmux("list-sessions", "-F", "#{session_name}")).includes(pty_id));
    await waitUntil("the background job to end", () => Promise.resolve(processGone(bg) || undefined), 20_000);
  }, ["--terminal-backend", "tmux"]);
});

Deno.test("remotePath: lexical checks for files on the tmux host; typedLine reads a buffer with quoted words", () => {
  assertEquals(remotePath("/tmp/a/../b/./log", {}), "/tmp/b/log");
  assertEquals(remotePath("/srv/x/log", { root: "/srv/x/" }), "/srv/x/log");
  for (
    const [path, root, re] of [
      ["/proc/self/fd/1", undefined, /files under \/proc/],
      ["/tmp/../dev/zero", undefined, /files under \/dev/],
      ["/srv/x/../y/log", "/srv/x", /confines file tools to "\/srv\/x"/],
    ] as const
  ) {
    let msg = "";
    try {
      remotePath(path, { root });
    } catch (e) {
      msg = (e as Error).message;
    }
    assertMatch(msg, re);
  }
  const p = { scriptPath: "tmux-mcp-1-r-ab", tmuxBin: "tmux", socketPath: "/tmp/it's $(x)/s", inBuffers: true };
  assertEquals(
    typedLine("posix", p),
    ` { __tmux_mcp_prev=$? __tmux_mcp_o=$-; set +xv; } 2>/dev/null; eval "$('tmux' -S '/tmp/it'\\''s $(x)/s' show-buffer -b 'tmux-mcp-1-r-ab' ';' delete-buffer -b 'tmux-mcp-1-r-ab')"`,
  );
  assertEquals(
    typedLine("fish", p),
    ` builtin source ('tmux' -S '/tmp/it\\'s $(x)/s' show-buffer -b 'tmux-mcp-1-r-ab' ';' delete-buffer -b 'tmux-mcp-1-r-ab' | psub)`,
  );
});

Deno.test("ssh server: a login that prints banners on stdout and stderr: byte-exact results, one line saying why", async () => {
  const fx = await startSshd();
  const local = await Deno.makeTempDir({ prefix: "tmcp-sshnoise-" });
  try {
    await fx.startTmux();
    await fx.setLoginRc(NOISY_LOGIN);
    // Control mode on (commands on the control client, fallbacks spawned) and off (every command spawned).
    for (const mode of ["on", "off"]) {
      const mcp = await connect({
        args: [
          ...["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
          ...["--safety", "destructive", "--control-mode", mode],
        ],
      });
      try {
        const info = await mcp.ok<{ ssh_host: string; version: string; session_count: number }>("list", {
          what: "server",
        });
        assertEquals([info.ssh_host, info.session_count], [fx.alias, 1], mode);
        assertMatch(info.version, /^\d+\.\d+[a-z]?$/, mode);
        const listed = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
        assertEquals(listed.sessions.map((x) => x.session_name), ["main"], mode);
        // 19 bytes in, 19 bytes out: through show-buffer (a spawned client), save-buffer and load-buffer.
        const content = "nineteen bytes: ok!";
        assertEquals(new TextEncoder().encode(content).length, 19);
        await mcp.ok("set-buffer", { name: "b19", content });
        const shown = await mcp.ok<{ size_bytes: number; text: string }>("show-buffer", { name: "b19" });
        assertEquals([shown.size_bytes, shown.text], [19, content], mode);
        const saved = await mcp.ok<{ bytes_written: number }>("save-buffer", { name: "b19", path: `${local}/b.txt` });
        assertEquals(saved.bytes_written, 19);
        assertEquals(await Deno.readTextFile(`${local}/b.txt`), content);
        await mcp.ok("load-buffer", { name: "back", path: `${local}/b.txt` });
        assertEquals(await fx.tmux("show-buffer", "-b", "back"), content);
        // Ids are tmux's alone.
        const made = await mcp.ok<{ session_id: string; window_id: string; pane_id: string }>("new", {
          what: "session",
          name: `s-${mode}`,
        });
        assertMatch(made.session_id, /^\$\d+$/);
        assertMatch(made.window_id, /^@\d+$/);
        assertMatch(made.pane_id, /^%\d+$/);
        await mcp.ok("send-keys", { target: made.pane_id, text: "echo noise-$((6*7))", enter: true });
        await waitUntil("the pane to show the echo", async () => {
          const cap = await mcp.ok<{ text: string }>("capture-pane", { target: made.pane_id });
          return /^noise-42$/m.test(cap.text) || undefined;
        }, 20_000);
        await mcp.ok("kill", { what: "session", target: made.session_id });
        // tmux's own complaint, not the login's stderr banner.
        const bad = await mcp.err("kill", { what: "session", target: "=nosuch" });
        assert(!/pyenv|Welcome/.test(bad), bad);
        assertMatch(bad, /nosuch/);
        // Said once, in one line, naming the cause.
        await mcp.waitForStderr(/prints text before tmux starts/);
        const notes = mcp.stderr().split("\n").filter((l) => l.includes("prints text before tmux starts"));
        assertEquals(notes.length, 1, notes.join("\n"));
        assertMatch(notes[0], /Welcome to the devbox.*make ~\/\.bashrc .*quiet for non-interactive shells/);
        // The model is told too, where it looks at the server.
        const again = await mcp.ok<{ ssh_note?: string }>("list", { what: "server" });
        assertEquals(`tmux-mcp warn: ${again.ssh_note}`, notes[0]);
      } finally {
        await mcp.close();
      }
    }
    // A login that ends before tmux starts (exit 0 in an rc file) is refused in one line, never an empty answer.
    await fx.setLoginRc("echo 'Welcome'\nexit 0\n");
    const mcp = await connect({
      args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
    });
    try {
      const msg = await mcp.err("list", { what: "sessions" });
      assertMatch(msg, /^the login shell on ssh host "tmcp-remote" ended before tmux started/);
      assertMatch(msg, new RegExp(`ssh -F ${fx.configPath} tmcp-remote true`));
      assert(!msg.includes("\n"), msg);
    } finally {
      await mcp.close();
    }
  } finally {
    await Deno.remove(local, { recursive: true });
    await fx.cleanup();
  }
});

Deno.test("ssh server: a relative --ssh-config is given absolute in the commands a person runs elsewhere", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    // Started in the config's directory, named relative to it, as a client started there would.
    const mcp = await connect({
      spawn: [
        ...["sh", "-c", 'cd "$0" && exec "$@"', fx.dir, Deno.execPath(), "run", ...START_PERMISSIONS, ROOT + "main.ts"],
        ...["--ssh", fx.alias, "--ssh-config", "./ssh_config", "--socket-name", fx.socketName],
      ],
    });
    try {
      await mcp.ok("list", { what: "sessions" });
      // A login that ends before tmux: the hint a person tries from their own directory.
      await fx.tmux("kill-server");
      await fx.setLoginRc("exit 0\n");
      await fx.stop();
      await fx.start();
      const msg = await mcp.err("list", { what: "sessions" });
      assertMatch(msg, new RegExp(`\`ssh -F ${fx.dir}/ssh_config tmcp-remote true\``), msg);
    } finally {
      await mcp.close();
    }
  } finally {
    await fx.clearLoginRc();
    await fx.cleanup();
  }
});

Deno.test("ssh server: rc files slower than the old fixed bounds are waited for, with progress; past --connect-timeout-ms → 'slow'; a question is quoted", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    const base = ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName];
    await fx.setLoginRc("sleep 6\n");
    const patient = await connect({ args: [...base, "--connect-timeout-ms", "15000"] });
    try {
      const listed = await patient.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
      assertEquals(listed.sessions.map((x) => x.session_name), ["main"]);
      await patient.ok("set-buffer", { name: "s", content: "after a slow login" });
      assertEquals((await patient.ok<{ text: string }>("show-buffer", { name: "s" })).text, "after a slow login");
      assertMatch(patient.stderr(), /still waiting for ssh host "tmcp-remote" to start a session \(5 s of 15 s\)/);
    } finally {
      await patient.close();
    }
    await fx.setLoginRc("sleep 8\n");
    const strict = await connect({ args: [...base, "--connect-timeout-ms", "3000"] });
    try {
      const msg = await strict.err("list", { what: "sessions" });
      assertMatch(
        msg,
        /^ssh host "tmcp-remote" did not start a session within 3 s: the machine or the login is slow; raise --connect-timeout-ms \(now 3000\)/,
      );
      assertMatch(msg, new RegExp(`ssh -F ${fx.configPath} tmcp-remote true`));
      assert(!/not tmux|--tmux-bin/.test(msg) && !msg.includes("\n"), msg);
    } finally {
      await strict.close();
    }
    // A login that asks a question waits for ever: the error quotes the question, not only "slow".
    for (const [stream, redirect] of [["stderr", " >&2"], ["stdout", ""]]) {
      await fx.setLoginRc(`echo 'Welcome'\nprintf 'Proceed with setup? [y/N] '${redirect}\nread answer\n`);
      const asked = await connect({ args: [...base, "--connect-timeout-ms", "3000"] });
      try {
        const msg = await asked.err("list", { what: "sessions" });
        assertMatch(
          msg,
          /^ssh host "tmcp-remote" did not start a session: its login stopped at a prompt \("Proceed with setup\? \[y\/N\]"\), which tmux-mcp never answers: make the rc files ask nothing/,
          stream,
        );
        assert(!msg.includes("\n"), msg);
      } finally {
        await asked.close();
      }
    }
  } finally {
    await fx.clearLoginRc();
    await fx.cleanup();
  }
});

Deno.test("ssh server: the connection dropping in the middle of run-command is said so, not 'pane closed'", async () => {
  await withRemote(async (mcp, fx) => {
    const pane = await cleanShellPane(fx, "bash", "bash --norc --noprofile", fx.dir);
    const running = mcp.call("run-command", { target: pane, command: "sleep 60", timeout_ms: 90_000 });
    await waitUntil("sleep to run in the pane", async () => {
      const cmd = (await fx.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")).trim();
      return cmd === "sleep" || undefined;
    }, 30_000);
    await fx.stop();
    const r = await running;
    assert(r.isError === true, JSON.stringify(r));
    const msg = (r.content as { text: string }[])[0].text;
    assert(!/closed while the command ran|internal error/.test(msg), msg);
    assertMatch(msg, /cannot reach ssh host "tmcp-remote"/);
    assert(!msg.includes("\n"), msg);
    // The pane and its command are still there.
    assertEquals((await fx.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")).trim(), "sleep");
  });
});

/** The pids of the remote tmux's control clients whose flags match `flags` (e.g. the pane-output followers'). */
async function clientPids(fx: SshFixture, flags: RegExp): Promise<number[]> {
  const out = await fx.tmux("list-clients", "-F", "#{client_pid} #{client_flags}");
  return out.split("\n").filter((l) => flags.test(l)).map((l) => Number(l.split(" ")[0]));
}

/** The parent of process `pid` (Linux /proc). */
async function parentOf(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

Deno.test("ssh server: the waits' connection dropping while a wait runs is said so, not 'pane_exited'", async () => {
  await withRemote(async (mcp, fx) => {
    const pane = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    for (const what of ["text", "quiet"]) {
      const waiting = mcp.call("wait", {
        what,
        target: pane,
        ...(what === "text" ? { patterns: ["never printed"] } : { quiet_ms: 110_000 }),
        timeout_ms: 120_000,
      });
      // The follower of pane output: the read-only client without no-output (that one is the command connection).
      const pids = await waitUntil("the waits' client to attach", async () => {
        const found = await clientPids(fx, /^\d+ (?!.*no-output).*read-only/);
        return found.length > 0 ? found : undefined;
      }, 30_000);
      for (const pid of pids) Deno.kill(await parentOf(pid), "SIGKILL");
      const r = await waiting;
      assert(r.isError === true, `wait ${what}: ${JSON.stringify(r)}`);
      const msg = (r.content as { text: string }[])[0].text;
      assertMatch(msg, new RegExp(`^the connection following ${pane} ended while waiting for ${what} \\(the pane is`));
      assert(!msg.includes("\n"), msg);
      assertEquals((await fx.tmux("display-message", "-p", "-t", pane, "#{pane_dead}")).trim(), "0");
    }
  });
});
