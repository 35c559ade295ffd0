import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, type McpFixture, ROOT, START_PERMISSIONS, startTmux, type TmuxFixture } from "./helpers.ts";
import { tempDir, tmuxFormat, waitUntil } from "./pane_helpers.ts";
import { shQuote } from "../lib/tmux/quote.ts";

interface InPane {
  mcp: McpFixture;
  pane: string;
  window: string;
  session: string;
  /** The server's audit log (--audit-log). */
  audit(): Promise<string>;
}

/**
 * Runs tmux-mcp INSIDE a pane of the fixture's server, the way an agent in
 * tmux starts it, and talks to it over two FIFOs through a `cat` relay.
 * scrubEnv: unset TMUX/TMUX_PANE and keep a shell between pane and server,
 * so only the process tree can tell where it runs.
 */
async function serverInPane(tmux: TmuxFixture, scrubEnv: boolean): Promise<InPane> {
  const dir = await tempDir("tmcp-self-");
  const [input, output, audit] = [`${dir}/in`, `${dir}/out`, `${dir}/audit.log`];
  for (const f of [input, output]) {
    if (!(await new Deno.Command("mkfifo", { args: [f] }).output()).success) throw new Error("mkfifo failed");
  }
  const argv = [Deno.execPath(), "run", ...START_PERMISSIONS, ROOT + "main.ts"];
  argv.push("--socket-name", tmux.socketName, "--safety", "destructive", "--audit-log", audit);
  // stderr stays on the pane's terminal: once a pane's process holds no fd of its pty, tmux takes the pane
  // for dead and hangs it up.
  const io = `<${shQuote(input)} >${shQuote(output)}`;
  const run = argv.map(shQuote).join(" ") + " " + io;
  const cmd = scrubEnv ? `unset TMUX TMUX_PANE; ${run}; exit` : `exec ${run}`;
  const [pane, window, session] = (await tmux.tmux(
    "new-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id} #{window_id} #{session_id}",
    "-t",
    "main:",
    "--",
    cmd,
  )).trim().split(" ");
  const mcp = await connect({ spawn: ["sh", "-c", 'cat < "$2" & exec cat > "$1"', "relay", input, output] });
  return { mcp, pane, window, session, audit: () => Deno.readTextFile(audit).catch(() => "") };
}

