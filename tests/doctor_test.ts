/**
 * `tmux-mcp doctor`, run as users run it: the real entry point as a
 * subprocess with the start task's permissions, against a private tmux
 * server, a missing tmux binary (by --tmux-bin or not on PATH), a tmux too
 * old, an unused socket and a bad config file.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import {
  connect,
  ROOT,
  runProcess,
  runWithReadOnlyDir,
  START_PERMISSIONS,
  startTmux,
  uniqueSocketName,
} from "./helpers.ts";
import { parseCommand } from "../lib/config.ts";
import { judgeTmux } from "../lib/doctor/tmux.ts";
import { findOnPath } from "../lib/host/binaries.ts";
import { absoluteFlags, lastingPath, shellWord } from "../lib/doctor/client.ts";

async function doctor(args: string[]) {
  const r = await runProcess(Deno.execPath(), ["run", ...START_PERMISSIONS, ROOT + "main.ts", "doctor", ...args]);
  return { ...r, lines: r.stdout.trimEnd().split("\n") };
}

/** Kills the fixture's tmux server and removes its socket file. */
async function stop(t: { socketName: string; kill(): Promise<void> }) {
  await t.kill();
  const dir = Deno.env.get("TMUX_TMPDIR") || "/tmp";
  await Deno.remove(`${dir}/tmux-${Deno.uid()}/${t.socketName}`).catch(() => {});
}

/** The one line of check `name`; fails unless exactly one line has it. */
function lineOf(lines: string[], name: string): string {
  const hits = lines.filter((l) => new RegExp(`^\\S+\\s+${name}: `).test(l));
  assertEquals(hits.length, 1, `one "${name}" line expected in:\n${lines.join("\n")}`);
  return hits[0];
}

/** Every line is a check line or the summary; nothing looks like a stack trace. */
function assertOneLineEach(r: { lines: string[]; stderr: string }) {
  for (const l of r.lines) {
    assertMatch(l, /^(ok|warn|FAIL|skip|info) {2}[a-z ]+: \S|^tmux-mcp doctor: /, `unexpected line: ${l}`);
  }
  assert(!/^\s+at /m.test(r.lines.join("\n") + r.stderr), "stack trace in the output");
  assertEquals(r.stderr, "");
}

