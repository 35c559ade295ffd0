/**
 * `tmux-mcp doctor --ssh`, run as users run it, against a real sshd on 127.0.0.1 (tests/ssh_fixture.ts): a good
 * host (and its noisy login), a wrong host key, a wrong user key, and a host whose PATH has no tmux.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { ROOT, runProcess, START_PERMISSIONS } from "./helpers.ts";
import { NOISY_LOGIN, type SshFixture, startSshd } from "./ssh_fixture.ts";

async function doctor(args: string[]) {
  const r = await runProcess(Deno.execPath(), ["run", ...START_PERMISSIONS, ROOT + "main.ts", "doctor", ...args]);
  return { ...r, lines: r.stdout.trimEnd().split("\n") };
}

/** The one line of check `name`. */
function lineOf(lines: string[], name: string): string {
  const hits = lines.filter((l) => new RegExp(`^\\S+\\s+${name}: `).test(l));
  assertEquals(hits.length, 1, `one "${name}" line expected in:\n${lines.join("\n")}`);
  return hits[0];
}

/** The fixture's ssh config with one setting replaced (a wrong key). */
async function configWith(fx: SshFixture, from: RegExp, to: string): Promise<string> {
  const path = `${fx.dir}/ssh_config_${crypto.randomUUID().slice(0, 8)}`;
  const text = await Deno.readTextFile(fx.configPath);
  assert(from.test(text), `${from} not in the fixture's config`);
  await Deno.writeTextFile(path, text.replace(from, to));
  return path;
}

