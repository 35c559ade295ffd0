import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, type McpFixture, startTmux, textOf, withServer } from "./helpers.ts";
import { sleep, windowRunning } from "./workspace_fixtures.ts";
import { waitForPane } from "./pane_helpers.ts";

type Pane =
  & { pane_id: string; session_name: string; window_index: number; pane_index: number }
  & Record<
    string,
    unknown
  >;

Deno.test("listing tools return ids, names, flags, sizes and layout", async () => {
  await withServer(async (mcp, tmux) => {
    const version = (await new Deno.Command("tmux", { args: ["-V"] }).output()).stdout;
    const info = await mcp.ok("list", { what: "server" });
    assertEquals(`tmux ${info.version}\n`, new TextDecoder().decode(version));
    assertEquals(info.session_count, 1);
    assertMatch(String(info.socket_path), new RegExp(`/${tmux.socketName}$`));
    assert(Number(info.pid) > 0);

    await tmux.tmux("new-session", "-d", "-s", "second", "-x", "100", "-y", "30");
    await tmux.tmux("split-window", "-h", "-t", "second");
    const { sessions } = await mcp.ok<{ sessions: Record<string, unknown>[] }>("list", { what: "sessions" });
    assertEquals(sessions.map((s) => [s.session_name, s.window_count]), [["main", 1], ["second", 1]]);
    assertMatch(String(sessions[1].session_id), /^\$\d+$/);

    const { windows } = await mcp.ok<{ windows: Record<string, unknown>[] }>("list", { what: "windows" });
    assertEquals(windows.length, 2);
    const w2 =
      (await mcp.ok<{ windows: Record<string, unknown>[] }>("list", { what: "windows", target: "second" })).windows;
    assertEquals(w2.length, 1);
    assertEquals([w2[0].pane_count, w2[0].active, w2[0].zoomed], [2, true, false]);
    assertMatch(String(w2[0].layout), /^[0-9a-f]{4},100x30,0,0\{/);

    const all = (await mcp.ok<{ panes: Pane[] }>("list", { what: "panes" })).panes;
    assertEquals(all.length, 3);
    const win = (await mcp.ok<{ panes: Pane[] }>("list", { what: "panes", target: "second" })).panes;
    assertEquals(win.map((p) => p.pane_index), [0, 1]);
    assertEquals(win.filter((p) => p.active).length, 1);
    const session = (await mcp.ok<{ panes: Pane[] }>("list", { what: "panes", target: "main", all: true })).panes;
    assertEquals(session.length, 1);
    for (const key of ["current_command", "current_path", "pid", "title", "dead", "mode", "alternate_on"]) {
      assert(key in win[0], `pane facts lack ${key}`);
    }
    assertEquals([win[0].dead, win[0].mode, win[0].alternate_on, win[0].width], [false, null, false, 50]);
  });
});

Deno.test("targets resolve by name, $id, @id, %id and session:window.pane; no target means the newest session", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await windowRunning(tmux, "main:4", "echo here", "four");
    const ids = (await tmux.tmux("display-message", "-p", "-t", pane, "#{session_id} #{window_id}")).trim().split(" ");
    await tmux.tmux("select-window", "-t", "main:4");
    for (const target of ["main", ids[0], ids[1], pane, "main:4.0", "main:four", "main:4"]) {
      const r = await mcp.ok("capture-pane", { target });
      assertEquals([r.session_id, r.window_id, r.pane_id, r.defaulted], [ids[0], ids[1], pane, false], target);
    }
    // session_activity has one-second resolution: make "later" clearly the most recently used session.
    await sleep(1100);
    await tmux.tmux("new-session", "-d", "-s", "later");
    const later = (await tmux.tmux("display-message", "-p", "-t", "later", "#{pane_id}")).trim();
    const d = await mcp.ok("snapshot-pane");
    assertEquals([d.pane_id, d.session_name, d.defaulted], [later, "later", true]);
  });
});

