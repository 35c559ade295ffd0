/**
 * A tmux server that stops answering (SIGSTOP: a stopped or overloaded
 * machine, as a call sees it), locally and over `--ssh` against the real sshd
 * fixture: every call made during the stop ends within its bound with one
 * line naming the stall, and once tmux goes on (SIGCONT) the next call is
 * answered at once, by the same server process.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, type McpFixture, startTmux, textOf } from "./helpers.ts";
import { startSshd } from "./ssh_fixture.ts";
import { waitUntil } from "./pane_helpers.ts";

/** The engine's bound for one tmux command (lib/tmux/engine.ts). */
const BOUND_MS = 10_000;
/** Room for a loaded machine on top of a bound; still far below a hang (the SDK client waits 120 s). */
const SLACK_MS = 15_000;

/** `p`, or a failure naming `what` once `ms` have passed: a hang fails the test instead of stalling it. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) =>
        timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A call made while tmux is stopped: an error naming the tool called (not the tmux command it waited on: the model
 * never called that), who stalled (`where`: "tmux", "tmux on HOST") and what to do, within the bound.
 */
async function stalledCall(mcp: McpFixture, name: string, args: Record<string, unknown>, where: string) {
  const t0 = performance.now();
  const r = await within(mcp.call(name, args), BOUND_MS + SLACK_MS, `${name} while tmux is stopped`);
  const took = performance.now() - t0;
  assert(r.isError, `${name} succeeded while tmux was stopped: ${textOf(r).slice(0, 200)}`);
  const text = textOf(r);
  assert(!text.includes("\n"), `one line: ${text}`);
  const todo = name === "send-keys"
    ? "what it sent may still run once tmux goes on: check before calling it again"
    : "call it again in a moment";
  assertEquals(
    text,
    `${name} did not finish: ${where} did not answer within 10 s (stopped or overloaded?); ${todo} ` +
      `(list {what: "hosts"} shows a host's last error)`,
  );
  assert(took < BOUND_MS + SLACK_MS, `${name} took ${Math.round(took)} ms`);
}

/**
 * Stops tmux (`pid`) after one answered call, makes three calls during the stop (the first on the live
 * control client, the later ones while a new client cannot start, so they go on spawned clients), goes on,
 * and checks that the next calls are answered, correctly, at once.
 */
async function stopAndGoOn(mcp: McpFixture, pid: number, pane: string, marker: string, where: string) {
  const first = await mcp.ok<{ lines: number }>("capture-pane", { target: pane });
  assert(first.lines >= 0);
  Deno.kill(pid, "SIGSTOP");
  try {
    await stalledCall(mcp, "capture-pane", { target: pane }, where);
    await Promise.all([
      stalledCall(mcp, "list", { what: "sessions" }, where),
      stalledCall(mcp, "capture-pane", { target: pane }, where),
      stalledCall(mcp, "send-keys", { target: pane, text: "# typed while tmux was stopped" }, where),
    ]);
  } finally {
    Deno.kill(pid, "SIGCONT");
  }
  const t0 = performance.now();
  // Answered within 2 s on a quiet machine (measured); a loaded one gets more, but far less than a bound.
  const r = await within(mcp.call("capture-pane", { target: pane }), BOUND_MS, "capture-pane after SIGCONT");
  const took = performance.now() - t0;
  assert(!r.isError, `capture-pane after SIGCONT: ${textOf(r)}`);
  assertMatch(textOf(r), new RegExp(marker));
  assert(took < BOUND_MS, `capture-pane after SIGCONT took ${Math.round(took)} ms`);
  const sessions = await within(
    mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" }),
    BOUND_MS,
    "list after SIGCONT",
  );
  assertEquals(sessions.sessions.map((s) => s.session_name), ["main"]);
}

