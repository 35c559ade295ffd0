/**
 * Several hosts behind one server: two real sshd on 127.0.0.1 (tests/ssh_fixture.ts), each with its own tmux
 * server, one of them behind a slow login. Listings cover both, each row's `target` reaches its own host, a
 * stopped host leaves the other answering in its normal time, and it recovers.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, type McpFixture, uniqueSocketName } from "./helpers.ts";
import { cleanShellPane, type SshFixture, startSshd } from "./ssh_fixture.ts";
import { waitUntil } from "./pane_helpers.ts";
import { parseConfig } from "../lib/config.ts";
import { qualify, splitHostTarget } from "../lib/tmux/hosts.ts";

interface Pane {
  pane_id: string;
  host: string;
  target: string;
}
interface HostRow {
  host: string;
  target: string;
  connected: boolean;
  tmux_version: string | null;
  last_error: string | null;
}

/** Both fixtures' ssh configs in one file (their aliases differ), for one --ssh-config. */
async function sharedConfig(a: SshFixture, b: SshFixture): Promise<string> {
  const path = `${a.dir}/fleet_ssh_config`;
  await Deno.writeTextFile(path, (await Deno.readTextFile(a.configPath)) + (await Deno.readTextFile(b.configPath)));
  return path;
}

/** A window running bash without rc files (run-command needs a known shell at its prompt); its pane id. */
function bashPane(fx: SshFixture): Promise<string> {
  return cleanShellPane(fx, "bash", "bash --norc --noprofile", `${fx.dir}/home`);
}

/** Two sshd hosts (beta's login sleeps 2 s), each with its own tmux, and a server with both. */
async function withFleet(fn: (mcp: McpFixture, alpha: SshFixture, beta: SshFixture) => Promise<void>) {
  const socketName = uniqueSocketName("fleet");
  const alpha = await startSshd({ alias: "tmcp-alpha", socketName });
  const beta = await startSshd({ alias: "tmcp-beta", socketName });
  let mcp: McpFixture | undefined;
  try {
    await alpha.startTmux();
    await beta.startTmux();
    await beta.setLoginRc("sleep 2\n");
    mcp = await connect({
      args: [
        "--ssh",
        "alpha=tmcp-alpha",
        "--ssh",
        "beta=tmcp-beta",
        "--ssh-config",
        await sharedConfig(alpha, beta),
        "--socket-name",
        socketName,
        "--safety",
        "destructive",
      ],
    });
    await fn(mcp, alpha, beta);
  } finally {
    await mcp?.close();
    await alpha.cleanup();
    await beta.cleanup();
  }
}

Deno.test("fleet: --ssh is repeatable with names; local is a host; names are checked", () => {
  const cfg = parseConfig(["--ssh", "web=me@web1.example", "--ssh", "local", "--ssh", "ssh://u@db2.x:2222"], {});
  assertEquals(cfg.hosts, [
    { name: "web", destination: "me@web1.example" },
    { name: "local" },
    { name: "db2", destination: "ssh://u@db2.x:2222" },
  ]);
  assertEquals(cfg.ssh, "me@web1.example");
  assertEquals(parseConfig([], { TMUX_MCP_SSH: "a=h1 b=h2" }).hosts.map((h) => h.name), ["a", "b"]);
  assertEquals(splitHostTarget("web::main:0.1"), { host: "web", target: "main:0.1" });
  assertEquals(splitHostTarget("main:0.1"), { target: "main:0.1" });
  assertEquals(splitHostTarget("%3"), { target: "%3" });
  assertEquals(qualify("web", "%3"), "web::%3");
});

