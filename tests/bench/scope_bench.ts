/**
 * What a session scope costs a call: the same calls through a server without
 * scope, one with `--sessions`, and one with `--scope tagged`, on one private
 * tmux server with a few sessions out of scope.
 *
 * Run: `deno bench -A tests/bench/scope_bench.ts`
 */
import { connect, startTmux } from "../helpers.ts";

const tmux = await startTmux("scopebench");
for (const name of ["a", "b", "c", "d"]) await tmux.tmux("new-session", "-d", "-s", `other-${name}`);
await tmux.tmux("set-option", "-t", "main", "@mcp", "on");
const pane = (await tmux.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
const servers = {
  "no scope": await connect({ socketName: tmux.socketName }),
  "--sessions main": await connect({ socketName: tmux.socketName, args: ["--sessions", "main"] }),
  "--scope tagged": await connect({ socketName: tmux.socketName, args: ["--scope", "tagged"] }),
};

globalThis.addEventListener("unload", () => {
  new Deno.Command("tmux", { args: ["-L", tmux.socketName, "kill-server"] }).outputSync();
});

for (const [label, mcp] of Object.entries(servers)) {
  const baseline = label === "no scope";
  Deno.bench(`list sessions: ${label}`, { group: "list", baseline, n: 300 }, async () => {
    await mcp.ok("list", { what: "sessions" });
  });
  Deno.bench(`capture-pane %id: ${label}`, { group: "capture", baseline, n: 300 }, async () => {
    await mcp.ok("capture-pane", { target: pane, max_lines: 5 });
  });
  Deno.bench(`send-keys (default target): ${label}`, { group: "send", baseline, n: 300 }, async () => {
    await mcp.ok("send-keys", { text: "x" });
  });
}
