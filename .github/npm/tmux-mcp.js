#!/usr/bin/env node
// The npm launcher of tmux-mcp: finds the package holding the compiled binary
// for this platform (one of its optionalDependencies, which npm installs only
// where its `os`/`cpu` match) and runs that binary with the same arguments
// and stdio, so the MCP client talks to the binary directly. Exits as the
// binary does. No dependencies: it runs on any Node npm itself runs on.
"use strict";
const { spawn } = require("node:child_process");
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

// The command a client config should name to start this installation again: the binary's own path is inside
// npm's cache or node_modules. Under npx (npm exec) that is npx with this exact version; else this launcher.
const underNpx = process.env.npm_command === "exec" || __dirname.split(path.sep).includes("_npx");
const launcher = underNpx ? ["npx", "-y", `${pkg.name}@${pkg.version}`] : [path.resolve(process.argv[1])];

const child = spawn(binary, process.argv.slice(2), {
  stdio: "inherit",
  env: { ...process.env, TMUX_MCP_LAUNCHER: JSON.stringify(launcher) },
});
// The client stops the server with a signal: pass it on, and exit once the binary has.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => fail(`cannot start ${binary}: ${e.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
