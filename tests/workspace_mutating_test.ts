import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, endTmux, runTmux, textOf, uniqueSocketName, withServer } from "./helpers.ts";
import { newPane, tempDir, tmuxFormat, waitForPane, waitUntil } from "./pane_helpers.ts";

interface Created {
  session_id: string;
  window_id: string;
  pane_id: string;
  session_name: string;
  window_name: string;
}

interface Resolved {
  session_id: string;
  window_id: string;
  pane_id: string;
  defaulted: boolean;
}

const DESTRUCTIVE = { args: ["--safety", "destructive"] };

Deno.test("new {what: session} starts a server if needed, returns ids, keeps '#' in names literal; kill-server ends it", async () => {
  const socket = uniqueSocketName("ns");
  const mcp = await connect({ socketName: socket, args: ["--safety", "destructive"] });
  try {
    const dir = await tempDir("tmcp-d#{pane_id}-");
    const s = await mcp.ok<Created>("new", {
      what: "session",
      name: "w#{pane_id}",
      cwd: dir,
      width: 100,
      height: 30,
      env: { PAGER: "less", MY_VAR: "#{pane_id} -x" },
    });
    assertMatch(s.session_id, /^\$\d+$/);
    assertMatch(s.window_id, /^@\d+$/);
    assertMatch(s.pane_id, /^%\d+$/);
    assertEquals(s.session_name, "w#{pane_id}");
    const tmux = (...a: string[]) => runTmux(socket, a);
    assertEquals(
      (await tmux("display-message", "-p", "-t", s.pane_id, "#{pane_width}x#{pane_height}")).trim(),
      "100x30",
    );
    assertEquals((await tmux("display-message", "-p", "-t", s.pane_id, "#{pane_current_path}")).trim(), dir);
    const env = await tmux("show-environment", "-t", s.session_id);
    // The caller's PAGER wins; the other non-interactive defaults are set.
    for (const line of ["PAGER=less", "GIT_PAGER=cat", "MANPAGER=cat", "GIT_EDITOR=true", "MY_VAR=#{pane_id} -x"]) {
      assert(env.split("\n").includes(line), `${line} in ${env}`);
    }
    const killed = await mcp.call("kill", { what: "server" });
    // A new server numbers its objects from 0 again: the answer says the ids held from before are void.
    assertMatch(textOf(killed), /^the tmux server is gone with every session and buffer: .*ids start again at \$0/);
    const k = killed.structuredContent as { killed: string; socket_path: string };
    assertEquals(k.killed, "server");
    assertMatch(k.socket_path, new RegExp(`${socket}$`));
    assertMatch(await mcp.err("kill", { what: "server" }), /no tmux server is running/);
  } finally {
    await mcp.close();
    await endTmux((...args) => runTmux(socket, args));
  }
});

Deno.test("new {what: session}: command runs via the shell; bad names, duplicates and missing cwd are refused", async () => {
  await withServer(async (mcp, tmux) => {
    const s = await mcp.ok<Created>("new", {
      what: "session",
      name: "cmd",
      command: "echo started-$((6*7)); sleep 100",
    });
    await waitForPane(tmux, s.pane_id, /started-42/);
    assertEquals(await tmuxFormat(tmux, s.pane_id, "#{pane_current_command}"), "sleep");
    for (const name of ["a:b", "a.b", "-x", "$1", "%2", "@3", "=x", "a\nb", ""]) {
      assertMatch(
        await mcp.err("new", { what: "session", name }),
        /^invalid arguments for new( \(what: session\))?: name: /,
        name,
      );
    }
    assertMatch(
      await mcp.err("new", { what: "session", name: "cmd" }),
      /session named "cmd" already exists.*another name/,
    );
    assertMatch(
      await mcp.err("new", { what: "session", cwd: "/nonexistent/dir" }),
      /directory "\/nonexistent\/dir" does not exist/,
    );
    assertMatch(await mcp.err("new", { what: "session", cwd: "relative" }), /path must be absolute/);
    assertMatch(await mcp.err("new", { what: "session", env: { "1BAD": "x" } }), /env/);
  });
});

Deno.test("new {what: window | pane} creates panes where asked, in the background", async () => {
  await withServer(async (mcp, tmux) => {
    const dir = await tempDir("tmcp-w#x%d-");
    const w = await mcp.ok<Created>("new", { what: "window", target: "main", name: "build#1", cwd: dir });
    assertEquals([w.session_name, w.window_name], ["main", "build#1"]);
    assertEquals(await tmuxFormat(tmux, w.pane_id, "#{pane_current_path}"), dir);
    // Background: the first window stays current.
    assertEquals(await tmuxFormat(tmux, "main", "#{window_index}"), "0");

    const base = await tmuxFormat(tmux, "main:0.0", "#{pane_id}");
    const geom = async (p: string) =>
      (await tmuxFormat(tmux, p, "#{pane_left} #{pane_top} #{pane_width} #{pane_height}")).split(" ").map(Number);
    const right = await mcp.ok<Created>("new", { what: "pane", target: base, direction: "right", size_percent: 30 });
    const [bl] = await geom(base);
    const [rl, , rw] = await geom(right.pane_id);
    assert(rl > bl, "right pane is right of the base pane");
    assert(rw >= 33 && rw <= 38, `30% of 120 columns, got ${rw}`);
    const up = await mcp.ok<Created>("new", { what: "pane", target: base, direction: "up", command: "sleep 100" });
    const [, bt] = await geom(base);
    const [, ut] = await geom(up.pane_id);
    assert(ut < bt, "up pane is above the base pane");
    assertEquals(await tmuxFormat(tmux, "main:0", "#{pane_id}"), base, "active pane unchanged");
    const left = await mcp.ok<Created>("new", { what: "pane", target: right.pane_id, direction: "left" });
    assert((await geom(left.pane_id))[0] < (await geom(right.pane_id))[0]);
    const down = await mcp.ok<Created>("new", { what: "pane", target: left.pane_id, direction: "down" });
    assert((await geom(down.pane_id))[1] > (await geom(left.pane_id))[1]);
    assertEquals(right.window_id, up.window_id);
    assertMatch(
      await mcp.err("new", { what: "pane", target: "nosuch", direction: "up" }),
      /unknown target "nosuch".*call list/,
    );
    assertMatch(await mcp.err("new", { what: "pane", direction: "sideways" }), /direction/);
  });
});

