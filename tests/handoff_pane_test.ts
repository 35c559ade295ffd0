/**
 * The human hand-off for workspace panes (request-input {target}): a pane
 * whose bash runs `read -s` behind a password prompt; run-command of a
 * script that asks for a password (its running answer points at
 * request-input) and then prints a digest of what it read; a yes/no by a
 * form; decline typing nothing; a client without elicitation getting the
 * attach command; a shell whose own prompt reads like a password prompt;
 * bad targets; gpg asking for its key's passphrase through pinentry-curses
 * (and the same screen's text in a pager, which is no prompt). Afterwards the secret is searched for in every tool result,
 * the audit log, the server's stderr, every tmux buffer and every pane's
 * screen and history. Runs in both protocol eras (TMUX_MCP_TEST_ERA).
 */
import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { connect, startTmux, textOf, type TmuxFixture } from "./helpers.ts";
import { waitForPane, waitUntil } from "./pane_helpers.ts";
import { envelope, rawServer } from "./raw_stdio.ts";
import type { CallToolResult } from "../lib/sdk.ts";
import {
  assertNowhere,
  assertReceived,
  BOTH,
  CONFIRM_SCRIPT,
  gpgHome,
  ONE_KEY_SCRIPT,
  SECRET_SCRIPT,
  type Setup,
  sha16,
  withHuman,
  withRecordedCommandLines,
} from "./handoff_helpers.ts";

/** A pane's screen and history. */
function paneText(s: Setup, pane: string): Promise<string> {
  return s.tmux.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane);
}

Deno.test("pane: a secret goes from the one-shot local page to `read -s` in the pane, and nowhere else", async () => {
  await withHuman(BOTH, async (s) => {
    s.human.secret = `pw-${crypto.randomUUID()}`;
    s.human.pages = [];
    const pane = await s.pane("Password:", SECRET_SCRIPT);
    const r = await s.call("request-input", { target: pane, prompt: "Enter the test password", timeout_ms: 120_000 });
    assert(!r.isError, textOf(r));
    await Promise.all(s.human.browsing);
    // The human sees what the program itself asks, besides the model's words.
    assertMatch(s.human.pages[0], /<p>The program asks: <code>Password:<\/code><\/p>/);
    assertMatch(s.human.asked[0].message as string, /\nThe program asks: Password:\n/);
    const out = r.structuredContent as Record<string, unknown>;
    assertEquals([out.pane_id, out.outcome, out.via], [pane, "input_received", "url"]);
    assertMatch(out.message as string, /continue with snapshot-pane$/);
    assertEquals(s.human.asked.map((q) => q.mode), ["url"]);
    assertMatch(s.human.asked[0].message as string, /Enter the test password/);
    await waitForPane(s.tmux, pane, new RegExp(`digest ${await sha16(s.human.secret)}`), 30_000);
    await assertNowhere(s, s.human.secret);
  });
});

// A prompt in its words, and one only the terminal's no-echo line mode gives away.
for (
  const [words, says] of [["Password: ", "waits at a password prompt"], ["Your word> ", "reads input without echo"]]
) {
  Deno.test(`pane: run-command's running answer at ${JSON.stringify(words)} points at request-input; the script reads the secret and finishes`, async () => {
    await withHuman(
      BOTH,
      async (s) => {
        s.human.secret = `pw-${crypto.randomUUID()}`;
        const pane = await s.pane("bash-");
        const script = `${s.dir}/ask.sh`;
        await Deno.writeTextFile(
          script,
          `read -r -s -p '${words}' pw; echo\nprintf 'digest %s\\n' "$(printf %s "$pw" | sha256sum | cut -c1-16)"\n`,
        );
        type Run = { exit_code: number | null; output: string; continue?: string; warnings: { message: string }[] };
        let run = await s.call("run-command", { target: pane, command: `bash ${script}`, timeout_ms: 120_000 });
        assert(!run.isError, textOf(run));
        let out = run.structuredContent as Run;
        // Running until the prompt is drawn (a loaded machine may take a while); then the answer says what to call.
        while (out.continue !== undefined && !out.warnings.some((w) => /request-input/.test(w.message))) {
          run = await s.call("run-command", { continue: out.continue });
          out = run.structuredContent as Run;
        }
        assert(out.continue !== undefined, `the run ended at its prompt: ${JSON.stringify(out)}`);
        assertMatch(
          out.warnings[0].message,
          new RegExp(`${says} .*call request-input \\{target: "${pane}"\\}`),
        );
        const asked = await s.call("request-input", {
          target: pane,
          prompt: "Enter the test password",
          timeout_ms: 120_000,
        });
        assert(!asked.isError, textOf(asked));
        await Promise.all(s.human.browsing);
        assertEquals((asked.structuredContent as Record<string, unknown>).outcome, "input_received");
        let all = out.output;
        while (out.continue !== undefined) {
          run = await s.call("run-command", { continue: out.continue });
          out = run.structuredContent as Run;
          all += "\n" + out.output;
        }
        assertEquals(out.exit_code, 0);
        assertMatch(all, new RegExp(`digest ${await sha16(s.human.secret)}`));
        await assertNowhere(s, s.human.secret);
      },
      "tmux",
      ["--call-budget-ms", "1500"],
    );
  });
}

