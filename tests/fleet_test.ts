/**
 * Several hosts behind one server: two real sshd on 127.0.0.1 (tests/ssh_fixture.ts), each with its own tmux
 * server, one of them behind a slow login. Listings cover both, each row's `target` reaches its own host, a
 * stopped host leaves the other answering in its normal time, and it recovers.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import {
  connect,
  type McpFixture,
  startTmux,
  textOf,
  type TmuxFixture,
  uniqueSocketName,
  withServer,
} from "./helpers.ts";
import { cleanShellPane, type SshFixture, startSshd } from "./ssh_fixture.ts";
import { waitUntil } from "./pane_helpers.ts";
import { exitWithin, rawServer } from "./raw_stdio.ts";
import { parseConfig } from "../lib/config.ts";
import { type HostSpec, parseHostSpec, qualify, splitHostTarget } from "../lib/tmux/hosts.ts";
import { remoteTmuxLine } from "../lib/tmux/ssh.ts";

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

/**
 * The hosts' states once both answer: a first login (beta's sleeps 2 s) on a loaded machine can outlast the
 * bound of one listing, which then reports the host not connected.
 */
function connectedHosts(mcp: McpFixture): Promise<HostRow[]> {
  return waitUntil("both hosts connected", async () => {
    const hosts = (await mcp.ok<{ hosts: HostRow[] }>("list", { what: "hosts" })).hosts;
    return hosts.every((h) => h.connected) ? hosts : undefined;
  }, 120_000);
}

/** A window running bash without rc files (run-command needs a known shell at its prompt); its pane id. */
function bashPane(fx: SshFixture): Promise<string> {
  return cleanShellPane(fx, "bash", "bash --norc --noprofile", `${fx.dir}/home`);
}

/**
 * Two sshd hosts (beta's login sleeps 2 s), each with its own tmux, and a server with both. With `own`, beta's
 * tmux is on a socket name of its own and alpha's is run by a wrapper that logs each start: both given as the
 * host's settings after its destination.
 */
async function withFleet(
  fn: (mcp: McpFixture, alpha: SshFixture, beta: SshFixture) => Promise<void>,
  { own = false, args = [] }: { own?: boolean; args?: string[] } = {},
) {
  const socketName = uniqueSocketName("fleet");
  const alpha = await startSshd({ alias: "tmcp-alpha", socketName });
  const beta = await startSshd({ alias: "tmcp-beta", socketName: own ? uniqueSocketName("fleetb") : socketName });
  let mcp: McpFixture | undefined;
  try {
    await alpha.startTmux();
    await beta.startTmux();
    await beta.setLoginRc("sleep 2\n");
    let alphaOpts = "", betaOpts = "";
    if (own) {
      await Deno.writeTextFile(
        `${alpha.dir}/tmux-wrap`,
        `#!/bin/sh\necho started >> ${alpha.dir}/wrap.log\nexec tmux "$@"\n`,
      );
      await Deno.chmod(`${alpha.dir}/tmux-wrap`, 0o755);
      alphaOpts = `,tmux-bin=${alpha.dir}/tmux-wrap`;
      betaOpts = `,socket-name=${beta.socketName}`;
    }
    mcp = await connect({
      args: [
        "--ssh",
        `alpha=tmcp-alpha${alphaOpts}`,
        "--ssh",
        `beta=tmcp-beta${betaOpts}`,
        "--ssh-config",
        await sharedConfig(alpha, beta),
        "--socket-name",
        socketName,
        "--safety",
        "destructive",
        ...args,
      ],
    });
    await fn(mcp, alpha, beta);
  } finally {
    await mcp?.close();
    await alpha.cleanup();
    await beta.cleanup();
  }
}

/**
 * A local tmux server and an sshd host `alias`, and a server on both: `--ssh local` first, then `spec` (`alias`, or
 * `NAME=alias`), with `args`; all torn down after `fn`, whatever it does.
 */