Deno.test("rename, select and targets by name, id and session:window.pane", async () => {
  await withServer(async (mcp, tmux) => {
    const w = await mcp.ok<Created>("new", { what: "window", target: "main" });
    const r = await mcp.ok<Resolved & { name: string }>("rename", {
      what: "window",
      target: w.window_id,
      name: "logs #1",
    });
    assertEquals([r.window_id, r.defaulted, r.name], [w.window_id, false, "logs #1"]);
    assertEquals(await tmuxFormat(tmux, w.window_id, "#{window_name}"), "logs #1");
    // tmux escapes some characters in names; the result reports what it stored.
    const esc = await mcp.ok<{ name: string }>("rename", { what: "window", target: w.window_id, name: "x$y" });
    assertEquals(esc.name, "x\\$y");
    await mcp.ok("rename", { what: "window", target: w.window_id, name: "logs #1" });
    assertMatch(
      await mcp.err("rename", { what: "window", target: w.window_id, name: "a\\b" }),
      /must not contain '\\'/,
    );

    const sel = await mcp.ok<Resolved>("select", { what: "window", target: "main:1" });
    assertEquals(sel.window_id, w.window_id);
    assertEquals(await tmuxFormat(tmux, "main", "#{window_id}"), w.window_id);

    const split = await mcp.ok<Created>("new", { what: "pane", target: "main:1.0", direction: "down" });
    const p = await mcp.ok<Resolved>("select", { what: "pane", target: split.pane_id });
    assertEquals(p.pane_id, split.pane_id);
    assertEquals(await tmuxFormat(tmux, "main", "#{pane_id}"), split.pane_id);
    // A missing target now means that pane, and the result says it was defaulted.
    const d = await mcp.ok<Resolved>("clear-history");
    assertEquals([d.pane_id, d.defaulted], [split.pane_id, true]);
    await mcp.ok("select", { what: "window", target: "main:0" });

    const s = await mcp.ok<Resolved & { name: string }>("rename", {
      what: "session",
      target: "main",
      name: "work#{x}",
    });
    assertEquals(await tmuxFormat(tmux, s.session_id, "#{session_name}"), "work#{x}");
    // The session id still works after the rename; the old name does not.
    await mcp.ok("rename", { what: "session", target: s.session_id, name: "main" });
    assertMatch(await mcp.err("select", { what: "window", target: "work#{x}" }), /unknown target/);
    assertMatch(await mcp.err("rename", { what: "session", target: "main", name: "a:b" }), /name: .*':'/);
    await mcp.ok("new", { what: "session", name: "other" });
    assertMatch(await mcp.err("rename", { what: "session", target: "other", name: "main" }), /already exists/);
    // A prefix of two session names is ambiguous: refused with the listing tools to call, nothing renamed.
    await mcp.ok("new", { what: "session", name: "otherwise" });
    assertMatch(
      await mcp.err("rename", { what: "session", target: "oth", name: "x" }),
      /target "oth".*call list \(what: sessions/,
    );
    assertEquals(
      (await tmux.tmux("list-sessions", "-F", "#{session_name}")).split("\n").sort().join(","),
      ",main,other,otherwise",
    );
    assertMatch(await mcp.err("select", { what: "pane" }), /target: /);
  });
});

Deno.test("a session target's plain name is that session, not a window or index of the current session", async () => {
  await withServer(async (mcp, tmux) => {
    // "dev" and "1" (tmux's own default names are numbers) exist; the current session, "other" (made last), has a
    // window named "dev" and a window 1: read as pane targets, "dev" and "1" would name those windows.
    await tmux.tmux("new-session", "-d", "-s", "dev");
    await tmux.tmux("new-session", "-d", "-s", "1");
    await tmux.tmux("new-session", "-d", "-s", "other", "-n", "dev");
    await tmux.tmux("new-window", "-d", "-t", "other:1");
    const id = async (name: string) =>
      (await tmux.tmux("display-message", "-p", "-t", `=${name}:`, "#{session_id}")).trim();
    const [dev, one, other] = [await id("dev"), await id("1"), await id("other")];

    const w = await mcp.ok<Created>("new", { what: "window", target: "1", name: "made" });
    assertEquals(w.session_id, one);
    const env = await mcp.ok<{ session_id: string }>("set", {
      what: "environment",
      target: "dev",
      name: "PICKED",
      value: "yes",
    });
    assertEquals(env.session_id, dev);
    assertEquals((await tmux.tmux("show-environment", "-t", dev, "PICKED")).trim(), "PICKED=yes");
    const shown = await mcp.ok<{ session_id: string; variables: { name: string }[] }>("show", {
      what: "environment",
      target: "dev",
    });
    assertEquals(shown.session_id, dev);
    assert(shown.variables.some((v) => v.name === "PICKED"));
    assertEquals((await mcp.ok<{ session_id: string }>("show", { what: "hooks", target: "dev" })).session_id, dev);
    const r = await mcp.ok<Resolved>("rename", { what: "session", target: "dev", name: "dev-renamed" });
    assertEquals(r.session_id, dev);
    assertEquals(await tmuxFormat(tmux, other, "#{session_name}"), "other");
    assertEquals(await tmuxFormat(tmux, dev, "#{session_name}"), "dev-renamed");
    // A prefix is still a session's, and errors name the target as given.
    assertEquals((await mcp.ok<Resolved>("rename", { what: "session", target: "dev-", name: "dev" })).session_id, dev);
    assertMatch(await mcp.err("rename", { what: "session", target: "nosuch", name: "x" }), /unknown target "nosuch"/);
  });
});

Deno.test("a pane or window target's plain name is a session too: send-keys never types into a window of that name", async () => {
  await withServer(async (mcp, tmux) => {
    // The current session, "other" (made last), has a window "dev" and a window 1; sessions "dev" and "1" exist.
    await tmux.tmux("new-session", "-d", "-s", "dev");
    await tmux.tmux("new-session", "-d", "-s", "1");
    await tmux.tmux("new-session", "-d", "-s", "other", "-n", "dev");
    await tmux.tmux("new-window", "-d", "-t", "other:1", "-n", "one");
    const paneOf = async (t: string) => (await tmux.tmux("display-message", "-p", "-t", t, "#{pane_id}")).trim();
    const [dev, one, otherDev] = [await paneOf("=dev:"), await paneOf("=1:"), await paneOf("=other:dev")];
    const sent = await mcp.ok<Resolved>("send-keys", { target: "dev", text: "echo typed-into-dev", enter: true });
    assertEquals(sent.pane_id, dev);
    await waitForPane(tmux, dev, /^typed-into-dev$/m);
    assert(!(await tmux.tmux("capture-pane", "-p", "-t", otherDev)).includes("typed-into-dev"));
    assertEquals((await mcp.ok<Resolved>("capture-pane", { target: "1" })).pane_id, one);
    assertEquals((await mcp.ok<Resolved>("select", { what: "window", target: "dev" })).pane_id, dev);
    // A window by name is session:window; a plain name that is no session says so.
    assertEquals((await mcp.ok<Resolved>("capture-pane", { target: "other:dev" })).pane_id, otherDev);
    assertMatch(
      await mcp.err("capture-pane", { target: "one" }),
      /unknown target "one" \(a plain name is a session; a window is session:window\)/,
    );
  });
});

Deno.test("resize-pane sets sizes and zoom; select-layout applies presets and saved layouts", async () => {
  await withServer(async (mcp, tmux) => {
    const a = await tmuxFormat(tmux, "main", "#{pane_id}");
    const b = await mcp.ok<Created>("new", { what: "pane", target: a, direction: "right" });
    const r = await mcp.ok<Resolved & { width: number; height: number; zoomed: boolean }>("resize-pane", {
      target: a,
      width: 30,
    });
    assertEquals([r.width, r.zoomed, (r as { changed?: boolean }).changed], [30, false, true]);
    assertEquals(await tmuxFormat(tmux, a, "#{pane_width}"), "30");
    const z = await mcp.ok<{ zoomed: boolean; width: number }>("resize-pane", { target: b.pane_id, zoom: true });
    assertEquals([z.zoomed, z.width], [true, 120]);
    assertEquals((await mcp.ok<{ zoomed: boolean }>("resize-pane", { target: b.pane_id, zoom: true })).zoomed, true);
    assertEquals((await mcp.ok<{ zoomed: boolean }>("resize-pane", { target: b.pane_id, zoom: false })).zoomed, false);
    assertMatch(await mcp.err("resize-pane", { target: a }), /nothing to do/);
    // A window's only pane fills its window: tmux accepts the size and changes nothing; the answer says so.
    const only = await mcp.ok<{ pane_id: string }>("new", { what: "window", target: "main" });
    const same = await mcp.ok<{ changed: boolean; note?: string }>("resize-pane", { target: only.pane_id, width: 30 });
    assertEquals(same.changed, false);
    assertMatch(same.note ?? "", /^nothing changed: pane %\d+ is \d+x\d+; .*only pane fills it/);
    assertMatch(await mcp.err("resize-pane", { target: a, width: 0 }), /width/);

    const saved = await tmuxFormat(tmux, a, "#{window_layout}");
    const tiled = await mcp.ok<{ layout: string; window_id: string }>("select", {
      what: "layout",
      target: a,
      layout: "even-vertical",
    });
    assertEquals(tiled.layout, await tmuxFormat(tmux, a, "#{window_layout}"));
    assert(tiled.layout !== saved);
    assert(Number(await tmuxFormat(tmux, b.pane_id, "#{pane_top}")) > 0, "even-vertical stacks the panes");
    const back = await mcp.ok<{ layout: string }>("select", { what: "layout", target: tiled.window_id, layout: saved });
    assertEquals(back.layout, saved);
    // A layout saved from a window of another size (an 80x24 one, two panes side by side): the window keeps its size
    // (tmux resized it to 80x24) and its window-size option (resize-window sets it), the panes are scaled.
    const size = () => tmuxFormat(tmux, a, "#{window_width}x#{window_height}");
    const [before, optionBefore] = [await size(), await tmux.tmux("show-options", "-wqv", "-t", a, "window-size")];
    const other = "8205,80x24,0,0{40x24,0,0,0,39x24,41,0,1}";
    const scaled = await mcp.ok<{ layout: string }>("select", { what: "layout", target: a, layout: other });
    assertEquals([await size(), await tmux.tmux("show-options", "-wqv", "-t", a, "window-size")], [
      before,
      optionBefore,
    ]);
    assertMatch(scaled.layout, new RegExp(`^[0-9a-f]{4},${before},0,0\\{\\d+x\\d+,0,0,\\d+,\\d+x\\d+,\\d+,0,\\d+\\}$`));
    assertEquals(await tmuxFormat(tmux, b.pane_id, "#{pane_top}"), "0", "side by side, as saved");
    assertMatch(await mcp.err("select", { what: "layout", layout: "-t" }), /layout must be one of/);
    assertMatch(await mcp.err("select", { what: "layout", layout: "zigzag" }), /layout must be one of/);
  });
});

Deno.test("set-option and set-environment: scopes, values starting with '-', unset, refusals", async () => {
  await withServer(async (mcp, tmux) => {
    const o = await mcp.ok<{ session_id: string }>("set", {
      what: "option",
      target: "main",
      scope: "session",
      name: "@note",
      value: "-x #{pane_id} ;",
    });
    assertMatch(o.session_id, /^\$/);
    assertEquals((await tmux.tmux("show-options", "-v", "-t", "main", "@note")).trim(), "-x #{pane_id} ;");
    await mcp.ok("set", { what: "option", scope: "window", target: "main:0", name: "remain-on-exit", value: "on" });
    assertEquals((await tmux.tmux("show-options", "-w", "-v", "-t", "main:0", "remain-on-exit")).trim(), "on");
    await mcp.ok("set", { what: "option", scope: "pane", name: "@p", value: "1" });
    assertEquals((await tmux.tmux("show-options", "-p", "-v", "-t", "main:0.0", "@p")).trim(), "1");
    await mcp.ok("set", { what: "option", scope: "server", name: "escape-time", value: "7" });
    assertEquals((await tmux.tmux("show-options", "-s", "-v", "escape-time")).trim(), "7");
    await mcp.ok("set", { what: "option", scope: "window", global: true, name: "@gw", value: "yes" });
    assertEquals((await tmux.tmux("show-options", "-gw", "-v", "@gw")).trim(), "yes");
    // set and show take option names by one rule: a user option with a dot is set, then read back.
    await mcp.ok("set", { what: "option", target: "main", scope: "session", name: "@theme.accent", value: "red" });
    const shown = await mcp.ok<{ options: { name: string; value: string | null }[] }>("show", {
      what: "options",
      target: "main",
      scope: "session",
      name: "@theme.accent",
    });
    assertEquals(shown.options.map((o) => [o.name, o.value]), [["@theme.accent", "red"]]);
    await mcp.ok("set", { what: "option", target: "main", scope: "session", name: "@note", unset: true });
    assertEquals((await tmux.tmux("show-options", "-t", "main", "@note").catch(() => "")).trim(), "");

    assertMatch(
      await mcp.err("set", { what: "option", scope: "session", name: "status-right", value: "#(touch /tmp/x)" }),
      /contains #\( .*needs the destructive tier/,
    );
    assertMatch(await mcp.err("set", { what: "option", scope: "session", name: "-g", value: "x" }), /option name/);
    assertMatch(
      await mcp.err("set", { what: "option", scope: "session", name: "no-such-option", value: "1" }),
      /invalid option|unknown option/,
    );
    assertMatch(await mcp.err("set", { what: "option", scope: "session", name: "mouse", value: "maybe" }), /value/);
    assertMatch(await mcp.err("set", { what: "option", scope: "session", name: "@x" }), /give a value for @x/);
    assertMatch(
      await mcp.err("set", { what: "option", scope: "server", target: "main", name: "@x", value: "1" }),
      /target is not used/,
    );

    const e = await mcp.ok<{ session_id: string }>("set", {
      what: "environment",
      target: "main",
      name: "RUST_LOG",
      value: "-v;",
    });
    assertMatch(e.session_id, /^\$/);
    assertEquals((await tmux.tmux("show-environment", "-t", "main", "RUST_LOG")).trim(), "RUST_LOG=-v;");
    await mcp.ok("set", { what: "environment", global: true, name: "G_ONE", value: "#{pane_id}" });
    assertEquals((await tmux.tmux("show-environment", "-g", "G_ONE")).trim(), "G_ONE=#{pane_id}");
    await mcp.ok("set", { what: "environment", target: "main", name: "RUST_LOG", unset: true });
    assertEquals(await tmux.tmux("show-environment", "-t", "main", "RUST_LOG").catch(() => "gone"), "gone");
    assertMatch(await mcp.err("set", { what: "environment", name: "-u", value: "x" }), /name/);
    assertMatch(await mcp.err("set", { what: "environment", name: "A", value: "x", unset: true }), /not both/);
  });
});

Deno.test("clear-history empties the scrollback; respawn-pane restarts a pane, keeping its id", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await newPane(tmux, "seq 1 300; exec sleep 100");
    await waitUntil("history", async () => Number(await tmuxFormat(tmux, pane, "#{history_size}")) > 200);
    const c = await mcp.ok<{ lines_cleared: number; pane_id: string }>("clear-history", { target: pane });
    assert(c.lines_cleared > 200, `cleared ${c.lines_cleared}`);
    assertEquals(await tmuxFormat(tmux, pane, "#{history_size}"), "0");

    assertMatch(await mcp.err("respawn-pane", { target: pane }), /still running.*kill: true/);
    const r = await mcp.ok<Resolved>("respawn-pane", {
      target: pane,
      kill: true,
      command: "echo again-$((1+1)); sleep 100",
    });
    assertEquals(r.pane_id, pane);
    await waitForPane(tmux, pane, /again-2/);
    // A pane whose program exited (remain-on-exit) respawns without kill.
    await mcp.ok("set", { what: "option", scope: "window", target: pane, name: "remain-on-exit", value: "on" });
    await mcp.ok("respawn-pane", { target: pane, kill: true, command: "true" });
    await waitUntil("dead pane", async () => await tmuxFormat(tmux, pane, "#{pane_dead}") === "1");
    await mcp.ok("respawn-pane", { target: pane, command: "sleep 100" });
    await waitUntil("live pane", async () => await tmuxFormat(tmux, pane, "#{pane_dead}") === "0");
  });
});