Deno.test("unknown and ambiguous targets are errors that name the listing tools", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("new-session", "-d", "-s", "mainx");
    await tmux.tmux("rename-window", "-t", "main:0", "build1");
    await tmux.tmux("new-window", "-d", "-t", "main", "-n", "build2");
    for (const target of ["nosuch", "main:9", "main:0.7", "%999", "@999", "$999"]) {
      assertMatch(await mcp.err("capture-pane", { target }), /^unknown target .*call list \(what: sessions or panes\)/);
    }
    // tmux itself reports these as "can't find"; the error says which names fit.
    assertMatch(await mcp.err("snapshot-pane", { target: "mai" }), /^ambiguous target "mai".*"main", "mainx"/);
    assertMatch(await mcp.err("capture-pane", { target: "main:bui" }), /^ambiguous target.*"build1", "build2"/);
    // A glob too (it said "unknown"), and tmux's marked pane when none is marked (it said only "no marked target").
    assertMatch(await mcp.err("capture-pane", { target: "m*" }), /^ambiguous target "m\*".*"main", "mainx"/);
    assertMatch(await mcp.err("capture-pane", { target: "main:b*" }), /^ambiguous target.*"build1", "build2"/);
    assertMatch(await mcp.err("capture-pane", { target: "~" }), /^target "~" means tmux's marked pane.*call list/);
    assertMatch(await mcp.err("list", { what: "windows", target: "nosuch" }), /^unknown target "nosuch"/);
    assertMatch(await mcp.err("list", { what: "panes", target: "main:9" }), /^unknown target "main:9"/);
    assertMatch(await mcp.err("show", { what: "environment", target: "nosuch" }), /^unknown target/);
    assertMatch(await mcp.err("capture-pane", { target: "-t" }), /target must not start with '-'/);
  });
});

Deno.test("capture-pane keeps the newest lines, says how many were dropped, joins wraps and keeps colours on request", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await windowRunning(tmux, "main:1", "seq 1 300");
    await waitForPane(tmux, pane, (s) => s.includes("300\n"), 30_000);
    const r = await mcp.ok("capture-pane", { target: pane, start: -1000, max_lines: 50 });
    assertEquals(String(r.text).split("\n"), Array.from({ length: 50 }, (_, i) => String(251 + i)));
    assertEquals([r.lines, r.dropped_lines], [50, 250]);
    const recent = await mcp.ok("capture-pane", { target: pane });
    // Default: the newest max_lines (200) lines across scrollback and screen.
    assertEquals(String(recent.text).split("\n"), Array.from({ length: 200 }, (_, i) => String(101 + i)));
    const screen = await mcp.ok("capture-pane", { target: pane, start: 0 });
    // The visible screen: 40 rows, the last one (the cursor's) blank and trimmed.
    assertEquals([screen.lines, screen.dropped_lines], [39, 0]);
    assert(String(screen.text).startsWith("262\n") && String(screen.text).endsWith("\n300"));
    // An explicit range is not cut to the default 200 lines: all 300, none dropped.
    const range = await mcp.ok("capture-pane", { target: pane, start: -261 });
    assertEquals(String(range.text).split("\n"), Array.from({ length: 300 }, (_, i) => String(1 + i)));
    assertEquals([range.lines, range.dropped_lines], [300, 0]);
    const slice = await mcp.ok("capture-pane", { target: pane, start: -5, end: -3 });
    assertEquals(slice.text, "257\n258\n259", "line -1 is the one just above the screen");

    const wide = await windowRunning(tmux, "main:2", "printf '%0300d\\n' 7; printf '\\033[31mred\\033[0m\\n'");
    await waitForPane(tmux, wide, (s) => s.includes("red"), 30_000);
    const joined = String((await mcp.ok("capture-pane", { target: wide })).text).split("\n");
    assertEquals(joined[0], "0".repeat(299) + "7");
    const rows = String((await mcp.ok("capture-pane", { target: wide, join_wrapped: false })).text).split("\n");
    assertEquals(rows.slice(0, 3).map((l) => l.length), [120, 120, 60]);
    assertEquals(joined[1], "red");
    const colored = String((await mcp.ok("capture-pane", { target: wide, colors: true })).text);
    assert(colored.includes("\x1b[31mred"), JSON.stringify(colored));
    const raw = await mcp.call("capture-pane", { target: wide, max_lines: 1 });
    assertEquals(textOf(raw).split("\n")[0], "red", "the text is the first content block");
  });
});