Deno.test("local tmux stopped and continued: calls end within their bound naming the stall, then work at once", async () => {
  const tmux = await startTmux("stall");
  const mcp = await connect({ socketName: tmux.socketName });
  try {
    const pid = Number((await tmux.tmux("display-message", "-p", "#{pid}")).trim());
    const pane = (await tmux.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    await tmux.tmux("send-keys", "-t", pane, "echo stall-marker-local", "Enter");
    await stopAndGoOn(mcp, pid, pane, "stall-marker-local", "tmux");
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("remote tmux (--ssh) stopped and continued: calls end within their bound naming the stall, then work at once", async () => {
  const fx = await startSshd();
  let mcp: McpFixture | undefined;
  try {
    await fx.startTmux();
    mcp = await connect({
      args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
    });
    const pid = Number((await fx.tmux("display-message", "-p", "#{pid}")).trim());
    const pane = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    await fx.tmux("send-keys", "-t", pane, "echo stall-marker-remote", "Enter");
    await stopAndGoOn(mcp, pid, pane, "stall-marker-remote", `tmux on ${fx.alias}`);
    // The control clients given up during the stop end with their channels: only the live command connection
    // stays (tmux would keep a client it still owes output after its channel ended, until our server exits).
    const clients = () => fx.tmux("list-clients", "-F", "#{client_pid} #{client_flags}");
    await waitUntil("the given-up remote clients to end", async () => {
      const ours = (await clients()).split("\n").filter((l) => l.includes("read-only"));
      return ours.length <= 1 || undefined;
    }, 30_000).catch(async (e) => {
      throw new Error(`${e instanceof Error ? e.message : e}; attached: ${await clients()}`);
    });
  } finally {
    await mcp?.close();
    await fx.cleanup();
  }
});

/** A call that must end, with an error naming the call budget, within it (plus a loaded machine's slack). */
async function cutCall(mcp: McpFixture, budgetMs: number, name: string, args: Record<string, unknown>) {
  const t0 = performance.now();
  const r = await within(mcp.call(name, args), budgetMs + SLACK_MS, `${name} while stopped`);
  const took = performance.now() - t0;
  assert(r.isError, `${name} succeeded while stopped: ${textOf(r).slice(0, 200)}`);
  assert(!textOf(r).includes("\n"), `one line: ${textOf(r)}`);
  assert(took < budgetMs + SLACK_MS, `${name} took ${Math.round(took)} ms`);
  return textOf(r);
}

Deno.test("local tmux stopped, a call budget under tmux's own bound: the call ends at the budget, saying so", async () => {
  const tmux = await startTmux("stallbudget");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--call-budget-ms", "3000"] });
  try {
    const pid = Number((await tmux.tmux("display-message", "-p", "#{pid}")).trim());
    await mcp.ok("capture-pane", {});
    Deno.kill(pid, "SIGSTOP");
    try {
      const read = await cutCall(mcp, 3000, "capture-pane", {});
      assertMatch(
        read,
        /^capture-pane did not finish within the call budget \(--call-budget-ms 3000\): tmux may be stuck/,
      );
      assert(!read.includes("may still have run"), read);
      // A call that changes something says that its command may still run once tmux goes on.
      const typed = await cutCall(mcp, 3000, "send-keys", { text: "echo hi" });
      assertMatch(typed, /^send-keys did not finish within the call budget .*may still have run/);
    } finally {
      Deno.kill(pid, "SIGCONT");
    }
    await waitUntil("tmux to answer again", async () => !(await mcp.call("capture-pane", {})).isError || undefined);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("a frozen ssh connection (its sshd and tmux stopped): no call outlasts --call-budget-ms; it recovers", async () => {
  const fx = await startSshd({ alias: "tmcp-frozen" });
  let mcp: McpFixture | undefined;
  const budget = 15_000;
  try {
    await fx.startTmux();
    mcp = await connect({
      args: [
        ...["--ssh", `frz=${fx.alias}`, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
        ...["--call-budget-ms", String(budget)],
      ],
    });
    const pane = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    await mcp.ok("capture-pane", { target: pane });
    const tmuxPid = Number((await fx.tmux("display-message", "-p", "#{pid}")).trim());
    const frozen = [tmuxPid, ...await fx.sshdProcesses()];
    for (const pid of frozen) Deno.kill(pid, "SIGSTOP");
    try {
      // The first call finds the connection stuck (tmux's bound, 10 s); the next ones wait for it to be given up
      // and for a new login, each no longer than the budget (they took 60 s before).
      const texts = [];
      for (let i = 0; i < 3; i++) texts.push(await cutCall(mcp, budget, "capture-pane", { target: pane }));
      assert(texts.some((t) => /call budget \(--call-budget-ms 15000\): tmux on host "frz"/.test(t)), texts.join("\n"));
    } finally {
      for (const pid of frozen) Deno.kill(pid, "SIGCONT");
    }
    await waitUntil("the host to answer again", async () => {
      const r = await mcp!.call("capture-pane", { target: pane });
      return r.isError ? undefined : true;
    }, 180_000);
  } finally {
    await mcp?.close();
    await fx.cleanup();
  }
});

Deno.test("an ssh login slower than the call budget: the first call is cut at the budget, the login goes on for the next", async () => {
  const fx = await startSshd({ alias: "tmcp-slowlogin" });
  let mcp: McpFixture | undefined;
  try {
    await fx.startTmux();
    await fx.setLoginRc("sleep 6\n");
    mcp = await connect({
      args: [
        ...["--ssh", `slow=${fx.alias}`, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
        ...["--call-budget-ms", "2000"],
      ],
    });
    const first = await cutCall(mcp, 2000, "list", { what: "sessions" });
    // Said as what it is: a login still running, not a stuck tmux.
    assertMatch(first, /call budget \(--call-budget-ms 2000\): the login on host "slow" is still running .*call again/);
    assert(!/stuck|overloaded/.test(first), first);
    // The login was not given up with the call: a later call finds it done (no call waits out a login of its own).
    const sessions = await waitUntil("the login to end", async () => {
      const r = await mcp!.call("list", { what: "sessions" });
      return r.isError ? undefined : r.structuredContent as { sessions: { session_name: string }[] };
    }, 120_000);
    assertEquals(sessions.sessions.map((s) => s.session_name), ["main"]);
  } finally {
    await fx.clearLoginRc();
    await mcp?.close();
    await fx.cleanup();
  }
});