Deno.test("doctor: healthy private server — every check ok, exit 0", async () => {
  const t = await startTmux("doc");
  try {
    const r = await doctor(["--socket-name", t.socketName]);
    assertOneLineEach(r);
    assertEquals(r.code, 0, r.stdout);
    assertMatch(
      lineOf(r.lines, "tmux"),
      /^ok {4}tmux: \d+\.\d+\S* \(minimum 3\.2(; before 3\.7 a control client's start can crash .*tmux 3\.7 fixes it)?\)$/,
    );
    assertMatch(lineOf(r.lines, "socket"), new RegExp(`^ok .*socket name "${t.socketName}".* reachable, 1 session`));
    // .ci/run installs util-linux's setpriv, as Debian and Fedora have it: control clients end with the server.
    assertMatch(lineOf(r.lines, "control mode"), /^ok .*ends with the server, even a SIGKILLed one/);
    assertMatch(lineOf(r.lines, "shells"), /^ok .*run-command: bash\b/);
    // sh is dash on Debian and Ubuntu, whose prompt run-command cannot drive: not listed as one it can.
    assert(!/\bsh\b/.test(lineOf(r.lines, "shells")), lineOf(r.lines, "shells"));
    assertMatch(lineOf(r.lines, "pty libc"), /^ok .*loaded through FFI$/);
    assertMatch(lineOf(r.lines, "config"), /^ok .*defaults/);
    assertMatch(lineOf(r.lines, "call budget"), /^info {2}call budget: 50000 ms per call .*Codex: tool_timeout_sec/);
    const command = lineOf(r.lines, "client command").split(" ").slice(4);
    assertEquals(command.slice(1), [
      "task",
      "--quiet",
      "--config",
      `${ROOT}deno.json`,
      "start",
      "--socket-name",
      t.socketName,
    ]);
    assertEquals(Deno.realPathSync(command[0]), Deno.realPathSync(Deno.execPath()), "the command starts this deno");
    assertMatch(r.lines.at(-1)!, /works$/);
  } finally {
    await stop(t);
  }
});

Deno.test("doctor: missing tmux binary — FAIL line saying what to do, later tmux checks skipped, exit 1", async () => {
  const r = await doctor(["--tmux-bin", "/nonexistent/tmux", "--socket-name", uniqueSocketName("doc")]);
  assertOneLineEach(r);
  assertEquals(r.code, 1);
  assertMatch(lineOf(r.lines, "tmux"), /^FAIL {2}tmux: .*"\/nonexistent\/tmux".*install it.*--tmux-bin/);
  assertMatch(lineOf(r.lines, "socket"), /^skip /);
  assertMatch(lineOf(r.lines, "control mode"), /^skip /);
  assertMatch(r.lines.at(-1)!, /1 check\(s\) failed/);
});

Deno.test("doctor: a --tmux-bin that cannot run (a folder, a file without x) — FAIL line saying what to do", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-doctor-bin-" });
  try {
    await Deno.writeTextFile(`${dir}/tmux`, "#!/bin/sh\necho 'tmux 3.4'\n", { mode: 0o644 });
    await Deno.chmod(`${dir}/tmux`, 0o644);
    for (const bin of [dir, `${dir}/tmux`]) {
      const r = await doctor(["--tmux-bin", bin, "--socket-name", uniqueSocketName("doc")]);
      assertOneLineEach(r);
      assertEquals(r.code, 1);
      assertMatch(
        lineOf(r.lines, "tmux"),
        new RegExp(
          `^FAIL {2}tmux: cannot run "${bin}": .+: it must be a tmux executable \\(chmod \\+x it, or pass ` +
            `--tmux-bin the path of tmux\\)$`,
        ),
      );
      assertMatch(lineOf(r.lines, "control mode"), /^skip /);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor judges tmux -V as the server does: no tmux (Python 3.11) and OpenBSD 6.8's tmux are FAIL lines", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-doctor-v-" });
  try {
    for (
      const [printed, line] of [
        [
          "Python 3.11.2",
          /^FAIL {2}tmux: "[^"]+" is not tmux \(its -V printed "Python 3\.11\.2"\): pass --tmux-bin PATH/,
        ],
        ["tmux openbsd-6.8", /^FAIL {2}tmux: openbsd-6\.8 is older than the minimum 3\.2: upgrade tmux/],
      ] as const
    ) {
      const bin = `${dir}/${printed.replace(/\W/g, "_")}`;
      await Deno.writeTextFile(bin, `#!/bin/sh\necho '${printed}'\n`, { mode: 0o755 });
      await Deno.chmod(bin, 0o755);
      const r = await doctor(["--tmux-bin", bin, "--socket-name", uniqueSocketName("doc")]);
      assertOneLineEach(r);
      assertEquals(r.code, 1, r.stdout);
      assertMatch(lineOf(r.lines, "tmux"), line);
      assertMatch(lineOf(r.lines, "control mode"), /^skip /);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor: no server on the socket — says how to start one, exit 1", async () => {
  const name = uniqueSocketName("doc");
  const r = await doctor(["--socket-name", name]);
  assertOneLineEach(r);
  assertEquals(r.code, 1);
  assertMatch(lineOf(r.lines, "tmux"), /^ok /);
  assertEquals(
    lineOf(r.lines, "socket"),
    `FAIL  socket: no server running on socket name "${name}": start one with \`tmux -L ${name} new-session -d\`, ` +
      "or point --socket-name/--socket-path at a running server",
  );
  assertMatch(lineOf(r.lines, "control mode"), /^skip /);
  // The README's doctor section tells a user what each of these lines is: every word of every check's name is in it.
  const readme = await Deno.readTextFile(ROOT + "README.md");
  const prose = readme.slice(readme.indexOf("### doctor"), readme.indexOf("```text", readme.indexOf("### doctor")));
  const unnamed = r.lines.map((l) => /^\S+ +([a-z ]+): /.exec(l)?.[1]).filter((n) => n !== undefined)
    .filter((n) => n.split(" ").some((w) => !new RegExp(`\\b${w}\\b`, "i").test(prose)));
  assertEquals(unnamed, [], "doctor prints checks the README's doctor section does not name");
});

Deno.test("doctor: no server — the command it gives starts one with that --tmux-bin, paths with spaces quoted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp doc " });
  const bin = `${dir}/my bin/tmux`;
  const socket = `${dir}/s k`;
  await Deno.mkdir(`${dir}/my bin`);
  await Deno.symlink(findOnPath("tmux", Deno.env.get("PATH") ?? "")!, bin);
  try {
    const args = ["--tmux-bin", bin, "--socket-path", socket];
    const r = await doctor(args);
    assertEquals(r.code, 1, r.stdout);
    const line = lineOf(r.lines, "socket");
    const start = /start one with `([^`]+)`/.exec(line)?.[1];
    assertEquals(start, `${shellWord(bin)} -S ${shellWord(socket)} new-session -d`, line);
    // Pasted into a shell whose PATH has no tmux (a GUI app's, a package manager's tmux found off PATH), it works.
    const sh = await runProcess("/bin/sh", ["-c", start!], { env: { PATH: dir, HOME: dir }, clearEnv: true });
    assertEquals(sh.code, 0, sh.stderr);
    const again = await doctor(args);
    assertEquals(again.code, 0, again.stdout);
    assertMatch(lineOf(again.lines, "socket"), /^ok .* reachable, 1 session/);
  } finally {
    await runProcess(bin, ["-S", socket, "kill-server"]);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor: a tmux installed under another name (tmux-next) is tmux: version read, control mode ok", async () => {
  const t = await startTmux("doc");
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-doc-" });
  // tmux -V prints the name it was started by: "tmux-next 3.3a".
  const bin = `${dir}/tmux-next`;
  await Deno.symlink(findOnPath("tmux", Deno.env.get("PATH") ?? "")!, bin);
  try {
    const r = await doctor(["--tmux-bin", bin, "--socket-name", t.socketName]);
    assertOneLineEach(r);
    assertEquals(r.code, 0, r.stdout);
    assertMatch(lineOf(r.lines, "tmux"), /^ok {4}tmux: \d+\.\d+\S* \(minimum 3\.2/);
    assertMatch(lineOf(r.lines, "control mode"), /^ok .*attached and answered/);
  } finally {
    await stop(t);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor --control-mode off: control mode is not tried, so a tmux without it passes, as the server does", async () => {
  const t = await startTmux("doc");
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-doc-" });
  // A tmux whose control mode fails (as behind a wrapper that cannot pass a terminal through), everything else works.
  const real = findOnPath("tmux", Deno.env.get("PATH") ?? "")!;
  await Deno.writeTextFile(
    `${dir}/tmux`,
    `#!/bin/sh\nfor a; do [ "$a" = -C ] && { echo 'no control mode' >&2; exit 1; }; done\nexec '${real}' "$@"\n`,
    { mode: 0o755 },
  );
  await Deno.chmod(`${dir}/tmux`, 0o755);
  try {
    const on = await doctor(["--tmux-bin", `${dir}/tmux`, "--socket-name", t.socketName]);
    assertEquals(on.code, 1, on.stdout);
    // What the line says to do is what follows.
    assertMatch(
      lineOf(on.lines, "control mode"),
      /^FAIL .*: check that a session exists, or serve with --control-mode off/,
    );
    const args = ["--tmux-bin", `${dir}/tmux`, "--socket-name", t.socketName, "--control-mode", "off"];
    const r = await doctor(args);
    assertOneLineEach(r);
    assertEquals(
      lineOf(r.lines, "control mode"),
      "skip  control mode: off (--control-mode off): one tmux client per command",
    );
    assertEquals(r.code, 0, r.stdout);
    const mcp = await connect({ args });
    try {
      assertEquals((await mcp.ok<{ sessions: unknown[] }>("list", { what: "sessions" })).sessions.length, 1);
    } finally {
      await mcp.close();
    }
  } finally {
    await stop(t);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor: tmux not needed (pty toolset, internal backend) — no server is a warning, exit 0", async () => {
  const r = await doctor(["--socket-name", uniqueSocketName("doc"), "--toolsets", "pty"]);
  assertOneLineEach(r);
  assertEquals(r.code, 0, r.stdout);
  assertMatch(lineOf(r.lines, "socket"), /^warn /);
});

