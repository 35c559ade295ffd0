/**
 * Reading a buffer (the store's `read`, no MCP transport): through a file
 * the tmux server writes itself, against a spawned `tmux show-buffer`
 * streamed through a pipe, for 1 KiB, 1 MiB and 8 MiB buffers.
 */
import { startTmux } from "../helpers.ts";
import { createSpawnExecutor } from "../../lib/tmux/executor.ts";
import { createTmuxEngine } from "../../lib/tmux/engine.ts";
import { createServerFileReader } from "../../lib/buffers/server_file.ts";
import { createBufferStore } from "../../lib/buffers/store.ts";

const tmux = await startTmux("bench-read");
const exec = createSpawnExecutor({ bin: "tmux", socketName: tmux.socketName, maxConcurrency: 4 });
const engine = createTmuxEngine({ bin: "tmux", socketName: tmux.socketName, maxConcurrency: 4, controlMode: true });
const files = createServerFileReader(engine);
const stores = { "server file": createBufferStore(exec, { files }), "show-buffer": createBufferStore(exec) };
const sizes = { "1 KiB": 1024, "1 MiB": 1 << 20, "8 MiB": 8 << 20 };
for (const [label, size] of Object.entries(sizes)) {
  await tmux.tmuxStdin(new Uint8Array(size).fill(97), "load-buffer", "-b", label, "-");
}
globalThis.addEventListener("unload", () => {
  new Deno.Command("tmux", { args: ["-L", tmux.socketName, "kill-server"] }).outputSync();
});

for (const label of Object.keys(sizes)) {
  for (const [route, store] of Object.entries(stores)) {
    Deno.bench(`read ${label} buffer: ${route}`, { group: label, baseline: route === "show-buffer" }, async () => {
      const bytes = await store.read(label);
      if (bytes.length !== sizes[label as keyof typeof sizes]) throw new Error("short read");
    });
  }
}