async function withLocalFirst(
  label: string,
  alias: string,
  spec: string,
  args: string[],
  fn: (mcp: McpFixture, fx: SshFixture, local: TmuxFixture) => Promise<void>,
): Promise<void> {
  const local = await startTmux(label);
  const fx = await startSshd({ alias });
  let mcp: McpFixture | undefined;
  try {
    await fx.startTmux();
    mcp = await connect({
      args: [
        ...["--ssh", `local,socket-name=${local.socketName}`, "--ssh", spec],
        ...["--ssh-config", fx.configPath, "--socket-name", fx.socketName, ...args],
      ],
    });
    await fn(mcp, fx, local);
  } finally {
    await mcp?.close();
    await fx.cleanup();
    await local.kill();
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
  // A name that is no host name is refused, not read as part of the destination (ssh user "my.web=me").
  for (const bad of ["my.web=me@web1", "_web=me@web1", "=me@web1", `${"w".repeat(33)}=me@web1`]) {
    let msg = "";
    try {
      parseConfig(["--ssh", bad], {});
    } catch (e) {
      msg = (e as Error).message;
    }
    assertMatch(msg, /is not a host name \(letters, digits, _ and -/, bad);
  }
  // "local" is this machine's name: an ssh host under it (named so, or after a destination local.…) is refused.
  for (const bad of ["local=me@web1", "Local=me@web1", "local.example.com", "me@local.lan,socket-name=x"]) {
    let msg = "";
    try {
      parseConfig(["--ssh", "web=me@web1", "--ssh", bad], {});
    } catch (e) {
      msg = (e as Error).message;
    }
    assertMatch(msg, /is this machine's, not an ssh host's: give it another name: --ssh NAME=/, bad);
    assert(!msg.includes("\n"), msg);
  }
  assertEquals(parseConfig(["--ssh", "here=local"], {}).hosts, [{ name: "here" }]);
});

Deno.test("fleet: a host named after its destination gets a name its targets can use (IPv6, a leading _)", () => {
  const names = parseConfig([
    "--ssh",
    "ssh://me@[::1]:2222",
    "--ssh",
    "me@[2001:db8::7]",
    "--ssh",
    "_bastion",
    "--ssh",
    "ssh://u@[fe80::1]",
    "--ssh",
    "db.x:2200",
  ], {}).hosts.map((h) => h.name);
  assertEquals(names, ["1", "2001-db8--7", "bastion", "fe80--1", "db"]);
  for (const n of names) assertEquals(splitHostTarget(qualify(n, "%0")), { host: n, target: "%0" });
});

Deno.test("fleet: a host whose default name starts with _ answers at the targets its rows give, fields rows too", async () => {
  await withLocalFirst("fleetl", "_tmcp-under", "_tmcp-under", [], async (mcp) => {
    const panes = (await mcp.ok<{ panes: Pane[] }>("list", { what: "panes" })).panes;
    const remote = panes.filter((p) => p.host !== "local");
    assertEquals(remote.length, 1, JSON.stringify(panes));
    const cap = await mcp.ok<{ host: string; pane_id: string }>("capture-pane", { target: remote[0].target });
    assertEquals([cap.host, cap.pane_id], [remote[0].host, remote[0].pane_id]);

    // Rows given as columns (fields, or the compact form of many panes) say their host and target as well: both
    // hosts have a %0, and the columns are said once.
    const picked = await mcp.ok<{ columns: string[]; rows: unknown[][] }>("list", {
      what: "panes",
      fields: ["pane_id", "current_command"],
    });
    assertEquals(picked.columns, ["host", "target", "pane_id", "current_command"]);
    assertEquals(picked.rows.map((r) => r.slice(0, 3)), [["local", "local::%0", "%0"], [
      "tmcp-under",
      "tmcp-under::%0",
      "%0",
    ]]);
    for (const [host, target] of picked.rows) {
      assertEquals((await mcp.ok<{ host: string }>("capture-pane", { target: target as string })).host, host);
    }
    const noId = await mcp.ok<{ columns: string[]; rows: unknown[][] }>("list", {
      what: "panes",
      fields: ["current_command"],
    });
    assertEquals(noId.columns, ["host", "current_command"]);
    assertEquals(noId.rows.map((r) => r[0]), ["local", "tmcp-under"]);
  });
});

Deno.test("fleet: resources cover every host and read a session or pane on the host its URI names", async () => {
  await withLocalFirst("fleetr", "tmcp-res", "r=tmcp-res", [], async (mcp, fx) => {
    await fx.tmux("new-session", "-d", "-s", "remote-only");
    const pane = (await fx.tmux("display-message", "-p", "-t", "remote-only", "#{pane_id} #{session_id}")).trim();
    const [paneId, sessionId] = pane.split(" ");
    const read = async (uri: string) => {
      const r = await mcp.client.readResource({ uri }) as { contents: { text: string }[] };
      return JSON.parse(r.contents[0].text);
    };
    const all = await read("tmux://sessions") as { sessions: { host: string; target: string; session_name: string }[] };
    const remote = all.sessions.find((x) => x.session_name === "remote-only");
    assertEquals([remote?.host, remote?.target], ["r", `r::${sessionId}`], JSON.stringify(all));
    assert(all.sessions.some((x) => x.host === "local"), JSON.stringify(all));

    const uris = (await mcp.client.listResources()).resources.map((r) => r.uri);
    assert(uris.includes(`tmux://sessions/r::${sessionId}`), uris.join(" "));
    assert(uris.includes(`tmux://panes/r::${encodeURIComponent(paneId)}`), uris.join(" "));
    for (const uri of [`tmux://sessions/r::${sessionId}`, "tmux://sessions/r%3A%3Aremote-only"]) {
      // Its ids named on its host, as tool results name them: a bare %N would be the first host's.
      const got = await read(uri) as { session: { session_name: string; target: string }; panes: { target: string }[] };
      assertEquals([got.session.session_name, got.session.target], ["remote-only", `r::${sessionId}`], uri);
      assertEquals(got.panes.map((p) => p.target), [`r::${paneId}`]);
    }
    const facts = await read(`tmux://panes/r::${encodeURIComponent(paneId)}`) as {
      target: string;
      session_name: string;
    };
    assertEquals([facts.target, facts.session_name], [`r::${paneId}`, "remote-only"]);
    const refused = (uri: string) => mcp.client.readResource({ uri }).then(() => "read", (e: Error) => e.message);
    assertMatch(await refused("tmux://sessions/nohost::remote-only"), /not found.*no host is named "nohost"/);
    // Without a host, the first host's, as a tool's target: local has no session of that name.
    assertMatch(await refused("tmux://sessions/remote-only"), /not found/);
    // A host down: the others' sessions, and the one that did not answer named with its cause.
    await fx.stop();
    const left = await read("tmux://sessions") as {
      sessions: { host: string }[];
      unreachable: { host: string; error: string }[];
    };
    assertEquals([...new Set(left.sessions.map((x) => x.host))], ["local"]);
    assertEquals(left.unreachable.map((u) => u.host), ["r"]);
    assertMatch(left.unreachable[0].error, /cannot reach ssh host "tmcp-res"/);
  });
});

Deno.test("fleet: with local first, a pty session asked for on an ssh host runs in that host's tmux", async () => {
  await withLocalFirst("fleetp", "tmcp-ptyhost", "r=tmcp-ptyhost", [], async (mcp, fx) => {
    const launched = await mcp.ok<{ pty_id: string; runs_on: string; host: string }>("pty-launch", {
      pty_id: "r::",
      command: "cat",
    });
    assertEquals([launched.host, launched.runs_on], ["r", "tmcp-ptyhost"]);
    const id = launched.pty_id.slice("r::".length);
    assertMatch(await fx.tmux("list-sessions", "-F", "#{session_name}"), new RegExp(`-${id}$`, "m"));
    await mcp.ok("pty-kill-session", { pty_id: launched.pty_id });
  });
});

Deno.test("fleet: an unknown target, buffer or pty session on a host is quoted HOST::NAME, ids advised on that host", async () => {
  await withLocalFirst("fleetu", "tmcp-unknown", "r=tmcp-unknown", ["--safety", "destructive"], async (mcp) => {
    // A bare %3 is the first host's: advice to use one would lead to a pane of another machine.
    const msg = await mcp.err("capture-pane", { target: "r::%99" });
    assertMatch(msg, /^unknown target "r::%99" \(tmux: can't find pane: %99\): call list/);
    assertMatch(msg, /use a row's target such as r::%3, r::@2 or r::\$1$/);
    assertMatch(
      await mcp.err("capture-pane", { target: "nosuch" }),
      /^unknown target "local::nosuch" .*use a row's target such as local::%3, local::@2 or local::\$1$/,
    );
    assertMatch(
      await mcp.err("kill", { what: "session", target: "r::nosuch" }),
      /^no session is named "r::nosuch": call list \(what: sessions\) and pass a row's target \(r::\$1, r::@2, r::%3\)/,
    );
    // A buffer or pty session that is not there is named on its host: the bare name would be the first host's.
    assertMatch(await mcp.err("show-buffer", { name: "r::nosuch" }), /^no buffer named "r::nosuch": call list-buffers/);
    assertMatch(
      await mcp.err("pty-get-screen", { pty_id: "r::s9" }),
      /^no pty session "r::s9": call pty-list-sessions/,
    );
  });
});

Deno.test("fleet: under a call budget below a host's wait, list hosts still shows every host, the stalled one named", async () => {
  await withLocalFirst("fleetb", "tmcp-budget", "r=tmcp-budget", ["--call-budget-ms", "5000"], async (mcp, fx) => {
    assertEquals((await connectedHosts(mcp)).map((h) => h.host), ["local", "r"]);
    const frozen = [Number((await fx.tmux("display-message", "-p", "#{pid}")).trim()), ...await fx.sshdProcesses()];
    for (const pid of frozen) Deno.kill(pid, "SIGSTOP");
    try {
      // The host list is what tells a stalled host from a healthy one: it must not be lost to the stalled one.
      const hosts = (await mcp.ok<{ hosts: HostRow[] }>("list", { what: "hosts" })).hosts;
      assertEquals(hosts.map((h) => [h.host, h.connected]), [["local", true], ["r", false]]);
      assertMatch(hosts[1].last_error!, /^host "r" did not answer within [\d.]+ s: it is down or stalled/);
      const listed = await mcp.ok<{ sessions: Pane[]; unreachable: { host: string; error: string }[] }>("list", {
        what: "sessions",
      });
      assertEquals(listed.sessions.map((s) => s.host), ["local"]);
      assertEquals(listed.unreachable.map((u) => u.host), ["r"]);
      assertMatch(listed.unreachable[0].error, /did not answer within [\d.]+ s: it is down or stalled/);
    } finally {
      for (const pid of frozen) Deno.kill(pid, "SIGCONT");
    }
  });
});

Deno.test("fleet: a batch's results each say their call's host; neither it nor the host list is the first host's", async () => {
  await withLocalFirst("fleetbatch", "tmcp-batch", "r=tmcp-batch", [], async (mcp) => {
    const out = await mcp.ok<{ host?: string; results: { host?: string; ok: boolean; result?: { host: string } }[] }>(
      "batch",
      {
        calls: [
          { tool: "capture-pane", arguments: { target: "r::" } },
          { tool: "set-buffer", arguments: { name: "r::b", content: "x" } },
          { tool: "capture-pane", arguments: { target: "local::" } },
        ],
      },
    );
    // The batch ran on no host of its own: a "local" on it or on its rows would say r's calls ran here.
    assertEquals(out.host, undefined);
    assertEquals(out.results.map((r) => [r.host, r.ok, r.result?.host]), [
      [undefined, true, "r"],
      [undefined, true, "r"],
      [undefined, true, "local"],
    ]);
    // The list is every host's, not the first one's.
    assertEquals((await mcp.ok<{ host?: string }>("list", { what: "hosts" })).host, undefined);
  });
});

Deno.test("fleet: a hosts file adds hosts after --ssh", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/hosts`,
      "# fleet\nweb=me@web1,socket-name=w   # the web server\n\nlocal,tmux-bin=/opt/tmux\t# this machine\n",
    );
    const cfg = parseConfig(["--ssh", "db=me@db1", "--hosts", `${dir}/hosts`], {});
    assertEquals(cfg.hosts.map((h) => h.name), ["db", "web", "local"]);
    assertEquals([cfg.hosts[1].socketName, cfg.hosts[2].tmuxBin], ["w", "/opt/tmux"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fleet: two ssh hosts — listings cover both, each row's target drives its own host", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    const hosts = await connectedHosts(mcp);
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
    await connectedHosts(mcp);
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
      // So do a search of every pane and the servers' facts.
      const found = await mcp.ok<{ panes_searched: number; unreachable: { host: string }[] }>("search-panes", {
        query: "never-printed",
      });
      assertEquals([found.panes_searched > 0, found.unreachable.map((u) => u.host)], [true, ["beta"]]);
      await mcp.ok("set-buffer", { name: "alpha::kept", content: "kept on alpha" });
      const bufs = await mcp.ok<BufferSearch>("search-buffer", { query: "kept" });
      assertEquals([bufs.total_matches, bufs.buffers, bufs.unreachable?.map((u) => u.host)], [1, ["alpha::kept"], [
        "beta",
      ]]);
      const servers = await mcp.ok<{ servers: { host: string }[]; unreachable: { host: string }[] }>("list", {
        what: "server",
      });
      assertEquals([servers.servers.map((s) => s.host), servers.unreachable.map((u) => u.host)], [["alpha"], ["beta"]]);
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

Deno.test("fleet: a host's own socket and tmux binary follow its destination, checked as hostile input", () => {
  assertEquals(parseHostSpec("web=me@web1,socket-name=work,tmux-bin=/opt/tmux/bin/tmux"), {
    name: "web",
    destination: "me@web1",
    socketName: "work",
    tmuxBin: "/opt/tmux/bin/tmux",
  });
  assertEquals(parseHostSpec("local,socket-path=/run/t/s"), { name: "local", socketPath: "/run/t/s" });
  assertEquals(parseHostSpec("db=me@db1,tmux-bin=~/bin/tmux"), {
    name: "db",
    destination: "me@db1",
    tmuxBin: "~/bin/tmux",
  });
  for (
    const bad of [
      "web=me@web1,tmux-bin=/bin/tmux;id",
      "web=me@web1,tmux-bin=$(id)",
      "web=me@web1,tmux-bin=`id`",
      "web=me@web1,tmux-bin=-x",
      "web=me@web1,tmux-bin=a b",
      "web=me@web1,socket-name=a|b",
      "web=me@web1,socket-name=-L",
      "web=me@web1,socket-name=x'y",
      "web=me@web1,socket-path=relative/s",
      "web=me@web1,socket-path=/a\nb",
      "web=me@web1,socket-name=a,socket-path=/s",
      "web=me@web1,socket-name=a,socket-name=b",
      "web=me@web1,shell=/bin/sh",
      "web=me@web1,",
    ]
  ) {
    assertEquals(typeof parseHostSpec(bad), "string", bad);
  }
  assertMatch(parseHostSpec("web=h,tmux-bin=/x;id") as string, /tmux-bin "\/x;id" is not a command name or a path/);
  // What is accepted still reaches the remote login's command line quoted, word by word.
  const spec = parseHostSpec("web=h,tmux-bin=/opt/t+x/tmux,socket-name=w.1") as HostSpec;
  assertEquals(
    remoteTmuxLine(spec.tmuxBin!, { socketName: spec.socketName }, ["-V"]),
    "exec '/opt/t+x/tmux' -u -L 'w.1' '-V'",
  );
  let refused = "";
  try {
    parseConfig(["--ssh", "web=h,oops=1"], {});
  } catch (e) {
    refused = (e as Error).message;
  }
  assertMatch(refused, /--ssh: "web=h,oops=1": "oops=1" is not a host setting/);
});

/** A window on `fx`'s tmux whose pane prints `text` once (and keeps the shell), for search-panes. */
async function printIn(fx: SshFixture, text: string): Promise<void> {
  await fx.tmux("new-window", "-d", "-t", "main", `printf '%s\\n' '${text}'; exec sleep 600`);
}

Deno.test("fleet: search-panes and list server cover every host; pipe-pane names its file's host", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    await printIn(alpha, "needle-alpha-1");
    await printIn(alpha, "needle-alpha-2");
    await printIn(beta, "needle-beta-1");
    type Found = {
      total_matches: number;
      next_offset: number | null;
      panes_searched: number;
      panes: { host: string; target: string; pane_id: string; matches: { text: string }[] }[];
    };
    const all = await waitUntil("every needle found", async () => {
      const r = await mcp.ok<Found>("search-panes", { query: "needle-" });
      return r.total_matches === 3 ? r : undefined;
    }, 30_000);
    assertEquals(all.panes.map((p) => p.host), ["alpha", "alpha", "beta"]);
    assertEquals(all.panes.every((p) => p.target === `${p.host}::${p.pane_id}`), true);
    assertEquals(all.panes.flatMap((p) => p.matches.map((m) => m.text)).sort(), [
      "needle-alpha-1",
      "needle-alpha-2",
      "needle-beta-1",
    ]);
    assert(all.panes_searched >= 4, JSON.stringify(all));
    // Offsets count across hosts: the third match is beta's.
    const page = await mcp.ok<Found>("search-panes", { query: "needle-", offset: 2, max_matches: 1 });
    assertEquals([page.total_matches, page.next_offset, page.panes.map((p) => p.host)], [3, null, ["beta"]]);
    const first = await mcp.ok<Found>("search-panes", { query: "needle-", max_matches: 1 });
    assertEquals([first.next_offset, first.panes.length, first.panes[0].host], [1, 1, "alpha"]);
    // A target narrows it to its host.
    const narrow = await mcp.ok<Found & { host: string }>("search-panes", { query: "needle-", target: "beta::main" });
    assertEquals([narrow.host, narrow.total_matches], ["beta", 1]);

    const servers = await mcp.ok<{ servers: { host: string; version: string; pid: number; ssh_host: string }[] }>(
      "list",
      { what: "server" },
    );
    assertEquals(servers.servers.map((s) => [s.host, s.ssh_host]), [["alpha", "tmcp-alpha"], ["beta", "tmcp-beta"]]);
    const pids = [alpha, beta].map(async (fx) => Number((await fx.tmux("display-message", "-p", "#{pid}")).trim()));
    assertEquals(servers.servers.map((s) => s.pid), await Promise.all(pids));
    const one = await mcp.ok<{ host: string; ssh_host: string }>("list", { what: "server", target: "beta::" });
    assertEquals([one.host, one.ssh_host], ["beta", "tmcp-beta"]);

    const log = `${beta.dir}/pipe.log`;
    const piped = await mcp.ok<{ file_host: string; host: string }>("pipe-pane", { target: "beta::main", path: log });
    assertEquals([piped.host, piped.file_host], ["beta", "tmcp-beta"]);
    await mcp.ok("pipe-pane", { target: "beta::main" });
  });
});

Deno.test("fleet: buffers are addressed HOST::NAME; listings cover every host; a name with :: is never misread", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    const onBeta = await mcp.ok<{ host: string; name: string }>("set-buffer", { name: "beta::note", content: "on b" });
    assertEquals([onBeta.host, onBeta.name], ["beta", "note"]);
    assertEquals(await beta.tmux("show-buffer", "-b", "note"), "on b");
    assert((await alpha.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n").every((n) => n !== "note"));
    // Without a host: the default one, and the answer says so.
    assertEquals((await mcp.ok<{ host: string }>("set-buffer", { name: "note", content: "on a" })).host, "alpha");
    assertEquals(await alpha.tmux("show-buffer", "-b", "note"), "on a");

    // Each row's name is the one to pass on: HOST::NAME, so beta's row never reads alpha's namesake.
    const listed = await mcp.ok<{ buffers: { host: string; name: string }[] }>("list-buffers");
    const notes = listed.buffers.filter((b) => b.name.endsWith("::note"));
    assertEquals(notes.map((b) => [b.host, b.name]), [["alpha", "alpha::note"], ["beta", "beta::note"]]);
    for (const b of notes) {
      const text = (await mcp.ok<{ text: string }>("show-buffer", { name: b.name })).text;
      assertEquals(text, b.host === "beta" ? "on b" : "on a");
    }
    const shown = await mcp.ok<{ text: string; host: string }>("show-buffer", { name: "beta::note" });
    assertEquals([shown.text, shown.host], ["on b", "beta"]);
    await mcp.ok("append-buffer", { name: "beta::note", content: "!" });
    assertEquals(await beta.tmux("show-buffer", "-b", "note"), "on b!");
    const found = await mcp.ok<{ host: string; total_matches: number }>("search-buffer", {
      query: "on b",
      buffers: ["beta::note"],
    });
    assertEquals([found.host, found.total_matches], ["beta", 1]);

    // A buffer name holding "::": its host is written first, and a prefix that is no host is refused.
    assertMatch(
      await mcp.err("set-buffer", { name: "x::y", content: "?" }),
      /"x" before "::" is not a host \(hosts: alpha, beta\).*alpha::x::y/,
    );
    assertMatch(await mcp.err("set-buffer", { name: "gamma::y", content: "?" }), /not a host/);
    assertMatch(await mcp.err("show-buffer", { name: "beta::" }), /names no buffer: write beta::NAME/);
    assertEquals((await mcp.ok<{ host: string }>("set-buffer", { name: "beta::x::y", content: "c" })).host, "beta");
    assertEquals(await beta.tmux("show-buffer", "-b", "x::y"), "c");
    assertMatch(
      await mcp.err("rename-buffer", { from: "beta::note", to: "alpha::note2" }),
      /names host "beta" and to names "alpha": a call acts on one host/,
    );
    // Unprefixed names go with the host the call names.
    await mcp.ok("rename-buffer", { from: "beta::x::y", to: "moved" });
    assertEquals(await beta.tmux("show-buffer", "-b", "moved"), "c");

    const saved = await mcp.ok<{ file_host: string; host: string }>("save-buffer", {
      name: "beta::note",
      path: `${beta.dir}/saved.txt`,
    });
    assertEquals([saved.host, saved.file_host], ["beta", "tmcp-beta"]);
    assertEquals(await Deno.readTextFile(`${beta.dir}/saved.txt`), "on b!");
    const loaded = await mcp.ok<{ file_host: string; host: string }>("load-buffer", {
      name: "beta::loaded",
      path: `${beta.dir}/saved.txt`,
    });
    assertEquals([loaded.host, loaded.file_host], ["beta", "tmcp-beta"]);
    assertEquals(await beta.tmux("show-buffer", "-b", "loaded"), "on b!");
    await mcp.ok("delete-buffer", { name: "beta::note" });
    assertEquals(await alpha.tmux("show-buffer", "-b", "note"), "on a");
    await assertRejects(() => beta.tmux("show-buffer", "-b", "note"));
  });
});

Deno.test("fleet: pty sessions on a chosen host, ids unambiguous, every answer says where it runs", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    const b = await mcp.ok<{ pty_id: string; runs_on: string; host: string }>("pty-launch", {
      command: "cat",
      pty_id: "beta::same",
    });
    assertEquals([b.pty_id, b.runs_on, b.host], ["beta::same", "tmcp-beta", "beta"]);
    const a = await mcp.ok<{ pty_id: string; runs_on: string }>("pty-launch", { command: "cat", pty_id: "same" });
    assertEquals([a.pty_id, a.runs_on], ["alpha::same", "tmcp-alpha"]);
    const fresh = await mcp.ok<{ pty_id: string; runs_on: string }>("pty-launch", { command: "cat", pty_id: "beta::" });
    assertMatch(fresh.pty_id, /^beta::[A-Za-z0-9]/);
    assertEquals(fresh.runs_on, "tmcp-beta");

    const listed = await mcp.ok<{ sessions: { pty_id: string; host: string; runs_on?: string }[] }>(
      "pty-list-sessions",
    );
    assertEquals(listed.sessions.map((s) => s.pty_id).sort(), ["alpha::same", "beta::same", fresh.pty_id].sort());
    assertEquals(listed.sessions.every((s) => s.pty_id.startsWith(`${s.host}::`)), true);
    assertEquals(listed.sessions.every((s) => s.runs_on === `tmcp-${s.host}`), true, JSON.stringify(listed));

    const sent = await mcp.ok<{ pty_id: string; runs_on: string }>("pty-send-keys", {
      pty_id: "beta::same",
      keys: "typed-on-beta\n",
    });
    assertEquals([sent.pty_id, sent.runs_on], ["beta::same", "tmcp-beta"]);
    await waitUntil("beta's cat to echo", async () => {
      const s = await mcp.ok<{ screen: string; runs_on: string; host: string }>("pty-get-screen", {
        pty_id: "beta::same",
      });
      assertEquals([s.runs_on, s.host], ["tmcp-beta", "beta"]);
      return s.screen.includes("typed-on-beta") || undefined;
    }, 30_000);
    const alphaScreen = await mcp.ok<{ screen: string }>("pty-get-screen", { pty_id: "alpha::same" });
    assert(!alphaScreen.screen.includes("typed-on-beta"));
    // The session is on beta's tmux, not alpha's.
    assert((await beta.tmux("list-sessions", "-F", "#{session_name}")).includes("same"));
    assert(!(await alpha.tmux("list-sessions", "-F", "#{session_name}")).includes(fresh.pty_id.slice(6)));

    const cap = await mcp.ok<{ file_host: string; runs_on: string }>("pty-capture", {
      pty_id: "beta::same",
      output_file: `${beta.dir}/cap.log`,
    });
    assertEquals([cap.file_host, cap.runs_on], ["tmcp-beta", "tmcp-beta"]);
    await mcp.ok("pty-capture", { pty_id: "beta::same" });

    assertMatch(await mcp.err("pty-get-screen", { pty_id: "beta::" }), /names nothing on beta/);
    assertMatch(await mcp.err("pty-get-screen", { pty_id: "gamma::same" }), /no host is named "gamma"/);
    assertMatch(await mcp.err("pty-get-screen", { pty_id: "be:ta::x" }), /pty_id is 1-64 letters/);
    const killed = await mcp.ok<{ runs_on: string }>("pty-kill-session", { pty_id: "beta::same" });
    assertEquals(killed.runs_on, "tmcp-beta");
    await mcp.ok("pty-get-screen", { pty_id: "alpha::same" });
  });
});

Deno.test("fleet: a host's own socket name and tmux binary are the ones used on it", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    await connectedHosts(mcp);
    // beta's tmux is on a socket of its own: its session is reached.
    const sessions = await mcp.ok<{ sessions: { host: string; session_name: string }[] }>("list", {
      what: "sessions",
    });
    assertEquals(sessions.sessions.map((s) => [s.host, s.session_name]), [["alpha", "main"], ["beta", "main"]]);
    const marker = `${beta.socketName}-seen`;
    await mcp.ok("set-buffer", { name: "beta::own", content: marker });
    assertEquals(await beta.tmux("show-buffer", "-b", "own"), marker);
    // alpha's tmux is started through its wrapper.
    assertMatch(await Deno.readTextFile(`${alpha.dir}/wrap.log`), /started/);
  }, { own: true });
});

Deno.test("fleet: no server at a host's own socket says to fix that host's setting, not --socket-name", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    await connectedHosts(mcp);
    await beta.tmux("kill-server");
    assertMatch(
      await mcp.err("list", { what: "sessions", target: "beta::" }),
      /no tmux server is running on ssh host "tmcp-beta" .* or point its ,socket-name=NAME or ,socket-path=PATH after the destination at a running one$/,
    );
    // A host on the server's socket: the server's flags are what to change.
    await alpha.tmux("kill-server");
    assertMatch(
      await mcp.err("list", { what: "sessions", target: "alpha::" }),
      /or point --socket-name or --socket-path at a running one$/,
    );
  }, { own: true });
});

Deno.test("fleet: one host — a buffer name with :: is written HOST::NAME, never half read as a host", async () => {
  await withServer(async (mcp, tmux) => {
    assertMatch(
      await mcp.err("set-buffer", { name: "a::b", content: "x" }),
      /"a" before "::" is not a host \(hosts: local\).*local::a::b/,
    );
    // A name that is no host, with a line break in it, is quoted: the error stays one line.
    for (
      const [tool, args] of [
        ["show-buffer", { name: "a\nb::x" }],
        ["delete-buffer", { name: "x\r\ny::z" }],
      ] as const
    ) {
      const msg = await mcp.err(tool, args);
      assertMatch(msg, /"(a\\nb|x\\r\\ny)" before "::"/, tool);
      assert(!/[\r\n]/.test(msg), `${tool}: ${JSON.stringify(msg)}`);
    }
    await mcp.ok("set-buffer", { name: "local::a::b", content: "x" });
    assertEquals(await tmux.tmux("show-buffer", "-b", "a::b"), "x");
    assertEquals((await mcp.ok<{ text: string }>("show-buffer", { name: "local::a::b" })).text, "x");
    // Names without "::" are as they were, and answers of one host carry no host.
    const r = await mcp.ok<{ host?: string }>("set-buffer", { name: "plain:name", content: "y" });
    assertEquals(r.host, undefined);
    const p = await mcp.ok<{ runs_on: string; pty_id: string }>("pty-launch", { command: "cat" });
    assertEquals(p.runs_on, "local");
    assertEquals((await mcp.ok<{ runs_on: string }>("pty-get-screen", { pty_id: p.pty_id })).runs_on, "local");
    await mcp.ok("pty-kill-session", { pty_id: p.pty_id });
  });
});

Deno.test("fleet: list hosts gives the version of a tmux installed under another name (tmux-next), not its name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-next-" });
  try {
    // tmux -V prints the name it was started by: "tmux-next 3.4".
    const real = (await new Deno.Command("sh", { args: ["-c", "command -v tmux"] }).output()).stdout;
    await Deno.symlink(new TextDecoder().decode(real).trim(), `${dir}/tmux-next`);
    await withServer(async (mcp) => {
      const hosts = (await mcp.ok<{ hosts: HostRow[] }>("list", { what: "hosts" })).hosts;
      assertMatch(hosts[0].tmux_version ?? "", /^\d+\.\d+\S*$/, JSON.stringify(hosts));
    }, { args: ["--tmux-bin", `${dir}/tmux-next`] });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fleet: a continue token and a full-output buffer from a host lead back to it", async () => {
  await withFleet(async (mcp, _alpha, beta) => {
    const pane = qualify("beta", await bashPane(beta));
    // Connected first: each ssh session's login on beta (2 s) is longer than this server's call budget, so the
    // first calls there are cut while the control client's session starts.
    await waitUntil(
      "beta's control client",
      async () => !(await mcp.call("capture-pane", { target: pane })).isError || undefined,
      120_000,
    );
    type Run = { continue?: string; output: string; full_output_buffer?: string; host: string };
    let r = await mcp.ok<Run>("run-command", {
      target: pane,
      command: "sleep 5; seq 1 30; echo fin-$((6*7))",
      max_lines: 3,
      timeout_ms: 120_000,
    });
    assertEquals(r.host, "beta");
    assertMatch(r.continue ?? "", /^beta::c[0-9a-f]{16}$/, JSON.stringify(r));
    assertMatch(await mcp.err("run-command", { continue: "beta::" }), /names nothing on beta/);
    assertMatch(await mcp.err("run-command", { continue: r.continue!.slice(6) }), /continue/);
    while (r.continue !== undefined) r = await mcp.ok<Run>("run-command", { continue: r.continue });
    assertMatch(r.output, /fin-42/);
    assertMatch(r.full_output_buffer!, /^beta::/);
    const all = await mcp.ok<{ text: string; host: string }>("show-buffer", { name: r.full_output_buffer! });
    assertEquals(all.host, "beta");
    assertMatch(all.text, /^1\n2\n3\n[\s\S]*fin-42\n$/);
  }, { args: ["--call-budget-ms", "2000"] });
});

Deno.test("fleet: a result over budget is kept in its host's tmux, paged by HOST::NAME, deleted there at exit", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    await connectedHosts(mcp);
    const value = Array.from({ length: 400 }, (_, i) => `zq-beta-${i}`).join(" ");
    await beta.tmux("set-environment", "-g", "ZQBIG", value);
    type Buffered = { buffer_id: string | null; note: string; suggested_refinements: string[] };
    const r = await mcp.ok<Buffered>("show", { what: "environment", target: "beta::" });
    assertMatch(r.buffer_id ?? "", /^beta::mcp-result-\d+-[0-9a-f]{8}$/, JSON.stringify(r));
    assert(r.note.includes(JSON.stringify(r.buffer_id)), r.note);
    assert(r.suggested_refinements.every((s) => !s.includes("show-buffer") || s.includes(r.buffer_id!)));
    const results = async (fx: SshFixture) =>
      (await fx.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n").filter((n) => n.startsWith("mcp-result-"));
    assertEquals(await results(beta), [r.buffer_id!.slice("beta::".length)]);
    assertEquals(await results(alpha), []);
    const page = await mcp.ok<{ text: string; host: string }>("show-buffer", { name: r.buffer_id!, max_bytes: 2048 });
    assertEquals(page.host, "beta");
    assertMatch(page.text, /zq-beta-0 /);
    const found = await mcp.ok<{ total_matches: number; host: string }>("search-buffer", {
      buffers: [r.buffer_id!],
      query: "zq-beta-399",
    });
    assertEquals([found.host, found.total_matches], ["beta", 1]);
    // A normal exit deletes the server's results on every host it kept them on.
    await mcp.close();
    await waitUntil("beta's result deleted", async () => (await results(beta)).length === 0 || undefined, 60_000);
  }, { args: ["--max-tokens", "600"] });
});

Deno.test("fleet: a result kept on a remote host expires there after bufferTTL", async () => {
  const config = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(config, `{ "bufferTTL": 3000 }`);
  try {
    await withFleet(async (mcp, _alpha, beta) => {
      await connectedHosts(mcp);
      await beta.tmux("set-environment", "-g", "ZQBIG", Array.from({ length: 400 }, (_, i) => `zq-${i}`).join(" "));
      const r = await mcp.ok<{ buffer_id: string | null }>("show", { what: "environment", target: "beta::" });
      assertMatch(r.buffer_id ?? "", /^beta::mcp-result-/);
      const name = r.buffer_id!.slice("beta::".length);
      await waitUntil("the result expired on beta", async () => {
        const names = (await beta.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n");
        return !names.includes(name) || undefined;
      }, 60_000);
      assertMatch(await mcp.err("show-buffer", { name: r.buffer_id! }), /mcp-result/);
    }, { args: ["--max-tokens", "600", "--config", config] });
  } finally {
    await Deno.remove(config);
  }
});

Deno.test("fleet: a listing over budget with the first host stopped is kept on a host that answered", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    await connectedHosts(mcp);
    for (let i = 0; i < 40; i++) await beta.tmux("new-window", "-d", "-t", "main");
    const tmuxPid = Number((await alpha.tmux("display-message", "-p", "#{pid}")).trim());
    const frozen = [tmuxPid, ...await alpha.sshdProcesses()];
    for (const pid of frozen) Deno.kill(pid, "SIGSTOP");
    try {
      const t0 = performance.now();
      const r = await mcp.ok<{ buffer_id: string | null; note: string }>("list", { what: "panes" });
      const took = performance.now() - t0;
      assertMatch(r.buffer_id ?? "", /^beta::mcp-result-/, JSON.stringify(r).slice(0, 1500));
      assert(took < 45_000, `the listing took ${took} ms`);
      const page = await mcp.ok<{ text: string; host: string }>("show-buffer", { name: r.buffer_id!, max_bytes: 2048 });
      assertEquals(page.host, "beta");
      assertMatch(page.text, /"beta::%0"/);
    } finally {
      for (const pid of frozen) Deno.kill(pid, "SIGCONT");
    }
  }, { args: ["--max-tokens", "400"] });
});

Deno.test("fleet: a capture-since cursor from a host goes on there, also without target", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    await connectedHosts(mcp);
    // Both hosts have a pane of this id: a cursor read on the wrong one would be another machine's output.
    const id = (await beta.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    assertEquals((await alpha.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim(), id);
    type Since = { cursor: string; text: string; host: string; pane_id: string; first_call: boolean };
    const first = await mcp.ok<Since>("capture-since", { target: qualify("beta", id) });
    assertEquals([first.host, first.first_call], ["beta", true]);
    assertMatch(first.cursor, /^beta::tmc1\./);
    await beta.tmux("send-keys", "-t", id, "-l", "echo since-on-$((6*7))");
    await beta.tmux("send-keys", "-t", id, "Enter");
    // Without target the cursor's own pane is read: on beta, where it was taken.
    const text = await waitUntil("beta's new line through the cursor alone", async () => {
      const r = await mcp.ok<Since>("capture-since", { cursor: first.cursor });
      assertEquals([r.host, r.pane_id, r.first_call], ["beta", id, false]);
      return r.text.includes("since-on-42") ? r.text : undefined;
    }, 30_000);
    assertMatch(text, /since-on-42/);
    // The audit line says which host the call acted on (its args name only a cursor, its ids only %0).
    await mcp.waitForStderr(/"tool":"capture-since","outcome":"ok",[^\n]*"target":\{"host":"beta","session_id"/);
    assertMatch(
      await mcp.err("capture-since", { cursor: first.cursor, target: qualify("alpha", id) }),
      /names host "alpha" and cursor names "beta"/,
    );
    assertMatch(await mcp.err("capture-since", { cursor: "beta::" }), /names nothing on beta/);
  });
});

Deno.test("fleet: a password prompt on a host is handed to request-input with that host's target", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    await connectedHosts(mcp);
    const id = await bashPane(beta);
    // Alpha has a pane of that id too: advice naming the bare id would have the user type the secret there.
    await bashPane(alpha);
    assert((await alpha.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n").includes(id));
    const target = qualify("beta", id);
    await mcp.ok("send-keys", { target, text: "read -rs -p 'Password: ' secret", enter: true });
    const advice = `request-input {target: "${target}"}`;
    type Captured = { warnings: { kind: string; message: string }[] };
    const cap = await waitUntil("beta's password prompt in capture-pane's warnings", async () => {
      const r = await mcp.call("capture-pane", { target });
      const w = (r.structuredContent as Captured | undefined)?.warnings ?? [];
      return w.some((x) => x.kind === "input_prompt") ? r : undefined;
    }, 30_000);
    const message = (cap.structuredContent as Captured).warnings.find((w) => w.kind === "input_prompt")!.message;
    assert(message.includes(advice), message);
    // The facts block a client shows says the same.
    assert(textOf(cap).includes(JSON.stringify(advice).slice(1, -1)), textOf(cap));
    // A refusal says it too.
    const refused = await mcp.err("run-command", { target, command: "true" });
    assert(refused.includes(advice), refused);
    await mcp.ok("send-keys", { target, keys: ["C-c"] });

    // A pty session on beta at a password prompt: its id, like the pane's, is named with its host.
    await mcp.ok("pty-launch", { command: "sh -c 'printf \"Password: \"; read x'", pty_id: "beta::pw" });
    const ptyAdvice = 'request-input {pty_id: "beta::pw"}';
    const screen = await waitUntil("the pty session's password prompt in pty-get-screen's warnings", async () => {
      const r = await mcp.ok<Captured>("pty-get-screen", { pty_id: "beta::pw" });
      return r.warnings?.find((w) => w.kind === "input_prompt")?.message;
    }, 30_000);
    assert(screen.includes(ptyAdvice), screen);
    await mcp.ok("pty-kill-session", { pty_id: "beta::pw" });
  });
});

type BufferSearch = {
  total_matches: number;
  total_is_partial: boolean;
  buffers: string[];
  matches: { buffer: string; offset_bytes: number; host: string }[];
  truncated_buffers: string[];
  resume_from_offset: Record<string, number>;
  unreachable?: { host: string; error: string }[];
};

Deno.test("fleet: search-buffer without buffers searches every host; its pages go on across hosts", async () => {
  await withFleet(async (mcp) => {
    await mcp.ok("set-buffer", { name: "alpha::s1", content: "xx hit-1 yy hit-2\n" });
    await mcp.ok("set-buffer", { name: "beta::s2", content: "hit-3\n" });
    await mcp.ok("set-buffer", { name: "beta::s3", content: "hit-4 hit-5 hit-6\n" });
    const all = await mcp.ok<BufferSearch>("search-buffer", { query: "hit-" });
    assertEquals([all.total_matches, all.total_is_partial, all.unreachable], [6, false, undefined]);
    assertEquals(all.buffers.toSorted(), ["alpha::s1", "beta::s2", "beta::s3"]);
    assertEquals(all.matches.map((m) => m.buffer.split("::")[0]), ["alpha", "alpha", "beta", "beta", "beta", "beta"]);
    assertEquals(all.matches.every((m) => m.buffer.startsWith(`${m.host}::`)), true);
    assertEquals(all.resume_from_offset, {});
    // A match's buffer name is the one show-buffer takes.
    const m = all.matches.at(-1)!;
    const shown = await mcp.ok<{ text: string }>("show-buffer", { name: m.buffer, offset_bytes: m.offset_bytes });
    assertMatch(shown.text, /^hit-\d/);

    // Pages of two: each buffer cut where its first left-out match starts, every match once, hosts in order.
    const seen: string[] = [];
    let page = await mcp.ok<BufferSearch>("search-buffer", { query: "hit-", max_matches: 2 });
    const pages = [page];
    while (Object.keys(page.resume_from_offset).length > 0) {
      assert(pages.length < 10, JSON.stringify(pages));
      assert(Object.keys(page.resume_from_offset).every((k) => /^(alpha|beta)::s\d$/.test(k)), JSON.stringify(page));
      page = await mcp.ok<BufferSearch>("search-buffer", {
        query: "hit-",
        max_matches: 2,
        resume_from_offset: page.resume_from_offset,
      });
      pages.push(page);
    }
    for (const p of pages) {
      assert(p.matches.length <= 2, JSON.stringify(p));
      seen.push(...p.matches.map((x) => `${x.buffer}@${x.offset_bytes}`));
    }
    assertEquals(pages.length, 3);
    assertEquals(seen, all.matches.map((x) => `${x.buffer}@${x.offset_bytes}`));
    assertEquals(pages[0].total_matches, 6);
    // The last page resumes beta only: alpha's finished buffer is not counted, and the total says so.
    assertEquals(pages[2].total_is_partial, true);

    // A page cut in alpha leaves beta's buffers whole for the next one.
    const one = await mcp.ok<BufferSearch>("search-buffer", { query: "hit-", max_matches: 1 });
    assertEquals(one.matches.map((x) => x.buffer), ["alpha::s1"]);
    assertEquals(one.resume_from_offset["alpha::s1"], "xx hit-1 yy hit-2".indexOf("hit-2"));
    assertEquals(one.resume_from_offset["beta::s2"], 0);
    // Named buffers still go to their one host, and the names come back as they were given.
    const named = await mcp.ok<BufferSearch & { host: string }>("search-buffer", {
      query: "hit-",
      buffers: ["beta::s2"],
    });
    assertEquals([named.host, named.buffers, named.total_matches], ["beta", ["beta::s2"], 1]);

    assertMatch(
      await mcp.err("search-buffer", { query: "hit-", resume_from_offset: { "gamma::s1": 0 } }),
      /resume_from_offset "gamma::s1": "gamma" before "::" is not a host \(hosts: alpha, beta\)/,
    );
    assertMatch(
      await mcp.err("search-buffer", { query: "hit-", resume_from_offset: { "alpha::": 0 } }),
      /names no buffer: write alpha::NAME/,
    );
  });
});

Deno.test("fleet: paste-text and kill server act on the target's host; kill server without one is refused", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    const pane = await bashPane(beta);
    const pasted = await mcp.ok<{ host: string; bytes: number; pane_id: string }>("paste-text", {
      target: qualify("beta", pane),
      text: "echo pasted-$((6*7))\n",
      bracketed: false,
    });
    assertEquals([pasted.host, pasted.pane_id, pasted.bytes], ["beta", pane, 21]);
    await waitUntil("the paste to run on beta", async () => {
      return (await beta.tmux("capture-pane", "-p", "-t", pane)).includes("pasted-42") || undefined;
    }, 30_000);
    const theirs = await alpha.tmux("capture-pane", "-p", "-t", pane).catch(() => "");
    assert(!theirs.includes("pasted-"), "the paste reached alpha");

    // Never the first host by surprise: without a host the server kill is refused, and every tmux lives.
    assertMatch(await mcp.err("kill", { what: "server" }), /names no host.*target "HOST::" \(hosts: alpha, beta\)/);
    assertMatch(await mcp.err("kill", { what: "server", target: "gamma::" }), /no host is named "gamma"/);
    assertMatch(await mcp.err("kill", { what: "server", target: "beta::main" }), /target/);
    await alpha.tmux("has-session", "-t", "main");
    await beta.tmux("has-session", "-t", "main");
    const killed = await mcp.ok<{ host: string; killed: string }>("kill", { what: "server", target: "beta::" });
    assertEquals([killed.host, killed.killed], ["beta", "server"]);
    await assertRejects(() => beta.tmux("has-session", "-t", "main"));
    await alpha.tmux("has-session", "-t", "main");
    const sessions = await mcp.ok<{ sessions: { host: string }[] }>("list", { what: "sessions", target: "alpha::" });
    assertEquals(sessions.sessions.map((s) => s.host), ["alpha"]);
  });
});

Deno.test("fleet: a host whose first login outlasts a listing's wait is said to be logging in, not down", async () => {
  await withFleet(async (mcp, _alpha, beta) => {
    // Longer than a listing waits for a host (10 s), well within --connect-timeout-ms (60 s).
    await beta.setLoginRc("sleep 15\n");
    const listed = await mcp.ok<{ sessions: { host: string }[]; unreachable: { host: string; error: string }[] }>(
      "list",
      { what: "sessions" },
    );
    assertEquals(listed.sessions.map((s) => s.host), ["alpha"]);
    assertEquals(listed.unreachable.map((u) => u.host), ["beta"]);
    assertMatch(listed.unreachable[0].error, /^host "beta" is still logging in after 10 s .*call again in a moment/);
    assert(!/down or stalled/.test(listed.unreachable[0].error), listed.unreachable[0].error);
  });
});

Deno.test("fleet: a host whose login is slow on each channel is said to be logging in once its connection is up", async () => {
  await withFleet(async (mcp, _alpha, beta) => {
    // Every channel runs the rc files again: the connection's login ends within a listing's wait (10 s), the tmux
    // clients' logins that follow it do not.
    const done = `${beta.dir}/home/logins-done`;
    await beta.setLoginRc(`sleep 4; echo done >> '${done}'\n`);
    const listed = await mcp.ok<{ sessions: { host: string }[]; unreachable: { host: string; error: string }[] }>(
      "list",
      { what: "sessions" },
    );
    assertEquals(listed.unreachable.map((u) => u.host), ["beta"]);
    // The connection's own login was over: what ran past the wait was a channel's.
    assert((await Deno.readTextFile(done)).length > 0, "the connection's login had not ended");
    assertMatch(listed.unreachable[0].error, /^host "beta" is still logging in after 10 s .*call again in a moment/);
  });
});

Deno.test("fleet: at end of input the server exits at once while a host still logs in", async () => {
  const alpha = await startSshd({ alias: "tmcp-alpha" });
  const beta = await startSshd({ alias: "tmcp-beta", socketName: alpha.socketName });
  try {
    await alpha.startTmux();
    await beta.startTmux();
    await beta.setLoginRc("sleep 30\n");
    const s = rawServer(alpha.socketName, [
      ...["--ssh", "alpha=tmcp-alpha", "--ssh", "beta=tmcp-beta"],
      ...["--ssh-config", await sharedConfig(alpha, beta)],
    ]);
    try {
      await s.initialize();
      await s.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "list", arguments: { what: "sessions" } },
      });
      const listed = (await s.next()).result as { structuredContent: { unreachable: { host: string }[] } };
      assertEquals(listed.structuredContent.unreachable.map((u) => u.host), ["beta"]);
      await s.writer.close();
      const status = await exitWithin(s.child, 60_000);
      assertEquals(status?.code, 0);
      // Its cleanup ran to its end: the login was not waited for up to the cleanup's bound.
      const said = await s.stderr;
      assert(!said.includes("cleanup did not finish"), said);
    } finally {
      await s.stop().catch(() => {});
    }
  } finally {
    await alpha.cleanup();
    await beta.cleanup();
  }
});

Deno.test("fleet: a listing no host answers names each host with its own cause", async () => {
  await withFleet(async (mcp, alpha, beta) => {
    await connectedHosts(mcp);
    // One cause shared by every host is said once, as it is.
    const bad = await mcp.err("search-panes", { query: "(", mode: "regex" });
    assertMatch(bad, /^invalid regex "\("/);
    await mcp.ok("kill", { what: "server", target: "alpha::" });
    await beta.stop();
    for (const [tool, args] of [["list", { what: "sessions" }], ["list-buffers", {}]] as const) {
      const msg = await mcp.err(tool, args);
      assertMatch(msg, /alpha: no tmux server is running on ssh host "tmcp-alpha"/, tool);
      assertMatch(msg, /beta: cannot reach ssh host "tmcp-beta"/, tool);
      assert(!msg.includes("\n"), msg);
    }
    await assertRejects(() => alpha.tmux("has-session"));
  });
});

Deno.test("fleet: a search of every host's buffers cut to the response budget resumes with each match once", async () => {
  await withFleet(async (mcp) => {
    const filler = "~".repeat(300);
    const text = (h: string) => [1, 2, 3].map((i) => `zq-${h}-${i} ${filler}`).join("\n");
    await mcp.ok("set-buffer", { name: "alpha::big", content: text("a") });
    await mcp.ok("set-buffer", { name: "beta::big", content: text("b") });
    const seen: string[] = [];
    let cut = false;
    let resume: Record<string, number> | undefined;
    for (let n = 0; n < 12; n++) {
      const page = await mcp.ok<BufferSearch & { truncated_by_budget?: true }>("search-buffer", {
        query: "zq-",
        context_bytes: 300,
        ...(resume ? { resume_from_offset: resume } : {}),
      });
      cut ||= page.truncated_by_budget === true;
      seen.push(...page.matches.map((m) => `${m.buffer}@${m.offset_bytes}`));
      resume = page.resume_from_offset;
      if (Object.keys(resume).length === 0) break;
    }
    assert(cut, "no page was cut to the budget");
    // In the order of one search: alpha's matches, then beta's (each line is 308 bytes).
    const every = ["alpha", "beta"].flatMap((h) => [0, 308, 616].map((o) => `${h}::big@${o}`));
    assertEquals(seen, every);
  }, { args: ["--max-tokens", "600"] });
});

Deno.test("fleet: hosts answering in both forms (many panes compact, few in full) are merged into one columns form", async () => {
  const many = await startTmux("fleetmany");
  const few = await startTmux("fleetfew");
  let mcp: McpFixture | undefined;
  try {
    // 120 one-pane windows on the first host (compact beyond 100 panes); the second keeps its one pane.
    const lines = Array.from({ length: 119 }, () => "new-window -d -t main 'exec sleep 3600'");
    const file = await Deno.makeTempFile();
    try {
      await Deno.writeTextFile(file, lines.join("\n") + "\n");
      await many.tmux("source-file", file);
    } finally {
      await Deno.remove(file);
    }
    mcp = await connect({
      args: ["--ssh", `big=local,socket-name=${many.socketName}`, "--ssh", `small=local,socket-name=${few.socketName}`],
    });
    const s = await mcp.ok<{ panes?: unknown[]; columns: string[]; rows: unknown[][]; omitted_fields: string[] }>(
      "list",
      { what: "panes" },
    );
    assertEquals(s.panes, undefined, "no pane is given as an object beside the rows");
    assertEquals(s.columns[0], "host");
    assertEquals(s.rows.length, 121);
    assertEquals(s.rows.filter((r) => r[0] === "small").length, 1);
    const small = s.rows.find((r) => r[0] === "small")!;
    // The small host's row holds the same facts, in the same columns, as the big host's rows.
    assertEquals(small.length, s.columns.length);
    assertEquals(small[s.columns.indexOf("session_name")], "main");
    assertEquals(small[s.columns.indexOf("window_index")], 0);
    assertEquals(small[s.columns.indexOf("target")], "small::%0");
    assert(s.omitted_fields.includes("current_path"), JSON.stringify(s.omitted_fields));
  } finally {
    await mcp?.close();
    await many.kill();
    await few.kill();
  }
});

Deno.test("fleet: two stalled hosts with every slot of theirs busy leave the third answering at once", async () => {
  const local = await startTmux("fleetthird");
  const fx = await startSshd({ alias: "tmcp-twice" });
  let mcp: McpFixture | undefined;
  try {
    await fx.startTmux();
    // Two hosts on the one sshd and tmux (stopped together below), and this machine's tmux as the third.
    mcp = await connect({
      args: [
        ...[
          "--ssh",
          `one=${fx.alias}`,
          "--ssh",
          `two=${fx.alias}`,
          "--ssh",
          `here=local,socket-name=${local.socketName}`,
        ],
        ...["--ssh-config", fx.configPath, "--socket-name", fx.socketName],
      ],
    });
    for (const host of ["one", "two", "here"]) await mcp.ok("capture-pane", { target: `${host}::main` });
    const frozen = [Number((await fx.tmux("display-message", "-p", "#{pid}")).trim()), ...await fx.sshdProcesses()];
    for (const pid of frozen) Deno.kill(pid, "SIGSTOP");
    try {
      // Four calls each (an ssh host's whole bound): 8 commands in flight, as many as --max-concurrency.
      const stuck = ["one", "two"].flatMap((host) =>
        Array.from({ length: 4 }, () => mcp!.call("capture-pane", { target: `${host}::main` }))
      );
      const t0 = performance.now();
      const here = await mcp.ok<{ host: string }>("capture-pane", { target: "here::main" });
      const took = performance.now() - t0;
      assertEquals(here.host, "here");
      // tmux's bound for a stalled command is 10 s: the third host's call waited for it before.
      assert(took < 5_000, `the third host's call took ${Math.round(took)} ms`);
      for (const r of await Promise.all(stuck)) assert(r.isError, JSON.stringify(r));
    } finally {
      for (const pid of frozen) Deno.kill(pid, "SIGCONT");
    }
  } finally {
    await mcp?.close();
    await fx.cleanup();
    await local.kill();
  }
});