Deno.test("kill tools refuse the pane, window, session and server tmux-mcp runs in (started inside tmux)", async () => {
  const tmux = await startTmux("self");
  try {
    const s = await serverInPane(tmux, false);
    try {
      const { mcp } = s;
      const why = /the tmux-mcp server itself runs inside it.*found by TMUX_PANE and process tree/;
      assertMatch(
        await mcp.err("kill", { what: "pane", target: s.pane }),
        new RegExp(`refusing to kill pane \\${s.pane}`),
      );
      assertMatch(await mcp.err("kill", { what: "pane", target: s.pane }), why);
      assertMatch(await mcp.err("kill", { what: "window", target: s.window }), /refusing to kill window @\d+/);
      assertMatch(await mcp.err("kill", { what: "window", target: "main:1" }), /refusing to kill window/);
      assertMatch(await mcp.err("kill", { what: "session", target: "main" }), /refusing to kill session \$\d+/);
      assertMatch(
        await mcp.err("kill", { what: "server" }),
        /refusing to kill the tmux server at \/.*choose another socket/,
      );
      assertMatch(await mcp.err("respawn-pane", { target: s.pane, kill: true }), /refusing to respawn \(kill: true\)/);

      // Input that would signal or end us, and hooks that would kill our server, are refused too.
      const typed = /refusing to type into pane %\d+: .*tmux-mcp server itself runs in this pane/;
      assertMatch(await mcp.err("send-keys", { target: s.pane, keys: ["C-c"] }), typed);
      assertMatch(await mcp.err("send-keys", { target: s.pane, text: "exit", enter: true }), typed);
      assertMatch(await mcp.err("paste-text", { target: s.pane, text: "\u001c" }), typed);
      const hook = {
        what: "option",
        scope: "session",
        global: true,
        name: "after-select-window",
        value: "kill-server",
      };
      assertMatch(await mcp.err("set", hook), /could end or take over our own pane or server.*found by/);
      await mcp.ok("list-buffers");

      // Everything else may go: a sibling pane, another window, another session.
      const sib = await mcp.ok<{ pane_id: string }>("new", { what: "pane", target: s.pane, direction: "down" });
      await mcp.ok("kill", { what: "pane", target: sib.pane_id });
      await mcp.ok("kill", { what: "window", target: "main:0" });
      await mcp.ok("new", { what: "session", name: "other" });
      await mcp.ok("kill", { what: "session", target: "other" });
      assertEquals(await tmuxFormat(tmux, s.pane, "#{pane_id}"), s.pane, "our pane survived");
      await mcp.ok("list-buffers");

      const audit = await waitUntil("audit lines", async () => {
        const text = await s.audit();
        return text.includes('"args":{"what":"server"}') ? text : "";
      });
      const refusal = audit.split("\n").find((l) => l.includes('"tool":"kill","outcome":"refused"'));
      assert(refusal, audit);
      assertEquals(JSON.parse(refusal.slice(refusal.indexOf("{"))).target, {
        session_id: s.session,
        window_id: s.window,
        pane_id: s.pane,
      });
    } finally {
      await s.mcp.close();
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test("self-kill guard finds its pane from the process tree when TMUX and TMUX_PANE are scrubbed", async () => {
  const tmux = await startTmux("self");
  try {
    const s = await serverInPane(tmux, true);
    try {
      assertMatch(await tmuxFormat(tmux, s.pane, "#{pane_current_command}"), /sh$/, "a shell sits in between");
      const msg = await s.mcp.err("kill", { what: "pane", target: s.pane });
      assertMatch(msg, /refusing to kill pane .*found by process tree\)/);
      assertMatch(await s.mcp.err("kill", { what: "server" }), /refusing to kill the tmux server/);
    } finally {
      await s.mcp.close();
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test("self-kill guard trusts TMUX only for the same socket and server pid", async () => {
  const tmux = await startTmux("self");
  try {
    const victim = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:")).trim();
    const info = (await tmux.tmux("display-message", "-p", "-t", victim, "#{socket_path} #{pid}")).trim();
    const [socketPath, pid] = info.split(" ");
    const args = ["--safety", "destructive"];
    // As tmux would set them for a process in `victim`: refused.
    let mcp = await connect({
      socketName: tmux.socketName,
      args,
      env: { TMUX: `${socketPath},${pid},0`, TMUX_PANE: victim },
    });
    try {
      assertMatch(
        await mcp.err("kill", { what: "pane", target: victim }),
        /refusing to kill pane .*found by TMUX_PANE\)/,
      );
    } finally {
      await mcp.close();
    }
    // A stale TMUX (another server pid on the same socket path) is no evidence: the kill goes ahead.
    mcp = await connect({
      socketName: tmux.socketName,
      args,
      env: { TMUX: `${socketPath},${Number(pid) + 100000},0`, TMUX_PANE: victim },
    });
    try {
      await mcp.ok("kill", { what: "pane", target: victim });
    } finally {
      await mcp.close();
    }
  } finally {
    await tmux.kill();
  }
});

Deno.test("destructive tier outside the server: hooks are allowed, kills need an exact target", async () => {
  const tmux = await startTmux("self");
  const dir = await tempDir("tmcp-hook-");
  try {
    await tmux.tmux("new-session", "-d", "-s", "prod-db");
    const mutating = await connect({ socketName: tmux.socketName });
    const destructive = await connect({ socketName: tmux.socketName, args: ["--safety", "destructive"] });
    try {
      const canary = `${dir}/hook-ran`;
      const hook = {
        what: "option",
        scope: "session",
        global: true,
        name: "after-select-window",
        value: `run-shell ${shQuote(`touch ${canary}`)}`,
      };
      assertMatch(await mutating.err("set", hook), /after-select-window is a hook.*--safety destructive/);
      await tmux.tmux("select-window", "-t", "main:0");
      assert(!(await Deno.stat(canary).then(() => true, () => false)), "refused hook did not run");
      // Not inside this server: nothing of ours can die, so the destructive tier may set it, and tmux runs it.
      await destructive.ok("set", hook);
      await tmux.tmux("select-window", "-t", "main:0");
      await waitUntil("hook ran", () => Deno.stat(canary).then(() => true, () => false));

      for (const target of ["prod", "p*", "*"]) {
        assertMatch(
          await destructive.err("kill", { what: "session", target }),
          /"prod-db".*pass an id .* or the exact =name/,
        );
      }
      assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim().split("\n"), ["main", "prod-db"]);
      await destructive.ok("kill", { what: "session", target: "=prod-db" });
      assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
    } finally {
      await mutating.close();
      await destructive.close();
    }
  } finally {
    await tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
