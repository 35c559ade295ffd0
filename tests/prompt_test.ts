/**
 * The facts run-command's prompt check reads about a pane's shell
 * (lib/exec/prompt.ts `shellActivity`): from the kernel (/proc and tcgetattr
 * through the C library) they must be what `ps` and `stty` say, in every
 * state the check tells apart — idle at the prompt, in `read`, running a
 * command, a REPL in the foreground, rc files still running. So must the
 * check that a line editor waits for keys (lib/exec/keys_warning.ts
 * `lineEditorWaits`), which tells run-command that a shell drew its prompt.
 */
import { assert, assertEquals } from "./assert.ts";
import { startTmux } from "./helpers.ts";
import { newPane, tempHome, tmuxFormat, waitForPane, waitUntil } from "./pane_helpers.ts";
import { shellActivity } from "../lib/exec/prompt.ts";
import { parseProcStat } from "../lib/host/process.ts";
import { lineEditorWaits } from "../lib/exec/keys_warning.ts";

Deno.test("parseProcStat counts fields from the last parenthesis of the command name", () => {
  const tail = "S 7 42 42 34816 43 4194560 0 0 0 0 0 0 0 0 20 0 1 0 123456 1 2 3";
  assertEquals(parseProcStat(`42 (my (odd) cmd) ${tail}`), {
    pid: 42,
    ppid: 7,
    tpgid: 43,
    comm: "my (odd) cmd",
    start: 1234.56,
  });
  assertEquals(parseProcStat(`42 (a) b) ${tail}`)?.comm, "a) b");
  assertEquals(parseProcStat(undefined), undefined);
  assertEquals(parseProcStat("garbage"), undefined);
});

const ENV = "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color LANG=C.UTF-8";

Deno.test("shell facts from the kernel are those ps and stty report, in every state", async () => {
  const tmux = await startTmux("facts");
  try {
    const home = await tempHome();
    await Deno.writeTextFile(`${home}/.zshrc`, "sleep 30\n");
    const panes = {
      idle: await newPane(tmux, `${ENV} bash --norc --noprofile`),
      read: await newPane(tmux, `${ENV} bash --norc --noprofile`),
      running: await newPane(tmux, `${ENV} bash --norc --noprofile`),
      repl: await newPane(tmux, `${ENV} bash --norc --noprofile`),
      rc: await newPane(tmux, `${ENV} HOME=${home} zsh -i`),
    };
    for (const p of [panes.idle, panes.read, panes.running, panes.repl]) await waitForPane(tmux, p, /[#$] $/m);
    const type = async (pane: string, line: string) => {
      await tmux.tmux("send-keys", "-t", pane, "-l", line);
      await tmux.tmux("send-keys", "-t", pane, "Enter");
    };
    await type(panes.read, "read -p 'Continue? ' ans");
    await type(panes.running, "sleep 30");
    await type(panes.repl, "python3 -q");
    await waitForPane(tmux, panes.read, /Continue\? $/m);
    await waitForPane(tmux, panes.repl, /^>>> $/m);
    for (const [p, cmd] of [[panes.running, "sleep"], [panes.rc, "sleep"]]) {
      await waitUntil(`${cmd} in ${p}`, async () => (await tmuxFormat(tmux, p, "#{pane_current_command}")) === cmd);
    }
    // rcJob only where it does not depend on timing: a command typed within seconds of its shell's start
    // counts as one (the heuristic errs towards waiting), so `running` and `repl` may say either.
    const expected: Record<keyof typeof panes, { foreground: string; canonical: boolean; rcJob?: boolean }> = {
      idle: { foreground: "bash", rcJob: false, canonical: false },
      read: { foreground: "bash", rcJob: false, canonical: true },
      running: { foreground: "sleep", canonical: true },
      repl: { foreground: "python3", canonical: false },
      rc: { foreground: "sleep", rcJob: true, canonical: true },
    };
    for (const [state, pane] of Object.entries(panes) as [keyof typeof panes, string][]) {
      const [tty, pid] = (await tmuxFormat(tmux, pane, "#{pane_tty}\t#{pane_pid}")).split("\t");
      const facts = { tty, pid: Number(pid) };
      const viaKernel = await shellActivity(facts, "kernel");
      const viaTools = await shellActivity(facts, "tools");
      assertEquals(viaKernel, viaTools, `${state}: kernel and ps/stty agree`);
      const want = expected[state];
      assertEquals(viaKernel, { ...want, rcJob: want.rcJob ?? viaKernel.rcJob }, state);
      // Raw mode and a process waiting for the terminal's input: bash's readline and python's prompt.
      assertEquals(lineEditorWaits(tty, facts.pid), state === "idle" || state === "repl", `${state}: line editor`);
    }
    assert((await shellActivity({ tty: "not-a-tty", pid: 1 })).canonical === undefined);
    assertEquals(lineEditorWaits("/dev/not-a-tty", 1), undefined);
  } finally {
    await tmux.kill();
  }
});
