/**
 * The npm channel end to end: .github/scripts/npm.ts packs the launcher and
 * the four platform packages as the release workflow does, from "binaries"
 * that are real programs speaking MCP (each runs this checkout's main.ts
 * with the start task's permission set: `deno compile` cannot run here).
 * Then, as a user would: `npm install` of the .tgz files into a temporary
 * prefix, driven by an MCP SDK client over stdio against real tmux; the
 * launcher's one-line errors (another platform, the platform package
 * missing); and `npx -y <launcher>` from a throw-away local registry serving
 * the packed files, followed by `doctor --install claude-code`, whose
 * written command is started and answers a `list` call.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, ROOT, START_PERMISSIONS, startTmux } from "./helpers.ts";
import { findOnPath } from "../lib/host/binaries.ts";
import { startRegistry } from "./install_registry.ts";
import { VERSION } from "../lib/version.ts";
import { launcherPackage, platformPackage, TARGETS } from "../.github/scripts/release.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno`;
const LAUNCHER = launcherPackage();
const HERE = `${Deno.build.os} ${Deno.build.arch === "x86_64" ? "x64" : "arm64"}`;
const HERE_TARGET = Object.keys(TARGETS).find((t) => `${TARGETS[t].nodePlatform} ${TARGETS[t].nodeArch}` === HERE)!;

/** The packed tarballs (built once per module), in a folder removed at unload. */
let packed: Promise<{ dir: string; tarballs: string[] }> | undefined;

function pack(): Promise<{ dir: string; tarballs: string[] }> {
  packed ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-npm-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    // The stand-in for each compiled binary: the server itself, run from this checkout as the start task runs it.
    await Deno.mkdir(`${dir}/dist`);
    const script = `#!/bin/sh\nexec '${Deno.execPath()}' run ${
      START_PERMISSIONS.map((w) => `'${w}'`).join(" ")
    } '${ROOT}main.ts' "$@"\n`;
    for (const target of Object.keys(TARGETS)) {
      await Deno.writeTextFile(`${dir}/dist/tmux-mcp-${target}`, script, { mode: 0o755 });
    }
    // As the release workflow runs it.
    const r = await run(Deno.execPath(), [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run=npm",
      `${ROOT}.github/scripts/npm.ts`,
      ...["--version", VERSION, "--dist", `${dir}/dist`, "--out", `${dir}/npm`, "--repo", "example/tmux-mcp"],
    ]);
    assertEquals(r.code, 0, r.stderr);
    return { dir, tarballs: r.stdout.trim().split("\n").map((f) => `${dir}/npm/${f}`) };
  })();
  return packed;
}