Deno.test("doctor: bad config file — FAIL config line naming the file, exit 1", async () => {
  const t = await startTmux("doc");
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(file, '{"maxTokensPerResponse": ');
    const r = await doctor(["--socket-name", t.socketName, "--config", file]);
    assertOneLineEach(r);
    assertEquals(r.code, 1);
    assertMatch(lineOf(r.lines, "config"), new RegExp(`^FAIL {2}config: config file ${file}: not valid JSON.*fix the`));
    assertMatch(lineOf(r.lines, "socket"), /^ok /);

    await Deno.writeTextFile(file, '{"maxTokensPerResponse": 5000, "toolConfigs": {"no-such-tool": {}}}');
    const unknown = await doctor(["--socket-name", t.socketName, "--config", file]);
    assertEquals(unknown.code, 1);
    assertMatch(lineOf(unknown.lines, "config"), /^FAIL .*unknown tool "no-such-tool"/);

    // The server refuses to start with this file: doctor said "ok", and --install wrote it into a client's config.
    await Deno.writeTextFile(file, '{"toolConfigs": {"show-buffer": {"alwaysBuffer": true}}}');
    const never = await doctor(["--socket-name", t.socketName, "--config", file]);
    assertEquals(never.code, 1, never.stdout);
    assertMatch(lineOf(never.lines, "config"), /^FAIL .*toolConfigs\.show-buffer\.alwaysBuffer: .*remove alwaysBuffer/);

    await Deno.writeTextFile(file, '{"maxTokensPerResponse": 5000}');
    const good = await doctor(["--socket-name", t.socketName, "--config", file]);
    assertEquals(good.code, 0, good.stdout);
    assertMatch(lineOf(good.lines, "config"), /^ok .*valid: 5000 tokens per response$/);
  } finally {
    await Deno.remove(file);
    await stop(t);
  }
});

