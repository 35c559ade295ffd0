/**
 * Nothing left behind by a server killed with SIGKILL (lib/host/process.ts, lib/server/sweep.ts):
 * its result buffers and temp directories carry its pid, and the next server
 * sweeps them at start.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { resultBuffers } from "./budget_helpers.ts";
import { startWait, withShell } from "./exec_fixtures.ts";
import { connect } from "./helpers.ts";
import { tempDir, waitUntil } from "./pane_helpers.ts";
import { alivePids } from "../lib/host/process.ts";

async function entries(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
}

Deno.test("a server killed with SIGKILL leaves no result buffer or temp directory once the next one starts", async () => {
  const tmp = await tempDir("tmcp-tmp-");
  await withShell("bash", async (fx) => {
    const pid = fx.mcp.pid;
    // A result over the budget goes to a result buffer named after the server's pid.
    const big = await fx.mcp.call("run-command", { target: fx.pane, command: "seq 1 5000", max_lines: 5000 });
    assert(!big.isError, JSON.stringify(big.content).slice(0, 300));
    const buffers = await resultBuffers(fx);
    assertEquals(buffers.length, 1, buffers.join(" "));
    assertMatch(buffers[0], new RegExp(`^mcp-result-${pid}-[0-9a-f]{8}$`));
    // A command in flight: its script directory exists.
    const run = startWait(fx, "run-command", { target: fx.pane, command: "read -r x", timeout_ms: 60_000 });
    void run.done.catch(() => {});
    await run.armed;
    assertEquals((await entries(tmp)).filter((n) => n.startsWith(`tmux-mcp-${pid}-run-`)).length, 1);

    Deno.kill(pid, "SIGKILL");
    await waitUntil("the server to die", async () => !(await alivePids([pid])).has(pid), 30_000);
    assert((await entries(tmp)).some((n) => n.startsWith(`tmux-mcp-${pid}-`)), "the killed server left its dir");
    assertEquals((await resultBuffers(fx)).length, 1, "the killed server left its buffer");

    const next = await connect({ socketName: fx.socketName, env: { TMPDIR: tmp } });
    try {
      await waitUntil("the next server to sweep them", async () => {
        return (await resultBuffers(fx)).length === 0 &&
          !(await entries(tmp)).some((n) => n.startsWith(`tmux-mcp-${pid}-`));
      }, 30_000).catch(async (e) => {
        throw new Error(`${e.message}: ${await resultBuffers(fx)} ${await entries(tmp)} ${next.stderr()}`);
      });
      // The shell was not disturbed: the read still waits for its line.
      await fx.tmux("send-keys", "-t", fx.pane, "Enter");
      const r = await next.ok<{ output: string }>("run-command", { target: fx.pane, command: "echo alive" });
      assertEquals(r.output, "alive");
    } finally {
      await next.close();
    }
  }, { serverArgs: ["--max-tokens", "200"], serverEnv: { TMPDIR: tmp } });
});
