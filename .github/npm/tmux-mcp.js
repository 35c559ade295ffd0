#!/usr/bin/env node
// The npm launcher of tmux-mcp: finds the package holding the compiled binary
// for this platform (one of its optionalDependencies, which npm installs only
// where its `os`/`cpu` match) and runs that binary with the same arguments
// and stdio, so the MCP client talks to the binary directly. Exits as the
// binary does. No dependencies: it runs on any Node npm itself runs on.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const pkg = require("../package.json");
/** "platform arch" (as Node names them) → the package with that binary. */
const platforms = pkg.tmuxMcpPlatforms || {};
// TMUX_MCP_NPM_PLATFORM stands in for this machine's "platform arch" (tests of the error paths).
const here = process.env.TMUX_MCP_NPM_PLATFORM || `${process.platform} ${process.arch}`;

function fail(message) {
  process.stderr.write(`tmux-mcp: ${message}\n`);
  process.exit(1);
}

const target = platforms[here];
if (!target) {
  fail(
    `no ${pkg.name} binary for ${here}: builds exist for ${Object.keys(platforms).join(", ")}; ` +
      "elsewhere, run it from a checkout with Deno (see the README's Install section)",
  );
}
let binary;
try {
  binary = require.resolve(`${target}/bin/tmux-mcp`);
} catch {
  fail(
    `${target} (the binary for ${here}) is not installed: npm skips optional dependencies with ` +
      `--omit=optional or --no-optional; reinstall ${pkg.name}@${pkg.version} with them`,
  );
}

/**
 * This node by an absolute path: the `node` on PATH when it is this executable (a name that outlives an upgrade, such
 * as /opt/homebrew/bin/node, where the executable's own path names its version), else the executable's path.
 */
function nodePath() {
  const self = fs.realpathSync(process.execPath);
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    const candidate = path.join(dir, "node");
    try {
      if (path.isAbsolute(candidate) && fs.realpathSync(candidate) === self) return candidate;
    } catch {
      // not there: the next PATH entry
    }
  }
  return process.execPath;
}

// The command a client config should name to start this installation again: the binary's own path is inside
// npm's cache or node_modules. Under npx (npm exec) that is npx with this exact version; else this launcher, run by
// this node: the launcher's `#!/usr/bin/env node` finds no node on a GUI client's short PATH.
const underNpx = process.env.npm_command === "exec" || __dirname.split(path.sep).includes("_npx");
const launcher = underNpx ? ["npx", "-y", `${pkg.name}@${pkg.version}`] : [nodePath(), path.resolve(process.argv[1])];

const child = spawn(binary, process.argv.slice(2), {
  stdio: "inherit",
  env: { ...process.env, TMUX_MCP_LAUNCHER: JSON.stringify(launcher) },
});
// The client stops the server with a signal: pass it on, and exit once the binary has.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => {
  const reinstall = `reinstall ${pkg.name}@${pkg.version}`;
  if (e.code === "EACCES") fail(`cannot run ${binary}: it is not executable: chmod +x it, or ${reinstall}`);
  if (e.code === "ENOENT" && process.platform === "linux" && fs.existsSync(binary)) {
    // The file is there but the program loader it names is not: a glibc build on a musl system such as Alpine.
    fail(
      `cannot run ${binary}: it is built for glibc Linux and this system has no glibc loader (musl, as on ` +
        "Alpine?): run it on a glibc-based system or container, or from a checkout with Deno (see the README)",
    );
  }
  fail(`cannot start ${binary}: ${e.message}: ${reinstall}`);
});
// Signals that do not end a Node process when it sends them to itself: SIGUSR1 starts its inspector, SIGPIPE is
// ignored, the others are ignored by default.
const survived = new Set(["SIGUSR1", "SIGPIPE", "SIGWINCH", "SIGCHLD", "SIGCONT", "SIGURG"]);
child.on("exit", (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  if (!survived.has(signal)) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  // Still alive: exit as a shell reports a death by that signal, never 0.
  process.exit(128 + (os.constants.signals[signal] || 0));
});