Deno.test("kill-pane, kill-window and kill-session kill what they name; the target is required", async () => {
  await withServer(async (mcp, tmux) => {
    const s = await mcp.ok<Created>("new", { what: "session", name: "victim" });
    const w = await mcp.ok<Created>("new", { what: "window", target: "victim" });
    const p = await mcp.ok<Created>("new", { what: "pane", target: w.pane_id, direction: "down" });
    for (const what of ["pane", "window", "session"]) {
      assertMatch(await mcp.err("kill", { what }), /target: /, what);
    }
    const kp = await mcp.ok<Resolved & { killed: string }>("kill", { what: "pane", target: p.pane_id });
    assertEquals([kp.pane_id, kp.killed], [p.pane_id, "pane"]);
    assertMatch(await mcp.err("kill", { what: "pane", target: p.pane_id }), /unknown target/);
    const kw = await mcp.ok<Resolved>("kill", { what: "window", target: w.window_id });
    assertEquals(kw.window_id, w.window_id);
    const ks = await mcp.ok<Resolved>("kill", { what: "session", target: "victim" });
    assertEquals(ks.session_id, s.session_id);
    assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
  }, DESTRUCTIVE);
});

Deno.test("tiers: readonly serves none of these tools, mutating none of the kill tools; calls are refused", async () => {
  const mutating = [
    "new",
    "rename",
    "select",
    "resize-pane",
    "send-keys",
    "paste-text",
    "pipe-pane",
    "set",
    "clear-history",
    "respawn-pane",
  ];
  const destructive = ["kill"];
  await withServer(async (mcp) => {
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    for (const n of [...mutating, ...destructive]) assert(!names.includes(n), `${n} hidden under readonly`);
    assertMatch(await mcp.err("send-keys", { keys: ["C-c"] }), /send-keys is mutating.*--safety readonly/);
    await mcp.waitForStderr(/"tool":"send-keys","outcome":"refused"/);
  }, { args: ["--safety", "readonly"] });
  await withServer(async (mcp, tmux) => {
    const tools = (await mcp.client.listTools()).tools;
    const names = tools.map((t) => t.name);
    for (const n of mutating) assert(names.includes(n), `${n} served by default`);
    for (const n of destructive) assert(!names.includes(n), `${n} hidden by default`);
    assertMatch(await mcp.err("kill", { what: "server" }), /kill is destructive.*--safety destructive/);
    assert((await tmux.tmux("list-sessions")).includes("main"), "server still running");
    for (const t of tools.filter((t) => mutating.includes(t.name))) {
      assert(t.outputSchema, `${t.name} has an output schema`);
      // Not read-only: the hint is left at its default (false), and whether it destroys is said either way.
      assertEquals(t.annotations?.readOnlyHint, undefined);
      assertEquals(typeof t.annotations?.destructiveHint, "boolean");
    }
  });
  await withServer(async (mcp) => {
    const tools = (await mcp.client.listTools()).tools;
    for (const n of destructive) {
      const t = tools.find((t) => t.name === n);
      assert(t?.annotations?.destructiveHint === true, `${n} served and marked destructive`);
    }
  }, DESTRUCTIVE);
});

