/**
 * How fast the exec tools react, measured through the MCP client over stdio
 * against a private tmux server, as agents use them.
 *
 * - wait-for-text: from the moment the text appears in the pane (the bench
 *   writes it straight to the pane's terminal) to the tool's answer reaching
 *   the client. The wait is started 50 ms before, outside the measurement.
 * - run-command: a whole `true` round trip (type, handshakes, output, prompt).
 * - capture-since: one follow-up read with a cursor.
 */
import { connect, uniqueSocketName } from "../helpers.ts";

const socket = uniqueSocketName("bench");
const tmux = (...args: string[]) =>
  new TextDecoder().decode(new Deno.Command("tmux", { args: ["-L", socket, ...args] }).outputSync().stdout).trim();

tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40", "sleep 100000");
const quietPane = tmux("display-message", "-p", "-t", "main", "#{pane_id}");
const tty = await Deno.open(tmux("display-message", "-p", "-t", quietPane, "#{pane_tty}"), { write: true });
const home = Deno.makeTempDirSync({ prefix: "tmcp-bench-" });
const shellPane = tmux(
  "new-window",
  "-d",
  "-P",
  "-F",
  "#{pane_id}",
  `env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=${home} bash --norc --noprofile`,
);
await new Promise((r) => setTimeout(r, 500));
const mcp = await connect({ socketName: socket });
globalThis.addEventListener("unload", () => {
  // The server gets SIGTERM (it then runs its exit hooks: control clients, script directory), tmux is killed.
  const pid = (mcp.client.transport as { pid?: number | null } | undefined)?.pid;
  if (pid) Deno.kill(pid, "SIGTERM");
  tmux("kill-server");
  Deno.removeSync(home, { recursive: true });
});

const enc = new TextEncoder();
let n = 0;

Deno.bench("wait-for-text: text appears → answer at the client", async (b) => {
  const marker = `BENCH-${n++}`;
  const call = mcp.ok("wait", { what: "text", target: quietPane, patterns: [marker], timeout_ms: 5000 });
  await new Promise((r) => setTimeout(r, 50)); // let the wait subscribe
  b.start();
  await tty.write(enc.encode(`${marker}\r\n`));
  const r = await call;
  b.end();
  if (r.outcome !== "matched") throw new Error(`unexpected outcome ${r.outcome}`);
});

Deno.bench("run-command: `true` in bash, whole round trip", async () => {
  const r = await mcp.ok("run-command", { target: shellPane, command: "true" });
  if (r.exit_code !== 0) throw new Error("unexpected exit code");
});

const first = await mcp.ok<{ cursor: string }>("capture-since", { target: shellPane });
Deno.bench("capture-since: read with a cursor", async () => {
  await mcp.ok("capture-since", { cursor: first.cursor });
});
