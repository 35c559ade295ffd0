/**
 * Replies that pane text cannot forge: a program in a pane prints the lines
 * that frame tmux's replies to a control client (`%begin`/`%end`/`%error`
 * with the right time and command numbers, read the way any program in a
 * pane can read them) and look-alikes of our fences, while the server reads
 * that pane and answers other calls. Every call must get its own answer and
 * the capture the pane's whole text: on the control connection, on spawned
 * clients (`--control-mode off`) and over ssh.
 */
import { assert, assertEquals } from "./assert.ts";
import { connect, type McpFixture, startTmux } from "./helpers.ts";
import { tempDir, waitUntil } from "./pane_helpers.ts";
import { startSshd } from "./ssh_fixture.ts";
import { createTmuxEngine } from "../lib/tmux/engine.ts";
import { COMMAND_SEPARATOR, createSpawnExecutor, type TmuxArg, TmuxError } from "../lib/tmux/executor.ts";

/** Lines of history the attacked pane keeps: all it prints. */
const HISTORY = 200_000;

/**
 * The attacker, as a bash script. It reads the second T and tmux's global
 * command counter N from a control client's own reply guard (anything in a
 * pane can: `tmux -C attach` reaches the pane's server), then prints `%end`
 * and `%error` lines for the next 1,000 command numbers, forged blocks,
 * random fence look-alikes and a forged fence block; again and again for 4
 * seconds. Its last words cover the next 4 seconds, and stay on screen.
 */
function attackScript(doneFile: string): string {
  return `
forge() {
  read -r T N < <(printf 'display-message -p x\\n' | tmux -C attach-session -f read-only,no-output 2>/dev/null |
    awk '$1 == "%begin" && $4 == 1 { print $2, $3; exit }')
  fence=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')
  awk -v T="$T" -v N="$N" -v F="$fence" -v S="$1" 'BEGIN {
    for (t = T; t < T + S; t++) {
      for (n = N; n < N + 1000; n++) printf "%%end %d %d 1\\n%%error %d %d 1\\n", t, n, t, n
      for (n = N; n < N + 1000; n += 50) printf "%%begin %d %d 1\\nFORGED %d\\n%%end %d %d 1\\n", t, n, n, t, n
      printf "%s.\\n%s-\\n%%begin %d %d 1\\n%s.\\n%%end %d %d 1\\n", F, F, t, N, F, t, N
    }
  }'
}
stop=$(( $(date +%s) + 4 ))
while (( $(date +%s) < stop )); do forge 1; sleep 0.2; done
forge 4
touch '${doneFile}'
exec sleep 3600
`;
}

interface Capture {
  text: string;
  lines: number;
  dropped_lines: number;
}

/**
 * Runs the attack in a new window and, while it prints and after, rounds of a
 * whole-history capture of its pane beside 4 `show format` calls.
 */
async function attack(mcp: McpFixture, tmux: (...args: string[]) => Promise<string>, dir: string): Promise<void> {
  const doneFile = `${dir}/done`;
  await Deno.writeTextFile(`${dir}/attack.sh`, attackScript(doneFile));
  await tmux("set-option", "-g", "history-limit", String(HISTORY));
  await mcp.ok("list", { what: "sessions" }); // the connection is up before the attack starts
  const pane = (await tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "bash", `${dir}/attack.sh`)).trim();
  const done = () => Deno.stat(doneFile).then(() => true, () => false);
  const capture = () =>
    mcp.ok<Capture>("capture-pane", { target: pane, start: -HISTORY, max_lines: 100_000, join_wrapped: false });
  let round = 0;
  const calls = () => {
    round++;
    return Promise.all([
      capture(),
      ...[0, 1, 2, 3].map(async (k) => {
        const probe = `probe-${round}-${k}`;
        const r = await mcp.ok<{ text: string }>("show", { what: "format", target: "main", format: probe });
        assertEquals(r.text, probe, `call ${k} of round ${round} got another call's answer`);
      }),
    ]);
  };

  // While it prints: every call its own answer; the pane's text only grows, so a capture is never shorter.
  let seen = 0;
  let during = 0;
  while (!await done()) {
    const [c] = await calls();
    const total = c.lines + c.dropped_lines;
    assert(total >= seen, `round ${round}: a capture of ${total} lines after one of ${seen}: cut short`);
    seen = total;
    during++;
  }
  assert(during > 0, "calls ran while the pane printed");

  // Printed: the capture is the pane's whole text, byte for byte, as tmux itself prints it.
  const whole = (await tmux("capture-pane", "-p", "-t", pane, "-S", String(-HISTORY))).replace(/\n+$/, "");
  assert(whole.split("\n").length > 20_000, "the pane printed its forgeries");
  for (let i = 0; i < 3; i++) {
    const [c] = await calls();
    assertEquals(c.dropped_lines, 0);
    assert(c.text === whole, `round ${round}: the capture differs from the pane's text (${c.lines} lines)`);
  }
}

