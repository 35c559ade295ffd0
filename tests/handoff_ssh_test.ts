/**
 * request-input's attach route for a pane on a remote host (`--ssh`, the
 * real sshd fixture), for a client without elicitation: the attach command
 * it answers with is run as a person would, in a terminal (a pane of the
 * test's own local tmux server); the secret is typed there, reaches the
 * remote pane's `read -s`, and the person detaches. Afterwards the secret is
 * searched for in every tool result, the audit log, the server's stderr, and
 * every buffer, screen and history of both tmux servers. And the one-shot
 * page's route to a remote pane, every command in a client of its own: the
 * secret reaches the remote `read -s` on no command line. Runs in both
 * protocol eras (TMUX_MCP_TEST_ERA).
 */
import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import type { CallToolResult } from "../lib/sdk.ts";
import { connect, startTmux, textOf } from "./helpers.ts";
import { newPane, waitForPane } from "./pane_helpers.ts";
import { startSshd } from "./ssh_fixture.ts";
import {
  answering,
  argvRecorder,
  assertNotOnCommandLines,
  assertNotOnTmux,
  BOTH,
  type Human,
  SECRET_SCRIPT,
  sha16,
} from "./handoff_helpers.ts";

/** The remote tmux started, and a pane of it at SECRET_SCRIPT's password prompt (its script written in `dir`). */
async function secretPane(fx: Awaited<ReturnType<typeof startSshd>>, dir: string) {
  await fx.startTmux();
  const remote = { tmux: fx.tmux };
  const script = `${dir}/ask.sh`;
  await Deno.writeTextFile(script, SECRET_SCRIPT);
  const pane = await newPane(remote, [..."env HISTFILE=/dev/null bash --norc --noprofile".split(" "), script]);
  await waitForPane(remote, pane, /Password:/, 30_000);
  return { remote, pane };
}

