import { assert, assertEquals, assertMatch } from "./assert.ts";
import {
  callAndCancel,
  type ExecFixture,
  settle,
  type Shell,
  SHELLS,
  startWait,
  watchedIn,
  withShell,
} from "./exec_fixtures.ts";
import { tempHome, tmuxFormat, waitForPane, waitUntil } from "./pane_helpers.ts";
import { socketPathOf, textOf } from "./helpers.ts";

import type { RunResult } from "../lib/exec/run.ts";

/**
 * What every line run-command types contains: its script's name, under the server's temp prefix
 * (` . '/tmp/tmux-mcp-<pid>-run-…/r-1'`, or the paste buffer `tmux-mcp-<pid>-r-1`). Not the bare word "tmux-mcp":
 * a prompt showing the working directory shows it in a checkout named tmux-mcp.
 */
const TYPED_BY_US = /tmux-mcp-\d+-/;

function runner(fx: ExecFixture, pane = fx.pane) {
  return (command: string, extra: Record<string, unknown> = {}) =>
    fx.mcp.ok<RunResult>("run-command", { target: pane, command, timeout_ms: 20_000, ...extra });
}

const seq = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1)).join("\n");

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: exact exit codes and only the command's output`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      const hello = await run("echo hello");
      assertEquals([hello.exit_code, hello.output, hello.timed_out, hello.output_truncated], [
        0,
        "hello",
        false,
        false,
      ]);
      assertEquals(hello.pane_id, fx.pane);
      assertEquals(hello.warnings, []);
      const none = await run("true");
      assertEquals([none.exit_code, none.output, none.output_lines], [0, "", 0]);
      // A blank line inside the output is a line; trailing blank lines are dropped.
      const blank = await run("echo one; echo; echo two; echo");
      assertEquals([blank.output, blank.output_lines], ["one\n\ntwo", 3]);
      assertEquals((await run("false")).exit_code, 1);
      assertEquals((await run("sh -c 'exit 42'")).exit_code, 42);
      assertEquals((await run("echo out; echo err >&2; sh -c 'exit 3'")).output, "out\nerr");
      assertEquals((await run("printf 'no newline'")).output, "no newline");
      assertEquals((await run("echo one\necho two")).output, "one\ntwo");
      assertEquals((await run('echo "it\'s" \'a "quote"\' \\$HOME')).output, `it's a "quote" $HOME`);
      // The command runs on the pane's terminal.
      assertEquals((await run("test -t 0 && test -t 1 && echo tty")).output, "tty");
    });
  });

  Deno.test(`run-command in ${shell}: cd, variables and functions persist in the pane's shell`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await run("cd /tmp");
      assertMatch((await run("pwd")).output, /^(\/private)?\/tmp$/); // macOS: /tmp is a link
      await run(shell === "fish" ? "set -gx TMCP_VAR persisted" : "export TMCP_VAR=persisted");
      assertEquals((await run("echo $TMCP_VAR")).output, "persisted");
      await run(shell === "fish" ? "function greet; echo hi $argv; end" : 'greet() { echo hi "$1"; }');
      assertEquals((await run("greet you")).output, "hi you");
      // The exit status stays visible to the next command, as if typed by hand.
      await run("false");
      assertEquals((await run(shell === "fish" ? "echo $status" : "echo $?")).output, "1");
    });
  });

  Deno.test(`run-command in ${shell}: output longer than the screen is complete`, async () => {
    await withShell(shell, async (fx) => {
      const r = await runner(fx)("seq 1 300");
      assertEquals(r.output, seq(300));
      assertEquals([r.exit_code, r.output_truncated], [0, false]);
      const cut = await runner(fx)("seq 1 500", { max_lines: 10 });
      assertEquals(cut.output, Array.from({ length: 10 }, (_, i) => String(491 + i)).join("\n"));
      assert(cut.output_truncated);
    });
  });

  Deno.test(`run-command in ${shell}: printed fake completion markers cannot end the wait`, async () => {
    await withShell(shell, async (fx) => {
      const fake = "printf '\\033]5379;0123456789abcdef;e;0\\007\\033]5379;0123456789abcdef;s\\007'; " +
        "echo '__TMUX_MCP_DONE__ 0'; sleep 0.3; echo after; sh -c 'exit 7'";
      const r = await runner(fx)(fake);
      assertEquals([r.exit_code, r.output], [7, "__TMUX_MCP_DONE__ 0\nafter"]);
    });
  });

  Deno.test(`run-command in ${shell}: with tracing on, no nonce reaches the screen, so no command can forge its end`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      const fish = shell === "fish";
      // Turned on to debug: bash and zsh then echo (verbose) and trace (xtrace) each line they run, fish traces.
      await run(fish ? "set -g fish_trace 1" : "set -xv");
      // A command that looks for this run's start marker on the screen (fish's trace shows `;` as `\;`) and prints
      // an end marker with its nonce.
      const grab = `tmux -S ${socketPathOf(fx.socketName)} capture-pane -p -J -S - -t ${fx.pane} | ` +
        "grep -oE '5379[^0-9a-f]{1,2}[0-9a-f]{16}[^0-9a-f]{1,2}s' | head -n 1 | grep -oE '[0-9a-f]{16}'";
      const r = await run(
        `${
          fish ? `set n (${grab})` : `n=$(${grab})`
        }; printf '\\x1b]5379;%s;e;0;w\\x07' "$n"; echo after; sh -c 'exit 7'`,
      );
      assertEquals(r.exit_code, 7, r.output);
      assertMatch(r.output, /^after$/m);
      const screen = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", fx.pane);
      assert(!/5379\\?;[0-9a-f]{16}/.test(screen), screen);
      // Tracing is left as the user set it, also when the command changes it.
      assertMatch(
        (await run(fish ? 'echo "trace=$fish_trace"' : 'echo "opts=$-"')).output,
        fish ? /^trace=1$/m : /^opts=\S*v\S*x|^opts=\S*x\S*v/m,
      );
      await run(fish ? "set -e fish_trace" : "set +v");
      assertMatch(
        (await run(fish ? 'echo "trace=[$fish_trace]"' : 'echo "opts=$-"')).output,
        fish ? /^trace=\[\]$/m : /^opts=[^v\s]*x[^v\s]*$/m,
      );
    });
  });

  Deno.test(`run-command in ${shell}: its script is gone and empty before its command starts, so no command reads the nonce`, async () => {
    await withShell(shell, async (fx) => {
      // Every nonce in the run files of any server of this user, and in every file the shell holds open (zsh and
      // fish keep a file they source open), printed back as end markers with status 0.
      const dir = Deno.env.get("TMPDIR") ?? "/tmp";
      const files = `for f in ${dir}/tmux-mcp-*-run-*/r-* /proc/$PPID/fd/*; do [ -f "$f" ] && cat "$f"; done`;
      const nonces = `${files} 2>/dev/null | grep -oE "5379;[0-9a-f]{16};" | cut -c6-21`;
      const forge =
        `sh -c 'for n in $(${nonces}); do printf "\\033]5379;%s;e;0;w\\007" "$n"; done; echo after; exit 7'`;
      // Debian's default: bash leaves its script file as written (without it, bash overwrites it with its history).
      if (shell === "bash") await runner(fx)("HISTCONTROL=ignoreboth");
      const r = await runner(fx)(forge);
      assertEquals([r.exit_code, r.output], [7, "after"]);
    });
  });

  Deno.test(`run-command in ${shell}: a command longer than a shell's read of its script runs whole`, async () => {
    await withShell(shell, async (fx) => {
      // 60 KB of command: zsh and dash read a sourced file 8 KB at a time, and the file is emptied at the start
      // marker, so the script must have been read to its end by then (lib/exec/shell.ts).
      const r = await runner(fx)(`: ${"x".repeat(60 * 1024)}\necho "end of a long command"\nsh -c 'exit 3'`);
      assertEquals([r.exit_code, r.output], [3, "end of a long command"]);
    });
  });

  Deno.test(`run-command in ${shell}: rows left below the cursor by an earlier command are not output`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await run("seq 1 60");
      // Leaves the cursor 6 rows up: the prompt and the next typed line are drawn over old rows, the rest stay.
      assertEquals((await run("printf '\\033[6A'")).output, "");
      const r = await run("echo ok");
      assertEquals([r.exit_code, r.output, r.output_lines], [0, "ok", 1]);
      assertEquals((await run("seq 1 2")).output, "1\n2");
    });
  });

  Deno.test(`run-command in ${shell}: output written above where the command began is flagged, not silently lost`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await run("seq 1 60");
      // Up 5 rows, over earlier output: not rows of its own, so not in output; the answer must say so.
      const up = await run("echo below; printf '\\033[5A'; echo UP");
      assertEquals(up.exit_code, 0);
      const missed = up.warnings.find((w) => w.kind === "lines_missed");
      assert(missed, JSON.stringify(up));
      assertMatch(missed.message, /above.*capture-pane/);
      // Printing below its start and moving up within its own rows is normal.
      const own = await run("echo a; echo b; printf '\\033[2A'; echo X");
      assertEquals([own.output, own.warnings], ["X\nb", []]);
      // A full history trimmed by the output's scroll (limit 100: rows renumbered) is not taken for it.
      await run("seq 1 95");
      assertEquals((await run("seq 1 3")).warnings, []);
    }, { historyLimit: 100 });
  });

  Deno.test(`run-command in ${shell}: a command that writes over the line above its output returns only its own lines`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await run("echo EARLIER-1; echo EARLIER-2");
      // Up one row (onto the typed line), rewrite it, then go on below: as a status line that redraws "the previous
      // line" does on its first draw.
      const r = await run("printf '\\033[1A\\rOVERWRITE\\033[K\\n'; echo after");
      assertEquals([r.exit_code, r.output, r.output_truncated], [0, "OVERWRITE\nafter", false]);
      // Also after a clear that takes the history (and so the output's first row) with it: all of it, and no
      // warning that some of it is missing.
      const cleared = await run("echo before; printf '\\033[H\\033[2J\\033[3J'; echo after");
      assertEquals([cleared.output, cleared.output_truncated, cleared.warnings], ["before\nafter", false, []]);
      assertEquals((await run("echo next")).output, "next");
    });
  });

  Deno.test(`run-command in ${shell}: a string sequence a command leaves open (cat of a binary) hides no later output`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      // DCS, APC, PM, SOS and OSC, each left without its terminator: tmux swallows what follows until one comes.
      for (const [i, open] of ["P", "_", "^", "X", "]0;"].entries()) {
        const r = await run(`printf '\\033${open}'; echo swallowed`);
        assertEquals(r.exit_code, 0);
        assertEquals((await run(`echo next-${i}`)).output, `next-${i}`, `after ESC ${open}`);
        // The pane shows it too (tmux swallowed no more of it), where capture-pane and a watching user read it.
        assertMatch(await fx.tmux("capture-pane", "-p", "-t", fx.pane), new RegExp(`^next-${i}$`, "m"));
      }
    });
  });

  Deno.test(`run-command in ${shell}: a syntax error is reported and the shell stays usable`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      const bad = await run("echo 'unterminated");
      assert(bad.exit_code !== 0, `exit code ${bad.exit_code}`);
      assertEquals((await run("echo fine")).output, "fine");
    });
  });

  Deno.test(`run-command in ${shell}: works in a default interactive shell with its rc files`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      assertEquals((await run("echo hello")).output, "hello");
      assertEquals((await run("sh -c 'exit 5'")).exit_code, 5);
      await run("cd /tmp");
      assertMatch((await run("pwd")).output, /^(\/private)?\/tmp$/); // macOS: /tmp is a link
    }, { rc: true });
  });
}