Deno.test("doctor parses the server's flags; a flag value 'doctor' is not the subcommand", () => {
  const cmd = parseCommand(["--socket-name", "doctor", "doctor", "--safety", "readonly"], {});
  assertEquals(cmd.kind, "doctor");
  if (cmd.kind !== "doctor") return;
  assertEquals(cmd.config.socketName, "doctor");
  assertEquals(cmd.config.safety, "readonly");
  assertEquals(cmd.args, ["--socket-name", "doctor", "--safety", "readonly"]);
  assertEquals(parseCommand(["--socket-name", "doctor"], {}).kind, "serve");
});

Deno.test("doctor helpers: tmux version strings, PATH lookup, shell quoting", () => {
  assertEquals(judgeTmux("tmux 3.3a"), "ok-unsafe-start");
  assertEquals(judgeTmux("tmux next-3.8"), "ok");
  assertEquals(judgeTmux("tmux 3.4-rc"), "ok-unsafe-start");
  assertEquals(judgeTmux("tmux master"), "unknown");
  assertEquals(judgeTmux("tmux openbsd-7.5"), "unknown");
  assertEquals(judgeTmux("tmux openbsd-6.8"), "old");
  assertEquals(judgeTmux("tmux 3.1c"), "old");
  assertEquals(judgeTmux("Python 3.11.2"), "none");
  assertEquals(findOnPath("sh", "/nonexistent:/bin:/usr/bin")?.endsWith("/sh"), true);
  assertEquals(findOnPath("no-such-shell-xyz", "/bin:/usr/bin"), undefined);
  assertEquals(shellWord("/a/b.json"), "/a/b.json");
  assertEquals(shellWord("it's x"), `'it'"'"'s x'`);
  assertEquals(
    absoluteFlags(["--config", "b.json", "--audit-log=logs/a", "--socket-name", "s", "--socket-path", "/abs"], "/w/"),
    ["--config", "/w/b.json", "--audit-log=/w/logs/a", "--socket-name", "s", "--socket-path", "/abs"],
  );
  // --files-root is a folder; --tmux-bin a path only with a slash (a bare name is looked up on PATH).
  assertEquals(
    absoluteFlags(["--files-root", "work", "--tmux-bin", "./bin/tmux", "--tmux-bin=tmux", "--tmux-bin=b/tmux"], "/w"),
    ["--files-root", "/w/work", "--tmux-bin", "/w/bin/tmux", "--tmux-bin=tmux", "--tmux-bin=/w/b/tmux"],
  );
});