async function otherKey(fx: SshFixture): Promise<string> {
  const key = `${fx.dir}/other_${crypto.randomUUID().slice(0, 8)}`;
  await runProcess("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key]);
  return key;
}

const args = (fx: SshFixture, config = fx.configPath) => [
  "--ssh",
  fx.alias,
  "--ssh-config",
  config,
  "--socket-name",
  fx.socketName,
];

Deno.test("doctor --ssh: a good host — ssh, login, remote tmux, socket and shells ok; no local checks; exit 0", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    const r = await doctor(args(fx));
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertMatch(lineOf(r.lines, "ssh"), /^ok {4}ssh: ssh host "tmcp-remote" reached/);
    assertMatch(lineOf(r.lines, "login"), /^ok {4}login: prints nothing/);
    assertMatch(lineOf(r.lines, "remote tmux"), /^ok {4}remote tmux: \d+\.\d+/);
    assertMatch(lineOf(r.lines, "remote socket"), /1 session\(s\)/);
    assertMatch(lineOf(r.lines, "remote shells"), /bash/);
    // This machine's socket is not what the server drives: no local socket line to fail.
    assertEquals(r.lines.filter((l) => /^\S+\s+socket: /.test(l)), []);
    assertMatch(lineOf(r.lines, "client command"), new RegExp(`--ssh tmcp-remote --ssh-config ${fx.configPath}`));

    await fx.setLoginRc(NOISY_LOGIN);
    const noisy = await doctor(args(fx));
    assertEquals(noisy.code, 0, noisy.stdout);
    assertMatch(
      lineOf(noisy.lines, "login"),
      /^warn {2}login: the login prints before any command \(on stdout: "Welcome/,
    );
    assertMatch(lineOf(noisy.lines, "remote tmux"), /^ok /);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("doctor --ssh: a wrong host key, a wrong user key — FAIL ssh saying what to do, the rest skipped, exit 1", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    const key = await otherKey(fx);
    const knownHosts = `${fx.dir}/other_known_hosts`;
    await Deno.writeTextFile(knownHosts, `[127.0.0.1]:${fx.port} ${(await Deno.readTextFile(`${key}.pub`)).trim()}\n`);
    const hostKey = await doctor(
      args(fx, await configWith(fx, /UserKnownHostsFile \S+/, `UserKnownHostsFile ${knownHosts}`)),
    );
    assertEquals(hostKey.code, 1);
    assertMatch(lineOf(hostKey.lines, "ssh"), /^FAIL {2}ssh: the host key of ssh host "tmcp-remote" has CHANGED/);
    assertMatch(lineOf(hostKey.lines, "remote tmux"), /^skip /);

    const userKey = await doctor(args(fx, await configWith(fx, /IdentityFile \S+/, `IdentityFile ${key}`)));
    assertEquals(userKey.code, 1);
    assertMatch(lineOf(userKey.lines, "ssh"), /^FAIL {2}ssh: ssh host "tmcp-remote" refused to log us in/);
    assertEquals(await fx.loginCount(), 0);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("doctor --ssh: a host whose PATH has no tmux — FAIL remote tmux naming --tmux-bin, exit 1; ok with its own tmux-bin", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    await fx.setLoginRc("PATH=/nonexistent; export PATH\n");
    const r = await doctor(args(fx));
    assertEquals(r.code, 1, r.stdout);
    assertMatch(lineOf(r.lines, "ssh"), /^ok /);
    assertMatch(lineOf(r.lines, "remote tmux"), /^FAIL {2}remote tmux: "tmux" does not run on ssh host .*--tmux-bin/);
    assertMatch(lineOf(r.lines, "remote socket"), /^skip /);
    // The host's own tmux binary and socket (after its destination) are the ones checked.
    const tmuxPath = (await runProcess("sh", ["-c", "command -v tmux"])).stdout.trim();
    const own = await doctor([
      "--ssh",
      `${fx.alias},tmux-bin=${tmuxPath},socket-name=${fx.socketName}`,
      "--ssh-config",
      fx.configPath,
    ]);
    // (Its PATH still has no shell for run-command: that check fails on.)
    assertMatch(lineOf(own.lines, "remote shells"), /^FAIL /);
    assertMatch(lineOf(own.lines, "remote tmux"), /^ok {4}remote tmux: \d+\.\d+/);
    assertMatch(lineOf(own.lines, "remote socket"), /1 session\(s\)/);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("doctor --ssh: OpenBSD 6.8's tmux (no control mode) is a warning saying it is served slower, not ok", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    const bin = `${fx.dir}/tmux-openbsd`;
    await Deno.writeTextFile(
      bin,
      `#!/bin/sh\nfor a; do [ "$a" = -V ] && { echo 'tmux openbsd-6.8'; exit 0; }; done\nexec tmux "$@"\n`,
    );
    await Deno.chmod(bin, 0o755);
    const r = await doctor([...args(fx), "--tmux-bin", bin]);
    assertMatch(
      lineOf(r.lines, "remote tmux"),
      /^warn {2}remote tmux: tmux openbsd-6\.8 on ssh host "tmcp-remote" is older than 3\.2: served without control mode/,
    );
  } finally {
    await fx.cleanup();
  }
});

Deno.test("doctor --ssh: a login that exits gives an ssh command that runs as given, an --ssh-config with a space quoted", async () => {
  const fx = await startSshd();
  try {
    const spaced = `${fx.dir}/my ssh config`;
    await Deno.copyFile(fx.configPath, spaced);
    await fx.setLoginRc("exit 3\n");
    const r = await doctor(args(fx, spaced));
    assertEquals(r.code, 1, r.stdout + r.stderr);
    const hint = /try `(.*)`$/.exec(lineOf(r.lines, "ssh"))?.[1];
    assertEquals(hint, `ssh -F '${spaced}' tmcp-remote true`, r.stdout);
    // The command given reaches the host as the server does (its login exits 3 there too).
    assertEquals((await runProcess("sh", ["-c", hint!])).code, 3);
  } finally {
    await fx.clearLoginRc();
    await fx.cleanup();
  }
});

Deno.test("doctor --ssh: no server at a host's own socket says to fix that setting, not --socket-name", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    const own = await doctor(["--ssh", `${fx.alias},socket-name=nothing-here`, "--ssh-config", fx.configPath]);
    assertEquals(own.code, 1, own.stdout);
    assertMatch(
      lineOf(own.lines, "remote socket"),
      /^FAIL {2}remote socket: no tmux server on .* at -L nothing-here: start one there .* or point its ,socket-name=NAME or ,socket-path=PATH after the destination at a running one$/,
    );
    const flag = await doctor(["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", "nothing-here"]);
    assertMatch(lineOf(flag.lines, "remote socket"), /or point --socket-name or --socket-path at a running one$/);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("doctor --ssh: a login that asks a question — FAIL ssh quoting it, as the server is refused there, exit 1", async () => {
  const fx = await startSshd();
  try {
    await fx.startTmux();
    // The server's ssh keeps stdin open, so this login waits for ever there; doctor must not pass it.
    await fx.setLoginRc("printf 'Proceed with setup? [y/N] '\nread answer\n");
    const r = await doctor([...args(fx), "--connect-timeout-ms", "5000"]);
    assertEquals(r.code, 1, r.stdout + r.stderr);
    assertMatch(
      lineOf(r.lines, "ssh"),
      /^FAIL {2}ssh: ssh host "tmcp-remote": the login stopped at a prompt \("Proceed with setup\? \[y\/N\]"\), which tmux-mcp never answers: make the rc files ask nothing when not interactive \(see what the login does with `ssh -F \S+ tmcp-remote true`\)$/,
    );
    assertMatch(lineOf(r.lines, "remote tmux"), /^skip /);
  } finally {
    await fx.clearLoginRc();
    await fx.cleanup();
  }
});