Deno.test("run-command leaves no helper line in bash or fish history and nothing in tmux", async () => {
  await withShell("bash", async (fx) => {
    const run = runner(fx);
    await run("echo one");
    const hist = await run("history");
    assert(!TYPED_BY_US.test(hist.output), hist.output);
    // Also where `history` is an alias or a function of the user's (a pager, a fuzzy finder).
    await run("alias history='echo aliased'; builtin history -s 'echo by hand'");
    await run("echo two");
    const aliased = await run("builtin history");
    assertMatch(aliased.output, /echo by hand$/);
    assert(!TYPED_BY_US.test(aliased.output), aliased.output);
    assertEquals(await fx.tmux("list-buffers"), "");
    assertEquals(
      (await fx.tmux("show-options", "-p", "-t", fx.pane)).split("\n").filter((l) => l.includes("mcp")),
      [],
    );
  });
  await withShell("fish", async (fx) => {
    const run = runner(fx);
    await run("echo one");
    const hist = await run("history");
    assert(!TYPED_BY_US.test(hist.output), hist.output);
  });
});

for (const shell of ["bash", "zsh"] as const) {
  Deno.test(`run-command in ${shell}: restoring the last status fires no ERR trap and no errexit`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await run("trap 'echo ERR-TRAP' ERR");
      assertEquals((await run("false")).exit_code, 1);
      // The next command sees `$?` 1, as typed by hand, without the trap firing for it.
      const next = await run("echo after");
      assertEquals([next.exit_code, next.output], [0, "after"]);
      await run("trap - ERR");
      // With errexit on, a failure it exempts (the left of &&) leaves the shell at its prompt with `$?` 1.
      await run("set -e");
      await fx.tmux("send-keys", "-t", fx.pane, "-l", "false && true");
      await fx.tmux("send-keys", "-t", fx.pane, "Enter");
      await waitForPane(fx, fx.pane, (text) => /false && true\n.*[#$%]$/.test(text.trimEnd()));
      const alive = await run("echo alive-$?");
      assertEquals([alive.exit_code, alive.output], [0, "alive-1"]);
    });
  });
}

