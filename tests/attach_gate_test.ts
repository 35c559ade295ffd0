/**
 * tmux before 3.7 crashes when a control notification reaches a control
 * client still in its handshake (lib/tmux/attach_gate.ts). Our own calls must
 * never cause that: waits start a control client per session while other
 * calls create and rename sessions, all at once, through the MCP client; the
 * tmux server must still be there after every round. Without the gate the
 * server of tmux 3.3a died within a few rounds.
 */
import assert from "node:assert/strict";
import { EnvironmentError } from "../lib/errors.ts";
import { fakeTmux, startTmux, withServer } from "./helpers.ts";
import { AttachGate } from "../lib/tmux/attach_gate.ts";
import { createTmuxEngine } from "../lib/tmux/engine.ts";

Deno.test("client starts, session changes and waits at once never crash the tmux server", async () => {
  await withServer(async (mcp, tmux) => {
    const ids: string[] = [];
    for (let round = 0; round < 30; round++) {
      const made = await Promise.all(
        [0, 1].map((i) =>
          mcp.ok<{ session_id: string; pane_id: string }>("new", { what: "session", name: `r${round}-${i}` })
        ),
      );
      ids.push(...made.map((m) => m.session_id));
      // Each wait starts a control client for its new session while the other calls notify every control client.
      const calls = await Promise.allSettled([
        ...made.map((m) =>
          mcp.call("wait", { what: "text", target: m.pane_id, patterns: ["never printed"], timeout_ms: 300 })
        ),
        // Renames back and forth: each one a notification to every control client.
        ...made.flatMap((m, i) =>
          [0, 1, 2, 3].map((k) =>
            mcp.call("rename", { what: "session", target: m.session_id, name: `s${round}-${i}-${k}` })
          )
        ),
        mcp.call("new", { what: "window", target: made[0].session_id }),
        mcp.call("select", { what: "window", target: made[1].session_id }),
      ]);
      // Alive: a client of its own answers, and every session made so far is there.
      const sessions = (await tmux.tmux("list-sessions", "-F", "#{session_id}")).trim().split("\n");
      for (const id of ids) assert.ok(sessions.includes(id), `round ${round}: session ${id} is gone`);
      for (const c of calls) {
        assert.equal(c.status, "fulfilled", `round ${round}: a call failed to answer`);
      }
    }
  });
});

Deno.test("the gate: an exclusive section waits for shared ones in flight and holds back later ones", async () => {
  const gate = new AttachGate();
  const order: string[] = [];
  const first = Promise.withResolvers<void>();
  const a = gate.shared(async () => {
    order.push("a+");
    await first.promise;
    order.push("a-");
  });
  const mark = (what: string) => () => Promise.resolve(void order.push(what));
  const x = gate.exclusive(mark("x"));
  const b = gate.shared(mark("b"));
  // Nothing may run past the shared section in flight until it ends.
  await Promise.resolve();
  assert.deepEqual(order, ["a+"]);
  first.resolve();
  await Promise.all([a, x, b]);
  assert.deepEqual(order, ["a+", "a-", "x", "b"]);

  // Disabled (tmux 3.7 or later): sections do not wait for each other.
  const open = new AttachGate();
  open.enabled = false;
  const held = Promise.withResolvers<void>();
  const s = open.shared(() => held.promise);
  await open.exclusive(mark("alone"));
  assert.equal(order.at(-1), "alone");
  held.resolve();
  await s;
});

Deno.test("a tmux that never answers a control client's attach holds nothing back: commands go on spawned", async () => {
  const fx = await startTmux();
  // Real tmux for everything but control clients, which hang without a word (a stuck server, as a start sees it).
  const stuck = await fakeTmux('for a in "$@"; do [ "$a" = -C ] && exec sleep 60; done\nexec tmux "$@"');
  const engine = createTmuxEngine({
    bin: stuck.path,
    socketName: fx.socketName,
    maxConcurrency: 4,
    controlMode: true,
    timeoutMs: 1000,
    connectTimeoutMs: 1000,
  });
  try {
    // The first command waits for the attach's bound, then takes a spawned client; the ones after it are not held.
    const names = await Promise.all([0, 1, 2].map(() => engine.text(["list-sessions", "-F", "#{session_name}"])));
    assert.deepEqual(names, ["main\n", "main\n", "main\n"]);
    assert.equal(await engine.text(["display-message", "-p", "-t", "main", "ok"]), "ok\n");
    // A wait's client is bounded the same way: one line, not a hang.
    const pane = (await engine.text(["display-message", "-p", "-t", "main", "#{pane_id}"])).trim();
    const err = await engine.hub.watch("$0", pane, { output() {} }).then(() => undefined, (e) => e);
    assert.match(String(err), /did not accept the client that follows pane output within 1 s: the machine is slow/);
    assert.ok(err instanceof EnvironmentError, String(err));
  } finally {
    await engine.close();
    await fx.kill();
    await Deno.remove(stuck.dir, { recursive: true });
  }
  // Nothing the fake started is left running.
  const ps = await new Deno.Command("pgrep", { args: ["-f", stuck.path], stdout: "piped" }).output();
  assert.equal(new TextDecoder().decode(ps.stdout).trim(), "");
});