Deno.test("snapshot-pane returns screen, cursor, size, mode flags and history in one result", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await windowRunning(tmux, "main:1", "printf 'first\\nsecond\\nab'");
    await waitForPane(tmux, pane, (s) => s.includes("ab"), 30_000);
    const s = await mcp.ok("snapshot-pane", { target: pane });
    assertEquals([s.cursor_x, s.cursor_y, s.width, s.height], [2, 2, 120, 40]);
    assertEquals(String(s.text).split("\n"), ["first", "second", "ab"]);
    assertEquals([s.current_command, s.mode, s.in_mode, s.alternate_on, s.defaulted], [
      "sleep",
      null,
      false,
      false,
      false,
    ]);
    assert(typeof s.history_size === "number" && typeof s.history_limit === "number");

    await tmux.tmux("copy-mode", "-t", pane);
    const c = await mcp.ok("snapshot-pane", { target: pane });
    assertEquals([c.mode, c.in_mode], ["copy-mode", true]);

    const alt = await windowRunning(tmux, "main:2", "printf '\\033[?1049hfull screen'");
    await waitForPane(tmux, alt, (t) => t.includes("full screen"), 30_000);
    assertEquals((await mcp.ok("snapshot-pane", { target: alt })).alternate_on, true);
  });
});

Deno.test("search-panes finds lines across panes, pages exactly once, and stops runaway regexes", async () => {
  await withServer(async (mcp, tmux) => {
    const a = await windowRunning(tmux, "main:1", 'for i in 1 2 3 4; do echo "needle a$i"; done; echo other');
    const b = await windowRunning(tmux, "main:2", "echo NEEDLE b1; seq 1 100; echo needle b2");
    await waitForPane(tmux, a, (s) => s.includes("other"), 30_000);
    await waitForPane(tmux, b, (s) => s.includes("needle b2"), 30_000);

    type Found = {
      total_matches: number;
      next_offset: number | null;
      panes_searched: number;
      panes: { pane_id: string; matches: { line: number; text: string }[] }[];
    };
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const r: Found = await mcp.ok<Found>("search-panes", {
        query: "needle",
        ignore_case: true,
        max_matches: 4,
        offset,
      });
      assertEquals(r.total_matches, 6);
      for (const p of r.panes) for (const m of p.matches) seen.push(`${p.pane_id} ${m.text}`);
      offset = r.next_offset;
      pages++;
    }
    assertEquals(pages, 2);
    assertEquals(seen, [
      ...[1, 2, 3, 4].map((i) => `${a} needle a${i}`),
      `${b} NEEDLE b1`,
      `${b} needle b2`,
    ]);

    // ignore_case defaults to false, as in the buffer searches.
    const exact = await mcp.ok<Found>("search-panes", { query: "needle", target: b });
    assertEquals(exact.panes_searched, 1);
    assertEquals(exact.panes[0].matches.map((m) => m.text), ["needle b2"]);
    // line numbers are capture-pane's: reading that line shows the match.
    const hit =
      (await mcp.ok<Found>("search-panes", { query: "needle b1", ignore_case: true, target: b })).panes[0].matches[0];
    assert(hit.line < 0, "the first line scrolled into history");
    const back = await mcp.ok("capture-pane", { target: b, start: hit.line, end: hit.line });
    assertEquals(back.text, "NEEDLE b1");

    const re = await mcp.ok<Found>("search-panes", { query: "^needle a[24]$", mode: "regex", target: "main:1" });
    assertEquals(re.panes[0].matches.map((m) => m.text), ["needle a2", "needle a4"]);
    assertMatch(await mcp.err("search-panes", { query: "(", mode: "regex" }), /^invalid regex "\(".*mode "literal"/);
    // Lines are matched one at a time: a line break in a literal would find nothing, though the text is there.
    assertMatch(
      await mcp.err("search-panes", { query: "needle a2\nneedle a3", target: "main:1" }),
      /^query holds a line break, and search-panes matches one line at a time/,
    );

    const as = await windowRunning(tmux, "main:3", `printf '%s!\\n' ${"a".repeat(40)}`);
    await waitForPane(tmux, as, (s) => s.includes(`${"a".repeat(40)}!`), 30_000);
    const slow = await mcp.err("search-panes", { query: "^(a+)+$", mode: "regex" });
    assertMatch(slow, /took too long and was stopped after 3000 ms of matching/);
    // The server still answers after the runaway regex was stopped.
    assertEquals((await mcp.ok("list", { what: "server" })).session_count, 1);
  });
});