Deno.test("run-command: a cursor move past the right margin stops there in output read from the pane's stream too", async () => {
  await withShell("bash", async (fx) => {
    // Writing over the typed line makes the answer come from the output stream (the screen's start row is gone);
    // the pane is 120 columns wide, so the terminal puts each x in the last column, whatever the count says.
    const r = await runner(fx)("printf '\\033[1A\\rOVER\\033[K\\n'; printf '\\033[999999Gx\\n%.0s' 1 2 3");
    const edge = " ".repeat(119) + "x";
    assertEquals([r.exit_code, r.output, r.output_truncated], [0, ["OVER", edge, edge, edge].join("\n"), false]);
  });
});

Deno.test("run-command: heredocs and multi-line scripts work in bash", async () => {
  await withShell("bash", async (fx) => {
    const r = await runner(fx)("cat <<'EOF'\nline $1\n  indented\nEOF\nfor i in 1 2; do\n  echo \"i=$i\"\ndone");
    assertEquals(r.output, "line $1\n  indented\ni=1\ni=2");
  });
});

Deno.test("run-command: output stays exact when tmux trims a full history", async () => {
  await withShell("bash", async (fx) => {
    const run = runner(fx);
    await run("seq 1 95"); // history nearly full (limit 100): the next run trims it
    for (let i = 0; i < 3; i++) {
      const r = await run("seq 1 60");
      assertEquals([r.output, r.output_truncated], [seq(60), false]);
    }
  }, { historyLimit: 100 });
});

Deno.test("run-command: a command that switches to the alternate screen returns its own lines, not the pane's earlier ones", async () => {
  await withShell("bash", async (fx) => {
    const run = runner(fx);
    await run("echo EARLIER; seq 1 60"); // lines above the next runs, some in history
    // Given up on inside a full-screen program (as a pager that `git log` opens waits for keys).
    const paged = await run("seq 101 103; printf '\\033[?1049h'; echo drawn; read -r x; printf '\\033[?1049l'", {
      timeout_ms: 3000,
    });
    assertEquals([paged.timed_out, paged.output, paged.output_truncated], [true, "101\n102\n103", false]);
    await fx.tmux("send-keys", "-t", fx.pane, "Enter"); // the read ends, the program leaves the alternate screen
    // Ended with the alternate screen still on: its lines run from the history into the main screen kept aside.
    const left = await run("seq 201 250; printf '\\033[?1049h'; echo drawn");
    assertEquals([left.exit_code, left.output, left.output_truncated], [
      0,
      seq(250).split("\n").slice(200).join("\n"),
      false,
    ]);
    assert(left.warnings.some((w) => w.kind === "alternate_screen"));
  });
});

Deno.test("run-command: a timeout in a pager says it is a pager and how to leave it", async () => {
  await withShell("bash", async (fx) => {
    // The pipeline's first program has exited: tmux names the pane's start command (env), not less.
    const paged = await runner(fx)("seq 1 100 | less", { timeout_ms: 3000 });
    assertEquals([paged.timed_out, paged.exit_code], [true, null]);
    const pager = paged.warnings.find((w) => w.kind === "pager");
    assert(pager, JSON.stringify(paged.warnings));
    assertMatch(pager.message, /send q/);
    await fx.tmux("send-keys", "-t", fx.pane, "q");
    assertEquals((await runner(fx)("echo after")).output, "after");
  });
});

Deno.test("run-command: a timeout returns the output so far, then the shell is usable again", async () => {
  await withShell("bash", async (fx) => {
    const run = runner(fx);
    const slow = await run("echo started; read -r x; echo finished", { timeout_ms: 3000 });
    assertEquals([slow.timed_out, slow.exit_code, slow.output], [true, null, "started"]);
    await fx.tmux("send-keys", "-t", fx.pane, "Enter"); // the read ends: the command finishes by itself
    // The next run waits for the earlier command, then runs normally.
    const next = await run("echo next");
    assertEquals([next.exit_code, next.output], [0, "next"]);
    const screen = await fx.tmux("capture-pane", "-p", "-t", fx.pane);
    assertMatch(screen, /finished/);
  });
});

Deno.test("run-command: a bound too short for the shell to start is a timeout of a command still to run", async () => {
  await withShell("bash", async (fx) => {
    // 0 ms: the shell, idle at its prompt when the line was typed, cannot have started it yet; it may still.
    const r = await fx.mcp.ok<RunResult>("run-command", {
      target: fx.pane,
      command: "echo late-$((40+2))",
      timeout_ms: 0,
    });
    assertEquals([r.timed_out, r.exit_code, r.output, r.output_lines], [true, null, "", 0]);
    assertEquals(r.warnings.map((w) => w.kind), ["not_started"]);
    assertMatch(
      r.warnings[0].message,
      /had not started `echo late-\$\(\(40\+2\)\)` within 0 ms .*look with capture-pane before running it again/,
    );
    const next = await runner(fx)("echo next");
    assertEquals([next.exit_code, next.output], [0, "next"]);
  });
});

