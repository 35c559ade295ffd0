/**
 * Session scope (`--sessions`, `--scope tagged`) against real tmux through an
 * SDK client: sessions out of scope are absent from every listing, refused
 * by every tool with the words a nonexistent target gets, and untouched
 * (checked with tmux directly); the `@mcp` tag is the user's (set here with
 * tmux, refused through the server); sessions the server creates are in
 * scope; the default target is the newest session in scope.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, type McpFixture, startTmux, textOf, type TmuxFixture } from "./helpers.ts";
import { tempDir, waitUntil } from "./pane_helpers.ts";
import { parseConfig } from "../lib/config.ts";

const MARK = "SECRETMARK";

/** A session `name` with one pane that printed `text`; returns its ids. */
async function session(tmux: TmuxFixture, name: string, text: string) {
  const ids = (await tmux.tmux(
    ..."new-session -d -x 80 -y 24 -P -F".split(" "),
    "#{session_id} #{window_id} #{pane_id}",
    "-s",
    name,
    "--",
    `printf '%s\\n' ${text}; exec cat`,
  )).trim().split(" ");
  await waitUntil(`${name} printed`, async () => (await tmux.tmux("capture-pane", "-p", "-t", ids[2])).includes(text));
  // The state the tests compare holds the window's name, which tmux renames to cat some time after the exec.
  await waitUntil(
    `${name}'s window to be named cat`,
    async () => (await tmux.tmux("display-message", "-p", "-t", ids[2], "#{window_name}")).trim() === "cat",
  );
  return { session: ids[0], window: ids[1], pane: ids[2] };
}

/** What tmux itself says about a session: to check that nothing changed. */
async function stateOf(tmux: TmuxFixture, target: string): Promise<string> {
  const facts = await tmux.tmux(
    "display-message",
    "-p",
    "-t",
    target,
    "#{session_name} #{session_windows} #{window_panes} #{window_name} #{pane_pipe} #{history_size} " +
      "#{pane_width}x#{pane_height} #{pane_dead} #{@foo}",
  );
  const env = await tmux.tmux("show-environment", "-t", target).catch(() => "");
  const screen = await tmux.tmux("capture-pane", "-p", "-t", target);
  return `${facts}\n${env.split("\n").filter((l) => l.startsWith("FOO")).join(",")}\n${screen.trimEnd()}`;
}

/** The error of a call, with the target as given replaced by a placeholder (to compare two targets' errors). */
async function refusal(mcp: McpFixture, tool: string, args: Record<string, unknown>, target: string) {
  const text = await mcp.err(tool, { ...args, target });
  // Exact-target refusals quote the session name alone.
  const name = target.replace(/^=/, "").split(":")[0];
  return text.replaceAll(JSON.stringify(target), '"<T>"').replaceAll(JSON.stringify(name), '"<T>"');
}

/** Every tool that takes a target, with arguments that would act if the target were reachable. */
function targetedCalls(path: string): [string, Record<string, unknown>][] {
  return [
    ["capture-pane", {}],
    ["snapshot-pane", {}],
    ["show", { what: "format", format: "#{pane_id}" }],
    ["show", { what: "options", scope: "pane" }],
    ["show", { what: "environment" }],
    ["show", { what: "hooks" }],
    ["list", { what: "panes" }],
    ["list", { what: "panes", all: true }],
    ["list", { what: "windows" }],
    ["search-panes", { query: MARK }],
    ["send-keys", { text: "echo LEAK", enter: true }],
    ["paste-text", { text: "LEAK" }],
    ["select", { what: "pane" }],
    ["select", { what: "window" }],
    ["select", { what: "layout", layout: "even-horizontal" }],
    ["rename", { what: "session", name: "pwned" }],
    ["rename", { what: "window", name: "pwned" }],
    ["resize-pane", { width: 20 }],
    ["pipe-pane", { path }],
    ["set", { what: "option", scope: "session", name: "@foo", value: "1" }],
    ["set", { what: "environment", name: "FOO", value: "1" }],
    ["clear-history", {}],
    ["new", { what: "window" }],
    ["new", { what: "pane" }],
    ["run-command", { command: "echo LEAK", timeout_ms: 5000 }],
    ["capture-since", {}],
    ["wait", { what: "text", patterns: ["x"], timeout_ms: 1000 }],
    ["wait", { what: "quiet", quiet_ms: 100, timeout_ms: 1000 }],
    ["kill", { what: "pane" }],
    ["kill", { what: "window" }],
    ["kill", { what: "session" }],
    ["respawn-pane", { kill: true, command: "echo LEAK" }],
  ];
}