Deno.test("a session:window.pane target of the longest names new takes is accepted; a longer one says to use an id", async () => {
  await withServer(async (mcp) => {
    const [session, window] = ["s".repeat(128), "w".repeat(128)];
    await mcp.ok<Created>("new", { what: "session", name: session });
    const w = await mcp.ok<Created>("new", { what: "window", target: session, name: window });
    const target = `${session}:${window}.0`;
    type Rows = { rows: string[][] };
    assertEquals((await mcp.ok<Rows>("list", { what: "panes", target, fields: ["pane_id"] })).rows, [[w.pane_id]]);
    assertEquals((await mcp.ok<{ pane_id: string }>("kill", { what: "pane", target })).pane_id, w.pane_id);
    assertMatch(
      await mcp.err("list", { what: "panes", target: "x".repeat(513) }),
      /target: target is longer than 512 characters: use an id such as %3, @2 or \$1/,
    );
  }, DESTRUCTIVE);
});

Deno.test("new and rename session say when tmux stored the name escaped, which the name as given does not reach", async () => {
  await withServer(async (mcp) => {
    const made = await mcp.call("new", { what: "session", name: "build$x" });
    assert(!made.isError, textOf(made));
    const stored = "build\\$x";
    assertEquals((made.structuredContent as { session_name: string }).session_name, stored);
    assertMatch(textOf(made), /^tmux stored the session name as "build\\\\\$x", not "build\$x" .*by its id/);
    const id = (made.structuredContent as { session_id: string }).session_id;
    const renamed = await mcp.call("rename", { what: "session", target: id, name: "run$y" });
    assertMatch(textOf(renamed), /^tmux stored the session name as "run\\\\\$y", not "run\$y"/);
    // A name tmux keeps as given: no note.
    assertEquals((await mcp.call("rename", { what: "session", target: id, name: "plain$1" })).content.length, 1);
    assertEquals((await mcp.call("new", { what: "session", name: "cost$" })).content.length, 1);
  });
});

