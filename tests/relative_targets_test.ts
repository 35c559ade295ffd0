/**
 * Targets relative to tmux's current session (`:1`, `.1`, `{next}`, `{last}`, `+2`), read as tmux reads them for
 * the tool's kind of object.
 */
import { assertEquals, assertMatch } from "./assert.ts";
import { withServer } from "./helpers.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("a window tool reads a bare token as a window (select-window {next} is the next window), a pane tool as a pane", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("new-window", "-d", "-t", "main:1", "-n", "one");
    await tmux.tmux("new-window", "-d", "-t", "main:2", "-n", "two");
    const id = async (t: string) => (await tmux.tmux("display-message", "-p", "-t", t, "#{window_id}")).trim();
    const [w0, w1, w2] = [await id("main:0"), await id("main:1"), await id("main:2")];
    // No window of main was current before this one: there is no last window (tmux's error said "!"). The error
    // names the target as given, not as it was sent (`:{last}`, a window's).
    assertMatch(
      await mcp.err("select", { what: "window", target: "{last}" }),
      /^target "\{last\}" means the last window, and there is none: .*call list \(what: windows\)/,
    );
    assertMatch(
      await mcp.err("select", { what: "layout", target: "!", layout: "tiled" }),
      /^target "!" means the last window, and there is none/,
    );
    // Read as a pane's, {next} was the next pane of the current window: the window itself, "nothing changed".
    const next = await mcp.ok("select", { what: "window", target: "{next}" });
    assertEquals([next.window_id, next.changed], [w1, true]);
    const last = await mcp.ok("select", { what: "window", target: "{last}" });
    assertEquals([last.window_id, last.changed], [w0, true]);
    assertEquals((await mcp.ok("select", { what: "window", target: "+2" })).window_id, w2);
    assertEquals((await mcp.ok("rename", { what: "window", target: "{previous}", name: "back" })).window_id, w1);
    assertEquals(await tmux.tmux("display-message", "-p", "-t", w1, "#{window_name}"), "back\n");
    // A session tool's target has no tokens (tmux looks for a session so named): refused, not the current session.
    assertMatch(
      await mcp.err("rename", { what: "session", target: "{last}", name: "x" }),
      /^target "\{last\}" is a window token, and this tool's target is a session: pass a session name or an id/,
    );
    assertEquals(await tmux.tmux("list-sessions", "-F", "#{session_name}"), "main\n");
  });
});

Deno.test("`:1` and `.1` name a window and a pane of the current session, with control mode on or off", async () => {
  for (const mode of ["on", "off"]) {
    await withServer(async (mcp, tmux) => {
      await tmux.tmux("new-window", "-d", "-t", "main:1", "-n", "main-one");
      // The server's control connection attached to "main"; a later session is the most recently used one
      // (session_activity counts whole seconds).
      await sleep(1100);
      await tmux.tmux("new-session", "-d", "-s", "later", "-n", "later-zero");
      await tmux.tmux("new-window", "-d", "-t", "later:1", "-n", "later-one");
      await tmux.tmux("split-window", "-d", "-t", "later:0");
      assertEquals((await mcp.ok("snapshot-pane")).session_name, "later");
      // `:1` was sent as `:1:` (a session named ":1") and failed; tmux alone reads it in its current session.
      const one = await mcp.ok("list", { what: "panes", target: ":1" });
      assertEquals(
        (one.panes as { window_id: string }[]).map((p) => p.window_id),
        [(await tmux.tmux("display-message", "-p", "-t", "later:1", "#{window_id}")).trim()],
      );
      const pane = await mcp.ok("snapshot-pane", { target: ".1" });
      assertEquals(pane.pane_id, (await tmux.tmux("display-message", "-p", "-t", "later:0.1", "#{pane_id}")).trim());
      // A destructive tool still refuses a relative target.
      assertMatch(await mcp.err("kill", { what: "window", target: ":1" }), /names no session: .*exact target/);
      assertEquals(await tmux.tmux("list-windows", "-t", "later", "-F", "#{window_name}"), "later-zero\nlater-one\n");
    }, { args: ["--safety", "destructive"], env: { TMUX_MCP_CONTROL_MODE: mode } });
  }
});

Deno.test("an exact tool's error names the target as the model wrote it, not the ids it was resolved to", async () => {
  for (const args of [[], ["--sessions", "main"]]) {
    await withServer(async (mcp) => {
      // respawn-pane resolves `main:0.7` exactly (`$0:0.7`); the missing pane was reported as "$0:0.7".
      assertMatch(
        await mcp.err("respawn-pane", { target: "main:0.7", kill: true }),
        /^unknown target "main:0\.7"/,
      );
    }, { args: ["--safety", "destructive", ...args] });
  }
});

Deno.test("kill and respawn refuse a target that names a larger object than theirs (its active pane or window)", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("split-window", "-d", "-t", "main:0");
    await tmux.tmux("new-window", "-d", "-t", "main:1");
    const state = () => tmux.tmux("list-panes", "-s", "-t", "main", "-F", "#{window_id} #{pane_id} #{pane_pid}");
    const before = await state();
    const [session, window] = (await tmux.tmux("display-message", "-p", "-t", "main:0", "#{session_id} #{window_id}"))
      .trim().split(" ");
    for (const target of ["main", "=main", session, "main:0", window, "main:", "main:.1", `${session}:0`]) {
      assertMatch(
        await mcp.err("kill", { what: "pane", target }),
        /^target .* (names a (session|window), not one pane|leaves out the window).*give session:window\.pane or a pane id/,
        target,
      );
      assertMatch(await mcp.err("respawn-pane", { target, kill: true }), /not one pane|leaves out the window/, target);
    }
    for (const target of ["main", session, "main:", "main:.0"]) {
      assertMatch(
        await mcp.err("kill", { what: "window", target }),
        /(names a session, not one window|leaves out the window).*give session:window or an id such as @2/,
        target,
      );
    }
    // A token is called one, not a session's name.
    for (const target of ["{marked}", "{last}", "!", "~", "+1"]) {
      for (const what of ["pane", "window", "session"]) {
        assertMatch(
          await mcp.err("kill", { what, target }),
          /^target .* is a relative tmux token, not an exact/,
          target,
        );
      }
    }
    assertEquals(await state(), before);
    // What names the object (or a part of it) still acts.
    await mcp.ok("kill", { what: "pane", target: "main:0.1" });
    await mcp.ok("kill", { what: "window", target: "main:1" });
    assertEquals((await tmux.tmux("list-panes", "-s", "-t", "main", "-F", "#{pane_index}")).trim(), "0");
  }, { args: ["--safety", "destructive"] });
});