Deno.test("ssh pane: the attach command works from a terminal; the secret typed there reaches the remote pane only", async () => {
  const fx = await startSshd();
  const local = await startTmux("handoff-human");
  const dir = await Deno.makeTempDir({ prefix: "tmcp-handoff-ssh-" });
  const audit = `${dir}/audit.log`;
  let mcp: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    const { remote, pane } = await secretPane(fx, dir);

    mcp = await connect({
      args: ["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName, "--audit-log", audit],
    });
    const results: CallToolResult[] = [];
    const call = async (args: Record<string, unknown>) => {
      const r = await mcp!.call("request-input", { target: pane, prompt: "Enter the test password", ...args });
      assert(!r.isError, textOf(r));
      results.push(r);
      return r.structuredContent as Record<string, unknown>;
    };

    // Nobody attaches within a short bound: the answer carries the command line.
    const first = await call({ timeout_ms: 300 });
    assertEquals([first.outcome, first.via], ["timeout", "attach"]);
    const attach = first.attach_command as string;
    assertMatch(
      attach,
      new RegExp(`^ssh -t -F ${fx.configPath} ${fx.alias} 'tmux -S \\S+ attach-session -t ${pane}'$`),
    );

    // The person runs it in a terminal while the hand-off waits, types the secret there, and detaches.
    const waiting = call({ timeout_ms: 120_000 });
    const secret = `pw-${crypto.randomUUID()}`;
    const term = await newPane(
      local,
      ["env", "-i", `PATH=${Deno.env.get("PATH")}`, `HOME=${dir}`, "TERM=xterm-256color", "sh", "-c", attach],
    );
    await waitForPane(local, term, /Password:/, 60_000);
    // The hand-off saw the person attach (it shows them the prompt on their terminal).
    await waitForPane(local, term, /Enter the test password/, 60_000);
    await local.tmux("send-keys", "-t", term, "-l", secret);
    await local.tmux("send-keys", "-t", term, "Enter");
    await waitForPane(remote, pane, new RegExp(`digest ${await sha16(secret)}`), 60_000);
    await local.tmux("send-keys", "-t", term, "C-b", "d");
    const done = await waiting;
    assertEquals([done.outcome, done.via, done.attach_command], ["detached", "attach", attach]);
    assertMatch(done.message as string, /attached and detached again; continue with snapshot-pane/);

    for (const r of results) assert(!JSON.stringify(r).includes(secret), "the secret is in a tool result");
    await mcp.close(); // the audit log is complete once the server has exited
    assert(!(await Deno.readTextFile(audit)).includes(secret), "the secret is in the audit log");
    assert(!mcp.stderr().includes(secret), "the secret is on the server's stderr");
    await assertNotOnTmux(fx.tmux, secret);
    await assertNotOnTmux(local.tmux, secret);
  } finally {
    await mcp?.close();
    await local.kill();
    await fx.cleanup();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ssh pane: a secret from the one-shot page reaches the remote pane on tmux's stdin, on no command line", async () => {
  const fx = await startSshd();
  const argv = await argvRecorder();
  const dir = await Deno.makeTempDir({ prefix: "tmcp-handoff-ssh-" });
  const audit = `${dir}/audit.log`;
  const human: Human = { reply: "accept", yes: true, secret: `pw-${crypto.randomUUID()}`, asked: [], browsing: [] };
  let mcp: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    const { remote, pane } = await secretPane(fx, dir);
    mcp = await connect({
      args: [
        ...["--ssh", fx.alias, "--ssh-config", fx.configPath, "--socket-name", fx.socketName, "--audit-log", audit],
        // Every command in a client of its own: what the remote shell is given is a command line.
        ...["--control-mode", "off", "--tmux-bin", argv.bin],
      ],
      capabilities: BOTH,
      elicit: answering(human),
    });
    const r = await mcp.call("request-input", { target: pane, prompt: "Enter the test password", timeout_ms: 120_000 });
    assert(!r.isError, textOf(r));
    await Promise.all(human.browsing);
    const out = r.structuredContent as Record<string, unknown>;
    assertEquals([out.outcome, out.via], ["input_received", "url"]);
    await waitForPane(remote, pane, new RegExp(`digest ${await sha16(human.secret)}`), 60_000);
    assert(!JSON.stringify(r).includes(human.secret), "the secret is in a tool result");
    await mcp.close();
    assert(!(await Deno.readTextFile(audit)).includes(human.secret), "the secret is in the audit log");
    await assertNotOnTmux(fx.tmux, human.secret);
    assertNotOnCommandLines(await argv.lines(), human.secret);
  } finally {
    await mcp?.close();
    await fx.cleanup();
    await argv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ssh pane: with --tmux-bin ~/PATH the attach command runs that tmux on the host, its ~ expanded there", async () => {
  const fx = await startSshd();
  const local = await startTmux("handoff-tilde");
  const dir = await Deno.makeTempDir({ prefix: "tmcp-handoff-ssh-" });
  let mcp: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    const { pane } = await secretPane(fx, dir);
    // The remote HOME's own tmux: a path only the host's shell resolves.
    await Deno.mkdir(`${fx.dir}/home/bin`);
    await Deno.symlink("/usr/bin/tmux", `${fx.dir}/home/bin/tmux`);
    mcp = await connect({
      args: [
        "--ssh",
        fx.alias,
        "--ssh-config",
        fx.configPath,
        "--socket-name",
        fx.socketName,
        "--tmux-bin",
        "~/bin/tmux",
      ],
    });
    const r = await mcp.call("request-input", { target: pane, prompt: "Enter the test password", timeout_ms: 300 });
    assert(!r.isError, textOf(r));
    const attach = (r.structuredContent as Record<string, unknown>).attach_command as string;
    assertMatch(
      attach,
      new RegExp(`^ssh -t -F ${fx.configPath} ${fx.alias} '~/bin/tmux -S \\S+ attach-session -t ${pane}'$`),
    );
    // Run as a person would, from a directory where no ~ is: the terminal shows the remote pane.
    const term = await newPane(
      local,
      ["env", "-i", `PATH=${Deno.env.get("PATH")}`, `HOME=${dir}`, "TERM=xterm-256color", "sh", "-c", attach],
    );
    await waitForPane(local, term, /Password:/, 60_000);
    await local.tmux("send-keys", "-t", term, "C-b", "d");
  } finally {
    await mcp?.close();
    await local.kill();
    await fx.cleanup();
    await Deno.remove(dir, { recursive: true });
  }
});