Deno.test("new and rename: a refused window name is called a name, not a session name", async () => {
  await withServer(async (mcp) => {
    for (
      const [tool, args] of [["new", { what: "window", target: "main" }], ["rename", {
        what: "window",
        target: "main",
      }]] as const
    ) {
      const msg = await mcp.err(tool, { ...args, name: "@2" });
      assertMatch(msg, /name: name must not start with '-', '\$', '@', '%', '=', .* \(tmux reads them in targets\)/);
      assert(!msg.includes("session"), msg);
    }
    // A name tmux would read as a token: `main:+1` is the next window, `{last}` the last pane, not these names.
    for (const name of ["+1", "!", "^", "{last}", "~"]) {
      for (const what of ["session", "window"]) {
        assertMatch(
          await mcp.err("new", { what, name }),
          /name must not start with .*tmux reads them in targets/,
          name,
        );
      }
      assertMatch(await mcp.err("rename", { what: "window", target: "main:0", name }), /tmux reads them/, name);
    }
  });
});

Deno.test("resize-pane: zoom of a window's only pane says it did not zoom, not 'already'", async () => {
  await withServer(async (mcp) => {
    const r = await mcp.ok<{ zoomed: boolean; changed: boolean; note?: string }>("resize-pane", {
      target: "main",
      zoom: true,
    });
    assertEquals([r.zoomed, r.changed], [false, false]);
    assertMatch(r.note ?? "", /^nothing changed: pane %\d+ is not zoomed: it is its window's only pane$/);
  });
});

Deno.test("new {what: pane}: a pane with no room left to split says so and what to do", async () => {
  await withServer(async (mcp) => {
    // Halving the pane to the right until tmux has no room (a pane is at least 1 column plus its border).
    let last = "";
    for (let i = 0; i < 12 && !last; i++) {
      const r = await mcp.call("new", { what: "pane", target: "main", direction: "right", size_percent: 99 });
      if (r.isError) last = textOf(r);
    }
    assertMatch(last, /^pane %\d+ has no room to split right \(tmux: no space for new pane\): split a larger pane/);
  });
});

/** `body` behind the checksum tmux 3.3a checks a layout string against (layout_checksum in layout-custom.c). */
function withChecksum(body: string): string {
  let sum = 0;
  for (const ch of body) sum = (((sum >> 1) + ((sum & 1) << 15)) + ch.charCodeAt(0)) & 0xffff;
  return `${sum.toString(16).padStart(4, "0")},${body}`;
}

Deno.test("select-layout: a layout tmux refuses is named, with what to pass instead, and the window is unchanged", async () => {
  await withServer(async (mcp, tmux) => {
    const a = await tmuxFormat(tmux, "main", "#{pane_id}");
    await mcp.ok("new", { what: "pane", target: a, direction: "right" });
    const window = await tmuxFormat(tmux, a, "#{window_id}");
    const saved = await tmuxFormat(tmux, a, "#{window_layout}");
    assertEquals(withChecksum(saved.slice(5)), saved);
    const instead = "pass one of even-horizontal, even-vertical, main-horizontal, main-vertical, tiled, or the " +
      "layout string of a window with this many panes, copied unchanged from list \\(what: windows\\)$";
    // Well-formed but with a wrong checksum: tmux 3.3a answered only "invalid layout: <the value>".
    const badSum = `${saved.startsWith("0000") ? "ffff" : "0000"}${saved.slice(4)}`;
    assertMatch(
      await mcp.err("select", { what: "layout", target: a, layout: badSum }),
      new RegExp(
        `^layout "${badSum.replace(/[{}[\]]/g, "\\$&")}" is not one tmux can apply to window ${window} ` +
          `\\(tmux: invalid layout\\); nothing changed: ${instead}`,
      ),
    );
    // A saved layout of one pane for this window of two: "have 2 panes but need 1: …".
    const one = withChecksum("120x40,0,0,0");
    assertMatch(
      await mcp.err("select", { what: "layout", target: a, layout: one }),
      new RegExp(`^layout "${one}" is not one .*\\(tmux: have 2 panes but need 1\\); nothing changed: ${instead}`),
    );
    // Cells whose sizes do not add up: "size mismatch after applying layout: …".
    const mismatch = withChecksum("120x40,0,0{60x40,0,0,0,59x30,61,0,1}");
    assertMatch(
      await mcp.err("select", { what: "layout", target: a, layout: mismatch }),
      new RegExp(
        `^layout ".*" is not one .*\\(tmux: size mismatch after applying layout\\); nothing changed: ${instead}`,
      ),
    );
    // A long value is named by its start.
    const long = `${badSum}${"0".repeat(200)}`;
    const text = await mcp.err("select", { what: "layout", target: a, layout: long });
    assert(text.startsWith(`layout "${long.slice(0, 80)}…" is not one`) && !text.includes("\n"), text);
    assertEquals(await tmuxFormat(tmux, a, "#{window_layout}"), saved);
  });
});

Deno.test("select-layout refuses a layout with a size of 0, on which tmux 3.3a's server crashed", async () => {
  await withServer(async (mcp, tmux) => {
    const a = await tmuxFormat(tmux, "main", "#{pane_id}");
    await mcp.ok("new", { what: "pane", target: a, direction: "right" });
    const saved = await tmuxFormat(tmux, a, "#{window_layout}");
    // tmux applied these (panes 0 wide; a window 1x0), and then select-layout tiled ended its server.
    for (
      const body of [
        "0x0,0,0{0x0,0,0,0,0x0,0,0,1}",
        "120x40,0,0{0x40,0,0,0,119x40,1,0,1}",
        "2x1,0,0{1x1,0,0,0,0x1,2,0,1}",
      ]
    ) {
      assertMatch(
        await mcp.err("select", { what: "layout", target: a, layout: withChecksum(body) }),
        /layout's widths and heights must be 1 to 10000 \(tmux's server crashes on panes of size 0\): pass a preset /,
      );
    }
    // Past 10000 (tmux's limit; its parser wraps larger numbers around) is refused the same way.
    assertMatch(
      await mcp.err("select", { what: "layout", target: a, layout: withChecksum("4294967416x40,0,0,0") }),
      /must be 1 to 10000/,
    );
    await mcp.ok("select", { what: "layout", target: a, layout: "tiled" });
    assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
    await mcp.ok("select", { what: "layout", target: a, layout: saved });
    assertEquals(await tmuxFormat(tmux, a, "#{window_layout}"), saved);
  });
});

Deno.test("select-layout into the layout a zoomed window already has unzooms it and says it changed", async () => {
  await withServer(async (mcp, tmux) => {
    const a = await tmuxFormat(tmux, "main", "#{pane_id}");
    const b = await mcp.ok<Created>("new", { what: "pane", target: a, direction: "down" });
    await mcp.ok("select", { what: "layout", target: a, layout: "even-vertical" });
    const layout = await tmuxFormat(tmux, a, "#{window_layout}");
    await mcp.ok("resize-pane", { target: b.pane_id, zoom: true });
    // tmux unzooms the window to arrange it; the answer was "nothing changed: already in that layout".
    const r = await mcp.call("select", { what: "layout", target: a, layout: "even-vertical" });
    assertEquals(r.content.length, 1, JSON.stringify(r.content));
    assertEquals(r.structuredContent?.changed, true);
    assertEquals(r.structuredContent?.layout, layout);
    assertEquals(await tmuxFormat(tmux, a, "#{window_zoomed_flag}"), "0");
    const again = await mcp.call("select", { what: "layout", target: a, layout: "even-vertical" });
    assertEquals([again.structuredContent?.changed, textOf(again).startsWith("nothing changed: already")], [
      false,
      true,
    ]);
  });
});