Deno.test("pane: a yes/no is asked by a form and typed; a decline types nothing", async () => {
  await withHuman(BOTH, async (s) => {
    const question = await s.pane("Overwrite it? [y/N]", CONFIRM_SCRIPT);
    const yes = await s.call("request-input", { target: question, prompt: "Overwrite?", timeout_ms: 60_000 });
    assert(!yes.isError, textOf(yes));
    assertEquals((yes.structuredContent as Record<string, unknown>).via, "form");
    await waitForPane(s.tmux, question, /answer=y/, 30_000);

    s.human.reply = "decline";
    s.human.secret = `pw-${crypto.randomUUID()}`;
    const secret = await s.pane("Password:", SECRET_SCRIPT);
    const no = await s.call("request-input", { target: secret, prompt: "Enter it", timeout_ms: 60_000 });
    const out = no.structuredContent as Record<string, unknown>;
    assertEquals([out.outcome, out.via], ["declined", "url"]);
    assertMatch(out.message as string, /^the human declined: nothing was typed/);
    const text = await paneText(s, secret);
    assertMatch(text, /Password:/);
    assert(!text.includes("digest"), text);
    assertEquals(s.human.asked.map((q) => q.mode), ["form", "url"]);
    await assertNowhere(s, s.human.secret);
  });
});

