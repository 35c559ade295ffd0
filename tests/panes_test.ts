import { assert, assertEquals, assertMatch } from "./assert.ts";
import { COMMAND_SEPARATOR, createSpawnExecutor, type TmuxExecutor } from "../lib/tmux/executor.ts";
import { createTmuxEngine } from "../lib/tmux/engine.ts";
import {
  describeSession,
  getPane,
  listPanes,
  listSessions,
  listWindows,
  paneFacts,
  paneQuery,
} from "../lib/tmux/panes.ts";
import { parseRows, rowFormat, RowParseError } from "../lib/tmux/rows.ts";
import { UserError } from "../lib/errors.ts";
import { resolveTarget } from "../lib/tmux/target.ts";
import { startTmux, type TmuxFixture } from "./helpers.ts";
import { waitUntil } from "./pane_helpers.ts";
import fc from "fast-check";

async function withTmux(fn: (tmux: TmuxExecutor, fx: TmuxFixture) => Promise<void>): Promise<void> {
  const fx = await startTmux("panes");
  try {
    await fn(createSpawnExecutor({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4 }), fx);
  } finally {
    await fx.kill();
  }
}

/** What tmux's `#{q:…}` prints for `s`: a backslash before each of these characters (format.c, every version). */
const tmuxQuoted = (s: string) => s.replace(/[|&;<>()$`\\"'*?[# =%]/g, "\\$&");

Deno.test("row parser reads every field up to its first unescaped space, so spaces, tabs, newlines and UTF-8 in text cannot split a row", () => {
  const spec = {
    a: ["x", "str"],
    n: ["y", "int"],
    f: ["z", "bool"],
    o: ["w", "int?"],
    i: ["v", "id"],
    m: ["u", "str?"],
  } as const;
  assertEquals(rowFormat(spec), "#{q:x} #{y} #{z} #{w} #{v} #{q:u} ");
  const enc = new TextEncoder();
  const weird = "é\tb\nc 3 \\ #{x}%=|'\"";
  const out = enc.encode(`${tmuxQuoted(weird)} 42 1 7 %12  \nx 0 0  $3 ${tmuxQuoted("copy mode")} \ntrailing`);
  const { rows, end } = parseRows(spec, out, 2);
  assertEquals(rows, [
    { a: weird, n: 42, f: true, o: 7, i: "%12", m: null },
    { a: "x", n: 0, f: false, o: null, i: "$3", m: "copy mode" },
  ]);
  assertEquals(new TextDecoder().decode(out.subarray(end)), "trailing");
  const parseError = (text: string) => {
    try {
      parseRows(spec, enc.encode(text));
    } catch (e) {
      return e instanceof RowParseError;
    }
    return false;
  };
  assert(parseError("x 4 2 7 %1  \n"), "a flag that is neither 0 nor 1 must be a parse error");
  assert(parseError("x 4 1 7 7 %1  \n"), "a row with one field too many must be a parse error");
  assert(parseError("x 4 1 1 x1  \n"), "an id field that is no tmux id must be a parse error");
  assert(parseError("x 4\\ 1 1 %1  \n"), "a backslash in a number field must be a parse error");
  assert(parseError("x 4 1 1 %1 a"), "a row cut before its last field's space must be a parse error");
  assert(parseError("x\\ 4 1 1 %1 \n"), "an escaped space is no field's end");
});

Deno.test("row parser: any text tmux quotes with q: reads back as itself", () => {
  const spec = { a: ["x", "str"], n: ["y", "int"], b: ["z", "str?"] } as const;
  const enc = new TextEncoder();
  // Any code point, and often the characters that matter here.
  const text = fc.string({
    unit: fc.oneof(
      fc.constantFrom(" ", "\\", "\t", "\n", "#", "%", "é", "😀"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    ),
  });
  fc.assert(
    fc.property(text, fc.nat(), text, (a, n, b) => {
      const out = enc.encode(`${tmuxQuoted(a)} ${n} ${tmuxQuoted(b)} \n`);
      assertEquals(parseRows(spec, out).rows, [{ a, n, b: b === "" ? null : b }]);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("pane facts survive names, titles and paths with tabs, newlines and UTF-8", async () => {
  const base = await Deno.makeTempDir({ prefix: "tmcp-panes-" });
  const dir = `${base}/é\t\nx |y `;
  await Deno.mkdir(dir);
  try {
    await withTmux(async (tmux, fx) => {
      await fx.tmux("rename-window", "-t", "main:0", "wïn|dow");
      await fx.tmux("new-window", "-t", "main", "-c", dir, "-n", "two", "sleep 300");
      await fx.tmux("select-pane", "-t", "main:1.0", "-T", "tïtle | x");
      // A program whose name holds a tab, a newline and a space: tmux reports it up to the space, once per pane.
      await fx.tmux(
        "new-window",
        "-d",
        "-t",
        "main:2",
        `bash --norc --noprofile -c 'exec -a "$(printf "we\\tird\\nname x")" sleep 300'`,
      );
      await waitUntil(
        "tmux to report the renamed sleep",
        async () => (await listPanes(tmux, { all: true }))[2]?.current_command === "we\tird\nname",
      );
      const renamed = (await listPanes(tmux, { all: true }))[2];
      assertEquals([renamed.window_index, renamed.dead, renamed.in_mode], [2, false, false]);
      assertEquals(await getPane(tmux, renamed.pane_id).then((p) => p.pane.current_command), "we\tird\nname");
      await fx.tmux("kill-window", "-t", "main:2");
      const panes = await listPanes(tmux, { all: true });
      assertEquals(panes.length, 2);
      const [p0, p1] = panes;
      assertEquals(p0.window_name, "wïn|dow");
      assertEquals(p1.current_path, dir);
      assertEquals(p1.title, "tïtle | x");
      assertEquals(p1.current_command, "sleep");
      assertEquals(p1.window_index, 1);
      assertMatch(p1.pane_id, /^%\d+$/);
      assert(p1.pid !== null && p1.pid > 0);
      assertEquals(p1.width, 120);
      assertEquals(p1.in_mode, false);
      assertEquals(p1.dead, false);
      assertEquals(p1.dead_status, null);
      assert(p1.history_limit > 0);

      const windows = await listWindows(tmux, { session: "main" });
      assertEquals(windows.map((w) => [w.window_index, w.window_name, w.active, w.pane_count]), [
        [0, "wïn|dow", false, 1],
        [1, "two", true, 1],
      ]);
      assertMatch(windows[0].layout, /^[0-9a-f]{4},120x\d+,0,0/);

      const sessions = await listSessions(tmux);
      assertEquals(sessions.map((s) => [s.session_name, s.window_count]), [["main", 2]]);

      const tree = await describeSession(tmux, "=main");
      assertEquals(tree.session.session_id, sessions[0].session_id);
      assertEquals(tree.windows.length, 2);
      assertEquals(tree.panes.map((p) => p.pane_id), panes.map((p) => p.pane_id));
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("names read back exactly as tmux holds them, whatever characters they have (real tmux, both routes)", async () => {
  await withTmux(async (tmux, fx) => {
    const control = createTmuxEngine({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4, controlMode: true });
    const pane = (await listPanes(tmux, { all: true }))[0].pane_id;
    // What tmux holds, read the way the rows are not: each value's byte length first.
    const held = async () => {
      const out = new TextEncoder().encode(
        await fx.tmux(
          "display-message",
          "-p",
          "-t",
          pane,
          "#{n:window_name} #{window_name}#{n:pane_title} #{pane_title}",
        ),
      );
      const values: string[] = [];
      for (let i = 0; values.length < 2;) {
        const space = out.indexOf(0x20, i);
        const len = Number(new TextDecoder().decode(out.subarray(i, space)));
        values.push(new TextDecoder().decode(out.subarray(space + 1, space + 1 + len)));
        i = space + 1 + len;
      }
      return values;
    };
    const name = fc.string({
      unit: fc.constantFrom(
        " ",
        "\\",
        "\t",
        "\n",
        "#",
        "%",
        "=",
        "'",
        '"',
        "|",
        ";",
        "{",
        "}",
        "é",
        "😀",
        "a",
        "1",
        "-",
      ),
      minLength: 1,
      maxLength: 12,
    });
    await fc.assert(
      fc.asyncProperty(name, name, async (w, t) => {
        await fx.tmux("rename-window", "-t", pane, "--", `w${w}`);
        await fx.tmux("select-pane", "-t", pane, "-T", `t${t}`);
        const [windowName, title] = await held();
        for (const route of [tmux, control]) {
          const listed = (await listPanes(route, { all: true }))[0];
          assertEquals([listed.window_name, listed.title], [windowName, title]);
          const facts = (await getPane(route, pane)).pane;
          assertEquals([facts.window_name, facts.title], [windowName, title]);
          assertEquals((await listWindows(route, { all: true }))[0].window_name, windowName);
        }
      }),
      { numRuns: 25 },
    );
    await control.close();
  });
});

Deno.test("getPane resolves the default pane and chains a command in the same call", async () => {
  await withTmux(async (tmux, fx) => {
    // session_activity has one-second resolution: make "other" clearly the most recent.
    await new Promise((r) => setTimeout(r, 1100));
    await fx.tmux("new-session", "-d", "-s", "other");
    await fx.tmux("split-window", "-t", "other");
    const active = (await fx.tmux("display-message", "-p", "-t", "other", "#{pane_id}")).trim();
    const d = await getPane(tmux, undefined);
    assertEquals(d.defaulted, true);
    assertEquals(d.pane.pane_id, active, "most recently used session's active pane");
    assertEquals(d.pane.session_name, "other");

    // No login shell: its profile may be slow to start on a busy machine.
    await fx.tmux("new-window", "-d", "-t", "main:7", "printf 'hello-%s\\n' marker; exec sleep 300");
    const seven = await waitUntil("main:7 to print its marker", async () => {
      const got = await getPane(tmux, "main:7.0", { then: (t) => ["capture-pane", "-p", "-t", t] });
      return new TextDecoder().decode(got.output).includes("hello-marker\n") ? got : undefined;
    }, 30_000);
    assertEquals(seven.defaulted, false);
    assertEquals([seven.pane.session_name, seven.pane.window_index], ["main", 7]);
    assertMatch(new TextDecoder().decode(seven.output), /^hello-marker$/m);

    const byId = await getPane(tmux, d.pane.pane_id);
    assertEquals(byId.pane.pane_id, d.pane.pane_id);
    // A part of the facts: the same values, the fields asked for and the pane's id, by target and by default.
    const facts = paneFacts(["session_name", "height"]);
    for (const part of [await getPane(tmux, d.pane.pane_id, { facts }), await getPane(tmux, undefined, { facts })]) {
      assertEquals(part.pane, { session_name: "other", pane_id: d.pane.pane_id, height: d.pane.height });
    }
    // display-message alone would silently fall back to the current pane for these: a strict command after it
    // (capture-pane, checking the target itself) or the one-row check before it (any other) makes them fail.
    const capture = (t: string) => ["capture-pane", "-p", "-t", t];
    const display = (t: string) => ["display-message", "-p", "-t", t, "#{pane_id}"];
    for (const bad of ["nosuch", "main:5", "main:0.7", "%999", "=mai"]) {
      for (
        const resolve of [
          () => getPane(tmux, bad),
          () => getPane(tmux, bad, { then: capture }),
          () => getPane(tmux, bad, { then: display }),
          () => resolveTarget(tmux, bad),
        ]
      ) {
        const err = await resolve().then(() => undefined, (e) => e);
        assert(err instanceof UserError, `${bad}: expected a UserError, got ${err}`);
        assertMatch(err.message, /unknown target .*call list \(what: sessions/);
      }
    }
    assertEquals(paneQuery("%1", "F", capture("%1")), {
      args: ["display-message", "-p", "-t", "%1", "--", "F", COMMAND_SEPARATOR, ...capture("%1")],
      checkRow: false,
    });
    assertEquals(paneQuery("%1", "F", display("%1")).args.slice(0, 9), [
      ...["capture-pane", "-p", "-t", "%1", "-S", "0", "-E", "0", COMMAND_SEPARATOR],
    ]);
    const shown = await getPane(tmux, "main:7", { then: display });
    assertEquals(new TextDecoder().decode(shown.output), `${shown.pane.pane_id}\n`);
    // tmux's exact-name form works as a target of its own, not only as "=main:".
    assertEquals((await resolveTarget(tmux, "=main")).session_id, (await getPane(tmux, "main")).pane.session_id);
    const r = await resolveTarget(tmux, "main:0.0");
    assertEquals(r.session_id, (await getPane(tmux, "main")).pane.session_id);
    assertEquals(r.defaulted, false);
  });
});