Deno.test("resize-pane: zoom is the pane's, on a window zoomed on another pane too; a size then zoom has no false note", async () => {
  await withServer(async (mcp, tmux) => {
    type Sized = { width: number; height: number; zoomed: boolean; changed: boolean; note?: string };
    const a = await tmuxFormat(tmux, "main", "#{pane_id}");
    const b = await mcp.ok<Created>("new", { what: "pane", target: a, direction: "right" });
    const shown = () => tmuxFormat(tmux, a, "#{window_zoomed_flag} #{P:#{?pane_active,#{pane_id},}}");
    // A width, then a zoom: the width was reached; the note said "pane is 120x40; a pane cannot outgrow…".
    const sized = await mcp.ok<Sized>("resize-pane", { target: a, width: 30, zoom: true });
    assertEquals([sized.zoomed, sized.changed, sized.note, sized.width], [true, true, undefined, 120]);
    assertEquals(await shown(), `1 ${a}`);
    assertMatch(await tmuxFormat(tmux, a, "#{window_layout}"), /\{30x40,0,0,\d+,/);
    // Zoom b while a is zoomed: answered "nothing changed: already 89x40, zoomed" with b hidden behind a.
    const other = await mcp.ok<Sized>("resize-pane", { target: b.pane_id, zoom: true });
    assertEquals([other.zoomed, other.changed, other.width], [true, true, 120]);
    assertEquals(await shown(), `1 ${b.pane_id}`);
    assertEquals((await mcp.ok<Sized>("resize-pane", { target: b.pane_id, zoom: true })).changed, false);
    // Unzoom asked of a pane the zoom hides: the window is unzoomed (it answered "already …, not zoomed").
    const unzoom = await mcp.ok<Sized>("resize-pane", { target: a, zoom: false });
    assertEquals([unzoom.zoomed, unzoom.changed, unzoom.width], [false, true, 30]);
    assertEquals((await shown()).split(" ")[0], "0");
    // A size tmux cannot give, then a zoom: the note names the unzoomed size.
    const only = await mcp.ok<Created>("new", { what: "window", target: "main" });
    const big = await mcp.ok<Sized>("resize-pane", { target: only.pane_id, width: 500, zoom: true });
    assertMatch(big.note ?? "", /^nothing changed: pane %\d+ is 120x40; a pane cannot outgrow its window/);
  });
});

Deno.test("select or resize a pane of a window zoomed on another, or split a zoomed window: says tmux unzoomed it", async () => {
  await withServer(async (mcp, tmux) => {
    const first = (await tmux.tmux("display-message", "-p", "-t", "main:0", "#{pane_id}")).trim();
    const other = await mcp.ok<Created>("new", { what: "pane", target: first, direction: "right" });
    await tmux.tmux("resize-pane", "-Z", "-t", first);
    // The zoomed pane itself: nothing changed, still zoomed.
    assertMatch(textOf(await mcp.call("select", { what: "pane", target: first })), /^nothing changed: already/);
    assertEquals(await tmuxFormat(tmux, "main:0", "#{window_zoomed_flag}"), "1");
    const r = await mcp.call("select", { what: "pane", target: other.pane_id });
    assert(!r.isError, textOf(r));
    assertMatch(textOf(r), /^window @\d+ was zoomed on another pane: tmux unzoomed it to make pane %\d+ active/);
    assertEquals((r.structuredContent as { changed: boolean }).changed, true);
    assertEquals(await tmuxFormat(tmux, "main:0", "#{window_zoomed_flag} #{pane_id}"), `0 ${other.pane_id}`);
    // A split of a zoomed window unzooms it too.
    await tmux.tmux("resize-pane", "-Z", "-t", first);
    const split = await mcp.call("new", { what: "pane", target: first, direction: "down" });
    assertMatch(textOf(split), /^window @\d+ was zoomed: tmux unzoomed it to split pane %\d+\n/);
    assertEquals(await tmuxFormat(tmux, "main:0", "#{window_zoomed_flag}"), "0");
    // Not zoomed: no note.
    assertEquals((await mcp.call("new", { what: "pane", target: first, direction: "down" })).content.length, 1);
    // A resize of a pane the zoom hides unzooms the window too.
    await tmux.tmux("resize-pane", "-Z", "-t", first);
    const resized = await mcp.call("resize-pane", { target: other.pane_id, width: 40 });
    assertMatch(textOf(resized), /^window @\d+ was zoomed on another pane: tmux unzoomed it to resize pane %\d+\n/);
    assertEquals(await tmuxFormat(tmux, "main:0", "#{window_zoomed_flag}"), "0");
    // Not zoomed: no note.
    assertEquals((await mcp.call("resize-pane", { target: other.pane_id, width: 50 })).content.length, 1);
  });
});

Deno.test("clear-history of a pane in a mode says tmux left the mode", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await newPane(tmux, "seq 1 200; exec cat");
    await waitForPane(tmux, pane, /^200$/m);
    for (const mode of ["copy-mode", "clock-mode"]) {
      await tmux.tmux(mode, "-t", pane);
      // tmux 3.3a closed the mode (a user's copy-mode view of the history too), and the answer did not say so.
      const r = await mcp.call("clear-history", { target: pane });
      assertEquals(textOf(r).split("\n")[0], `pane ${pane} was in ${mode}: tmux left it to clear the history`);
      assertEquals(await tmuxFormat(tmux, pane, "#{pane_in_mode}"), "0");
    }
    const plain = await mcp.call("clear-history", { target: pane });
    assertEquals([plain.content.length, (plain.structuredContent as { lines_cleared: number }).lines_cleared], [1, 0]);
  });
});