Deno.test("run-command: interrupting a timed-out command with C-c frees the pane", async () => {
  await withShell("zsh", async (fx) => {
    const run = runner(fx);
    const slow = await run("sleep 30", { timeout_ms: 3000 });
    assert(slow.timed_out);
    await fx.tmux("send-keys", "-t", fx.pane, "C-c");
    assertEquals((await run("echo back")).output, "back");
  });
});

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: a command interrupted with C-c ends its run, also one followed by continue`, async () => {
    await withShell(shell, async (fx) => {
      // Answers `running` after 1 s: the agent interrupts the command, then continues the run for its result.
      let r = await fx.mcp.ok<RunResult & { continue?: string }>("run-command", {
        target: fx.pane,
        command: "echo before; sleep 120; echo never",
        timeout_ms: 120_000,
      });
      const outputs = [r.output];
      await waitForPane(fx, fx.pane, /^before$/m);
      await fx.tmux("send-keys", "-t", fx.pane, "C-c");
      while (r.continue) {
        r = await fx.mcp.ok("run-command", { continue: r.continue });
        outputs.push(r.output);
      }
      if (shell === "zsh") {
        // zsh runs the rest of the run's script all the same (in its `always` block): the status C-c left.
        assertEquals([r.exit_code, r.timed_out, r.warnings], [130, false, []]);
      } else {
        assertEquals([r.exit_code, r.timed_out], [null, false]);
        assert(r.warnings.some((w) => w.kind === "interrupted"), JSON.stringify(r.warnings));
      }
      assert(r.elapsed_ms < 60_000, `${r.elapsed_ms} ms`);
      // Its output, not the prompt the shell drew after it.
      const all = outputs.join("\n");
      assertMatch(all, /^before$/m);
      assert(!/never|[#$%>] *$/.test(all.trimEnd()), all);
      let next = await fx.mcp.ok<RunResult & { continue?: string }>("run-command", {
        target: fx.pane,
        command: "echo next",
      });
      const nextOutputs = [next.output];
      while (next.continue) {
        next = await fx.mcp.ok("run-command", { continue: next.continue });
        nextOutputs.push(next.output);
      }
      // Pages handed out in `running` answers are not repeated in the last one.
      assertEquals([next.exit_code, nextOutputs.filter((o) => o !== "").join("\n")], [0, "next"]);
    }, { serverArgs: ["--call-budget-ms", "1000"] });
  });
}

Deno.test("run-command in zsh: a return outside a function ends the command with its status, as typed by hand", async () => {
  await withShell("zsh", async (fx) => {
    const run = runner(fx);
    const r = await run("echo before; return 4; echo never");
    assertEquals([r.exit_code, r.output, r.warnings], [4, "before", []]);
    assertEquals((await run("echo $?")).output, "4");
  });
});

for (const shell of ["bash", "fish"] as const) {
  Deno.test(`run-command in ${shell}: a return outside a function says it ended the run, not that the shell's state is gone`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await run(shell === "fish" ? "set -g KEPT yes" : "KEPT=yes");
      const r = await run("echo before; return 4; echo never");
      assertEquals([r.exit_code, r.output], [null, "before"]);
      assertEquals(r.warnings.map((w) => w.kind), ["interrupted"]);
      assertMatch(
        r.warnings[0].message,
        /`return` outside a function ended the script .*keeping the shell and its state/,
      );
      assertEquals((await run("echo $KEPT")).output, "yes");
    });
  });
}

Deno.test("run-command in fish: an exit says it ended the run and fish stays, not that the shell's state is gone", async () => {
  await withShell("fish", async (fx) => {
    const run = runner(fx);
    await run("set -g KEPT yes");
    const r = await run("echo before; exit 3; echo never");
    assertEquals([r.exit_code, r.output, r.warnings.map((w) => w.kind)], [null, "before", ["interrupted"]]);
    assertMatch(r.warnings[0].message, /`exit` ended only the script .*keeping fish and its state/);
    assertEquals((await run("echo $KEPT")).output, "yes");
  });
});

Deno.test("run-command after a timed-out command that started a REPL says how to leave the REPL, not C-c", async () => {
  await withShell("bash", async (fx) => {
    const r = await fx.mcp.ok<RunResult>("run-command", { target: fx.pane, command: "python3 -q", timeout_ms: 1000 });
    assertEquals(r.timed_out, true);
    await waitForPane(fx, fx.pane, /^>>> ?$/m);
    const err = await fx.mcp.err("run-command", { target: fx.pane, command: "echo hi", timeout_ms: 500 });
    assertMatch(err, /still runs an earlier command that timed out: .*python3.*exit\(\)/);
    assert(!err.includes("C-c, then retry"), err);
  });
});

Deno.test("run-command refuses panes that are not at a shell prompt, saying what to do", async () => {
  await withShell("bash", async (fx) => {
    await fx.tmux("send-keys", "-t", fx.pane, "-l", "python3 -q");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    await waitUntil(
      "python3 to start",
      async () =>
        (await fx.tmux("display-message", "-p", "-t", fx.pane, "#{pane_current_command}")).startsWith("python3"),
    );
    const err = await fx.mcp.err("run-command", { target: fx.pane, command: "echo hi" });
    assertMatch(err, /python3/);
    assertMatch(err, /exit\(\)/);
    assertMatch(err, /send-keys/);
    // Nothing was typed into the REPL.
    assert(!(await fx.tmux("capture-pane", "-p", "-t", fx.pane)).includes("echo hi"));
  });
});

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: a shell pane in copy mode is left, then the command runs, saying so`, async () => {
    await withShell(shell, async (fx) => {
      // No tool but one that types could leave the mode, and each typed keys into the shell: the refusal this
      // replaced had no way out that left the prompt clean.
      await fx.tmux("copy-mode", "-t", fx.pane);
      const r = await runner(fx)("echo hi; sh -c 'exit 3'");
      assertEquals([r.exit_code, r.output], [3, "hi"]);
      assertEquals(r.warnings, [{
        kind: "left_mode",
        message: `pane ${fx.pane} was in copy-mode: left it, then typed the command`,
      }]);
      assertEquals(await tmuxFormat({ tmux: fx.tmux }, fx.pane, "#{pane_in_mode}"), "0");
      assertEquals((await runner(fx)("echo next")).warnings, []);
      // A program that is no shell stays refused under a mode too, and the mode is left alone.
      const py = await fx.newPane({ command: "python3 -q" });
      await waitForPane({ tmux: fx.tmux }, py, />>>/);
      await fx.tmux("copy-mode", "-t", py);
      assertMatch(await fx.mcp.err("run-command", { target: py, command: "echo hi" }), /python3/);
      assertEquals(await tmuxFormat({ tmux: fx.tmux }, py, "#{pane_in_mode}"), "1");
    });
  });
}

Deno.test("run-command refuses a pane with synchronize-panes on, where the other panes would run the command too", async () => {
  await withShell("bash", async (fx) => {
    const dir = await tempHome();
    const other = (await fx.tmux("split-window", "-t", fx.pane, "-P", "-F", "#{pane_id}", "bash --norc")).trim();
    await fx.tmux("set-option", "-w", "-t", fx.pane, "synchronize-panes", "on");
    // tmux typed the line into the other pane too, and its bash ran the command: "RAN" twice in the file.
    const err = await fx.mcp.err("run-command", { target: fx.pane, command: `echo RAN >> ${dir}/x` });
    assertMatch(
      err,
      new RegExp(`^pane ${fx.pane} has synchronize-panes on: tmux would type the command line into ${other} too`),
    );
    assertEquals(await Deno.readTextFile(`${dir}/x`).catch(() => "none"), "none");
    await fx.tmux("set-option", "-p", "-t", other, "synchronize-panes", "off");
    await fx.mcp.ok("run-command", { target: fx.pane, command: `echo RAN >> ${dir}/x` });
    assertEquals(await Deno.readTextFile(`${dir}/x`), "RAN\n");
  });
});

Deno.test("run-command refuses a pane whose input is off (select-pane -d) at once, not after its timeout", async () => {
  await withShell("bash", async (fx) => {
    await fx.tmux("select-pane", "-d", "-t", fx.pane);
    // It typed the line into nothing and waited out timeout_ms, then blamed the bound or a busy shell.
    assertMatch(
      await fx.mcp.err("run-command", { target: fx.pane, command: "echo hi", timeout_ms: 60_000 }),
      new RegExp(`^pane ${fx.pane} has its input off \\(tmux's select-pane -d\\): .*nothing was typed`),
    );
    await fx.tmux("select-pane", "-e", "-t", fx.pane);
    assertEquals((await fx.mcp.ok<RunResult>("run-command", { target: fx.pane, command: "echo hi" })).output, "hi");
  });
});

