/**
 * Large messages through the real stdio path: the SDK client writes a
 * 32 MiB set-buffer request to the server's stdin; the server's linear
 * transport must handle it in about the time of copying 32 MiB a few times
 * (the SDK's own transport took 33 s for this). Baselines: copying 32 MiB,
 * and JSON-encoding it, in the same process.
 */
import { connect, startTmux } from "../helpers.ts";

const MiB = 1024 * 1024;
const tmux = await startTmux("bench");
const mcp = await connect({ socketName: tmux.socketName });
const payload32 = "x".repeat(32 * MiB);
const payload8 = "x".repeat(8 * MiB);
const bytes32 = new TextEncoder().encode(payload32);

globalThis.addEventListener("unload", () => {
  new Deno.Command("tmux", { args: ["-L", tmux.socketName, "kill-server"] }).outputSync();
});

Deno.bench("baseline: copy 32 MiB in memory", { group: "32MiB", baseline: true }, () => {
  new Uint8Array(bytes32);
});

Deno.bench("baseline: JSON.stringify + encode 32 MiB", { group: "32MiB" }, () => {
  new TextEncoder().encode(JSON.stringify({ content: payload32 }));
});

Deno.bench("set-buffer 32 MiB round trip over stdio", { group: "32MiB", n: 5, warmup: 1 }, async () => {
  await mcp.ok("set-buffer", { name: "big", content: payload32 });
});

Deno.bench("set-buffer 8 MiB round trip over stdio", { n: 5, warmup: 1 }, async () => {
  await mcp.ok("set-buffer", { name: "big8", content: payload8 });
});

Deno.bench("list-buffers round trip over stdio (spawns tmux)", { n: 200 }, async () => {
  await mcp.ok("list-buffers");
});

Deno.bench("invalid call round trip over stdio (no tmux)", { n: 200 }, async () => {
  await mcp.call("show-buffer", {});
});