Deno.test("search-panes finds text across the edge where the terminal wrapped a line, at the line's first row", async () => {
  await withServer(async (mcp, tmux) => {
    // The window is 120 columns wide: the needle starts at column 110 and wraps onto the next row.
    const long = `${"x".repeat(110)}NEEDLE-ACROSS-THE-WRAP${"y".repeat(20)}`;
    const pane = await windowRunning(tmux, "main:1", `echo before; echo ${long}; echo after`);
    await waitForPane(tmux, pane, (s) => s.includes("after"), 30_000);
    type Found = { total_matches: number; panes: { matches: { line: number; text: string }[] }[] };
    const hit = await mcp.ok<Found>("search-panes", { query: "NEEDLE-ACROSS-THE-WRAP", target: pane });
    assertEquals(hit.total_matches, 1);
    assertEquals(hit.panes[0].matches, [{ line: 1, text: long }]);
    // Its line number is capture-pane's: the line starts there.
    const back = await mcp.ok("capture-pane", { target: pane, start: 1, end: 2 });
    assertEquals(back.text, long);
    const re = await mcp.ok<Found>("search-panes", { query: "^x+NEEDLE.*y$", mode: "regex", target: pane });
    assertEquals(re.panes[0].matches.map((m) => m.line), [1]);
    // The lines after it keep their numbers.
    const after = await mcp.ok<Found>("search-panes", { query: "after", target: pane });
    assertEquals(after.panes[0].matches, [{ line: 3, text: "after" }]);
  });
});

/** The excerpt search-panes gives for the first match of `query` in `long`, a line printed in a pane. */
async function excerptOf(long: string, query: Record<string, unknown>): Promise<string> {
  let text = "";
  await withServer(async (mcp, tmux) => {
    const pane = await windowRunning(tmux, "main:1", `printf '%s\\n' before '${long}' after`);
    await waitForPane(tmux, pane, (s) => s.includes("after"), 30_000);
    type Found = { panes: { matches: { line: number; text: string }[] }[] };
    text = (await mcp.ok<Found>("search-panes", { ...query, target: pane })).panes[0].matches[0].text;
  });
  return text;
}

Deno.test("search-panes cuts a long line's excerpt between characters, never inside a surrogate pair", async () => {
  // 300 astral characters (two UTF-16 units each), then an odd number of units before the match: the excerpt's
  // start, 100 units before it, falls between a pair's halves unless the cut avoids it.
  const text = await excerptOf(`${"😀".repeat(300)}yNEEDLE-ASTRAL${"😀".repeat(300)}`, { query: "NEEDLE-ASTRAL" });
  assertMatch(text, /^…😀+yNEEDLE-ASTRAL😀+…$/u);
  assert(text.length <= 402, `excerpt of ${text.length} units`);
});

Deno.test("search-panes with ignore_case finds and shows a match after characters whose lower case is longer", async () => {
  // "İ" lower-cases to two UTF-16 units: an index into the lower-cased line points 300 units past the match.
  const long = `${"İ".repeat(300)}Needle-Folded${"x".repeat(1000)}`;
  assertMatch(await excerptOf(long, { query: "NEEDLE-folded", ignore_case: true }), /^…İ+Needle-Folded/);
});