Deno.test("run-command refuses a dash pane at once, saying why, instead of waiting for a prompt it cannot see", async () => {
  await withShell("bash", async (fx) => {
    const dash = await fx.newPane({ command: "env -i PATH=/usr/bin:/bin PS1='$ ' dash" });
    await settle(fx.socketName, dash);
    const started = Date.now();
    // Before: the call waited its whole timeout_ms for an idle prompt, then blamed a command or a `read`.
    const err = await fx.mcp.err("run-command", { target: dash, command: "echo typed", timeout_ms: 600_000 });
    assertMatch(err, /^run-command typed nothing: %\d+ runs dash, .*start bash, zsh or fish there, or use send-keys/);
    assert(Date.now() - started < 300_000, `refused only after ${Date.now() - started} ms`);
    assert(!(await fx.tmux("capture-pane", "-p", "-t", dash)).includes("typed"), "something was typed into dash");
  });
});

Deno.test("run-command: a shell that exits under the command (exit, or set -e and a failure) says why it may have", async () => {
  await withShell("bash", async (fx) => {
    const pane = await fx.newPane("bash");
    const err = await fx.mcp.err("run-command", { target: pane, command: "set -e; false", timeout_ms: 20_000 });
    assertMatch(err, /closed while the command ran/);
    assertMatch(err, /set -e/);
    assertMatch(err, /call list/);
    // What it printed before its shell went is kept, not lost with the pane: the clue to why.
    const pane2 = await fx.newPane("bash");
    const run = fx.mcp.err("run-command", {
      target: pane2,
      command: "set -e; echo why-$((6*7)); read -r x; false",
      timeout_ms: 60_000,
    });
    const seen = startWait(fx, "wait", { what: "text", target: pane2, patterns: ["why-42"], new_only: true });
    await seen.armed;
    await seen.done; // the server has the line: tmux drops a closing pane's output it has not sent yet
    await fx.tmux("send-keys", "-t", pane2, "Enter");
    const kept = await run;
    assertMatch(kept, /closed while the command ran/);
    const buffer = /of its output not returned yet are in buffer (mcp-result-\S+) \(show-buffer\)$/.exec(kept);
    assert(buffer, kept);
    assertMatch((await fx.mcp.ok<{ text: string }>("show-buffer", { name: buffer[1] })).text, /^why-42\n/);
  });
});

Deno.test("run-command: commands queue per pane and never mix", async () => {
  await withShell("bash", async (fx) => {
    const run = runner(fx);
    const results = await Promise.all([1, 2, 3].map((i) => run(`sleep 0.2; echo run${i}; sh -c 'exit ${i}'`)));
    assertEquals(results.map((r) => [r.exit_code, r.output]), [[1, "run1"], [2, "run2"], [3, "run3"]]);
  });
});

Deno.test("run-command: bad timeout_ms and unknown panes are clear errors", async () => {
  await withShell("bash", async (fx) => {
    assertMatch(
      await fx.mcp.err("run-command", { target: fx.pane, command: "true", timeout_ms: 5_000_000 }),
      /--max-wait-ms/,
    );
    assertMatch(
      await fx.mcp.err("run-command", { target: "%999", command: "true" }),
      /call list \(what: sessions or panes\)/,
    );
    assertMatch(await fx.mcp.err("run-command", { target: fx.pane, command: "" }), /command/);
  });
});

