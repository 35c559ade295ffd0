/**
 * Nothing left behind by a server killed with SIGKILL (lib/host/process.ts, lib/server/sweep.ts):
 * its result buffers and temp directories carry its pid, and the next server
 * sweeps them at start.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { asBuffered, resultBuffers } from "./budget_helpers.ts";
import { startWait, withShell } from "./exec_fixtures.ts";
import { connect, type McpFixture, runProcess, startTmux } from "./helpers.ts";
import { startSshd } from "./ssh_fixture.ts";
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
    // A result over the budget goes to a result buffer named after the server's pid (output within tmux's history,
    // so run-command keeps no whole-output buffer of its own).
    const big = await fx.mcp.call("run-command", { target: fx.pane, command: "seq 1 1500", max_lines: 5000 });
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

Deno.test("a server killed with SIGKILL during a large append-buffer leaves no temp directory once the next one starts", async () => {
  const tmp = await tempDir("tmcp-tmp-");
  const tmux = await startTmux("leftover-append");
  const mcp = await connect({ socketName: tmux.socketName, env: { TMPDIR: tmp } });
  const pid = mcp.pid;
  const ours = async () => (await entries(tmp)).filter((n) => n.startsWith(`tmux-mcp-${pid}-`));
  try {
    // Over the one-command size: the old content is read through a file the tmux server writes in a private
    // directory, the new one goes to tmux through another.
    const piece = "x".repeat(50 * 1024);
    await mcp.ok("append-buffer", { name: "big", content: piece });
    await mcp.ok("append-buffer", { name: "big", content: piece });
    assert((await ours()).some((n) => n.startsWith(`tmux-mcp-${pid}-buffers-`)), (await ours()).join(" "));
    // Killed in the middle of the next one.
    const inFlight = mcp.call("append-buffer", { name: "big", content: piece }).catch(() => undefined);
    Deno.kill(pid, "SIGKILL");
    await inFlight;
    await waitUntil("the server to die", async () => !(await alivePids([pid])).has(pid), 30_000);
    assert((await ours()).length > 0, "the killed server left its directories");
  } finally {
    await mcp.close().catch(() => {});
  }
  const next = await connect({ socketName: tmux.socketName, env: { TMPDIR: tmp } });
  try {
    await waitUntil("the next server to sweep them", async () => (await ours()).length === 0, 30_000)
      .catch(async (e) => {
        throw new Error(`${e.message}: ${await entries(tmp)} ${next.stderr()}`);
      });
  } finally {
    await next.close();
    await tmux.kill();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
});

Deno.test("ssh: the sshd session processes SIGKILLed while a wait watches a remote pane leave no remote tmux client", async () => {
  const fx = await startSshd();
  let mcp: McpFixture | undefined;
  try {
    await fx.startTmux();
    mcp = await connect({ args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName] });
    const serverPid = Number((await fx.tmux("display-message", "-p", "#{pid}")).trim());
    const pane = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    const wait = mcp.client.callTool(
      {
        name: "wait",
        arguments: { what: "text", target: pane, patterns: ["never-printed"], timeout_ms: 60_000 },
      },
      undefined,
      { timeout: 120_000 },
    ).catch((e) => e);
    // The wait's client gets pane output (no `no-output` flag), the command connection does not.
    await waitUntil("the wait's control client", async () => {
      const flags = (await fx.tmux("list-clients", "-F", "#{client_flags}")).split("\n");
      return flags.some((f) => f.includes("control-mode") && !f.includes("no-output")) || undefined;
    }, 30_000);
    const before = (await fx.tmux("list-clients", "-F", "#{client_pid}")).trim().split("\n").map(Number);
    assertEquals(before.length, 2, "the command connection and the wait's client");
    const listener = (await Deno.readTextFile(`${fx.dir}/sshd.pid`)).trim();
    const sessions = (await runProcess("pgrep", ["-P", listener])).stdout.trim().split("\n").filter((s) => s);
    assert(sessions.length > 0, "sshd serves the connection");
    for (const pid of sessions) Deno.kill(Number(pid), "SIGKILL");
    await wait;
    // The server may have connected again since (the wait's last look at the pane): its new client is no leftover.
    await waitUntil("the remote tmux clients of the killed sessions to go", async () => {
      const clients = (await fx.tmux("list-clients", "-F", "#{client_pid}")).trim().split("\n").map(Number);
      const alive = await alivePids(before);
      return (!before.some((p) => clients.includes(p)) && alive.size === 0) || undefined;
    }, 30_000);
    await mcp.close();
    mcp = undefined;
    // Nothing holds the remote tmux server: it exits with its last session.
    await fx.tmux("kill-session", "-t", "main");
    await waitUntil(
      "the remote tmux server to exit",
      async () => !(await alivePids([serverPid])).has(serverPid),
      30_000,
    );
  } finally {
    await mcp?.close();
    await fx.cleanup();
  }
});

Deno.test("ssh: storing result buffers sweeps none of a server on another machine (its pid is no process here)", async () => {
  const fx = await startSshd();
  let mcp: McpFixture | undefined;
  try {
    await fx.startTmux();
    // A live server elsewhere that uses this tmux: its pid means nothing on this machine (above Linux's pid_max).
    const theirs = "mcp-result-4194305-0123abcd";
    const args = ["set-buffer", "-b", theirs, "their result"];
    for (let i = 0; i < 60; i++) args.push(";", "set-buffer", "-b", `item-${i}`, `value ${i}`);
    await fx.tmux(...args);
    mcp = await connect({
      args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName, "--max-tokens", "150"],
    });
    // Each list is over the budget: a result buffer. The first store used to sweep in the background, as if
    // the tmux were this machine's; the later calls give that sweep the time it needs.
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(asBuffered(await mcp.ok("list-buffers")).buffer_id!);
    const names = (await fx.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n");
    for (const id of ids) assert(names.includes(id), `${id} is kept`);
    assertEquals(await fx.tmux("show-buffer", "-b", theirs), "their result", "the other server's result stays");
  } finally {
    await mcp?.close();
    await fx.cleanup();
  }
});

Deno.test("a server under a session scope sweeps the result buffers a killed server left", async () => {
  const tmux = await startTmux("leftover-scope");
  try {
    const args: string[] = [];
    for (let i = 0; i < 40; i++) args.push(...(i ? [";"] : []), "set-buffer", "-b", `user-buffer-${i}`, `value ${i}`);
    await tmux.tmux(...args);
    const killed = await connect({ socketName: tmux.socketName, args: ["--max-tokens", "200"] });
    const pid = killed.pid;
    // The list of 40 buffers is over the budget: it goes to a result buffer named after the server's pid.
    asBuffered((await killed.call("list-buffers")).structuredContent);
    assertEquals((await resultBuffers(tmux)).length, 1);
    Deno.kill(pid, "SIGKILL");
    await waitUntil("the server to die", async () => !(await alivePids([pid])).has(pid), 30_000);
    await killed.close().catch(() => {});
    const next = await connect({ socketName: tmux.socketName, args: ["--sessions", "main"] });
    try {
      await waitUntil("the next server to sweep it", async () => (await resultBuffers(tmux)).length === 0, 30_000);
      // The user's own buffers stay.
      assertEquals((await tmux.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n").filter(Boolean).length, 40);
    } finally {
      await next.close();
    }
  } finally {
    await tmux.kill();
  }
});
