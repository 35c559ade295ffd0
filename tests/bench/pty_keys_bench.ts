/**
 * pty-send-keys through the real stdio path, per backend: what a line typed
 * with Enter costs (the watch for a prompt it brings up) against keys
 * without Enter, into `cat` and at an interactive bash prompt.
 * Run: deno bench --allow-all tests/bench/pty_keys_bench.ts
 */
import { connect, startTmux } from "../helpers.ts";

const tmux = await startTmux("ptykeys-bench");
globalThis.addEventListener("unload", () => {
  new Deno.Command("tmux", { args: ["-L", tmux.socketName, "kill-server"] }).outputSync();
});
const bash = "env -i PATH=/usr/bin:/bin HOME=/tmp TERM=xterm-256color HISTFILE=/dev/null bash --norc --noprofile";

for (const backend of ["pty", "tmux"]) {
  const mcp = await connect({ socketName: tmux.socketName, args: ["--terminal-backend", backend] });
  const launch = async (command: string) => (await mcp.ok<{ pty_id: string }>("pty-launch", { command })).pty_id;
  const cat = await launch("cat > /dev/null");
  const shell = await launch(bash);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const s = await mcp.ok<{ screen: string }>("pty-get-screen", { pty_id: shell });
    if (s.screen.includes("bash-")) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  Deno.bench(`${backend}: pty-send-keys text + Enter into cat`, { group: `${backend} cat`, n: 200 }, async () => {
    await mcp.ok("pty-send-keys", { pty_id: cat, keys: "hello\n" });
  });
  Deno.bench(`${backend}: pty-send-keys text, no Enter, into cat`, { group: `${backend} cat`, n: 200 }, async () => {
    await mcp.ok("pty-send-keys", { pty_id: cat, keys: "hello" });
  });
  Deno.bench(`${backend}: pty-send-keys ':' + Enter at a bash prompt`, { n: 100 }, async () => {
    await mcp.ok("pty-send-keys", { pty_id: shell, keys: ":\n" });
  });
}
