/**
 * Memory over a long session: drives the server over stdio with the SDK
 * client through N mixed calls (default 10,000: run-command, capture-pane,
 * list-panes, set-buffer/show-buffer/search-buffer, wait-for-text,
 * search-panes, capture-since) against a private tmux server, and prints the
 * server's RSS (VmRSS from /proc) after the first 100 calls, every 1,000, and
 * at the end. The bound: RSS at the end at most 1.5× RSS after 100.
 *
 *   deno run -A tests/bench/memory_soak.ts [calls]
 *
 * Figures on a loaded machine are upper bounds for time, not for memory.
 */
import { connect, removeSocket, uniqueSocketName } from "../helpers.ts";

const total = Number(Deno.args[0] ?? 10_000);
/** Optional: only these kinds of call (indices into `calls`, comma-separated), to find where memory goes. */
const only = Deno.args[1]?.split(",").map(Number);
const socket = uniqueSocketName("soak");
const tmux = (...args: string[]) => {
  const out = new Deno.Command("tmux", { args: ["-L", socket, ...args], stderr: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout).trim();
};

const home = Deno.makeTempDirSync({ prefix: "tmcp-soak-" });
tmux(
  ...["-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40"],
  `env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=${home} bash --norc --noprofile`,
);
const pane = tmux("display-message", "-p", "-t", "main", "#{pane_id}");
// A second pane that prints now and then, for the waits and search-panes.
tmux("new-window", "-d", "sh -c 'while :; do echo tick-$(date +%s); sleep 0.2; done'");
while (!/[$#]\s*$/m.test(tmux("capture-pane", "-p", "-t", pane))) await new Promise((r) => setTimeout(r, 50));

// Environment for the server, e.g. MALLOC_ARENA_MAX=2 or DENO_V8_FLAGS=--max-semi-space-size=1 to compare settings.
const env: Record<string, string> = {};
for (const k of ["MALLOC_ARENA_MAX", "MALLOC_TRIM_THRESHOLD_", "DENO_V8_FLAGS"]) {
  if (Deno.env.get(k)) env[k] = Deno.env.get(k)!;
}
const mcp = await connect({ socketName: socket, env });
const pid = mcp.pid;
function cleanUp() {
  try {
    Deno.kill(pid, "SIGTERM");
  } catch {
    // gone
  }
  tmux("kill-server");
  removeSocket(socket);
  try {
    Deno.removeSync(home, { recursive: true });
  } catch {
    // already gone
  }
}
globalThis.addEventListener("unload", cleanUp);
Deno.addSignalListener("SIGINT", () => {
  globalThis.removeEventListener("unload", cleanUp);
  cleanUp();
  Deno.exit(130);
});

function rssMiB(): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

let cursor: string | undefined;
const calls: Array<(i: number) => Promise<unknown>> = [
  (i) => mcp.ok("run-command", { target: pane, command: `echo call-${i}`, timeout_ms: 30_000 }),
  () => mcp.ok("capture-pane", { target: pane }),
  () => mcp.ok("list", { what: "panes" }),
  (i) => mcp.ok("set-buffer", { name: `soak-${i % 10}`, content: `line ${i}\n`.repeat(200) }),
  (i) => mcp.ok("show-buffer", { name: `soak-${(i + 7) % 10}`, max_bytes: 4096 }).catch(() => {}),
  (i) => mcp.ok("search-buffer", { query: `line ${i % 97}\\d*`, mode: "regex", buffers: ["soak-1"] }).catch(() => {}),
  () => mcp.ok("wait", { what: "text", target: "main:1", patterns: ["tick-"], timeout_ms: 5_000 }),
  () => mcp.ok("search-panes", { query: "call-\\d+", mode: "regex", max_matches: 5 }),
  async () => {
    const r = await mcp.ok<{ cursor: string }>("capture-since", { target: pane, ...(cursor ? { cursor } : {}) });
    cursor = r.cursor;
  },
];

const started = performance.now();
let first = 0;
for (let i = 1; i <= total; i++) {
  await (only ? calls[only[i % only.length]] : calls[i % calls.length])(i);
  if (i === 100) {
    first = rssMiB();
    console.log(`after ${i} calls: RSS ${first.toFixed(1)} MiB`);
  } else if (i % 1000 === 0 || i === total) {
    const now = rssMiB();
    console.log(
      `after ${i} calls: RSS ${now.toFixed(1)} MiB (${(now / first).toFixed(2)}× the first 100), ` +
        `${((performance.now() - started) / i).toFixed(1)} ms/call`,
    );
  }
}
const end = rssMiB();
console.log(`bound: ${(end / first).toFixed(2)}× ≤ 1.5× → ${end <= 1.5 * first ? "met" : "NOT met"}`);
await mcp.close();
