/**
 * Cost of the pty-* operations per backend, without the MCP transport: what
 * our own code adds (internal PTY) against what a tmux round trip costs.
 * Run: deno bench --allow-all tests/bench/pty_bench.ts
 */
import { createPtyBackend } from "../../lib/terminal/pty/pty_backend.ts";
import { createTmuxBackend } from "../../lib/terminal/tmux_backend.ts";
import { createSpawnExecutor } from "../../lib/tmux/executor.ts";
import type { TerminalBackend } from "../../lib/terminal/backend.ts";

const socketName = `tmcp-bench-${Deno.pid}`;
const backends: Record<string, TerminalBackend> = {
  pty: createPtyBackend(),
  tmux: createTmuxBackend(createSpawnExecutor({ bin: "tmux", socketName, maxConcurrency: 8 }), {
    keepSessions: false,
  }),
};
globalThis.addEventListener("unload", () => {
  new Deno.Command("tmux", { args: ["-L", socketName, "kill-server"], stderr: "null" }).outputSync();
});

const command = "printf '\\033[31m%s\\033[0m line\\n' $(seq 1 200); exec cat";
for (const [name, backend] of Object.entries(backends)) {
  const { session_id: id } = await backend.launch({ command, rows: 24, cols: 80, cwd: "/tmp" });
  const deadline = Date.now() + 5000;
  while (!(await backend.screen(id, false)).lines.some((l) => l.startsWith("200")) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  Deno.bench({ name: `${name}: screen`, group: "screen" }, async () => {
    await backend.screen(id, false);
  });
  Deno.bench({ name: `${name}: screen with colours`, group: "colours" }, async () => {
    await backend.screen(id, true);
  });
  Deno.bench({ name: `${name}: scrollback 200 lines`, group: "scrollback" }, async () => {
    await backend.lines(id, 200);
  });
  Deno.bench({ name: `${name}: send one key`, group: "send" }, async () => {
    await backend.send(id, new Uint8Array([0x61]));
  });
}