Deno.test("a --max-wait-ms below the default timeout_ms bounds calls that omit it; a larger one given is refused", async () => {
  await withShell("bash", async (fx) => {
    const run = await fx.mcp.ok<{ exit_code: number; output: string }>("run-command", {
      target: fx.pane,
      command: "echo in-$((6*7))",
    });
    assertEquals([run.exit_code, run.output], [0, "in-42"]);
    const text = await fx.mcp.ok<{ outcome: string; elapsed_ms: number }>("wait", {
      what: "text",
      target: fx.pane,
      patterns: ["never"],
    });
    assertEquals(text.outcome, "timeout");
    assert(text.elapsed_ms >= 2000, `${text.elapsed_ms}`);
    assertEquals((await fx.mcp.ok<{ outcome: string }>("wait", { what: "quiet", target: fx.pane })).outcome, "quiet");
    assertMatch(
      await fx.mcp.err("wait", { what: "text", target: fx.pane, patterns: ["x"], timeout_ms: 30_000 }),
      /timeout_ms 30000 is above this server's limit of 2000 ms \(--max-wait-ms\)/,
    );
    // A quiet period past that limit: the advice is a shorter one, not a timeout_ms the server would refuse.
    assertMatch(
      await fx.mcp.err("wait", { what: "quiet", target: fx.pane, quiet_ms: 3000 }),
      /timeout_ms \(2000: this server's limit, --max-wait-ms\), so the wait could only time out: pass a quiet_ms below 2000$/,
    );
  }, { serverArgs: ["--max-wait-ms", "2000"] });
});

Deno.test("run-command follows its pane into another session (move-window) and returns the exit code", async () => {
  await withShell("bash", async (fx) => {
    await fx.tmux("new-session", "-d", "-s", "other");
    const run = startWait<
      { exit_code: number | null; output: string; timed_out: boolean; session_id: string; window_id: string }
    >(fx, "run-command", {
      target: fx.pane,
      command: "read -r x; echo fin-$x; (exit 3)",
      timeout_ms: 60_000,
    });
    await run.armed;
    await fx.tmux("new-window", "-d", "-t", "main:"); // main lives on without the window
    await fx.tmux("move-window", "-s", `${fx.pane}`, "-t", "other:");
    // The line the command reads, typed once the server follows the pane there (output printed in between, before
    // it noticed the move, would be missed: tmux sends a session's client only that session's output).
    await watchedIn(fx, "other");
    await fx.tmux("send-keys", "-t", fx.pane, "-l", "42");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    const r = await run.done;
    assertEquals([r.exit_code, r.timed_out, r.output.split("\n").at(-1)], [3, false, "fin-42"]);
    // The ids answered are where the pane is now, not where the run began.
    const other = await tmuxFormat(fx, "other:", "#{session_id}");
    assertEquals([r.session_id, r.window_id], [other, await tmuxFormat(fx, fx.pane, "#{window_id}")]);
  });
});

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell} whose command moves its window to another session as it ends answers at once`, async () => {
    await withShell(shell, async (fx) => {
      await fx.tmux("new-session", "-d", "-s", "other");
      await fx.tmux("new-window", "-d", "-t", "main:"); // main lives on without the window
      // Its end marker comes right after the move, before the server follows the pane: tmux sends it to main only.
      const r = await fx.mcp.ok<RunResult>("run-command", {
        target: fx.pane,
        command: `tmux -L ${fx.socketName} move-window -s ${fx.pane} -t other:; echo moved-4""2`,
        timeout_ms: 30_000,
      });
      const other = await tmuxFormat(fx, "other:", "#{session_id}");
      assertEquals([r.timed_out, r.output.split("\n").at(-1), r.session_id], [false, "moved-42", other]);
      // Either the end was seen after all (a slow move), or it was lost and the answer says so.
      if (r.exit_code === null) assertEquals(r.warnings.map((w) => w.kind), ["no_exit_code"]);
      else assertEquals(r.exit_code, 0);
      const next = await runner(fx)("echo next");
      assertEquals([next.exit_code, next.output], [0, "next"]);
    });
  });
}

Deno.test("run-command's running answer after its pane's window moved names the session it is in now", async () => {
  await withShell("bash", async (fx) => {
    type Run = { exit_code: number | null; session_id: string; continue?: string };
    await fx.tmux("new-session", "-d", "-s", "other");
    const first = await fx.mcp.ok<Run>("run-command", {
      target: fx.pane,
      command: "read -r x; echo fin-$x",
      timeout_ms: 120_000,
    });
    assert(first.continue, JSON.stringify(first));
    await fx.tmux("new-window", "-d", "-t", "main:");
    await fx.tmux("move-window", "-s", `${fx.pane}`, "-t", "other:");
    const other = await tmuxFormat(fx, "other:", "#{session_id}");
    const next = await fx.mcp.ok<Run>("run-command", { continue: first.continue });
    assertEquals([next.exit_code, next.session_id], [null, other]);
    await watchedIn(fx, "other");
    await fx.tmux("send-keys", "-t", fx.pane, "-l", "42");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    let r = next;
    while (r.continue) r = await fx.mcp.ok<Run>("run-command", { continue: r.continue });
    assertEquals([r.exit_code, r.session_id], [0, other]);
  }, { serverArgs: ["--call-budget-ms", "1000"] });
});

Deno.test("run-command whose pane is respawned under it says so at once instead of timing out", async () => {
  await withShell("bash", async (fx) => {
    // A timeout is a result, not an error: the error below is the respawn seen.
    const run = fx.mcp.err("run-command", { target: fx.pane, command: "sleep 600", timeout_ms: 20_000 });
    await waitUntil("sleep to run", async () => (await tmuxFormat(fx, fx.pane, "#{pane_current_command}")) === "sleep");
    await fx.tmux("respawn-pane", "-k", "-t", fx.pane, "sh -c 'sleep 600'");
    assertMatch(await run, /^pane %\d+ was respawned while the command ran: .*no exit code.*now runs sh$/);
  });
});

Deno.test("run-command whose pane is respawned keeps what it printed, not calling the new shell's prompt its output", async () => {
  await withShell("bash", async (fx) => {
    const run = fx.mcp.err("run-command", {
      target: fx.pane,
      command: "echo one-$((1)); sleep 600",
      timeout_ms: 20_000,
    });
    await waitUntil("sleep to run", async () => (await tmuxFormat(fx, fx.pane, "#{pane_current_command}")) === "sleep");
    // The new shell prints its prompt into the same stream, with nothing to tell where the command's output ended.
    await fx.tmux("respawn-pane", "-k", "-t", fx.pane, "bash --norc --noprofile");
    const err = await run;
    assertMatch(err, /^pane %\d+ was respawned while the command ran: /);
    const kept =
      /line\(s\) the pane printed since the last answer are in buffer (mcp-result-\S+) \(show-buffer\): the command's output, maybe followed by the first lines of what the pane runs now$/
        .exec(err);
    assert(kept, err);
    assertMatch(textOf(await fx.mcp.call("show-buffer", { name: kept[1] })), /^one-1\n/);
  });
});

Deno.test("run-command: a continuation cut while tmux stalls loses no line; the next one hands it out", async () => {
  await withShell("bash", async (fx) => {
    type Run = { exit_code: number | null; output: string; continue?: string };
    const first = await fx.mcp.ok<Run>("run-command", {
      target: fx.pane,
      command: "echo a-$((1)); read -r x; echo b-$((2)); read -r y; echo c-$((3))",
      timeout_ms: 120_000,
    });
    assertEquals([first.output, first.exit_code], ["a-1", null]);
    // b-2 reaches the server (a wait on the same stream sees it), then tmux stops answering.
    const seen = startWait(fx, "wait", { what: "text", target: fx.pane, patterns: ["b-2"], new_only: true });
    await seen.armed;
    await fx.tmux("send-keys", "-t", fx.pane, "x", "Enter");
    await seen.done;
    const pid = Number(await tmuxFormat(fx, fx.pane, "#{pid}"));
    Deno.kill(pid, "SIGSTOP");
    let cut: string;
    try {
      cut = await fx.mcp.err("run-command", { continue: first.continue });
    } finally {
      Deno.kill(pid, "SIGCONT");
    }
    assertMatch(cut, /did not finish within the call budget/);
    await fx.tmux("send-keys", "-t", fx.pane, "y", "Enter");
    const lines: string[] = [];
    let r: Run = first;
    while (r.continue) {
      r = await fx.mcp.ok<Run>("run-command", { continue: r.continue });
      lines.push(...r.output.split("\n"));
    }
    assertEquals([lines.filter((l) => /^[bc]-\d$/.test(l)), r.exit_code], [["b-2", "c-3"], 0]);
  }, { serverArgs: ["--call-budget-ms", "1500"] });
});

Deno.test("run-command sends progress notifications while waiting", async () => {
  await withShell("bash", async (fx) => {
    // One when each wait is armed (the start, then the end of the command). The command waits for a line the test
    // types once both arrived: the SDK client hands a notification to its handler a microtask after reading it, but
    // settles the call (and forgets its progress handler) at once, so a notification read together with the answer
    // would be dropped by the client.
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const two = Promise.withResolvers<void>();
    const call = fx.mcp.client.callTool(
      {
        name: "run-command",
        arguments: { target: fx.pane, command: 'read -r x; echo "got $x"', timeout_ms: 20_000 },
      },
      undefined,
      {
        onprogress: (p) => {
          progress.push(p);
          if (progress.length === 2) two.resolve();
        },
        timeout: 120_000,
      },
    );
    // A call that ends before its second notification fails the test below instead of leaving it waiting.
    const early = await Promise.race([two.promise.then(() => undefined), call]);
    assert(early === undefined, `the call ended after ${progress.length} notification(s): ${JSON.stringify(early)}`);
    await fx.tmux("send-keys", "-t", fx.pane, "-l", "go");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    const r = await call;
    assert(!r.isError, JSON.stringify(r.content));
    assertEquals((r.structuredContent as unknown as RunResult).output, "go\ngot go");
    assertMatch(progress[0].message ?? "", /elapsed.*left/);
    assertEquals(progress[0].total, 20_000);
    assert(progress[1].progress > progress[0].progress, "progress must increase");
  });
});

Deno.test("run-command: cancellation ends the wait; the command finishes and the pane stays usable", async () => {
  await withShell("bash", async (fx) => {
    const args = { target: fx.pane, command: "sleep 3; echo done-late", timeout_ms: 30_000 };
    // Cancelled once the command runs (its end is awaited): a run cancelled before the shell started it never
    // runs (its script is gone).
    await callAndCancel(fx, "run-command", args, /to finish in/);
    await waitUntil("the server to record the cancellation", () => Promise.resolve(/cancelled/.test(fx.mcp.stderr())));
    assertEquals((await runner(fx)("echo again")).output, "again");
    assertMatch(await fx.tmux("capture-pane", "-p", "-t", fx.pane), /done-late/);
  });
});

Deno.test("run-command: a command still running when the server exits never blocks the shell afterwards", async () => {
  await withShell("bash", async (fx) => {
    const run = startWait(fx, "run-command", {
      target: fx.pane,
      command: "sleep 8; echo finished-after-exit",
      timeout_ms: 60_000,
    });
    const pending = run.done.then(() => "answered", () => "ended");
    await run.armed; // typed: the shell runs it
    // The client closes stdin, waits 2 s for the server (which would answer the run first), then sends
    // SIGTERM: the server exits mid-run; its script directory goes with it.
    await fx.mcp.close();
    assertEquals(await pending, "ended");
    await waitUntil(
      "the shell to come back by itself",
      async () => /finished-after-exit\n.*[#$] *$/m.test(await fx.tmux("capture-pane", "-p", "-t", fx.pane)),
      60_000, // the rest of `sleep 8`, plus the shell's own pace on a loaded machine
    );
    await fx.tmux("send-keys", "-t", fx.pane, "-l", "echo alive-$((1+1))");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    await waitUntil(
      "the shell to answer",
      async () => /^alive-2$/m.test(await fx.tmux("capture-pane", "-p", "-t", fx.pane)),
    );
  });
});

/** What a shell reads as its rc file under `home`, for the rc-sleeps tests. */
const RC_FILE: Record<Shell, string> = { bash: ".bashrc", zsh: ".zshrc", fish: ".config/fish/config.fish" };
const READ_PROMPT: Record<Shell, string> = {
  bash: "read -p 'Continue? [y/N]' ans; echo got-$ans",
  zsh: "read 'ans?Continue? [y/N]'; echo got-$ans",
  fish: "read -P 'Continue? [y/N]' ans; echo got-$ans",
};

/** Everything the pane shows, its scrollback included. */
const wholePane = (fx: ExecFixture, pane = fx.pane) => fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane);

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell} types nothing into a read prompt, which still waits`, async () => {
    await withShell(shell, async (fx) => {
      await fx.tmux("send-keys", "-t", fx.pane, "-l", READ_PROMPT[shell]);
      await fx.tmux("send-keys", "-t", fx.pane, "Enter");
      await waitForPane(fx, fx.pane, /Continue\? \[y\/N\]\s*$/);
      const err = await fx.mcp.err("run-command", { target: fx.pane, command: "echo typed-here" });
      assertMatch(err, /typed nothing/);
      assertMatch(err, /send-keys/);
      assert(!(await wholePane(fx)).includes("typed-here"));
      // The read still waits, and gets exactly what we answer.
      await fx.tmux("send-keys", "-t", fx.pane, "y", "Enter");
      await waitForPane(fx, fx.pane, /^got-y$/m);
      assertEquals((await runner(fx)("echo after")).output, "after");
    });
  });

  Deno.test(`run-command in ${shell} waits for a shell whose rc file is still running, or refuses`, async () => {
    await withShell(shell, async (fx) => {
      const pane = async (seconds: number) => {
        const home = await tempHome();
        const rc = `${home}/${RC_FILE[shell]}`;
        await Deno.mkdir(rc.slice(0, rc.lastIndexOf("/")), { recursive: true });
        await Deno.writeTextFile(rc, `sleep ${seconds}\necho rc-done\n`);
        const argv = shell === "fish" ? "fish" : `${shell} -i`;
        return await fx.newPane({
          command: `env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color LANG=C.UTF-8 HOME=${home} ${argv}`,
        });
      };
      const [slow, slower] = await Promise.all([pane(2), pane(4)]);
      // Small timeout: refused, nothing typed (a line typed now would be echoed, then run after the rc file).
      const err = await fx.mcp.err("run-command", { target: slower, command: "echo typed-early", timeout_ms: 300 });
      assertMatch(err, /typed nothing/);
      assertMatch(err, /starting/);
      // Enough time: waits for the prompt, then runs.
      const r = await fx.mcp.ok<RunResult>("run-command", { target: slow, command: "echo ran", timeout_ms: 20_000 });
      assertEquals([r.exit_code, r.output], [0, "ran"]);
      // A line typed during the rc file would have been echoed before its output, and run after it.
      const text = await waitForPane(fx, slower, /rc-done/);
      assert(!text.includes("typed-early") && !TYPED_BY_US.test(text), text);
      const ok = await fx.mcp.ok<RunResult>("run-command", {
        target: slower,
        command: "echo fine",
        timeout_ms: 20_000,
      });
      assertEquals(ok.output, "fine");
      assert(!(await wholePane(fx, slower)).includes("typed-early"));
    });
  });
}