async function run(cmd: string, args: string[], env: Record<string, string> = {}, cwd?: string) {
  const out = await new Deno.Command(cmd, { args, env, cwd, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A clean HOME with its own npm cache: nothing of this machine's npm set-up leaks in. */
async function npmHome(): Promise<{ home: string; env: Record<string, string>; done(): Promise<void> }> {
  const home = await Deno.makeTempDir({ prefix: "tmux-mcp-npm-home-" });
  const env = {
    HOME: home,
    DENO_DIR,
    npm_config_cache: `${home}/.npm`,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
  return { home, env, done: () => Deno.remove(home, { recursive: true }) };
}

const tarballOf = (tarballs: string[], pkg: string) =>
  tarballs.find((t) => t.endsWith(`/${pkg.slice(1).replace("/", "-")}-${VERSION}.tgz`))!;

async function packageJson(tgz: string): Promise<Record<string, unknown>> {
  const r = await run("tar", ["-xzOf", tgz, "package/package.json"]);
  return JSON.parse(r.stdout);
}

Deno.test("npm: one launcher with the four platform packages as optionalDependencies, each with os/cpu and its binary", async () => {
  const { tarballs } = await pack();
  assertEquals(tarballs.length, 5);
  assertEquals(tarballs.at(-1), tarballOf(tarballs, LAUNCHER), "the launcher is packed (and published) last");
  const launcher = await packageJson(tarballOf(tarballs, LAUNCHER));
  assertEquals(launcher.bin, { "tmux-mcp": "bin/tmux-mcp.js" });
  assertEquals(launcher.mcpName, "io.github.example/tmux-mcp");
  assertEquals(launcher.version, VERSION);
  for (const target of Object.keys(TARGETS)) {
    const name = platformPackage(target);
    assertEquals((launcher.optionalDependencies as Record<string, string>)[name], VERSION);
    const pkg = await packageJson(tarballOf(tarballs, name));
    assertEquals([pkg.os, pkg.cpu], [[TARGETS[target].nodePlatform], [TARGETS[target].nodeArch]]);
    const files = (await run("tar", ["-tzvf", tarballOf(tarballs, name)])).stdout;
    assertMatch(files, /^-rwxr-xr-x .* package\/bin\/tmux-mcp$/m);
  }
});

Deno.test("npm: installed from the .tgz files into a prefix, tmux-mcp answers MCP against real tmux", async () => {
  const { tarballs } = await pack();
  const h = await npmHome();
  const tmux = await startTmux("npm");
  try {
    const prefix = `${h.home}/prefix`;
    const install = await run("npm", [
      "install",
      "--offline",
      "--prefix",
      prefix,
      tarballOf(tarballs, LAUNCHER),
      tarballOf(tarballs, platformPackage(HERE_TARGET)),
    ], { ...h.env, PATH: Deno.env.get("PATH")! });
    assertEquals(install.code, 0, install.stderr);
    const bin = `${prefix}/node_modules/.bin/tmux-mcp`;
    const version = await run(bin, ["--version"], { ...h.env, PATH: Deno.env.get("PATH")! });
    assertEquals(version.stdout, `tmux-mcp ${VERSION}\n`);
    const mcp = await connect({ spawn: [bin, "--socket-name", tmux.socketName], env: h.env });
    try {
      const listed = await mcp.ok<{ sessions: unknown[] }>("list", { what: "sessions" });
      assertEquals(listed.sessions.length, 1);
    } finally {
      await mcp.close();
    }
    // Ctrl-\ where the client runs, or a client ending it with SIGQUIT: Node died of it and left the binary running.
    const server = new Deno.Command(bin, {
      args: ["--socket-name", tmux.socketName],
      env: { ...h.env, PATH: Deno.env.get("PATH")! },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = server.stdin.getWriter();
    await writer.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
    const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let answered = "";
    while (!answered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      answered += value;
    }
    assertMatch(answered, /"id":1/);
    server.kill("SIGQUIT");
    const ended = await server.status;
    reader.releaseLock();
    await server.stdout.cancel().catch(() => {});
    await writer.close().catch(() => {});
    // The binary ended cleanly (exit 0) on the signal passed on to it, and the launcher exited as it did.
    assertEquals([ended.code, ended.signal], [0, null]);
    // What doctor --install writes starts from a GUI client too, whose short PATH has no node for the launcher's
    // `#!/usr/bin/env node` (nor tmux: --tmux-bin names it).
    const tmuxBin = findOnPath("tmux", Deno.env.get("PATH")!)!;
    const installed = await run(bin, [
      "doctor",
      "--install",
      "cursor",
      ...["--socket-name", tmux.socketName, "--tmux-bin", tmuxBin],
    ], { ...h.env, PATH: Deno.env.get("PATH")! });
    assertEquals(installed.code, 0, installed.stdout + installed.stderr);
    const config = JSON.parse(await Deno.readTextFile(`${h.home}/.cursor/mcp.json`));
    const entry = config.mcpServers.tmux as { command: string; args: string[] };
    assertEquals(entry.args.slice(-4), ["--socket-name", tmux.socketName, "--tmux-bin", tmuxBin]);
    const gui = await connect({ spawn: [entry.command, ...entry.args], env: { ...h.env, PATH: "/nonexistent" } });
    try {
      assertEquals((await gui.ok<{ sessions: unknown[] }>("list", { what: "sessions" })).sessions.length, 1);
    } finally {
      await gui.close();
    }
  } finally {
    await tmux.kill();
    await h.done();
  }
});

Deno.test("npm: another platform, the platform package left out, or its binary unusable: one line and exit 1, never 0", async () => {
  const { tarballs } = await pack();
  const h = await npmHome();
  try {
    const env = { ...h.env, PATH: Deno.env.get("PATH")! };
    const both = `${h.home}/both`, alone = `${h.home}/alone`;
    const a = await run("npm", [
      "install",
      "--offline",
      "--prefix",
      both,
      tarballOf(tarballs, LAUNCHER),
      tarballOf(tarballs, platformPackage(HERE_TARGET)),
    ], env);
    assertEquals(a.code, 0, a.stderr);
    const other = await run(`${both}/node_modules/.bin/tmux-mcp`, ["--version"], {
      ...env,
      TMUX_MCP_NPM_PLATFORM: "win32 x64",
    });
    assertEquals(other.code, 1);
    assertEquals(other.stdout, "");
    assertEquals(
      other.stderr,
      `tmux-mcp: no ${LAUNCHER} binary for win32 x64: builds exist for linux x64, linux arm64, darwin x64, darwin arm64; ` +
        "elsewhere, run it from a checkout with Deno (see the README's Install section)\n",
    );
    // The launcher alone (npm could not fetch the optional dependency, or was told to omit it).
    const b = await run("npm", ["install", "--offline", "--prefix", alone, tarballOf(tarballs, LAUNCHER)], env);
    assertEquals(b.code, 0, b.stderr);
    const missing = await run(`${alone}/node_modules/.bin/tmux-mcp`, ["--version"], env);
    assertEquals(missing.code, 1);
    assertEquals(
      missing.stderr,
      `tmux-mcp: ${platformPackage(HERE_TARGET)} (the binary for ${HERE}) is not installed: npm skips optional ` +
        `dependencies with --omit=optional or --no-optional; reinstall ${LAUNCHER}@${VERSION} with them\n`,
    );
    // The platform package there but its binary unusable: not executable, built for another libc (its loader
    // missing), or killed by a signal Node does not die of when it re-raises it (SIGUSR1 would start its inspector).
    const binary = `${both}/node_modules/${platformPackage(HERE_TARGET)}/bin/tmux-mcp`;
    const launch = () => run(`${both}/node_modules/.bin/tmux-mcp`, ["--version"], env);
    await Deno.chmod(binary, 0o644);
    const notExecutable = await launch();
    assertEquals([notExecutable.code, notExecutable.stdout], [1, ""]);
    assertEquals(
      notExecutable.stderr,
      `tmux-mcp: cannot run ${binary}: it is not executable: chmod +x it, or reinstall ${LAUNCHER}@${VERSION}\n`,
    );
    if (Deno.build.os === "linux") {
      await Deno.writeTextFile(binary, "#!/lib/ld-musl-or-glibc-not-here.so.1\n", { mode: 0o755 });
      await Deno.chmod(binary, 0o755);
      const noLoader = await launch();
      assertEquals([noLoader.code, noLoader.stdout], [1, ""]);
      assertMatch(
        noLoader.stderr,
        /^tmux-mcp: cannot run \S+\/bin\/tmux-mcp: it is built for glibc Linux and this system has no glibc loader .*: run it on a glibc-based system .*\n$/,
      );
    }
    for (const [signal, number] of [["USR1", 10], ["PIPE", 13], ["TERM", 15]] as const) {
      await Deno.writeTextFile(binary, `#!/bin/sh\nkill -${signal} $$\n`, { mode: 0o755 });
      await Deno.chmod(binary, 0o755);
      const killed = await new Deno.Command(`${both}/node_modules/.bin/tmux-mcp`, {
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(new TextDecoder().decode(killed.stderr), "", signal);
      // Died of the same signal, or exited as a shell reports that: never 0.
      assert(killed.signal === `SIG${signal}` || killed.code === 128 + number, `${signal}: ${JSON.stringify(killed)}`);
    }
  } finally {
    await h.done();
  }
});

Deno.test("npm: npx -y from a registry, then doctor --install claude-code: the written command serves MCP", async () => {
  const { tarballs } = await pack();
  const registry = await startRegistry(tarballs);
  const h = await npmHome();
  const tmux = await startTmux("npx");
  try {
    const env = { ...h.env, PATH: Deno.env.get("PATH")!, npm_config_registry: registry.url };
    // The new user's one command (on a clean HOME, in any folder).
    const r = await run("npx", ["-y", LAUNCHER, "doctor", "--install", "claude-code"], env, h.home);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertMatch(r.stdout, /added server "tmux" in Claude Code's .*\/\.claude\.json \(a new file\)/);
    const entry = JSON.parse(await Deno.readTextFile(`${h.home}/.claude.json`)).mcpServers.tmux;
    assertEquals(entry, { type: "stdio", command: "npx", args: ["-y", `${LAUNCHER}@${VERSION}`], env: {} });
    // What Claude Code then starts: that command, with the user's socket flag appended as a client would pass it.
    const mcp = await connect({ spawn: [entry.command, ...entry.args, "--socket-name", tmux.socketName], env });
    try {
      const listed = await mcp.ok<{ sessions: unknown[] }>("list", { what: "sessions" });
      assertEquals(listed.sessions.length, 1);
    } finally {
      await mcp.close();
    }
    assert(r.stderr === "" || !/error/i.test(r.stderr), r.stderr);
  } finally {
    await tmux.kill();
    await h.done();
    await registry.close();
  }
});