Deno.test("fleet: a hosts file adds hosts after --ssh", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/hosts`, "# fleet\nweb=me@web1\n\nlocal\n");
    const cfg = parseConfig(["--ssh", "db=me@db1", "--hosts", `${dir}/hosts`], {});
    assertEquals(cfg.hosts.map((h) => h.name), ["db", "web", "local"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fleet: two ssh hosts — listings cover both, each row's target drives its own host", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    const hosts = (await mcp.ok<{ hosts: HostRow[] }>("list", { what: "hosts" })).hosts;
    assertEquals(hosts.map((h) => [h.host, h.target, h.connected]), [["alpha", "alpha::", true], [
      "beta",
      "beta::",
      true,
    ]]);
    for (const h of hosts) assertMatch(h.tmux_version ?? "", /^\d+\.\d+/);

    const fx = { alpha, beta } as Record<string, SshFixture>;
    await bashPane(alpha);
    await bashPane(beta);
    const panes = (await mcp.ok<{ panes: Pane[] }>("list", { what: "panes" })).panes;
    assertEquals(panes.filter((p) => p.host === "alpha").length, 2, JSON.stringify(panes));
    assertEquals(panes.filter((p) => p.host === "beta").length, 2, JSON.stringify(panes));
    for (const p of panes) assertEquals(p.target, `${p.host}::${p.pane_id}`);

    for (const p of panes) {
      const marker = `mark-${p.host}-${p.pane_id.slice(1)}`;
      await mcp.ok("send-keys", { target: p.target, text: `echo ${marker}`, enter: true });
      await waitUntil(`${marker} on ${p.target}`, async () => {
        const cap = await mcp.ok<{ text: string; host: string }>("capture-pane", { target: p.target });
        assertEquals(cap.host, p.host);
        return cap.text.includes(marker) || undefined;
      }, 20_000);
      // The other host's tmux never saw it (both have a pane of that id).
      const other = p.host === "alpha" ? "beta" : "alpha";
      const theirs = await fx[other].tmux("capture-pane", "-p", "-t", p.pane_id).catch(() => "");
      assert(!theirs.includes(marker), `${marker} reached ${other}`);
    }
    for (const host of ["alpha", "beta"]) {
      const bash = panes.filter((p) => p.host === host).at(-1)!;
      const r = await mcp.ok<{ exit_code: number; output: string; host: string }>("run-command", {
        target: bash.target,
        command: `echo ran-on-$((6*7)) $HOME`,
        timeout_ms: 60_000,
      });
      assertEquals(r.host, host);
      assertEquals(r.exit_code, 0);
      assertEquals(r.output.trim(), `ran-on-42 ${fx[host].dir}/home`);
    }
    // A session name with a host prefix is no host: tmux names cannot hold ":".
    const windows = await mcp.ok<{ windows: { target: string; host: string }[] }>("list", {
      what: "windows",
      target: "beta::main",
    });
    assertEquals(windows.windows.every((w) => w.host === "beta" && w.target.startsWith("beta::@")), true);
    assertMatch(await mcp.err("capture-pane", { target: "gamma::%0" }), /no host is named "gamma".*alpha, beta/);
    assertMatch(await mcp.err("capture-pane", { target: "beta::-t" }), /must not start with '-'/);
    // A target without a host means the first one.
    const plain = await mcp.ok<{ host: string }>("capture-pane", { target: panes[0].pane_id });
    assertEquals(plain.host, "alpha");
  });
});

Deno.test("fleet: a stopped host leaves the other answering in its normal time; it recovers", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    const panes = (await mcp.ok<{ panes: Pane[] }>("list", { what: "panes" })).panes;
    const a = panes.find((p) => p.host === "alpha")!;
    const b = panes.find((p) => p.host === "beta")!;
    const timed = async (target: string) => {
      const t0 = performance.now();
      await mcp.ok("capture-pane", { target });
      return performance.now() - t0;
    };
    let normal = 0;
    for (let i = 0; i < 5; i++) normal = Math.max(normal, await timed(a.target));
    await timed(b.target);

    // Freeze beta: its tmux server and every sshd process serving it.
    const tmuxPid = Number((await beta.tmux("display-message", "-p", "#{pid}")).trim());
    const frozen = [tmuxPid, ...await beta.sshdProcesses()];
    for (const pid of frozen) Deno.kill(pid, "SIGSTOP");
    try {
      let stalledDone = false;
      const stalled = mcp.call("capture-pane", { target: b.target }).then((r) => {
        stalledDone = true;
        return r;
      });
      // More calls to alpha than its slots while beta's are stuck; each within its normal time (a generous
      // multiple under load), and all before the stalled call gives up.
      const times = await Promise.all(Array.from({ length: 10 }, () => timed(a.target)));
      assert(!stalledDone, "the call to the stopped host returned before the calls to the other one");
      const worst = Math.max(...times);
      assert(worst < Math.max(3_000, normal * 10), `alpha took ${worst} ms (normally ${normal} ms)`);
      const r = await stalled;
      assert(r.isError, JSON.stringify(r));
      // Both ask beta a bounded time only: its logins' own bound (--connect-timeout-ms) is a minute.
      let t0 = performance.now();
      const hosts = (await mcp.ok<{ hosts: HostRow[] }>("list", { what: "hosts" })).hosts;
      assert(performance.now() - t0 < 30_000, `list hosts took ${performance.now() - t0} ms`);
      assertEquals(hosts.map((h) => [h.host, h.connected]), [["alpha", true], ["beta", false]]);
      assert(hosts[1].last_error !== null);
      // A listing of every host still answers, naming the one that did not.
      t0 = performance.now();
      const all = await mcp.ok<{ panes: Pane[]; unreachable: { host: string; error: string }[] }>("list", {
        what: "panes",
      });
      assert(performance.now() - t0 < 30_000, `list panes took ${performance.now() - t0} ms`);
      assertEquals(all.unreachable.map((u) => u.host), ["beta"]);
      assert(all.panes.length > 0 && all.panes.every((p) => p.host === "alpha"));
    } finally {
      for (const pid of frozen) Deno.kill(pid, "SIGCONT");
    }
    await waitUntil("beta to answer again", async () => {
      const r = await mcp.call("capture-pane", { target: b.target });
      return r.isError ? undefined : true;
    }, 180_000);
    const hosts = (await mcp.ok<{ hosts: HostRow[] }>("list", { what: "hosts" })).hosts;
    assertEquals(hosts.map((h) => h.connected), [true, true]);
    assertEquals((await alpha.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
  });
});