Deno.test("show {what: format} expands formats and refuses #( and formats that run or re-expand commands", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await windowRunning(tmux, "main:1", "true", "fmt");
    const r = await mcp.ok("show", { what: "format", target: pane, format: "-#{pane_id} #{window_name} ;" });
    assertEquals([r.text, r.pane_id, r.truncated], [`-${pane} fmt ;`, pane, false]);
    const loop = await mcp.ok("show", { what: "format", format: "#{S:#{session_name},}" });
    assertEquals([loop.text, loop.defaulted], ["main,", true]);

    const dir = await Deno.makeTempDir({ prefix: "tmcp-fmt-" });
    try {
      const witness = `${dir}/pwned`;
      await tmux.tmux("set-option", "-g", "@cmd", `#(touch ${witness})`);
      for (const format of [`#(touch ${witness})`, "#{E:@cmd}", "#{T:@cmd}", "#{=5;E:@cmd}", "#{p100000:pane_id}"]) {
        assertMatch(await mcp.err("show", { what: "format", format }), /^display-message refused: /, format);
      }
      assertMatch(await mcp.err("show", { what: "format", format: "#{S:#{S:#{S:x}}}" }), /loop modifiers/);
      // A plain read of the option does not expand it.
      assertEquals((await mcp.ok("show", { what: "format", format: "#{@cmd}" })).text, `#(touch ${witness})`);
      await sleep(300);
      assertEquals(await Deno.stat(witness).then(() => true, () => false), false, "no command ran");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("show-options, show-environment and show-hooks read each scope and validate names", async () => {
  await withServer(async (mcp, tmux) => {
    type Opts = { options: { name: string; value: string | null; inherited: boolean }[]; session_id: string | null };
    const inherited = await mcp.ok<Opts>("show", {
      what: "options",
      scope: "session",
      target: "main",
      name: "history-limit",
    });
    assertEquals(inherited.options, [{ name: "history-limit", value: "2000", inherited: true }]);
    await tmux.tmux("set-option", "-t", "main", "history-limit", "5000");
    const own = await mcp.ok<Opts>("show", {
      what: "options",
      scope: "session",
      target: "main",
      name: "history-limit",
    });
    assertEquals(own.options, [{ name: "history-limit", value: "5000", inherited: false }]);
    assertMatch(String(own.session_id), /^\$\d+$/);
    await tmux.tmux("set-option", "-w", "-t", "main:0", "@note", 'a b"c');
    const w = await mcp.ok<Opts>("show", { what: "options", scope: "window", target: "main:0", name: "@note" });
    assertEquals(w.options, [{ name: "@note", value: 'a b"c', inherited: false }], "the value, not tmux's quoted form");
    const server = await mcp.ok<Opts>("show", { what: "options", scope: "server" });
    assert(server.options.some((o) => o.name === "buffer-limit"));
    assertEquals(server.session_id, null);
    const pane = await mcp.ok<Opts>("show", { what: "options", scope: "pane" });
    assert(pane.options.some((o) => o.name === "remain-on-exit"));
    assertMatch(
      await mcp.err("show", { what: "options", scope: "window", name: "nosuch" }),
      /unknown option "nosuch": this tmux has no option or hook of that name/,
    );
    for (const name of ["-g", "a b", "history-limit;kill-server", "x\n"]) {
      assertMatch(await mcp.err("show", { what: "options", scope: "session", name }), /^invalid arguments.*name:/);
    }

    await tmux.tmux("set-environment", "-t", "main", "FOO", "bar");
    await tmux.tmux("set-environment", "-t", "main", "MY_API_TOKEN", "hunter2");
    await tmux.tmux("set-environment", "-t", "main", "-r", "GONE");
    type Env = { session_id: string | null; variables: Record<string, unknown>[] };
    const env = await mcp.ok<Env>("show", { what: "environment", target: "main" });
    const byName = new Map(env.variables.map((v) => [v.name, v]));
    assertEquals(byName.get("FOO"), { name: "FOO", value: "bar", removed: false, redacted: false });
    assertEquals(byName.get("MY_API_TOKEN"), { name: "MY_API_TOKEN", value: null, removed: false, redacted: true });
    assertEquals(byName.get("GONE")?.removed, true);
    assert(!JSON.stringify(env).includes("hunter2"), "a secret value never reaches the model");
    // Values are raw text: lines in them that look like variables are part of the value, secret or not.
    await tmux.tmux("set-environment", "-t", "main", "MULTI", 'one\nFORGED=1\n-GONE\n"; export X;\\$`');
    await tmux.tmux("set-environment", "-t", "main", "DEPLOY_PRIVATE_KEY", "k1\nKEYPART2=k3\nKEYPART4");
    const lines = await mcp.ok<Env>("show", { what: "environment", target: "main" });
    const names = lines.variables.map((v) => String(v.name));
    assertEquals(
      lines.variables.find((v) => v.name === "MULTI"),
      { name: "MULTI", value: 'one\nFORGED=1\n-GONE\n"; export X;\\$`', removed: false, redacted: false },
    );
    assertEquals(names.filter((n) => /FORGED|KEYPART|^X$/.test(n)), []);
    assertEquals(names.filter((n) => n === "GONE").length, 1, names.join(" "));
    assert(!/KEYPART|k3/.test(JSON.stringify(lines)), "no line of a secret value reaches the model");
    const global = await mcp.ok<Env>("show", { what: "environment" });
    assertEquals(global.session_id, null);
    assert(!global.variables.some((v) => v.name === "FOO"), "FOO is the session's, not global");

    await tmux.tmux("set-hook", "-t", "main", "after-new-window", "display-message hi");
    type Hooks = { session_id: string | null; hooks: { name: string; command: string }[] };
    const hooks = await mcp.ok<Hooks>("show", { what: "hooks", target: "main" });
    assertEquals(hooks.hooks, [{ name: "after-new-window[0]", command: "display-message hi" }]);
    assertEquals(
      (await mcp.ok<Hooks>("show", { what: "hooks" })).hooks,
      [],
      "no global hooks set; unset hooks are not listed",
    );
  });
});

Deno.test("readonly safety serves every readonly workspace tool", async () => {
  const tmux = await startTmux();
  const mcp: McpFixture = await connect({ socketName: tmux.socketName, args: ["--safety", "readonly"] });
  try {
    const names = new Set((await mcp.client.listTools()).tools.map((t) => t.name));
    for (
      const n of [
        "list",
        "capture-pane",
        "snapshot-pane",
        "search-panes",
        "show",
      ]
    ) {
      assert(names.has(n), `${n} is not served under --safety readonly`);
    }
    const tools = (await mcp.client.listTools()).tools.filter((t) => names.has(t.name));
    for (const t of tools) assert(t.outputSchema, `${t.name} has no output schema`);
    assertEquals((await mcp.ok("list", { what: "sessions" })).sessions instanceof Array, true);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("show environment: a multi-line value stays one variable, and a secret's later lines stay withheld", async () => {
  await withServer(async (mcp, tmux) => {
    const key = "-----BEGIN KEY-----\nMIIEsecretline\nLEAKED=part of the key\n-----END KEY-----";
    await tmux.tmux("set-environment", "-t", "main", "SSH_PRIVATE_KEY", key);
    const odd = 'two\nlines with "quotes" $HOME `cmd` \\ and\nNOTAVAR=x';
    await tmux.tmux("set-environment", "-t", "main", "ODD", odd);
    await tmux.tmux("set-environment", "-t", "main", "EMPTY", "");
    type Env = { variables: { name: string; value: string | null; removed: boolean; redacted: boolean }[] };
    const env = await mcp.ok<Env>("show", { what: "environment", target: "main" });
    const byName = new Map(env.variables.map((v) => [v.name, v]));
    assertEquals(byName.get("SSH_PRIVATE_KEY"), {
      name: "SSH_PRIVATE_KEY",
      value: null,
      removed: false,
      redacted: true,
    });
    assertEquals(byName.get("ODD")?.value, odd);
    assertEquals(byName.get("EMPTY")?.value, "");
    assert(!JSON.stringify(env).includes("secretline") && !JSON.stringify(env).includes("LEAKED"), JSON.stringify(env));
    assert(!byName.has("NOTAVAR"), "a value's line is no variable");
  });
});

Deno.test("list panes: a plain word target is a session, as for every tool, not a window of tmux's current session", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("new-window", "-d", "-t", "main:1", "-n", "dev");
    await tmux.tmux("new-session", "-d", "-s", "dev", "-n", "devwin");
    await tmux.tmux("new-window", "-d", "-t", "dev:1", "-n", "devone");
    // The newest session (tmux's current one without a client) has a window named dev and a window 1.
    await tmux.tmux("new-session", "-d", "-s", "1", "-n", "onewin");
    await tmux.tmux("new-window", "-d", "-t", "1:1", "-n", "dev");
    type Rows = { rows: string[][] };
    const list = (target: string, all = false) =>
      mcp.ok<Rows>("list", { what: "panes", target, all, fields: ["session_name", "window_name"] });
    assertEquals((await list("dev")).rows, [["dev", "devwin"]]);
    assertEquals((await list("1")).rows, [["1", "onewin"]]);
    assertEquals((await list("dev", true)).rows, [["dev", "devwin"], ["dev", "devone"]]);
  });
});

Deno.test("read-only tools: a window index no window has is refused, not read as the start of a window name", async () => {
  for (const args of [[], ["--sessions", "main"]]) {
    await withServer(async (mcp, tmux) => {
      const prod = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:1", "-n", "5-prod"))
        .trim();
      for (
        const [tool, a] of [
          ["capture-pane", { target: "main:5" }],
          ["snapshot-pane", { target: "main:5.0" }],
          ["list", { what: "panes", target: "main:5" }],
          ["list", { what: "panes", target: "main:5", fields: ["pane_id"] }],
          ["show", { what: "format", target: "main:5", format: "#{window_name}" }],
          ["show", { what: "options", target: "main:5", scope: "window" }],
          ["search-panes", { query: "x", target: "main:5" }],
          ["search-panes", { query: "x", target: "main:5.0" }],
        ] as const
      ) {
        assertMatch(
          await mcp.err(tool, a),
          /^unknown target "main:5(\.0)?": its session has no window 5 \(indexes: 0, 1\) and no window named "5"; call list \(what: windows\)/,
          `${tool} ${JSON.stringify(a)} ${args}`,
        );
      }
      // An index a window has is that window, as before.
      const shown = await mcp.ok<{ window_id: string; text: string }>("show", {
        what: "format",
        target: "main:1",
        format: "#{window_name}",
      });
      assertEquals([shown.window_id, shown.text], [prod, "5-prod"]);
      type Rows = { rows: string[][] };
      const rows = await mcp.ok<Rows>("list", { what: "panes", target: "main:1.0", fields: ["window_id"] });
      assertEquals(rows.rows, [[prod]]);
    }, { args });
  }
});

Deno.test("a window named only with digits is reached by them when no window has that index, as tmux reads them", async () => {
  for (const args of [[], ["--sessions", "main"]]) {
    await withServer(async (mcp, tmux) => {
      const named = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "main:1", "-n", "5"))
        .trim();
      const shown = await mcp.ok<{ window_id: string; text: string }>("show", {
        what: "format",
        target: "main:5",
        format: "#{window_name}",
      });
      assertEquals([shown.window_id, shown.text], [named, "5"], `${args}`);
      type Rows = { rows: string[][] };
      const rows = await mcp.ok<Rows>("list", { what: "panes", target: "main:5.0", fields: ["window_id"] });
      assertEquals(rows.rows, [[named]]);
      assertEquals((await mcp.ok<{ window_id: string }>("capture-pane", { target: "main:5" })).window_id, named);
      // An index a window has comes first: main:1 is the window at index 1, whatever other windows are named.
      await tmux.tmux("rename-window", "-t", "main:0", "1");
      const first = await mcp.ok<{ text: string }>("show", {
        what: "format",
        target: "main:1",
        format: "#{window_id}",
      });
      assertEquals(first.text, named);
    }, { args });
  }
});

Deno.test("search-panes searches a pane once when its window is linked twice or its session is grouped", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await windowRunning(tmux, "main:1", "echo needle one; echo needle two");
    await waitForPane(tmux, pane, (s) => s.includes("needle two"), 30_000);
    // The window is also main:5, and every window of main is one of the grouped session "grp" too.
    await tmux.tmux("link-window", "-d", "-s", "main:1", "-t", "main:5");
    await tmux.tmux("new-session", "-d", "-s", "grp", "-t", "main");
    type Found = { total_matches: number; panes_searched: number; panes: { pane_id: string }[] };
    for (const target of [undefined, "main", "grp"]) {
      const r = await mcp.ok<Found>("search-panes", { query: "needle", ...(target ? { target } : {}) });
      assertEquals([r.total_matches, r.panes.map((p) => p.pane_id)], [2, [pane]], String(target));
      assertEquals(r.panes_searched, 2, String(target)); // main:0's pane and this one
    }
  });
});