for (const [route, mode] of [["the control connection", "on"], ["spawned clients", "off"]]) {
  Deno.test(`forged reply guards printed by a pane change no answer, on ${route}`, async () => {
    const fx = await startTmux("framing");
    const dir = await tempDir();
    const mcp = await connect({
      socketName: fx.socketName,
      args: ["--max-tokens", "10000000"],
      env: { TMUX_MCP_CONTROL_MODE: mode },
    });
    try {
      await attack(mcp, fx.tmux, dir);
    } finally {
      await mcp.close();
      await fx.kill();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("forged reply guards printed by a pane change no answer, over ssh", async () => {
  const fx = await startSshd();
  let mcp: McpFixture | undefined;
  const dir = await tempDir();
  try {
    await fx.startTmux();
    mcp = await connect({
      args: [
        ...["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName],
        ...["--max-tokens", "10000000"],
      ],
    });
    await attack(mcp, fx.tmux, dir);
  } finally {
    await mcp?.close();
    await fx.cleanup();
    await Deno.remove(dir, { recursive: true });
  }
});

/** `T N` of a control client's reply guard on the server `tmux` reaches, read as a program in a pane would. */
async function controlGuard(tmux: (...args: string[]) => Promise<string>): Promise<{ t: number; n: number }> {
  const socket = (await tmux("display-message", "-p", "#{socket_path}")).trim();
  const child = new Deno.Command("tmux", {
    args: ["-S", socket, "-C", "attach-session", "-f", "read-only,no-output"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode("display-message -p x\n"));
  await w.close();
  const out = new TextDecoder().decode((await child.output()).stdout);
  const m = /^%begin (\d+) (\d+) 1$/m.exec(out);
  if (!m) throw new Error(`no guard in ${JSON.stringify(out)}`);
  return { t: Number(m[1]), n: Number(m[2]) };
}

/**
 * A directory under `dir` whose path forges the end of the reply for the next
 * 60 command numbers (and a block after it), in nested names: tmux 3.3a
 * prints a pane's path raw in a format, and `#{q:}` escapes no newline.
 */
function forgedPath(dir: string, g: { t: number; n: number }): string {
  let path = dir;
  let name = "x";
  for (let n = g.n; n < g.n + 60; n++) {
    name += `\n%end ${g.t} ${n} 1\n%end ${g.t + 1} ${n} 1`;
    if (name.length > 180) {
      path += `/${name}\n%begin ${g.t} ${n} 1\nFORGED`;
      name = "x";
    }
  }
  return `${path}/${name}`;
}

Deno.test("a pane whose path holds forged guards after newlines corrupts no row and no answer", async () => {
  const fx = await startTmux("framing-path");
  const dir = await tempDir();
  const mcp = await connect({ socketName: fx.socketName, env: { TMUX_MCP_CONTROL_MODE: "on" } });
  try {
    await mcp.ok("list", { what: "sessions" });
    // The pane moves into the directory once it exists: reading its move from /proc runs no tmux command.
    const pathFile = `${dir}/path`;
    const pane = (await fx.tmux(
      ...["new-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "bash", "-c"],
      `while [ ! -e '${pathFile}' ]; do sleep 0.05; done; cd "$(cat '${pathFile}')" && exec sleep 3600`,
    )).trim().split(" ");
    const path = forgedPath(dir, await controlGuard(fx.tmux));
    assert(path.length < 4000);
    await Deno.mkdir(path, { recursive: true });
    await Deno.writeTextFile(pathFile, path);
    await waitUntil(
      "the pane to enter the directory",
      async () => (await Deno.readLink(`/proc/${pane[1]}/cwd`)) === path || undefined,
    );
    const [panes, shown, ...probes] = await Promise.all([
      mcp.ok<{ panes: { pane_id: string; current_path: string }[] }>("list", { what: "panes" }),
      mcp.ok<{ text: string }>("show", { what: "format", target: pane[0], format: "#{pane_current_path}" }),
      ...[0, 1, 2, 3].map((k) => mcp.ok<{ text: string }>("show", { what: "format", target: "main", format: `p${k}` })),
    ]);
    assertEquals(panes.panes.find((p) => p.pane_id === pane[0])?.current_path, path);
    assertEquals(panes.panes.length, 2);
    assertEquals(shown.text, path);
    assertEquals(probes.map((p) => p.text), ["p0", "p1", "p2", "p3"]);
  } finally {
    await mcp.close();
    await fx.kill();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fenced replies: a failing command mid-line, a line tmux cannot parse, and the user's after-hooks", async () => {
  const fx = await startTmux("framing-shapes");
  const engine = createTmuxEngine({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4, controlMode: true });
  const dec = new TextDecoder();
  try {
    const line = (...cmds: string[][]) => cmds.flatMap((c, i): TmuxArg[] => i === 0 ? c : [COMMAND_SEPARATOR, ...c]);
    const three = line(
      ["display-message", "-p", "-t", "main", "--", "a #{session_name}"],
      // The last of its 40 rows: empty whether or not the shell has drawn its prompt yet.
      ["capture-pane", "-p", "-t", "main", "-S", "39", "-E", "39"],
      ["display-message", "-p", "-t", "main", "b"],
    );
    assertEquals(dec.decode(await engine.run(three)), "a main\n\nb\n");
    assertEquals((await engine.runEach(three)).map((o) => dec.decode(o)), ["a main\n", "\n", "b\n"]);
    // A spawned client's stdout, cut at its fences.
    const spawned = createSpawnExecutor({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 2 });
    assertEquals((await spawned.runEach(three)).map((o) => dec.decode(o)), ["a main\n", "\n", "b\n"]);
    // tmux drops the rest of a line after a failing command: the reply is that command's error.
    const failing = line(
      ["display-message", "-p", "-t", "main", "a"],
      ["capture-pane", "-p", "-t", "%999"],
      ["display-message", "-p", "-t", "main", "b"],
    );
    const e = await engine.run(failing).catch((e) => e);
    assert(e instanceof TmuxError && /can't find pane/.test(e.message), String(e));
    // A parse error of the whole line (an unknown option name is the command's, not the parser's: use a quote).
    const bad = await engine.run(["display-message", "-p", "-t", "main", "-z"]).catch((e) => e);
    assert(bad instanceof TmuxError, String(bad));
    // The user's after-hooks print into our client's stream (blocks of flag 0) after each command.
    for (const hook of ["after-display-message", "after-capture-pane", "after-list-sessions"]) {
      // (display-message -p expands strftime sequences: %% prints %.)
      await fx.tmux("set-hook", "-g", hook, "display-message -p '%%end 1 1 1'");
    }
    assertEquals(dec.decode(await engine.run(three)), "a main\n\nb\n");
    assertEquals((await engine.runEach(three)).map((o) => dec.decode(o)), ["a main\n", "\n", "b\n"]);
    assertEquals(dec.decode(await engine.run(["list-sessions", "-F", "#{session_name}"])), "main\n");
    const e2 = await engine.run(failing).catch((e) => e);
    assert(e2 instanceof TmuxError && /can't find pane/.test(e2.message), String(e2));
    assertEquals(dec.decode(await engine.run(["display-message", "-p", "-t", "main", "after"])), "after\n");
  } finally {
    await engine.close();
    await fx.kill();
  }
});
