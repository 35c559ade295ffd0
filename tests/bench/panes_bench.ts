/**
 * Our own cost per workspace call, without tmux: parsing pane rows and
 * cutting captured text; and round trips of workspace tools over stdio.
 * Run with `deno task bench`.
 */
import { PANE_SPEC } from "../../lib/tmux/panes.ts";
import { parseRows } from "../../lib/tmux/rows.ts";
import { keepNewest } from "../../lib/tmux/capture.ts";
import { formatRefusal } from "../../lib/policy/formats.ts";
import { connect, startTmux } from "../helpers.ts";

const enc = new TextEncoder();
const field = (v: string) => `${enc.encode(v).length} ${v}`;
const sample: Record<string, string> = {
  session_id: "$1",
  session_name: "work",
  window_id: "@3",
  window_name: "build",
  pane_id: "%12",
  current_command: "bash",
  current_path: "/home/user/projects/some/deep/path",
  title: "user@host: ~/projects",
  tty: "/dev/pts/7",
  mode: "",
  dead_status: "",
};
const row = Object.entries(PANE_SPEC).map(([k, [, kind]]) => field(sample[k] ?? (kind === "bool" ? "0" : "42")))
  .join("") + "\n";
const rows200 = enc.encode(row.repeat(200));
const screen = Array.from({ length: 10_000 }, (_, i) => `line ${i} ${"x".repeat(80)}`).join("\n") + "\n";

Deno.bench("parse 200 pane rows (list-panes -a)", () => {
  parseRows(PANE_SPEC, rows200);
});

Deno.bench("parse 1 pane row (getPane)", () => {
  parseRows(PANE_SPEC, rows200, 1);
});

Deno.bench("keep newest 200 of 10000 captured lines", () => {
  keepNewest(screen, 200);
});

Deno.bench("format guard on a 200-character format", () => {
  formatRefusal("#{session_name}:#{window_index}.#{pane_index} #{pane_current_command} ".repeat(3));
});

// Round trips through the real stdio path against a private tmux server.
const tmux = await startTmux("bench");
const mcp = await connect({ socketName: tmux.socketName });
await tmux.tmux("new-window", "-d", "-t", "main:1", "seq 1 5000; exec sleep 600");
globalThis.addEventListener("unload", () => {
  new Deno.Command("tmux", { args: ["-L", tmux.socketName, "kill-server"] }).outputSync();
});

Deno.bench("list-panes round trip over stdio (1 tmux call)", { n: 200 }, async () => {
  await mcp.ok("list", { what: "panes" });
});

Deno.bench("snapshot-pane round trip, explicit target (1 tmux call)", { n: 200 }, async () => {
  await mcp.ok("snapshot-pane", { target: "main:1" });
});

Deno.bench("capture-pane of 5000 lines, newest 200 kept (1 tmux call)", { n: 100 }, async () => {
  await mcp.ok("capture-pane", { target: "main:1", start: -5000 });
});
