/**
 * run-command against the user's own shell setup: functions, aliases, traps and options typed at the prompt
 * (as an rc file would set them) must neither break a run's handshake nor forge its answer.
 */
import { assert, assertEquals } from "./assert.ts";
import { type ExecFixture, SHELLS, withShell } from "./exec_fixtures.ts";
import { waitForPane } from "./pane_helpers.ts";
import type { RunResult } from "../lib/exec/run.ts";

function runner(fx: ExecFixture) {
  return (command: string) => fx.mcp.ok<RunResult>("run-command", { target: fx.pane, command, timeout_ms: 20_000 });
}

/** Types `line` at the shell's prompt, as the user would, and waits until it has run. */
async function typeByHand(fx: ExecFixture, line: string): Promise<void> {
  await fx.tmux("send-keys", "-t", fx.pane, "-l", `${line}; echo SET""UP-DONE`);
  await fx.tmux("send-keys", "-t", fx.pane, "Enter");
  await waitForPane(fx, fx.pane, /^SETUP-DONE$/m);
}

/** A run's nonce as its markers carry it (OSC 5379), as a command could grab it from the screen. */
const NONCE_ON_SCREEN = /5379\\?;[0-9a-f]{16}/;

for (const shell of ["bash", "zsh"] as const) {
  Deno.test(`run-command in ${shell}: the user's functions and aliases named like the script's builtins change nothing`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      // Functions that print their arguments (the markers, with their nonce) or do nothing, and aliases that run
      // something else: the script's own printf, read, eval… are the shell's builtins all the same.
      await typeByHand(
        fx,
        'printf() { echo fn-printf "$@"; }; read() { :; }; unset() { :; }; set() { echo fn-set; }; ' +
          'command() { echo fn-command "$@"; }; ' +
          "test() { echo fn-test; }; return() { :; }; alias eval='echo alias-eval' builtin='echo alias-builtin'",
      );
      const r = await run("echo hi; sh -c 'exit 3'");
      assertEquals([r.exit_code, r.output], [3, "hi"]);
      const next = await run("echo next $?");
      assertEquals([next.exit_code, next.output], [0, "next 3"]);
      // The command itself still sees them, as typed by hand.
      assertEquals((await run("printf x")).output, "fn-printf x");
      const screen = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", fx.pane);
      assert(!NONCE_ON_SCREEN.test(screen), screen);
    });
  });
}

Deno.test("run-command in zsh: the user's global aliases rewrite none of the run's words, only the command's", async () => {
  await withShell("zsh", async (fx) => {
    const run = runner(fx);
    await typeByHand(fx, "alias -g read='echo ga-read' printf='print -r ga-printf' set='echo ga-set' G='| tr a-z A-Z'");
    const r = await run("echo hi; sh -c 'exit 3'");
    assertEquals([r.exit_code, r.output], [3, "hi"]);
    assertEquals((await run("echo next G")).output, "NEXT");
    // Aliases the user turned off stay off.
    await run("setopt no_aliases");
    assertEquals((await run("echo off G")).output, "off G");
    const screen = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", fx.pane);
    assert(!NONCE_ON_SCREEN.test(screen), screen);
  });
});

Deno.test("run-command in fish: the user's function named printf changes nothing", async () => {
  await withShell("fish", async (fx) => {
    const run = runner(fx);
    // fish refuses functions named like its keywords (read, set, test, eval, return), not printf.
    await typeByHand(fx, "function printf; echo fn-printf $argv; end");
    const r = await run("echo hi; sh -c 'exit 3'");
    assertEquals([r.exit_code, r.output], [3, "hi"]);
    assertEquals((await run("printf x")).output, "fn-printf x");
    const screen = await fx.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", fx.pane);
    assert(!NONCE_ON_SCREEN.test(screen), screen);
  });
});

Deno.test("run-command in bash: with the printf builtin turned off (enable -n printf), a run answers as before", async () => {
  await withShell("bash", async (fx) => {
    const run = runner(fx);
    await typeByHand(fx, "enable -n printf");
    const r = await run("echo hi; sh -c 'exit 3'");
    assertEquals([r.exit_code, r.output], [3, "hi"]);
    assertEquals((await run("echo next")).output, "next");
  });
});

Deno.test("run-command in bash: an ERR trap runs once for a failing command, as typed by hand", async () => {
  await withShell("bash", async (fx) => {
    const run = runner(fx);
    await typeByHand(fx, "trap 'echo ERR-TRAP' ERR");
    const r = await run("echo hi; sh -c 'exit 7'");
    assertEquals([r.exit_code, r.output], [7, "hi\nERR-TRAP"]);
    const ok = await run("echo ok");
    assertEquals([ok.exit_code, ok.output], [0, "ok"]);
  });
});

for (const shell of ["bash", "zsh"] as const) {
  Deno.test(`run-command in ${shell}: with errexit on, a failure it exempts leaves the shell running, as typed by hand`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      await typeByHand(fx, "set -e");
      const r = await run("echo hi; false && true");
      assertEquals([r.exit_code, r.output], [1, "hi"]);
      const next = await run("echo alive");
      assertEquals([next.exit_code, next.output], [0, "alive"]);
      assertEquals((await run("echo $-")).output.includes("e"), true);
      // A trailing backslash joins none of the run's own words to the command.
      const joined = await run("echo one \\");
      assertEquals([joined.exit_code, joined.output.replace(/ \\$/, "")], [0, "one"]);
    });
  });
}

Deno.test("run-command in zsh: with ERR_RETURN on, a failure ends the command with its exit code, as typed by hand", async () => {
  await withShell("zsh", async (fx) => {
    const run = runner(fx);
    await typeByHand(fx, "setopt err_return");
    const r = await run("echo hi; sh -c 'exit 3'; echo never");
    assertEquals([r.exit_code, r.output, r.warnings], [3, "hi", []]);
    assertEquals((await run("echo $?")).output, "3");
  });
});

for (const shell of SHELLS) {
  Deno.test(`run-command in ${shell}: the user's function named like the word that sources the script changes nothing`, async () => {
    await withShell(shell, async (fx) => {
      const run = runner(fx);
      // A wrapper that sources the way its user wants (fish users' wrappers source bash files through bass).
      await typeByHand(fx, shell === "fish" ? "function source; echo fn-source; end" : ".() { echo fn-dot; }");
      const r = await run("echo hi; sh -c 'exit 3'");
      assertEquals([r.exit_code, r.output], [3, "hi"]);
    });
  });
}

Deno.test("run-command in bash: with xtrace on, the output traces the command's own lines, not the run's eval of it", async () => {
  await withShell("bash", async (fx) => {
    const run = runner(fx);
    await typeByHand(fx, "set -x");
    const r = await run("echo one\necho two");
    assertEquals(r.output.split("\n").filter((l) => !/^\++ echo (one|two)$/.test(l)), ["one", "two"]);
    // With verbose on, each line of the command is echoed as it is read, as typed by hand; $? is the last run's.
    await typeByHand(fx, "set +x -v");
    await run("false");
    const v = await run("echo $?\necho two");
    assertEquals(v.output, "echo $?\n1\necho two\ntwo");
  });
});