Deno.test("--sessions: sessions out of scope are absent, refused like nonexistent ones, and untouched", async () => {
  const tmux = await startTmux("scope");
  const dir = await tempDir("tmcp-scope-");
  const work = await session(tmux, "work-a", "WORKMARK");
  const shop = await session(tmux, "workshop", MARK);
  // The newest session is out of scope: the default target must not be it.
  const created = Number(await tmux.tmux("display-message", "-p", "-t", work.session, "#{session_created}"));
  await waitUntil("the clock to pass work-a's second", () => Promise.resolve(Date.now() / 1000 >= created + 1.05));
  const secret = await session(tmux, "secret", MARK);
  const mcp = await connect({
    socketName: tmux.socketName,
    args: ["--sessions", "work-*", "--safety", "destructive", "--files-root", dir],
  });
  try {
    const before = await stateOf(tmux, secret.pane);
    const shopBefore = await stateOf(tmux, shop.pane);

    // Listings.
    const sessions = (await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" })).sessions;
    assertEquals(sessions.map((s) => s.session_name), ["work-a"]);
    const panes = (await mcp.ok<{ panes: { pane_id: string }[] }>("list", { what: "panes" })).panes;
    assertEquals(panes.map((p) => p.pane_id), [work.pane]);
    const windows = (await mcp.ok<{ windows: { window_id: string }[] }>("list", { what: "windows" })).windows;
    assertEquals(windows.map((w) => w.window_id), [work.window]);
    assertEquals((await mcp.ok<{ session_count: number }>("list", { what: "server" })).session_count, 1);
    const found = await mcp.ok<{ total_matches: number; panes_searched: number }>("search-panes", { query: MARK });
    assertEquals([found.total_matches, found.panes_searched], [0, 1]);
    const resources = await mcp.client.listResources();
    assert(!JSON.stringify(resources).includes(secret.pane) && !JSON.stringify(resources).includes("secret"));
    const unread = async (uri: string) => {
      try {
        await mcp.client.readResource({ uri });
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error(`${uri} was read`);
    };
    await mcp.client.readResource({ uri: `tmux://sessions/${work.session}` });
    for (const [out, none] of [[secret.pane, "%9999"], [secret.session, "$9999"]]) {
      const kind = out.startsWith("%") ? "panes" : "sessions";
      const uri = (t: string) => `tmux://${kind}/${kind === "panes" ? encodeURIComponent(t) : t}`;
      const a = await unread(uri(out));
      const b = await unread(uri(none));
      const plain = (m: string, t: string) =>
        m.replaceAll(JSON.stringify(t), "<T>").replaceAll(`/${t}`, "/<T>").replaceAll(
          `/${encodeURIComponent(t)}`,
          "/<T>",
        );
      assertEquals(plain(a, out), plain(b, none));
    }

    // In scope: a prefix that tmux would find ambiguous (work-a, workshop) is work-a's, and the default
    // target is the newest session in scope.
    assertEquals((await mcp.ok<{ pane_id: string }>("capture-pane", { target: "work" })).pane_id, work.pane);
    const shown = await mcp.ok<{ text: string; defaulted: boolean }>("show", {
      what: "format",
      format: "#{session_name}",
    });
    assertEquals([shown.text, shown.defaulted], ["work-a", true]);
    await mcp.ok("send-keys", { text: "DEFAULTOK" });
    await waitUntil(
      "typed into work-a",
      async () => (await tmux.tmux("capture-pane", "-p", "-t", work.pane)).includes("DEFAULTOK"),
    );
    assert(!(await tmux.tmux("capture-pane", "-p", "-t", secret.pane)).includes("DEFAULTOK"));

    // Every tool, every target form: the same refusal as for a target that does not exist.
    const forms: [string, string][] = [
      ["secret", "nosuch"],
      ["=secret", "=nosuch"],
      ["secr", "nosu"],
      ["secr*", "nosu*"],
      ["secret:0.0", "nosuch:0.0"],
      [secret.session, "$9999"],
      [secret.window, "@9999"],
      [secret.pane, "%9999"],
      ["workshop", "nosuch2"],
    ];
    for (const [tool, args] of targetedCalls(`${dir}/pipe.log`)) {
      for (const [out, none] of forms) {
        const a = await refusal(mcp, tool, args, out);
        const b = await refusal(mcp, tool, args, none);
        assertEquals(a, b, `${tool} ${JSON.stringify(args)}: ${out} vs ${none}`);
        assert(!a.includes("secret") && !a.includes("workshop"), `${tool}: ${a}`);
      }
    }
    // Relative targets tmux resolves by itself: the marked pane.
    await tmux.tmux("select-pane", "-m", "-t", secret.pane);
    const marked = await mcp.err("capture-pane", { target: "{marked}" });
    await tmux.tmux("select-pane", "-M", "-t", secret.pane);
    assertEquals(marked, await mcp.err("capture-pane", { target: "{marked}" }));

    // batch: each inner call meets the same refusal.
    const batch = await mcp.ok<{ results: { ok: boolean; error?: string }[] }>("batch", {
      continue_on_error: true,
      calls: [
        { tool: "send-keys", arguments: { target: secret.pane, text: "LEAK", enter: true } },
        { tool: "capture-pane", arguments: { target: "secret" } },
        { tool: "kill", arguments: { what: "session", target: secret.session } },
      ],
    });
    assert(batch.results.every((r) => !r.ok), JSON.stringify(batch));

    // Formats that read other sessions, and kill-server, are refused.
    assertMatch(
      await mcp.err("show", { what: "format", target: work.pane, format: "#{S:#{session_name} }" }),
      /S: loop reads every session/,
    );
    assertMatch(
      await mcp.err("show", { what: "format", target: work.pane, format: "#{client_session}" }),
      /reads other sessions/,
    );
    assertMatch(await mcp.err("kill", { what: "server" }), /kill-server is refused/);
    assertMatch(
      await mcp.err("set", { what: "option", scope: "session", global: true, name: "@foo", value: "1" }),
      /global or server setting/,
    );

    // A hook on a session in view could act on any session; global settings change the others too.
    const hook = { what: "option", scope: "session", target: work.session, name: "after-select-pane" };
    assertMatch(
      await mcp.err("set", { ...hook, value: "kill-session -t secret" }),
      /tmux command can act on sessions out of this server's view/,
    );
    assertMatch(
      await mcp.err("set", { what: "option", scope: "server", name: "@foo", value: "1" }),
      /global or server/,
    );
    assertMatch(
      await mcp.err("set", { what: "environment", global: true, name: "FOO", value: "1" }),
      /global or server/,
    );
    await mcp.ok("set", { what: "option", scope: "session", target: work.session, name: "@foo", value: "1" });

    assertEquals(await stateOf(tmux, secret.pane), before);
    assertEquals(await stateOf(tmux, shop.pane), shopBefore);
    assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim().split("\n").sort(), [
      "main",
      "secret",
      "work-a",
      "workshop",
    ]);
    assertEquals(await tmux.tmux("show-options", "-gqv", "@foo"), "");
  } finally {
    await mcp.close();
    await tmux.kill();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("--scope tagged: only sessions the user tagged with tmux, and those the server made; the server never tags", async () => {
  const tmux = await startTmux("tagged");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--scope", "tagged", "--safety", "destructive"] });
  try {
    const names = async () =>
      (await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" })).sessions
        .map((s) => s.session_name);
    assertEquals(await names(), []);
    assertMatch(
      await mcp.err("capture-pane", {}),
      /no tmux session in this server's scope.*create one with new \(what: "session"\)/,
    );

    // The server refuses the tag in every form tmux takes it, tagged session or not.
    const forms = [
      { scope: "session", target: "main", value: "on" },
      { scope: "session", global: true, value: "on" },
      { scope: "window", target: "main", value: "on" },
      { scope: "pane", target: "main", value: "on" },
      { scope: "session", target: "main", unset: true },
    ];
    for (const f of forms) {
      assertMatch(await mcp.err("set", { what: "option", name: "@mcp", ...f }), /only the user sets or unsets it/);
    }
    for (const t of ["-g", "-t main", "-w -t main", "-p -t main"]) {
      assertEquals(await tmux.tmux("show-options", ...t.split(" "), "-qv", "@mcp"), "", t);
    }

    // The user tags a session with tmux itself: it comes into view; untagged, it leaves.
    await tmux.tmux("set-option", "-t", "main", "@mcp", "on");
    assertEquals(await names(), ["main"]);
    assertEquals((await mcp.ok<{ text: string }>("show", { what: "format", format: "#{session_name}" })).text, "main");
    assertMatch(
      await mcp.err("set", { what: "option", scope: "session", target: "main", name: "@mcp", unset: true }),
      /only the user/,
    );
    assertEquals(await tmux.tmux("show-options", "-t", "main", "-qv", "@mcp"), "on\n");

    // A session the server creates is in view, untagged.
    const made = await mcp.ok<{ session_id: string }>("new", { what: "session", name: "made" });
    assertEquals((await names()).sort(), ["made", "main"]);
    assertEquals(await tmux.tmux("show-options", "-t", made.session_id, "-qv", "@mcp"), "");

    await tmux.tmux("set-option", "-t", "main", "-u", "@mcp");
    assertEquals(await names(), ["made"]);
    assertMatch(await mcp.err("capture-pane", { target: "main" }), /^unknown target "main"/);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: the user's paste buffers are out of view; the server's own are in view", async () => {
  const tmux = await startTmux("scopebuf");
  await tmux.tmux("set-buffer", "-b", "users", "a secret the user copied");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "main"] });
  try {
    assertEquals((await mcp.ok<{ buffers: unknown[] }>("list-buffers")).buffers, []);
    const a = (await mcp.err("show-buffer", { name: "users" })).replaceAll("users", "X");
    const b = (await mcp.err("show-buffer", { name: "nosuch" })).replaceAll("nosuch", "X");
    assertEquals(a, b);
    assertMatch(await mcp.err("delete-buffer", { name: "users" }), /no buffer named "users"/);
    await mcp.ok("append-buffer", { name: "users", content: "mine" });
    assertEquals((await mcp.ok<{ text: string }>("show-buffer", { name: "users" })).text, "mine");
    const listed = (await mcp.ok<{ buffers: { name: string }[] }>("list-buffers")).buffers.map((x) => x.name);
    assertEquals(listed, ["users"]);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: HOST::GLOB scopes one host; patterns without a host, every host", async () => {
  const tmux = await startTmux("scopehosts");
  await session(tmux, "work-b", "B");
  const mcp = await connect({
    socketName: tmux.socketName,
    args: ["--ssh", "one=local", "--ssh", "two=local", "--sessions", "one::main", "--sessions", "work-*"],
  });
  try {
    const rows = (await mcp.ok<{ sessions: { session_name: string; host: string }[] }>("list", { what: "sessions" }))
      .sessions.map((s) => `${s.host}:${s.session_name}`).sort();
    assertEquals(rows, ["one:main", "one:work-b", "two:work-b"]);
    assertMatch(await mcp.err("capture-pane", { target: "two::main" }), /unknown target "two::main"/);
    await mcp.ok("capture-pane", { target: "one::main" });
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: a window linked into a session out of view does not name that session in a format", async () => {
  const tmux = await startTmux("scopelinked");
  const work = await session(tmux, "work-a", "WORKMARK");
  await session(tmux, "secret", MARK);
  // The user links work-a's window into secret, where it is the active window.
  await tmux.tmux("link-window", "-s", work.window, "-t", "secret:5");
  await tmux.tmux("select-window", "-t", "secret:5");
  assertEquals(
    (await tmux.tmux("display-message", "-p", "-t", "work-a", "#{window_active_sessions_list}")).trim(),
    "work-a,secret",
  );
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-*"] });
  try {
    for (const v of ["window_active_sessions_list", "window_active_sessions"]) {
      assertMatch(
        await mcp.err("show", { what: "format", target: "work-a", format: `#{${v}}` }),
        /reads other sessions/,
        v,
      );
    }
    assertEquals(
      (await mcp.ok<{ text: string }>("show", { what: "format", target: "work-a", format: "#{session_name}" })).text,
      "work-a",
    );
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: an option value cannot read sessions out of view (automatic-rename-format is read back as a window name)", async () => {
  const tmux = await startTmux("scoperename");
  const work = await session(tmux, "work-a", "WORKMARK");
  await session(tmux, "secret", MARK);
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-*"] });
  try {
    const set = (value: string) =>
      mcp.call("set", { what: "option", scope: "window", target: work.window, name: "automatic-rename-format", value });
    for (const value of ["#{S:#{session_name},}", "#{server_sessions}", "#{client_session}", "#{L:#{client_name}}"]) {
      const r = await set(value);
      assert(r.isError, `${value} was set`);
      assertMatch(textOf(r), /^set-option refused: the value, read as a tmux format: .*(out of view|other sessions)/);
    }
    assertEquals(await tmux.tmux("show-options", "-wqv", "-t", work.window, "automatic-rename-format"), "");
    // What reads the window's own session stays allowed.
    assert(!(await set("#{session_name}:#{pane_current_command}")).isError);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope flags: a bad pattern or mode is a clear one-line error", () => {
  const bad: [string[], RegExp][] = [
    [["--sessions", "a:b"], /never contain ':' or '\.'/],
    [["--sessions", ""], /give a session name or a glob/],
    [["--sessions", "nohost::x"], /"nohost::x" names no host of this server \(hosts: local\)/],
    [["--sessions", "bad host::x"], /host before :: must be a host name/],
    [["--scope", "some"], /--scope: "some" is not one of all, tagged/],
  ];
  for (const [args, message] of bad) {
    let error = "";
    try {
      parseConfig(args, {});
    } catch (e) {
      error = (e as Error).message;
    }
    assertMatch(error, message, args.join(" "));
    assert(!error.includes("\n"), error);
  }
  const cfg = parseConfig(["--sessions", "work-*", "--sessions", "local::ops"], { TMUX_MCP_SESSIONS: "ignored" });
  assertEquals(cfg.sessions, [{ glob: "work-*" }, { host: "local", glob: "ops" }]);
  assertEquals(parseConfig([], { TMUX_MCP_SESSIONS: "a b*", TMUX_MCP_SCOPE: "tagged" }).sessions.length, 2);
});

Deno.test("scope: the tmux pty backend takes over only kept pty sessions in scope", async () => {
  const tmux = await startTmux("scopepty");
  // A pid that no longer runs: the "server" that kept these sessions is gone.
  const gone = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn();
  await gone.status;
  const kept = (id: string, text: string) => session(tmux, `mcp-pty-${gone.pid}-${id}`, text);
  const secret = await kept("keptsecret", MARK);
  const work = await kept("keptwork", "WORKMARK");
  await tmux.tmux("set-option", "-t", work.session, "@mcp", "on");
  const mcp = await connect({
    socketName: tmux.socketName,
    args: ["--scope", "tagged", "--terminal-backend", "tmux"],
  });
  try {
    const listed = (await mcp.ok<{ sessions: { pty_id: string }[] }>("pty-list-sessions")).sessions;
    assertEquals(listed.map((s) => s.pty_id), ["keptwork"]);
    assertEquals(
      (await mcp.err("pty-get-screen", { pty_id: "keptsecret" })).replaceAll("keptsecret", "X"),
      (await mcp.err("pty-get-screen", { pty_id: "nosuch" })).replaceAll("nosuch", "X"),
    );
    await mcp.err("pty-send-keys", { pty_id: "keptsecret", keys: "LEAK\n" });
    assert((await mcp.ok<{ screen: string }>("pty-get-screen", { pty_id: "keptwork" })).screen.includes("WORKMARK"));
    // The session out of view is untouched: not renamed, nothing typed into it.
    assertEquals(
      (await tmux.tmux("display-message", "-p", "-t", secret.pane, "#{session_name}")).trim(),
      `mcp-pty-${gone.pid}-keptsecret`,
    );
    assert(!(await tmux.tmux("capture-pane", "-p", "-t", secret.pane)).includes("LEAK"));
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: a format cannot tell whether a session out of view exists (N/s:)", async () => {
  const tmux = await startTmux("scopeexists");
  const work = await session(tmux, "work-a", "WORKMARK");
  await session(tmux, "secret", MARK);
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-*"] });
  try {
    const show = (format: string) => mcp.call("show", { what: "format", target: work.pane, format });
    for (const spelling of ["N/s", "N|s|", "Ns"]) {
      const [out, none] = [await show(`#{${spelling}:secret}`), await show(`#{${spelling}:nosuch}`)];
      assert(out.isError && none.isError, `${spelling}: ${textOf(out)} / ${textOf(none)}`);
      assertEquals(textOf(out), textOf(none));
      assertMatch(textOf(out), /N\/s: modifier tells whether a session of any name exists/);
    }
    const set = await mcp.call("set", {
      what: "option",
      scope: "window",
      target: work.window,
      name: "automatic-rename-format",
      value: "#{N/s:secret}",
    });
    assert(set.isError, textOf(set));
    // N: of a window name looks in the target's own session only: still allowed.
    assertEquals(
      (await mcp.ok<{ text: string }>("show", { what: "format", target: work.pane, format: "#{N:cat}" })).text,
      "1",
    );
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: the server's command connection attaches to a session in view, never to one out of it", async () => {
  const tmux = await startTmux("scopeattach");
  await session(tmux, "work-a", "WORKMARK");
  // The newest session, which a bare attach picks, is out of view; the user's hook records every attach.
  await session(tmux, "secret", MARK);
  await tmux.tmux("set-hook", "-g", "client-attached", "set-option -gaF @attached '#{session_name},'");
  const clients = async () => (await tmux.tmux("list-clients", "-F", "#{session_name}")).trim();
  for (const [pattern, attachedTo] of [["work-*", "work-a"], ["nothing-*", ""]]) {
    const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", pattern] });
    try {
      const listed = (await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" })).sessions;
      assertEquals(listed.map((s) => s.session_name), attachedTo ? [attachedTo] : []);
      // With control mode on (the default) the connection is up once a call ran on it; a start that was slow
      // under load leaves that call spawned, so calls go on until it is.
      if (attachedTo && Deno.env.get("TMUX_MCP_CONTROL_MODE") !== "off") {
        await waitUntil("the command connection to attach", async () => {
          await mcp.ok("capture-pane", { target: attachedTo });
          return (await clients()) === attachedTo;
        });
      } else assertEquals(await clients(), "", pattern);
      assertEquals(
        (await tmux.tmux("display-message", "-p", "-t", "=secret:", "#{session_attached}")).trim(),
        "0",
        pattern,
      );
    } finally {
      await mcp.close();
    }
  }
  assert(!(await tmux.tmux("show-options", "-gqv", "@attached")).includes("secret"));
  await tmux.kill();
});

Deno.test("scope: a session the server made stays its own on that tmux server only, not its id on a new server", async () => {
  const tmux = await startTmux("scoperestart");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-*"] });
  try {
    // $0 is main: the server's session is $1.
    const made = await mcp.ok<{ session_id: string }>("new", { what: "session", name: "agent" });
    assertEquals(made.session_id, "$1");
    // The user restarts tmux (no call of the server in between) and opens two sessions: the second is $1 again.
    await tmux.tmux("kill-server").catch(() => {});
    // Gone is "no server running" (nothing listens): a server still on its way out answers a client with "server
    // exited unexpectedly", and a new-session then could reach it and fail the same way.
    await waitUntil("the old tmux server to be gone", async () => {
      try {
        await tmux.tmux("list-sessions");
        return false;
      } catch (e) {
        return /no server running|error connecting/.test(String(e));
      }
    });
    await session(tmux, "mine0", "MINE0");
    const mine1 = await session(tmux, "mine1", MARK);
    assertEquals(mine1.session, "$1");
    const listed = (await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" })).sessions;
    assertEquals(listed.map((s) => s.session_name), []);
    assertMatch(await mcp.err("capture-pane", { target: "$1" }), /^unknown target "\$1"/);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: kill refuses a window (or its pane) the user linked into a session out of view as well", async () => {
  const tmux = await startTmux("scopekilllinked");
  const work = await session(tmux, "work-a", "WORKMARK");
  const secret = await session(tmux, "secret", MARK);
  // The user links secret's window into work-a, where the server sees it as work-a:7.
  await tmux.tmux("link-window", "-d", "-s", secret.window, "-t", "work-a:7");
  const windows = () => tmux.tmux("list-windows", "-a", "-F", "#{session_name} #{window_id} #{window_panes}");
  const before = await windows();
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-*", "--safety", "destructive"] });
  try {
    for (const [what, target] of [["window", "work-a:7"], ["pane", "work-a:7.0"]]) {
      const text = await mcp.err("kill", { what, target });
      assertMatch(text, /^refusing to kill .*linked into a session out of this server's view.*nothing was killed/);
      assert(!text.includes("secret"), text);
    }
    assertEquals(await windows(), before);
    // Its own window is killed as before.
    await mcp.ok("new", { what: "window", target: "work-a" });
    await mcp.ok("kill", { what: "window", target: work.window });
    assert(!(await windows()).includes(work.window));
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: a new session's name taken out of view is not offered to be used (list would not show it)", async () => {
  const tmux = await startTmux("scopedup");
  await tmux.tmux("new-session", "-d", "-s", "secret");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-*"] });
  try {
    assertEquals(
      await mcp.err("new", { what: "session", name: "secret" }),
      'a session named "secret" already exists: choose another name',
    );
    await mcp.ok("new", { what: "session", name: "work-b" });
    assertMatch(await mcp.err("new", { what: "session", name: "work-b" }), /choose another name$/);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: a rename that would take a session out of view is refused; one made or tagged keeps any name", async () => {
  const tmux = await startTmux("scoperename2");
  const work = await session(tmux, "work-a", "WORKMARK");
  const tagged = await session(tmux, "tagged", "TAGMARK");
  await tmux.tmux("set-option", "-t", tagged.session, "@mcp", "on");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-*", "--scope", "tagged"] });
  try {
    const name = async (id: string) => (await tmux.tmux("display-message", "-p", "-t", id, "#{session_name}")).trim();
    assertMatch(
      await mcp.err("rename", { what: "session", target: work.session, name: "elsewhere" }),
      /^refusing to rename session \$\d+ to "elsewhere": .*leave its view.*choose a name the --sessions patterns match/,
    );
    assertEquals(await name(work.session), "work-a");
    await mcp.ok("rename", { what: "session", target: work.session, name: "work-b" });
    assertEquals(await name(work.session), "work-b");
    await mcp.ok("rename", { what: "session", target: tagged.session, name: "still-tagged" });
    const made = await mcp.ok<{ session_id: string }>("new", { what: "session", name: "work-made" });
    await mcp.ok("rename", { what: "session", target: made.session_id, name: "mine" });
    const listed = (await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" })).sessions;
    assertEquals(listed.map((s) => s.session_name).sort(), ["mine", "still-tagged", "work-b"]);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: a window linked into a session in view and one out of it is reached by its ids, as list shows them", async () => {
  const tmux = await startTmux("scopelinkedids");
  const work = await session(tmux, "work-a", "WORKMARK");
  // The newer session out of view is the one tmux picks for the window's ids when no client says otherwise.
  const secret = await session(tmux, "secret", MARK);
  await tmux.tmux("link-window", "-d", "-s", secret.window, "-t", "work-a:7");
  const mcp = await connect({
    socketName: tmux.socketName,
    args: ["--sessions", "work-*", "--safety", "destructive"],
    env: { TMUX_MCP_CONTROL_MODE: "off" },
  });
  try {
    type Rows = { rows: (string | number)[][] };
    const fields = ["session_name", "window_index", "pane_id"];
    const listed = await mcp.ok<Rows>("list", { what: "panes", fields });
    assert(listed.rows.some((r) => r.join(" ") === `work-a 7 ${secret.pane}`), JSON.stringify(listed.rows));
    for (const target of [secret.pane, secret.window]) {
      const seen = await mcp.ok<{ session_name: string; window_index: number }>("snapshot-pane", { target });
      assertEquals([seen.session_name, seen.window_index], ["work-a", 7], target);
      assertEquals(
        (await mcp.ok<Rows>("list", { what: "panes", target, fields })).rows,
        [["work-a", 7, secret.pane]],
        target,
      );
      const whole = await mcp.ok<Rows>("list", { what: "panes", target, all: true, fields: ["session_name"] });
      assertEquals(whole.rows, [["work-a"], ["work-a"]], target);
      type Windows = { windows: { session_name: string; window_index: number }[] };
      const windows = (await mcp.ok<Windows>("list", { what: "windows", target })).windows;
      assertEquals(windows.map((w) => `${w.session_name}:${w.window_index}`), ["work-a:0", "work-a:7"], target);
      const shown = await mcp.ok<{ text: string }>("show", { what: "format", target, format: "#{session_name}" });
      assertEquals(shown.text, "work-a", target);
    }
    const text = await mcp.err("kill", { what: "pane", target: secret.pane });
    assertMatch(text, /^refusing to kill .*linked into a session out of this server's view/);
    // Its one session in view is the session its ids name.
    const renamed = await mcp.ok<{ session_id: string }>("rename", {
      what: "session",
      target: secret.pane,
      name: "work-z",
    });
    assertEquals(renamed.session_id, work.session);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: a backslash in a --sessions pattern or a target quotes the next character, as tmux matches names", async () => {
  const tmux = await startTmux("scopeescape");
  const star = await session(tmux, "work-*", "STARMARK");
  await session(tmux, "work-x", MARK);
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-\\*", "--sessions", "b\\[1]"] });
  try {
    await tmux.tmux("new-session", "-d", "-s", "b[1]");
    await tmux.tmux("new-session", "-d", "-s", "b1");
    const listed = (await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" })).sessions;
    assertEquals(listed.map((s) => s.session_name).sort(), ["b[1]", "work-*"]);
    // tmux reads the target `work-\*` as a pattern too: the session "work-*", as it finds it itself.
    assertEquals((await mcp.ok<{ pane_id: string }>("capture-pane", { target: "work-\\*" })).pane_id, star.pane);
    assertMatch(await mcp.err("capture-pane", { target: "work-\\x" }), /^unknown target/);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: a target naming a session out of view exactly is unknown, not a session in view its name starts", async () => {
  const tmux = await startTmux("scopeprefix");
  const dev2 = await session(tmux, "dev2", "DEV2MARK");
  const dev = await session(tmux, "dev", MARK);
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "dev2", "--safety", "destructive"] });
  try {
    const before = [await stateOf(tmux, dev2.pane), await stateOf(tmux, dev.pane)];
    for (const target of ["dev", "=dev", "dev:0", "dev:0.0"]) {
      assertMatch(await mcp.err("send-keys", { target, text: "typed" }), /^unknown target/, target);
      assertMatch(await mcp.err("list", { what: "windows", target }), /^unknown target/, target);
    }
    // kill takes exact names only: refused, in the words a name no session has gets.
    assertEquals(
      await refusal(mcp, "kill", { what: "session" }, "dev"),
      await refusal(mcp, "kill", { what: "session" }, "de"),
    );
    assertEquals([await stateOf(tmux, dev2.pane), await stateOf(tmux, dev.pane)], before);
    // A name no session has exactly is still read as the start of one in view, as tmux reads it.
    assertEquals((await mcp.ok<{ pane_id: string }>("capture-pane", { target: "de" })).pane_id, dev2.pane);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("scope: new window refuses a session the user grouped with one out of view (it would get the window too)", async () => {
  const tmux = await startTmux("scopegrouped");
  await session(tmux, "secret", MARK);
  await tmux.tmux("new-session", "-d", "-s", "work-g", "-t", "secret");
  await session(tmux, "work-a", "WORKMARK");
  await tmux.tmux("new-session", "-d", "-s", "work-b", "-t", "work-a");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--sessions", "work-*"] });
  try {
    const windows = () => tmux.tmux("list-windows", "-a", "-F", "#{session_name} #{window_id}");
    const before = await windows();
    const text = await mcp.err("new", { what: "window", target: "work-g" });
    assertMatch(
      text,
      /^refusing to add a window to session \$\d+: it is grouped with a session out of this server's view/,
    );
    assert(!text.includes("secret"), text);
    assertEquals(await windows(), before);
    // A group whose sessions are all in view shares the new window among them, as tmux does.
    const made = await mcp.ok<{ window_id: string }>("new", { what: "window", target: "work-a" });
    const holders = (await windows()).split("\n").filter((l) => l.endsWith(` ${made.window_id}`));
    assertEquals(holders.sort(), [`work-a ${made.window_id}`, `work-b ${made.window_id}`]);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});