Deno.test("pane: a yes/no read key by key gets the key alone: no Enter lands in the next read", async () => {
  await withHuman(BOTH, async (s) => {
    const pane = await s.pane("Overwrite it? [y/N]", ONE_KEY_SCRIPT);
    const r = await s.call("request-input", { target: pane, prompt: "Overwrite?", timeout_ms: 60_000 });
    assert(!r.isError, textOf(r));
    assertEquals((r.structuredContent as Record<string, unknown>).via, "form");
    await waitForPane(s.tmux, pane, /Next:/, 30_000);
    await s.tmux.tmux("send-keys", "-t", pane, "-l", "ok");
    await s.tmux.tmux("send-keys", "-t", pane, "Enter");
    await waitForPane(s.tmux, pane, /next=\[/, 30_000);
    const text = await paneText(s, pane);
    assertMatch(text, /answer=y\n/);
    assertMatch(text, /next=\[ok\]/);
  });
});

Deno.test("pane: run-command's running answer at a yes/no read key by key says to send the key alone", async () => {
  await withHuman(
    BOTH,
    async (s) => {
      const pane = await s.pane("bash-");
      const script = `${s.dir}/one-key.sh`;
      await Deno.writeTextFile(script, ONE_KEY_SCRIPT);
      type Run = { continue?: string; warnings: { message: string }[] };
      let out = (await s.call("run-command", { target: pane, command: `bash ${script}`, timeout_ms: 120_000 }))
        .structuredContent as Run;
      while (out.continue !== undefined && !out.warnings.some((w) => /Overwrite/.test(w.message))) {
        out = (await s.call("run-command", { continue: out.continue })).structuredContent as Run;
      }
      assert(out.continue !== undefined, `the run ended: ${JSON.stringify(out)}`);
      assertEquals(out.warnings.length, 1, JSON.stringify(out.warnings));
      assertMatch(out.warnings[0].message, new RegExp(`^pane ${pane} waits for one key .*e\\.g\\. y alone: an Enter`));
    },
    "tmux",
    ["--call-budget-ms", "1500"],
  );
});

Deno.test("pane: a secret never travels on a tmux command line, even when every command spawns a client", async () => {
  await withRecordedCommandLines(async (s) => {
    const pane = await s.pane("Password:", SECRET_SCRIPT);
    await assertReceived(s, await s.call("request-input", { target: pane, prompt: "Enter it", timeout_ms: 120_000 }));
    await waitForPane(s.tmux, pane, new RegExp(`digest ${await sha16(s.human.secret)}`), 30_000);
    await assertNowhere(s, s.human.secret);
  });
});

Deno.test("pane: a secret posted as the hand-off times out is typed only if the answer says so", async () => {
  await withHuman(BOTH, async (s) => {
    s.human.secret = `pw-${crypto.randomUUID()}`;
    const pane = await s.pane("Password:", SECRET_SCRIPT);
    const tmuxPid = Number((await s.tmux.tmux("display-message", "-p", "#{pid}")).trim());
    const timeoutMs = 4000;
    const started = Date.now();
    let resumed: Promise<void> | undefined;
    // The post arrives while the server looks at the pane one last time (tmux stopped), and the hand-off's
    // deadline passes meanwhile; tmux goes on after it (well before the engine's own 10 s bound).
    s.human.beforePost = () => {
      Deno.kill(tmuxPid, "SIGSTOP");
      resumed = waitUntil("the hand-off's deadline", () => Promise.resolve(Date.now() > started + timeoutMs + 1500))
        .then(() => {}).finally(() => Deno.kill(tmuxPid, "SIGCONT"));
      return Promise.resolve();
    };
    s.human.expectPost = /expired; nothing was typed|Sent to the terminal/;
    const r = await s.call("request-input", { target: pane, prompt: "Enter it", timeout_ms: timeoutMs });
    await Promise.all(s.human.browsing);
    await resumed;
    const out = r.structuredContent as Record<string, unknown>;
    if (out.outcome === "input_received") {
      await waitForPane(s.tmux, pane, new RegExp(`digest ${await sha16(s.human.secret)}`), 30_000);
    } else {
      assertEquals([out.outcome, out.via], ["timeout", "url"]);
      assertMatch(out.message as string, /nothing was typed/);
      // Nothing waits in the terminal: an empty line is what the program reads.
      await s.tmux.tmux("send-keys", "-t", pane, "Enter");
      await waitForPane(s.tmux, pane, /digest [0-9a-f]{16}/, 30_000);
      assertMatch(await paneText(s, pane), new RegExp(`digest ${await sha16("")}`), "the secret was typed after all");
    }
    await assertNowhere(s, s.human.secret);
  });
});

// A prompt only in its words: the program reads with echo on (or does not read at all), so the terminal itself would
// show a secret typed there, on the screen and in its history, where the assistant reads it.
const ECHOED_SCRIPT = `read -r -p 'Password: ' pw
printf 'got %s\\n' "$(printf %s "$pw" | sha256sum | cut -c1-16)"
exec sleep 3600
`;

Deno.test("pane: a password prompt whose terminal echoes is not handed a secret: nothing is asked or typed", async () => {
  await withHuman(BOTH, async (s) => {
    s.human.secret = `pw-${crypto.randomUUID()}`;
    const pane = await s.pane("Password:", ECHOED_SCRIPT);
    const r = await s.call("request-input", { target: pane, prompt: "Enter it", timeout_ms: 30_000 });
    await Promise.all(s.human.browsing);
    assert(r.isError, textOf(r));
    assert(!textOf(r).includes("\n"), textOf(r));
    assertMatch(
      textOf(r),
      new RegExp(
        `^pane ${pane} shows a password prompt \\(last line: "Password:"\\) but its terminal echoes what is typed`,
      ),
    );
    assertEquals(s.human.asked, []);
    assert(!(await paneText(s, pane)).includes("got "));
    await assertNowhere(s, s.human.secret);
  });
});

Deno.test("pane: send-keys and run-command at a password prompt whose terminal echoes do not point at request-input", async () => {
  await withHuman(
    BOTH,
    async (s) => {
      const echoed = (pane: string) =>
        new RegExp(
          `^pane ${pane} shows a password prompt \\("Password:"\\) but its terminal echoes what is typed.*` +
            "not through request-input either; look again with snapshot-pane",
        );
      const script = `${s.dir}/echoed.sh`;
      await Deno.writeTextFile(script, `read -r -p 'Name: ' n\n${ECHOED_SCRIPT}`);
      // send-keys: the line that answers the name brings up the prompt (the same bash, at once).
      const typed = await s.pane("Name:", `read -r -p 'Name: ' n\n${ECHOED_SCRIPT}`);
      type Keys = { warnings?: { message: string }[] };
      const keys = await s.call("send-keys", { target: typed, text: "bob", enter: true });
      assert(!keys.isError, textOf(keys));
      await waitForPane(s.tmux, typed, /Password: ?$/m, 30_000);
      // Keys that leave the line as it was (a letter, then erasing it), until the look after them sees the prompt.
      const warnings = [...((keys.structuredContent as Keys).warnings ?? [])];
      for (let attempt = 0; warnings.length === 0 && attempt < 4; attempt++) {
        const r = await s.call("send-keys", { target: typed, text: "a", keys: ["BSpace"] });
        warnings.push(...((r.structuredContent as Keys).warnings ?? []));
      }
      assert(warnings.length > 0, "no warning at the password prompt");
      for (const w of warnings) assertMatch(w.message, echoed(typed));
      // run-command: its running answer, once the prompt is drawn.
      const pane = await s.pane("bash-");
      type Run = { continue?: string; warnings: { message: string }[] };
      let run = await s.call("run-command", { target: pane, command: `bash ${script}`, timeout_ms: 120_000 });
      let out = run.structuredContent as Run;
      let n = 0;
      while (out.continue !== undefined && !out.warnings.some((w) => /Password/.test(w.message))) {
        if (n++ === 0) await s.tmux.tmux("send-keys", "-t", pane, "-l", "bob");
        if (n === 1) await s.tmux.tmux("send-keys", "-t", pane, "Enter");
        run = await s.call("run-command", { continue: out.continue });
        out = run.structuredContent as Run;
      }
      assert(out.continue !== undefined, `the run ended: ${JSON.stringify(out)}`);
      assertEquals(out.warnings.length, 1, JSON.stringify(out.warnings));
      assertMatch(out.warnings[0].message, echoed(pane));
    },
    "tmux",
    ["--call-budget-ms", "1500"],
  );
});

Deno.test("pane: with synchronize-panes, or input off, the human is not asked and nothing is typed", async () => {
  await withHuman(BOTH, async (s) => {
    s.human.secret = `pw-${crypto.randomUUID()}`;
    const secret = await s.pane("Password:", SECRET_SCRIPT);
    const other = (await s.tmux.tmux("split-window", "-d", "-t", secret, "-P", "-F", "#{pane_id}", "cat")).trim();
    await s.tmux.tmux("set-option", "-w", "-t", secret, "synchronize-panes", "on");
    // The secret was typed into the other pane as well, where cat showed it on the screen.
    const synced = await s.call("request-input", { target: secret, prompt: "Enter it", timeout_ms: 60_000 });
    assert(synced.isError, textOf(synced));
    assertMatch(
      textOf(synced),
      new RegExp(`^pane ${secret} has synchronize-panes on: tmux would type the human's answer into ${other} too`),
    );
    await s.tmux.tmux("set-option", "-w", "-t", secret, "synchronize-panes", "off");
    await s.tmux.tmux("select-pane", "-d", "-t", secret);
    const off = await s.call("request-input", { target: secret, prompt: "Enter it", timeout_ms: 60_000 });
    assertMatch(textOf(off), new RegExp(`^pane ${secret} has its input off`));
    assertEquals(s.human.asked, []);
    assert(!(await paneText(s, secret)).includes("digest"));
    await assertNowhere(s, s.human.secret);
  });
});

Deno.test("pane: a client without elicitation gets the attach command; nothing is typed", async () => {
  await withHuman(undefined, async (s) => {
    const pane = await s.pane("Password:", SECRET_SCRIPT);
    const r = await s.call("request-input", { target: pane, prompt: "Enter it", timeout_ms: 300 });
    assert(!r.isError, textOf(r));
    const out = r.structuredContent as Record<string, unknown>;
    assertEquals([out.pane_id, out.outcome, out.via], [pane, "timeout", "attach"]);
    assertMatch(out.attach_command as string, new RegExp(`^tmux -S \\S+ attach-session -t ${pane}$`));
    assertMatch(out.message as string, /attach-session/);
    assert(!(await paneText(s, pane)).includes("digest"));
  });
});

Deno.test("pane: bad targets and panes not at a prompt get one clear line; nothing is asked", async () => {
  await withHuman(BOTH, async (s) => {
    const err = async (args: Record<string, unknown>) => {
      const r = await s.call("request-input", { prompt: "x", timeout_ms: 1000, ...args });
      assert(r.isError, JSON.stringify(r));
      assert(!textOf(r).includes("\n"), textOf(r));
      return textOf(r);
    };
    assertMatch(await err({ target: "%999" }), /%999/);
    assertMatch(await err({ target: "-t" }), /target must not start with '-'/);
    // The former names answer with what replaced them.
    for (const old of ["pty-request-input", "pty_request_input"]) {
      const r = await s.call(old, { pty_id: "s1", prompt: "x" });
      assertMatch(textOf(r), new RegExp(`^unknown tool "${old}": it is now request-input with pty_id\\.`));
    }
    assertMatch(
      await err({ target: "main", pty_id: "s1" }),
      /^pass target \(a pane\) or pty_id \(a pty session\), not both/,
    );
    // A shell at its own prompt, even one that reads like a password prompt: no program waits for an answer.
    const shell = await s.pane("bash-");
    await s.tmux.tmux("send-keys", "-t", shell, "-l", "PS1='Password: '");
    await s.tmux.tmux("send-keys", "-t", shell, "Enter");
    await waitForPane(s.tmux, shell, (t) => t.trimEnd().split("\n").at(-1) === "Password:");
    assertMatch(
      await err({ target: shell }),
      new RegExp(
        `^pane ${shell} is not waiting at a password or yes/no prompt \\(last line: "Password:"\\): nothing was asked`,
      ),
    );
    assertEquals(s.human.asked, []);
  });
});

Deno.test("pane: gpg's pinentry-curses is a passphrase prompt; request-input hands it over; the key signs", async () => {
  await withHuman(BOTH, async (s) => {
    s.human.secret = `pp-${crypto.randomUUID()}`;
    const gpg = await gpgHome(s.dir, s.human.secret);
    try {
      const signed = `${s.dir}/signed.gpg`;
      const pane = await s.pane(
        "",
        `export GNUPGHOME='${gpg.home}' GPG_TTY="$(tty)"\necho hello | gpg --sign --output '${signed}'\n` +
          `echo "gpg exit $?"\nexec sleep 3600\n`,
      );
      // The agent starts, then its pinentry draws the box (slow on a loaded machine).
      const box = await waitForPane(s.tmux, pane, /Passphrase: _+/, 60_000);
      type Snap = { warnings: { kind: string; message: string }[] };
      for (const tool of ["snapshot-pane", "capture-pane"]) {
        const snap = await s.call(tool, { target: pane });
        assert(!snap.isError, textOf(snap));
        const warnings = (snap.structuredContent as Snap).warnings;
        assertEquals(warnings.map((w) => w.kind), ["input_prompt"], tool);
        assertMatch(
          warnings[0].message,
          new RegExp(
            `^pane ${pane} shows a passphrase entry \\(pinentry, "Passphrase:"\\): call request-input \\{target: "${pane}"\\}`,
          ),
        );
      }

      // The same text shown by a pager is no prompt (an editor: tests/handoff_test.ts, pinentryField).
      const copy = `${s.dir}/pinentry.txt`;
      await Deno.writeTextFile(copy, box);
      const shown = await s.pane("", `exec less ${copy}\n`);
      await waitForPane(s.tmux, shown, /Passphrase: _+/, 30_000);
      const paged = await s.call("snapshot-pane", { target: shown });
      assertEquals((paged.structuredContent as Snap).warnings.map((w) => w.kind), ["pager"]);

      const r = await s.call("request-input", {
        target: pane,
        prompt: "Enter the key's passphrase",
        timeout_ms: 120_000,
      });
      assert(!r.isError, textOf(r));
      await Promise.all(s.human.browsing);
      const out = r.structuredContent as Record<string, unknown>;
      assertEquals([out.outcome, out.via], ["input_received", "url"]);
      await waitForPane(s.tmux, pane, /gpg exit 0/, 60_000);
      assertMatch(await gpg.run("gpg", "--batch", "--decrypt", signed), /^hello$/m);
      await assertNowhere(s, s.human.secret);
    } finally {
      await gpg.close();
    }
  });
});

Deno.test("pane: send-keys points at request-input when its keys meet a password or yes/no prompt, and only then", async () => {
  await withHuman(undefined, async (s) => {
    type Sent = { warnings?: { kind: string; message: string }[] };
    const send = async (args: Record<string, unknown>) => {
      const r = await s.call("send-keys", args);
      assert(!r.isError, textOf(r));
      return ((r.structuredContent as Sent).warnings ?? []).map((w) => w.message);
    };
    const shell = await s.pane("bash-");
    // A line that brings up a prompt only the terminal's no-echo mode gives away.
    const asks = `read -r -s -p 'Your word> ' pw; echo; echo "got=\${#pw}"`;
    const hidden = new RegExp(`^pane ${shell} reads input without echo .*call request-input \\{target: "${shell}"\\}`);
    const [first] = await send({ target: shell, text: asks, enter: true });
    assertMatch(first, hidden);
    // Text typed there would be its answer: refused, nothing typed, and it still waits.
    const typed = await s.call("send-keys", { target: shell, text: "abc" });
    assert(typed.isError);
    assertMatch(textOf(typed), /reads input without echo .*so the text was not typed.*call request-input/);
    // Enter answers it (empty); the shell is back at its prompt: nothing to say.
    assertEquals(await send({ target: shell, keys: ["Enter"] }), []);
    await waitForPane(s.tmux, shell, /got=0/, 30_000);
    assertEquals(await send({ target: shell, text: "echo hi", enter: true }), []);
    assertEquals(await send({ target: shell, text: "sleep 30", enter: true }), []);

    await send({ target: shell, keys: ["C-c"] });
    await waitForPane(s.tmux, shell, (t) => /bash-[\d.]+[#$]$/.test(t.trimEnd()));
    // A prompt in words: a yes/no (its answer typed is no prompt), a password prompt typed into.
    const [yesNo] = await send({
      target: shell,
      text: "read -r -p 'Overwrite it? [y/N] ' yn; echo answer=$yn",
      enter: true,
    });
    assertMatch(yesNo, new RegExp(`^pane ${shell} appears to wait for input .*request-input`));
    assertEquals(await send({ target: shell, text: "y", enter: true }), []);
    await waitForPane(s.tmux, shell, /answer=y/, 30_000);
    const secret = await s.pane("Password:", SECRET_SCRIPT);
    const [words] = await send({ target: secret, keys: ["C-u"] });
    assertMatch(words, new RegExp(`^pane ${secret} waits at a password prompt .*call request-input`));
  });
});

/** A raw 2026-era connection to a server whose workspace has a pane at `script`'s prompt (`shows`). */
interface Parked {
  tmux: TmuxFixture;
  pane: string;
  s: ReturnType<typeof rawServer>;
  /** Every message the server wrote, in order. */
  seen: Record<string, unknown>[];
  /** The reply to request `id`, once it came. */
  reply(id: number): Promise<Record<string, unknown>>;
  /** The progress notifications sent under `token`. */
  progressOf(token: string): Record<string, unknown>[];
  /** A request-input call's params for the pane, with the 2026 envelope (`capability`: the elicitation mode). */
  call(extra?: Record<string, unknown>, progressToken?: string): Record<string, unknown>;
}

async function withParked(
  label: string,
  script: string,
  shows: string,
  capability: Record<string, unknown>,
  fn: (p: Parked) => Promise<void>,
): Promise<void> {
  const tmux = await startTmux(label);
  const dir = await Deno.makeTempDir({ prefix: "tmcp-handoff-" });
  await Deno.writeTextFile(`${dir}/prog.sh`, script);
  const env = ["env", "-i", `PATH=${Deno.env.get("PATH")}`, `HOME=${dir}`, "TERM=xterm-256color", "HISTFILE=/dev/null"];
  const pane =
    (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", ...env, "bash", "--norc", `${dir}/prog.sh`))
      .trim();
  await waitForPane(tmux, pane, (text) => text.includes(shows), 30_000);
  const s = rawServer(tmux.socketName);
  const seen: Record<string, unknown>[] = [];
  const reading = (async () => {
    for (;;) {
      const line = await s.line().catch(() => undefined);
      if (line === undefined) return;
      seen.push(JSON.parse(line));
    }
  })();
  try {
    await fn({
      tmux,
      pane,
      s,
      seen,
      reply: (id) => waitUntil(`the reply to ${id}`, () => Promise.resolve(seen.find((m) => m.id === id)), 30_000),
      progressOf: (token) =>
        seen.filter((m) =>
          m.method === "notifications/progress" && (m.params as Record<string, unknown>).progressToken === token
        ),
      call: (extra = {}, progressToken) => ({
        _meta: envelope({
          "io.modelcontextprotocol/clientCapabilities": { elicitation: capability },
          ...(progressToken === undefined ? {} : { progressToken }),
        }),
        name: "request-input",
        arguments: { target: pane, prompt: "Enter it", timeout_ms: 60_000 },
        ...extra,
      }),
    });
  } finally {
    await s.stop();
    await reading;
    await tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("pane, 2026 era: a parked call's progress goes to the retry that follows it, never to a request already answered", async () => {
  await withParked("handoffprogress", SECRET_SCRIPT, "Password:", { url: {} }, async (p) => {
    await p.s.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: p.call({}, "first") });
    const first = (await p.reply(1)).result as Record<string, unknown>;
    assertEquals(first.resultType, "input_required");
    const asked = Object.values(first.inputRequests as Record<string, { params: { url: string } }>)[0];
    const answered = p.seen.length;
    // The asking call beats its progress every second while it waits: none may reach request 1, answered already.
    await new Promise((r) => setTimeout(r, 2500));
    assertEquals(p.progressOf("first").filter((m) => p.seen.indexOf(m) > answered), []);
    const retry = { requestState: first.requestState, inputResponses: { q1: { action: "accept" } } };
    await p.s.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: p.call(retry, "retry") });
    // The retry follows the call while it waits for the page: its progress goes there.
    await waitUntil("progress on the retry", () => Promise.resolve(p.progressOf("retry").length > 0 || undefined));
    const html = await (await fetch(asked.params.url)).text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1];
    await (await fetch(new URL(action, asked.params.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ secret: "pw-progress" }).toString(),
    })).text();
    const done = (await p.reply(2)).result as { structuredContent: { outcome: string } };
    assertEquals(done.structuredContent.outcome, "input_received");
    await waitForPane(p.tmux, p.pane, /digest/, 30_000);
    assertEquals(p.progressOf("first").filter((m) => p.seen.indexOf(m) > answered), []);
  });
});

