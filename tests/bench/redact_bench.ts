/**
 * What secret redaction costs end to end: the same calls against two
 * servers on one tmux, `--redact off` (the baseline) and `--redact on`:
 * search-buffer over a 32 MiB buffer (40 matches, snippets redacted) and
 * capture-pane of a 50-line screen and of 2,000 lines of history. Target:
 * on ≤ 1.1 × off.
 *
 * Run: `deno bench --allow-all tests/bench/redact_bench.ts`
 */
import { connect, startTmux } from "../helpers.ts";
import { makeLog } from "./search_data.ts";
import { waitUntil } from "../pane_helpers.ts";

const SIZE = 32 * 1024 * 1024;
const tmux = await startTmux("bench");
await tmux.tmuxStdin(makeLog(false, SIZE), "load-buffer", "-b", "log", "-");
await tmux.tmux("set-option", "-g", "history-limit", "5000");
const pane = (await tmux.tmux(
  "new-window",
  "-d",
  "-P",
  "-F",
  "#{pane_id}",
  "--",
  `awk 'BEGIN { for (i = 1; i <= 3000; i++) print "line " i ": GET /api/v1/items?id=" i " 200 12ms user=alice" }'; ` +
    "exec sleep 3600",
)).trim();
await tmux.tmux("resize-window", "-t", pane, "-x", "120", "-y", "50");
await waitUntil(
  "the bench pane to show its last line",
  async () => /line 3000:/.test(await tmux.tmux("capture-pane", "-p", "-t", pane)),
);
const servers = {
  off: await connect({ socketName: tmux.socketName, args: ["--redact", "off"] }),
  on: await connect({ socketName: tmux.socketName, args: ["--redact", "on"] }),
};
globalThis.addEventListener("unload", () => {
  new Deno.Command("tmux", { args: ["-L", tmux.socketName, "kill-server"] }).outputSync();
});

const calls: [string, string, Record<string, unknown>][] = [
  ["search-buffer 32 MiB", "search-buffer", { query: "failed", buffers: ["log"], max_scan_bytes: SIZE }],
  ["capture-pane 50 lines", "capture-pane", { target: pane, max_lines: 50 }],
  ["capture-pane 2000 lines", "capture-pane", { target: pane, start: -2000, max_lines: 2000 }],
];
for (const [group, tool, args] of calls) {
  for (const mode of ["off", "on"] as const) {
    Deno.bench(`${group} --redact ${mode}`, { group, baseline: mode === "off" }, async () => {
      await servers[mode].ok(tool, args);
    });
  }
}
