/**
 * Workspace tools through the real stdio path against a private tmux
 * server: what an agent waits for per keystroke batch, and what the
 * self-kill guard adds to a kill (one list-panes plus one `ps`).
 */
import { connect, startTmux } from "../helpers.ts";
import { newPane } from "../pane_helpers.ts";
import { createSpawnExecutor } from "../../lib/tmux/executor.ts";
import { locateSelf } from "../../lib/tmux/self.ts";
import { resolveTarget } from "../../lib/tmux/target.ts";

const tmux = await startTmux("bench");
const mcp = await connect({ socketName: tmux.socketName });
const pane = await newPane(tmux, "cat > /dev/null");
// An interactive bash at its prompt (no rc files): a command line typed with Enter, as an agent types one.
const shell = await newPane(
  tmux,
  "env -i PATH=/usr/bin:/bin HOME=/tmp TERM=xterm-256color HISTFILE=/dev/null bash --norc --noprofile".split(" "),
);
const exec = createSpawnExecutor({ bin: "tmux", socketName: tmux.socketName, maxConcurrency: 8 });
const text64k = "x".repeat(64 * 1024);

globalThis.addEventListener("unload", () => {
  new Deno.Command("tmux", { args: ["-L", tmux.socketName, "kill-server"] }).outputSync();
});

Deno.bench("resolveTarget %id (one tmux call)", { n: 200 }, async () => {
  await resolveTarget(exec, pane);
});

Deno.bench("send-keys text + Enter round trip over stdio", { n: 200 }, async () => {
  await mcp.ok("send-keys", { target: pane, text: "hello", enter: true });
});

Deno.bench("send-keys text, no Enter, round trip over stdio", { n: 200 }, async () => {
  await mcp.ok("send-keys", { target: pane, text: "hello" });
});

Deno.bench("send-keys ':' + Enter at a bash prompt round trip over stdio", { n: 100 }, async () => {
  await mcp.ok("send-keys", { target: shell, text: ":", enter: true });
});

Deno.bench("send-keys 64 KiB text (chunked) round trip over stdio", { n: 20 }, async () => {
  await mcp.ok("send-keys", { target: pane, text: text64k });
});

Deno.bench("paste-text round trip over stdio (temp buffer)", { n: 100 }, async () => {
  await mcp.ok("paste-text", { target: pane, text: "a\nb\nc" });
});

Deno.bench("self-kill guard: locateSelf (list-panes + ps)", { n: 100 }, async () => {
  await locateSelf(exec);
});