Deno.test("run-command types nothing into fish's read that an earlier, timed-out run left waiting", async () => {
  await withShell("fish", async (fx) => {
    const slow = await runner(fx)("read x; echo got-$x", { timeout_ms: 2000 });
    assertEquals([slow.timed_out, slow.exit_code], [true, null]);
    // fish reads that line with its own line editor, as at its prompt: the terminal's modes cannot tell the two.
    const err = await fx.mcp.err("run-command", { target: fx.pane, command: "echo typed-here", timeout_ms: 20_000 });
    assertMatch(err, /typed nothing/);
    assertMatch(err, /send-keys/);
    const typed = (await wholePane(fx)).split("\n").filter((l) => TYPED_BY_US.test(l) || l.includes("typed-here"));
    assertEquals(typed.length, 1, typed.join("\n")); // the first run's own line only
    await fx.tmux("send-keys", "-t", fx.pane, "y", "Enter");
    await waitForPane(fx, fx.pane, /^got-y$/m);
    assertEquals((await runner(fx)("echo after")).output, "after");
  });
});

Deno.test("run-command refuses a program started a moment earlier, typing nothing", async () => {
  await withShell("bash", async (fx) => {
    const row = async () => Number(await tmuxFormat(fx, fx.pane, "#{cursor_y}"));
    const before = await row();
    await fx.tmux("send-keys", "-t", fx.pane, "-l", "python3 -q");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    // bash has taken the line (the cursor left it); python3 may not be running yet.
    await waitUntil("bash to take the line", async () => (await row()) > before);
    const err = await fx.mcp.err("run-command", { target: fx.pane, command: "print('typed-in')", timeout_ms: 5000 });
    assertMatch(err, /python3|typed nothing/);
    await fx.tmux("send-keys", "-t", fx.pane, "-l", "exit()");
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    await waitUntil(
      "python3 to exit",
      async () => (await tmuxFormat(fx, fx.pane, "#{pane_current_command}")) === "bash",
    );
    const text = await wholePane(fx);
    assert(!text.includes("typed-in") && !TYPED_BY_US.test(text), text);
  });
});