Deno.test("select-layout refuses a split of one cell, after which tmux 3.3a's server crashed on resize-pane", async () => {
  await withServer(async (mcp, tmux) => {
    const a = await tmuxFormat(tmux, "main", "#{pane_id}");
    // tmux applied these (it never writes a split of one cell), and the next resize-pane -x ended its server.
    for (const body of ["120x40,0,0{120x40,0,0,0}", "120x40,0,0[120x40,0,0{120x40,0,0,0}]"]) {
      assertMatch(
        await mcp.err("select", { what: "layout", target: a, layout: withChecksum(body) }),
        /every \{…\} and \[…\] of a layout must hold at least two cells, as tmux writes them \(tmux's server crashes/,
      );
    }
    await mcp.ok("resize-pane", { target: a, width: 5 });
    assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
    // Splits of two cells and more, nested either way, are applied.
    const b = await mcp.ok<Created>("new", { what: "pane", target: a, direction: "right" });
    await mcp.ok("new", { what: "pane", target: b.pane_id, direction: "down" });
    const nested = withChecksum("120x40,0,0{60x40,0,0[60x20,0,0,0,60x19,0,21,1],59x40,61,0,2}");
    await mcp.ok("select", { what: "layout", target: a, layout: nested });
  });
});

/**
 * `pending`, while tmux is given a child that exits now and then: tmux 3.3 can miss a SIGCHLD under load and leave a
 * program unreaped (its pane neither closed nor dead, its hooks not run) until another of its children exits.
 */
async function reaping<T>(tmux: { tmux(...args: string[]): Promise<string> }, pending: Promise<T>): Promise<T> {
  let settled = false;
  const out = pending.finally(() => settled = true);
  while (!settled) await Promise.race([out.catch(() => {}), tmux.tmux("run-shell", ":").catch(() => {})]);
  return await out;
}

Deno.test("new: a command that exits at once is said to have closed its pane, or left it dead with its status", async () => {
  await withServer(async (mcp, tmux) => {
    // Deterministic "by the time we answer": each creation's after-hook holds the creating client (and so the
    // server's next question) until a pane has exited, which its pane-exited or pane-died hook signals.
    await tmux.tmux("set-hook", "-g", "pane-exited", "wait-for -S gone");
    await tmux.tmux("set-hook", "-g", "pane-died", "wait-for -S gone");
    const hold = `run-shell "tmux -L ${tmux.socketName} wait-for gone"`;
    for (const cmd of ["after-new-window", "after-new-session", "after-split-window"]) {
      await tmux.tmux("set-hook", "-g", cmd, hold);
    }
    assertMatch(
      await reaping(tmux, mcp.err("new", { what: "window", target: "main", command: "false" })),
      /^the command exited at once and tmux closed window @\d+ \(pane %\d+\) with it, so there is nothing to target: .*run-command/,
    );
    assertMatch(
      await reaping(tmux, mcp.err("new", { what: "session", command: "no-such-program-x" })),
      /^the command exited at once and tmux closed session \$\d+ \(pane %\d+\) with it/,
    );
    assertMatch(
      await reaping(tmux, mcp.err("new", { what: "pane", target: "main", direction: "right", command: "exit 3" })),
      /^the command exited at once and tmux closed pane %\d+ with it/,
    );
    assertEquals((await tmux.tmux("list-panes", "-a", "-F", "#{pane_id}")).trim().split("\n").length, 1);

    await tmux.tmux("set-option", "-g", "remain-on-exit", "on");
    const r = await reaping(tmux, mcp.call("new", { what: "window", target: "main", command: "echo bye; exit 7" }));
    assert(!r.isError, textOf(r));
    const made = r.structuredContent as unknown as Created;
    assertMatch(
      textOf(r),
      new RegExp(
        `^the command of pane ${made.pane_id} exited at once \\(status 7\\); remain-on-exit keeps the dead pane`,
      ),
    );
    assertEquals(await tmuxFormat(tmux, made.pane_id, "#{pane_dead} #{pane_dead_status}"), "1 7");
  });
});

Deno.test("new: a command still running when the answer is made gets no note", async () => {
  await withServer(async (mcp, tmux) => {
    const r = await mcp.call("new", { what: "window", target: "main", command: "exec sleep 600" });
    assertEquals(r.content.length, 1, textOf(r));
    const made = r.structuredContent as unknown as Created;
    assertEquals(await tmuxFormat(tmux, made.pane_id, "#{pane_dead}"), "0");
  });
});

Deno.test("select a window or pane of a window linked into two sessions: the session named, not the other", async () => {
  for (const mode of ["on", "off"]) {
    await withServer(async (mcp, tmux) => {
      // The user links window 3 of session b into main as main:7; b, the newest, is tmux's current session.
      await tmux.tmux("new-session", "-d", "-s", "b");
      await tmux.tmux("new-window", "-d", "-t", "b:3", "-n", "shared");
      await tmux.tmux("link-window", "-d", "-s", "b:3", "-t", "main:7");
      await tmux.tmux("new-window", "-d", "-t", "b:5");
      const current = async () =>
        (await tmux.tmux("list-windows", "-a", "-F", "#{session_name}:#{window_index} #{window_active}"))
          .split("\n").filter((l) => l.endsWith(" 1")).map((l) => l.split(" ")[0]);
      assertEquals(await current(), ["b:0", "main:0"]);
      const w = await mcp.ok<{ session_id: string; changed: boolean }>("select", { what: "window", target: "main:7" });
      assertEquals(await current(), ["b:0", "main:7"], mode);
      assertEquals(w.changed, true);
      assertEquals((await mcp.ok("select", { what: "window", target: "main:7" })).changed, false, mode);
      await mcp.ok("select", { what: "window", target: "main:0" });
      const p = await mcp.ok<{ changed: boolean }>("select", { what: "pane", target: "main:7.0" });
      assertEquals([await current(), p.changed], [["b:0", "main:7"], true], mode);
    }, { env: { TMUX_MCP_CONTROL_MODE: mode } });
  }
});

Deno.test("kill says when a window, a session or the server closed with what it killed", async () => {
  await withServer(async (mcp, tmux) => {
    const kill = async (what: string, target: string) => {
      const r = await mcp.call("kill", { what, target });
      assert(!r.isError, textOf(r));
      return r.content.length > 1 ? textOf(r).split("\n")[0] : undefined;
    };
    const two = await mcp.ok<Created>("new", { what: "session", name: "two" });
    const right = await mcp.ok<Created>("new", { what: "pane", target: two.pane_id, direction: "right" });
    // A pane beside another, a window beside another: nothing else closed.
    assertEquals(await kill("pane", right.pane_id), undefined);
    const w = await mcp.ok<Created>("new", { what: "window", target: "two" });
    assertEquals(await kill("window", w.window_id), undefined);
    // The last pane of the last window: its window and its session closed with it.
    assertEquals(
      await kill("pane", two.pane_id),
      `window ${two.window_id} closed with its last pane; session ${two.session_id} closed with its last window`,
    );
    const three = await mcp.ok<Created>("new", { what: "session", name: "three" });
    assertEquals(await kill("window", three.window_id), `session ${three.session_id} closed with its last window`);
    assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
    // The last session: the server exits (exit-empty, on by default).
    const main = (await tmux.tmux("display-message", "-p", "-t", "main:", "#{session_id}")).trim();
    assertEquals(
      await kill("session", main),
      'no session is left, so the tmux server exited: new (what: "session") starts another, whose ids start again at ' +
        "$0, @0 and %0 (ids from before name other objects)",
    );
    await mcp.ok("new", { what: "session", name: "again" });
  }, DESTRUCTIVE);
});

Deno.test("kill of a window linked several times into a session of no other window closes it; tmux 3.3a survives", async () => {
  await withServer(async (mcp, tmux) => {
    const sessions = () => tmux.tmux("list-sessions", "-F", "#{session_name}");
    const cases = [
      { what: "window", setup: [] as string[][] },
      { what: "pane", setup: [] },
      { what: "window", setup: [["new-session", "-d", "-s", "grouped", "-t", "four"]] },
      { what: "window", setup: [["link-window", "-d", "-s", "four:0", "-t", "main:6"]] },
    ];
    for (const { what, setup } of cases) {
      const four = await mcp.ok<Created>("new", { what: "session", name: "four" });
      await tmux.tmux("link-window", "-d", "-s", four.window_id, "-t", "four:5");
      for (const args of setup) await tmux.tmux(...args);
      const r = await mcp.call("kill", { what, target: what === "pane" ? four.pane_id : four.window_id });
      assert(!r.isError, textOf(r));
      assertMatch(
        textOf(r),
        new RegExp(`sessions? (\\$\\d+, )?\\$${four.session_id.slice(1)}\\b.* closed with its last window`),
      );
      // Every other session is still there: the tmux server did not crash.
      assertEquals(await sessions(), "main\n", `${what} ${JSON.stringify(setup)}`);
    }
  }, DESTRUCTIVE);
});

Deno.test("kill and respawn: a window index no window has is refused, not read as a window name's prefix", async () => {
  await withServer(async (mcp, tmux) => {
    const prod = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:1", "-n", "5-prod"))
      .trim();
    const windows = () => tmux.tmux("list-windows", "-t", "main", "-F", "#{window_index} #{window_id}");
    const before = await windows();
    assertMatch(
      await mcp.err("kill", { what: "window", target: "main:5" }),
      /^unknown target "main:5": its session has no window 5 \(indexes: 0, 1\).*pass an id such as @2/,
    );
    assertMatch(await mcp.err("kill", { what: "pane", target: "main:5.0" }), /has no window 5/);
    assertMatch(await mcp.err("respawn-pane", { target: "main:5.0", kill: true }), /has no window 5/);
    assertEquals(await windows(), before);
    await mcp.ok("kill", { what: "window", target: "main:1" });
    assertEquals(await windows(), before.replace(`1 ${prod}\n`, ""));
  }, DESTRUCTIVE);
});

Deno.test("kill: an exact name that nothing has is called unknown, not an inexact name to pass as =name", async () => {
  await withServer(async (mcp) => {
    for (const target of ["=nosuch", "nosuch"]) {
      const text = await mcp.err("kill", { what: "session", target });
      assertMatch(text, /^no session is named "nosuch": call list \(what: sessions\) and pass an id/, target);
      assert(!text.includes("not an exact name"), text);
    }
    assertMatch(await mcp.err("kill", { what: "window", target: "main:=nosuch" }), /^no window is named "nosuch"/);
  }, DESTRUCTIVE);
});

Deno.test("kill a session by a pane or window id of a window linked into two sessions: refused, it names neither", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("new-session", "-d", "-s", "b");
    const [window, pane] = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", "b:3"))
      .trim().split(" ");
    await tmux.tmux("link-window", "-d", "-s", window, "-t", "main:7");
    const sessions = () => tmux.tmux("list-sessions", "-F", "#{session_id} #{session_name}");
    const before = await sessions();
    for (const target of [pane, window]) {
      assertMatch(
        await mcp.err("kill", { what: "session", target }),
        /is in window @\d+, which is linked into several sessions, so it names none of them: pass the session's id \(\$\d+, \$\d+\)/,
        target,
      );
    }
    assertEquals(await sessions(), before);
    // Its window and pane are one window and one pane: those kills name them.
    await mcp.ok("kill", { what: "pane", target: pane });
    assertEquals(await sessions(), before);
  }, DESTRUCTIVE);
});