Deno.test("pane, 2026 era: cancelling the retry that follows a parked call cancels the call; the secret page closes", async () => {
  await withParked("handoffcancel", SECRET_SCRIPT, "Password:", { url: {} }, async (p) => {
    await p.s.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: p.call({}, "first") });
    const first = (await p.reply(1)).result as Record<string, unknown>;
    assertEquals(first.resultType, "input_required");
    const asked = Object.values(first.inputRequests as Record<string, { params: { url: string } }>)[0];
    const retry = { requestState: first.requestState, inputResponses: { q1: { action: "accept" } } };
    await p.s.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: p.call(retry, "retry") });
    await waitUntil(
      "the retry to follow the call",
      () => Promise.resolve(p.progressOf("retry").length > 0 || undefined),
    );
    await p.s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "the user" } });
    // The call ends as a cancelled one ends in the 2025 era: its page is gone before its 60 s timeout.
    await waitUntil("the page to close", async () => {
      const status = await fetch(asked.params.url).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      }, () => "closed");
      return status === 200 ? undefined : status;
    }, 15_000);
    assert(!(await p.tmux.tmux("capture-pane", "-p", "-J", "-t", p.pane)).includes("digest"));
  });
});

Deno.test("pane, 2025 era: a client whose elicitation fails gets one line saying so, not an internal error; nothing is typed", async () => {
  const tmux = await startTmux("handofffail");
  const dir = await Deno.makeTempDir({ prefix: "tmcp-handoff-" });
  const path = `${dir}/prog.sh`;
  await Deno.writeTextFile(path, CONFIRM_SCRIPT);
  const env = ["env", "-i", `PATH=${Deno.env.get("PATH")}`, `HOME=${dir}`, "TERM=xterm-256color", "HISTFILE=/dev/null"];
  const pane = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", ...env, "bash", "--norc", path))
    .trim();
  await waitForPane(tmux, pane, (text) => text.includes("[y/N]"), 30_000);
  const mcp = await connect({
    socketName: tmux.socketName,
    era: "legacy",
    capabilities: { elicitation: { form: {} } },
    elicit: () => Promise.reject(new Error("no dialog available")),
  });
  try {
    const r = await mcp.call("request-input", { target: pane, prompt: "Overwrite?", timeout_ms: 10_000 });
    assert(r.isError);
    assertMatch(textOf(r), /^the client failed to ask the human \(.*no dialog available\): nothing was typed/);
    assert(!textOf(r).includes("\n"), textOf(r));
    assert(!(await tmux.tmux("capture-pane", "-p", "-J", "-t", pane)).includes("answer="));
  } finally {
    await mcp.close();
    await tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pane: a timeout_ms longer than the call budget ends with the budget, as a timeout; nothing is typed", async () => {
  await withHuman(
    undefined,
    async (s) => {
      const pane = await s.pane("Password:", SECRET_SCRIPT);
      const t0 = performance.now();
      const r = await s.call("request-input", { target: pane, prompt: "Enter it", timeout_ms: 600_000 });
      const took = performance.now() - t0;
      assert(!r.isError, textOf(r));
      const out = r.structuredContent as Record<string, unknown>;
      assertEquals([out.outcome, out.via], ["timeout", "attach"]);
      assertMatch(out.message as string, /call request-input again/);
      assert(took < 2000 + 15_000, `request-input took ${Math.round(took)} ms`);
      assert(!(await paneText(s, pane)).includes("digest"));
    },
    "tmux",
    ["--call-budget-ms", "2000"],
  );
});

Deno.test("pane, 2026 era: a retry whose answer is malformed says the client's answer was malformed, not that the human dismissed it", async () => {
  await withParked("handoffmalformed", CONFIRM_SCRIPT, "[y/N]", { form: {} }, async (p) => {
    for (const [id, reply] of [[1, { action: "accept" }], [3, { action: "accept", content: { yes: "y" } }]] as const) {
      await p.s.send({ jsonrpc: "2.0", id, method: "tools/call", params: p.call() });
      const first = (await p.reply(id)).result as { resultType: string; requestState: string };
      assertEquals(first.resultType, "input_required");
      const retry = { requestState: first.requestState, inputResponses: { q1: reply } };
      await p.s.send({ jsonrpc: "2.0", id: id + 1, method: "tools/call", params: p.call(retry) });
      const done = (await p.reply(id + 1)).result as CallToolResult;
      assert(done.isError, JSON.stringify(done));
      assertMatch(textOf(done), /^the client answered the form without a boolean "yes": nothing was typed/);
    }
    assert(!(await p.tmux.tmux("capture-pane", "-p", "-t", p.pane)).includes("answer="));
  });
});
