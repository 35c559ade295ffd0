/**
 * The tmux a desktop app's short PATH does not reach: Claude Desktop started from the Dock gets
 * PATH=/usr/bin:/bin:/usr/sbin:/sbin, where Homebrew's or Nix's tmux is not. The server and doctor find it in the
 * folders package managers install into (lib/host/binaries.ts); here, Nix's per-user ~/.nix-profile/bin.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, ROOT, runProcess, START_PERMISSIONS, startTmux } from "./helpers.ts";
import { findOnPath } from "../lib/host/binaries.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno`;

Deno.test("with no tmux on PATH, the server and doctor use the one in a package manager's folder", async () => {
  const home = await Deno.makeTempDir({ prefix: "tmux-mcp-gui-path-" });
  const tmux = await startTmux();
  try {
    await Deno.mkdir(`${home}/.nix-profile/bin`, { recursive: true });
    const installed = `${home}/.nix-profile/bin/tmux`;
    await Deno.symlink(findOnPath("tmux", Deno.env.get("PATH") ?? "")!, installed);
    // A PATH with no tmux on it (nor /bin, which is /usr/bin on a merged-/usr system).
    await Deno.mkdir(`${home}/empty`);
    const env = { PATH: `${home}/empty`, HOME: home, DENO_DIR };
    const mcp = await connect({ socketName: tmux.socketName, env });
    try {
      const listed = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
      assertEquals(listed.sessions.map((s) => s.session_name), ["main"]);
      // run-command's script calls tmux back by the path the server found.
      const run = await mcp.ok<{ output: string; exit_code: number }>("run-command", {
        target: "main",
        command: "echo found-it",
      });
      assertEquals([run.output.trim(), run.exit_code], ["found-it", 0]);
    } finally {
      await mcp.close();
    }
    const doctor = await runProcess(Deno.execPath(), [
      "run",
      ...START_PERMISSIONS,
      ROOT + "main.ts",
      "doctor",
      "--socket-name",
      tmux.socketName,
    ], { env, clearEnv: true });
    const line = doctor.stdout.split("\n").find((l) => /^\S+\s+tmux: /.test(l)) ?? "";
    assertMatch(line, /^ok /, doctor.stdout);
    assert(line.includes(installed), line);
  } finally {
    await tmux.kill();
    await Deno.remove(home, { recursive: true });
  }
});