Deno.test("select, rename, new pane: a window index no window has is refused, not read as the start of a window name", async () => {
  await withServer(async (mcp, tmux) => {
    const prod = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:1", "-n", "5-prod"))
      .trim();
    const state = () => tmux.tmux("list-panes", "-s", "-t", "main", "-F", "#{window_id} #{window_active} #{pane_id}");
    const before = await state();
    for (
      const [tool, args] of [
        ["select", { what: "window", target: "main:5" }],
        ["select", { what: "pane", target: "main:5.0" }],
        ["rename", { what: "window", target: "main:5", name: "oops" }],
        ["new", { what: "pane", target: "main:5", direction: "right" }],
      ] as const
    ) {
      assertMatch(
        await mcp.err(tool, args),
        /^unknown target "main:5(\.0)?": its session has no window 5 \(indexes: 0, 1\) and no window named "5"; call list \(what: windows\)/,
        tool,
      );
    }
    assertEquals(await state(), before);
    assertEquals(await tmux.tmux("display-message", "-p", "-t", prod, "#{window_name}"), "5-prod\n");
    // An index a window has is that window, as before.
    assertEquals((await mcp.ok<{ window_id: string }>("select", { what: "window", target: "main:1" })).window_id, prod);
  });
});

Deno.test("select, rename and kill reach a window named only with digits when no window has that index", async () => {
  await withServer(async (mcp, tmux) => {
    const named = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:1", "-n", "5")).trim();
    assertEquals(
      (await mcp.ok<{ window_id: string }>("select", { what: "window", target: "main:5" })).window_id,
      named,
    );
    const renamed = await mcp.ok<{ window_id: string; name: string }>("rename", {
      what: "window",
      target: "main:5.0",
      name: "7",
    });
    assertEquals([renamed.window_id, renamed.name], [named, "7"]);
    // Two windows of that exact name: neither is exact.
    await tmux.tmux("new-window", "-d", "-t", "main:2", "-n", "7");
    assertMatch(await mcp.err("kill", { what: "window", target: "main:7" }), /^several windows are named "7"/);
    await tmux.tmux("kill-window", "-t", "main:2");
    assertEquals((await mcp.ok<{ window_id: string }>("kill", { what: "window", target: "main:7" })).window_id, named);
    assertEquals((await tmux.tmux("list-windows", "-t", "main", "-F", "#{window_index}")).trim(), "0");
  }, DESTRUCTIVE);
});

Deno.test("rename, new window and session settings by a pane or window id of a window linked into two sessions: refused", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("new-session", "-d", "-s", "b");
    const [window, pane] = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id} #{pane_id}", "-t", "b:3"))
      .trim().split(" ");
    await tmux.tmux("link-window", "-d", "-s", window, "-t", "main:7");
    const state = () =>
      tmux.tmux("list-windows", "-a", "-F", "#{session_id} #{session_name} #{window_id} #{@x} #{session_windows}");
    const before = await state();
    for (const target of [pane, window]) {
      for (
        const [tool, args] of [
          ["rename", { what: "session", name: "renamed" }],
          ["new", { what: "window" }],
          ["set", { what: "option", scope: "session", name: "@x", value: "1" }],
          ["set", { what: "environment", name: "FOO", value: "1" }],
        ] as const
      ) {
        assertMatch(
          await mcp.err(tool, { ...args, target }),
          /is in window @\d+, which is linked into several sessions, so it names none of them: pass the session's id \(\$\d+, \$\d+\).*nothing was done$/,
          `${tool} ${target}`,
        );
      }
    }
    assertEquals(await state(), before);
    for (const s of ["b", "main"]) {
      assertEquals(await tmux.tmux("show-environment", "-t", s, "FOO").catch(() => "none"), "none", s);
    }
    // A window or pane setting names the one window: done.
    await mcp.ok("set", { what: "option", scope: "window", target: pane, name: "@x", value: "2" });
  });
});