Deno.test("run-command refuses a continuation prompt, typing nothing", async () => {
  await withShell("bash", async (fx) => {
    await fx.tmux("send-keys", "-t", fx.pane, "-l", 'echo "open');
    await fx.tmux("send-keys", "-t", fx.pane, "Enter");
    await waitForPane(fx, fx.pane, /^> $/m);
    const err = await fx.mcp.err("run-command", { target: fx.pane, command: "echo typed-here" });
    assertMatch(err, /continuation prompt/);
    assert(!(await wholePane(fx)).includes("typed-here"));
    await fx.tmux("send-keys", "-t", fx.pane, "C-c");
    // bash draws a fresh prompt after the ^C; until then the screen still shows the continuation prompt.
    await waitForPane(fx, fx.pane, (text) => {
      const last = text.trimEnd().split("\n").at(-1) ?? "";
      return /\^C/.test(text) && !last.startsWith(">");
    });
    assertEquals((await runner(fx)("echo back")).output, "back");
  });
});

/** A builtin that reads keys with the shell's own line editor, as at its prompt (bash's `read -e` is not told apart). */
const EDITOR_READ: Partial<Record<Shell, string>> = {
  zsh: "vared -c ans; echo got-$ans",
  fish: "read -P 'value ' ans; echo got-$ans",
};
for (const [shell, command] of Object.entries(EDITOR_READ) as [Shell, string][]) {
  Deno.test(`run-command in ${shell}: a builtin reading keys with the line editor is running, not interrupted`, async () => {
    await withShell(shell, async (fx) => {
      // Answers `running` after 1 s; the interrupted check needs two looks a second apart at a shell waiting for keys.
      let r = await fx.mcp.ok<RunResult & { continue?: string }>("run-command", {
        target: fx.pane,
        command,
        timeout_ms: 120_000,
      });
      while (r.continue && r.elapsed_ms < 5000) r = await fx.mcp.ok("run-command", { continue: r.continue });
      // It used to end here, reported interrupted with no exit code, while the builtin still waited for its answer.
      assert(r.continue, JSON.stringify(r));
      await fx.tmux("send-keys", "-t", fx.pane, "-l", "yes");
      await fx.tmux("send-keys", "-t", fx.pane, "Enter");
      while (r.continue) r = await fx.mcp.ok("run-command", { continue: r.continue });
      assertEquals(r.exit_code, 0, JSON.stringify(r));
      assertMatch(r.output, /^got-yes$/m);
    }, { serverArgs: ["--call-budget-ms", "1000"] });
  });
}

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: a pane narrowed while the command runs still returns exactly its output`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await run("seq 1 50");
      const wide = "0".repeat(100);
      // The command prints, waits until the test has narrowed the window, then prints more.
      const go = `${fx.socketName}-go`;
      const running = run(
        `echo ${wide}A; printf 'mid-%s\\n' 42; tmux -S ${
          socketPathOf(fx.socketName)
        } wait-for ${go}; echo ${wide}B; echo end`,
      );
      await waitForPane({ tmux: fx.tmux }, fx.pane, /^mid-42$/m);
      // tmux rewraps every row to the new width: the row the output began on moves.
      await fx.tmux("resize-window", "-t", fx.pane, "-x", "60");
      await fx.tmux("wait-for", "-S", go);
      const r = await running;
      assertEquals([r.exit_code, r.output], [0, `${wide}A\nmid-42\n${wide}B\nend`]);
      assertEquals([r.output_truncated, r.warnings], [false, []]);
      assertEquals((await run("echo next")).output, "next");
    });
  });
}

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: exec of a new shell is not blamed on C-c, and the new shell runs commands`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await run(shell === "fish" ? "set -g TMCP_OLD here" : "TMCP_OLD=here");
      const r = await run(`exec ${shell === "fish" ? "fish" : `${shell} -i`}`);
      assertEquals([r.exit_code, r.timed_out], [null, false]);
      assertEquals(r.warnings.map((w) => w.kind), ["interrupted"]);
      assertMatch(r.warnings[0].message, /replaced or left the shell that ran it \(exec, exit in a nested shell\)/);
      assertEquals((await run('echo "old=[$TMCP_OLD]"')).output, "old=[]");
    });
  });
}

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: a half-typed line with the cursor moved back into it is cleared, none of it runs`, async () => {
    await withShell(shell, async (fx) => {
      const dir = await tempHome();
      // The cursor ends right after "echo left", so "; touch …" is right of it: C-u alone leaves that part.
      const rest = `; touch ${dir}/ran`;
      await fx.tmux("send-keys", "-t", fx.pane, "-l", `echo left${rest}`);
      await fx.tmux("send-keys", "-t", fx.pane, ...Array(rest.length).fill("Left"));
      await settle(fx.socketName, fx.pane);
      const r = await runner(fx)("echo mine; sh -c 'exit 3'");
      assertEquals([r.exit_code, r.output], [3, "mine"]);
      assertEquals((await runner(fx)("echo next")).output, "next");
      assert(!(await Deno.stat(`${dir}/ran`).then(() => true, () => false)), "the half-typed line's rest ran");
    });
  });
}