Deno.test("doctor from a checkout names deno by an absolute path: the PATH's deno when it is this one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-denopath-" });
  try {
    // tmux alone on PATH (the deno of this test may sit beside it, in /usr/bin).
    const tmuxDir = `${dir}/tmux`;
    await Deno.mkdir(tmuxDir);
    await Deno.symlink(findOnPath("tmux", Deno.env.get("PATH") ?? "")!, `${tmuxDir}/tmux`);
    const commandWith = async (path: string) => {
      const r = await runProcess(Deno.execPath(), ["run", ...START_PERMISSIONS, ROOT + "main.ts", "doctor"], {
        // The test's deno cache: a HOME of its own must not make deno fetch the dependencies again.
        env: { PATH: path, HOME: dir, DENO_DIR: Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno` },
        clearEnv: true,
      });
      return r.stdout.split("\n").find((l) => l.startsWith("info  client command: "))?.split(" ")[4];
    };
    // A GUI client has no shell PATH: without a deno on PATH, the executable's own path.
    assertEquals(await commandWith(tmuxDir), Deno.execPath());
    // The PATH's name for this deno (a link, as Homebrew's and npm's bin directories hold), not its target.
    await Deno.mkdir(`${dir}/bin`);
    await Deno.symlink(Deno.execPath(), `${dir}/bin/deno`);
    assertEquals(await commandWith(`${dir}/bin:${tmuxDir}`), `${dir}/bin/deno`);
    // Another deno first on PATH is not the one that runs this checkout.
    await Deno.mkdir(`${dir}/other`);
    await Deno.writeTextFile(`${dir}/other/deno`, "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    assertEquals(await commandWith(`${dir}/other:${dir}/bin:${tmuxDir}`), Deno.execPath());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a binary is named as PATH names it: Homebrew's link in bin, not the versioned Cellar file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-lasting-" });
  try {
    // Homebrew's layout: the binary in the Cellar under its version, a link to it in bin. The binary is this deno
    // under the name tmux-mcp (a hard link, or a copy across file systems), which doctor takes for a compiled one;
    // its executable path (/proc/self/exe) is the Cellar file.
    const cellar = `${dir}/Cellar/tmux-mcp/0.1.0/bin/tmux-mcp`;
    await Deno.mkdir(cellar.slice(0, cellar.lastIndexOf("/")), { recursive: true });
    await Deno.link(Deno.execPath(), cellar).catch(() => Deno.copyFile(Deno.execPath(), cellar));
    await Deno.mkdir(`${dir}/bin`);
    await Deno.symlink(`../Cellar/tmux-mcp/0.1.0/bin/tmux-mcp`, `${dir}/bin/tmux-mcp`);
    const tmuxDir = `${dir}/tmux`;
    await Deno.mkdir(tmuxDir);
    await Deno.symlink(findOnPath("tmux", Deno.env.get("PATH") ?? "")!, `${tmuxDir}/tmux`);
    const r = await runProcess(`${dir}/bin/tmux-mcp`, ["run", ...START_PERMISSIONS, ROOT + "main.ts", "doctor"], {
      env: {
        PATH: `${dir}/bin:${tmuxDir}`,
        HOME: dir,
        DENO_DIR: Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno`,
      },
      clearEnv: true,
    });
    assertEquals(
      r.stdout.split("\n").find((l) => l.startsWith("info  client command: ")),
      `info  client command: ${dir}/bin/tmux-mcp`,
    );
    // Not on PATH, or another tmux-mcp first on it: the executable's own path.
    assertEquals(lastingPath(cellar, "/nonexistent"), cellar);
    await Deno.mkdir(`${dir}/other`);
    await Deno.writeTextFile(`${dir}/other/tmux-mcp`, "#!/bin/sh\n", { mode: 0o755 });
    assertEquals(lastingPath(cellar, `${dir}/other:${dir}/bin`), cellar);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor: tmux missing from PATH, or too old — a FAIL line saying what to do, no control-mode guess, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-doctor-path-" });
  try {
    // Only deno on PATH (by a link), no tmux.
    await Deno.mkdir(`${dir}/bare`);
    await Deno.symlink(Deno.execPath(), `${dir}/bare/deno`);
    const env = { HOME: dir, DENO_DIR: Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno` };
    const run = async (path: string) => {
      const r = await runProcess(Deno.execPath(), [
        "run",
        ...START_PERMISSIONS,
        ROOT + "main.ts",
        "doctor",
        "--socket-name",
        uniqueSocketName("doc"),
      ], { env: { ...env, PATH: path }, clearEnv: true });
      return { ...r, lines: r.stdout.trimEnd().split("\n") };
    };
    const missing = await run(`${dir}/bare`);
    assertEquals(missing.code, 1);
    assert(!/^\s+at /m.test(missing.stdout + missing.stderr), "stack trace in the output");
    assertMatch(
      lineOf(missing.lines, "tmux"),
      /^FAIL {2}tmux: tmux is not installed .*: install it .* or pass --tmux-bin/,
    );
    assertMatch(lineOf(missing.lines, "control mode"), /^skip /);

    // A tmux 2.9 earlier in PATH (it answers everything with its version, as the brief's stand-in does).
    await Deno.mkdir(`${dir}/old`);
    await Deno.writeTextFile(`${dir}/old/tmux`, "#!/bin/sh\necho 'tmux 2.9'\n", { mode: 0o755 });
    await Deno.chmod(`${dir}/old/tmux`, 0o755);
    const old = await run(`${dir}/old:${Deno.env.get("PATH")}`);
    assertOneLineEach(old);
    assertEquals(old.code, 1, old.stdout);
    assertEquals(
      lineOf(old.lines, "tmux"),
      "FAIL  tmux: 2.9 is older than the minimum 3.2: upgrade tmux (brew install tmux, or your distribution's " +
        "backports) or pass --tmux-bin PATH to a newer one",
    );
    // Not "control mode is off ... check that a session exists": the version is the one thing to fix.
    assertEquals(
      lineOf(old.lines, "control mode"),
      "skip  control mode: not tried with tmux 2.9: upgrade tmux (see the tmux line)",
    );
    assertMatch(old.lines.at(-1)!, /^tmux-mcp doctor: 1 check\(s\) failed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor: an --audit-log the server could not open is a FAIL line; a new one is ok and not created", async () => {
  const dir = await Deno.makeTempDir();
  const socket = uniqueSocketName("doc");
  try {
    // A server given these flags stops at start; doctor used to print no line about it.
    const missing = await doctor(["--socket-name", socket, "--audit-log", `${dir}/no/such/audit.log`]);
    assertOneLineEach(missing);
    assertEquals(missing.code, 1);
    assertMatch(lineOf(missing.lines, "audit log"), new RegExp(`^FAIL .*does not exist: create ${dir}/no/such or`));
    const folder = await doctor(["--socket-name", socket, "--audit-log", dir]);
    assertMatch(lineOf(folder.lines, "audit log"), /^FAIL .* is not a file: give --audit-log the path of a file$/);
    const fresh = await doctor(["--socket-name", socket, "--audit-log", `${dir}/audit.log`]);
    assertMatch(lineOf(fresh.lines, "audit log"), /^ok .*audit\.log is created at start/);
    assertEquals([...Deno.readDirSync(dir)].length, 0, "doctor created nothing");
    const quiet = await doctor(["--socket-name", socket]);
    assertEquals(quiet.lines.filter((l) => / audit log: /.test(l)), []);
    // A folder that exists but takes no new file: a user's chmod; root writes anyway, so there a read-only bind mount
    // of it in a mount namespace of its own (skipped where unshare is not allowed).
    const locked = `${dir}/locked`;
    await Deno.mkdir(locked);
    const args = ["--socket-name", socket, "--audit-log", `${locked}/audit.log`];
    let r;
    if (Deno.uid() !== 0) {
      await Deno.chmod(locked, 0o555);
      r = await doctor(args);
      await Deno.chmod(locked, 0o755);
    } else {
      const p = await runWithReadOnlyDir(locked, ["doctor", ...args]);
      if (p) r = { ...p, lines: p.stdout.trimEnd().split("\n") };
    }
    if (r) {
      assertOneLineEach(r);
      assertEquals(r.code, 1);
      assertMatch(
        lineOf(r.lines, "audit log"),
        new RegExp(
          `^FAIL {2}audit log: cannot create ${locked}/audit\\.log \\(\\w+\\): give a path in a directory you can write$`,
        ),
      );
      assertEquals([...Deno.readDirSync(locked)].length, 0);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
