/**
 * The pieces the hand-off tests share (tests/handoff_test.ts for pty
 * sessions, tests/handoff_pane_test.ts for workspace panes): a server whose
 * client answers elicitation as a scripted human (a browser for URL mode),
 * programs that ask for a password or a yes/no, and the search for the
 * secret everywhere it must not be.
 */
import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import type { CallToolResult } from "../lib/sdk.ts";
import { connect, type McpFixture, startTmux, textOf, type TmuxFixture } from "./helpers.ts";
import { waitForPane, waitUntil } from "./pane_helpers.ts";

export type Reply = "accept" | "decline" | "cancel" | "hang";

/** What the test's client does with the next elicitation/create, and what it was asked. */
export interface Human {
  reply: Reply;
  /** For a form: the yes/no answer. */
  yes: boolean;
  secret: string;
  asked: Record<string, unknown>[];
  /** The browser's work on URL questions (awaited by the test). */
  browsing: Promise<void>[];
  /** Runs in the browser after it opened the page, before it posts. */
  beforePost?: () => Promise<void>;
  /** The pages the browser opened (their HTML). */
  pages?: string[];
  /** What the page must answer the post with (default: by whether `beforePost` is set). */
  expectPost?: RegExp;
  /** For a form: the human answers once this resolves (someone who takes a while to read the question). */
  thinking?: () => Promise<void>;
  /**
   * For `hang`: resolves once the server has given up, and the human answers (cancels) only then. A 2025 server
   * cancels its elicitation/create at its timeout; a 2026 client can only be told on its retry, which comes when
   * the human answers.
   */
  late?: () => Promise<unknown>;
}

/** One shot: the page is closed, or (a kept-alive connection still open) answers 410 Gone. */
export async function assertSpent(url: string): Promise<void> {
  const after = await fetch(url).then(async (r) => {
    await r.body?.cancel();
    return r.status;
  }, () => "closed");
  assert(after === 410 || after === "closed", `the page answered ${after} after its one shot`);
}

/** The browser: opens the page, checks it is a password form, posts the secret. */
async function browse(url: string, human: Human): Promise<void> {
  const get = await fetch(url);
  const html = await get.text();
  assertEquals(get.status, 200);
  assertMatch(html, /<input type="password" name="secret"/);
  human.pages?.push(html);
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1];
  const late = human.beforePost !== undefined;
  await human.beforePost?.();
  const post = await fetch(new URL(action, url), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    // No secret: the human presses the page's button for an empty answer (the field's own submit requires one).
    body: new URLSearchParams(
      human.secret === "" ? { secret: "", empty: "Send an empty answer" } : {
        secret: human.secret,
      },
    ).toString(),
  });
  if (human.secret === "") assertMatch(html, /<input type="submit" name="empty" [^>]*formnovalidate>/);
  assertMatch(
    await post.text(),
    human.expectPost ?? (late ? /no longer waits at its password prompt; nothing was typed/ : /Sent to the terminal/),
  );
  await assertSpent(url);
}

export function answering(human: Human) {
  return (params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> => {
    human.asked.push(params);
    if (human.reply === "hang") {
      return new Promise((resolve, reject) => {
        signal.addEventListener("abort", () => reject(new Error("gone")));
        void human.late?.().then(() => resolve({ action: "cancel" }));
      });
    }
    if (human.reply !== "accept") return Promise.resolve({ action: human.reply });
    if (params.mode === "url") {
      human.browsing.push(browse(String(params.url), human));
      return Promise.resolve({ action: "accept" });
    }
    const answer = { action: "accept", content: { yes: human.yes } };
    return human.thinking ? human.thinking().then(() => answer) : Promise.resolve(answer);
  };
}

export const SECRET_SCRIPT = `read -r -s -p 'Password: ' pw; echo
printf 'digest %s\\n' "$(printf %s "$pw" | sha256sum | cut -c1-16)"
exec sleep 3600
`;
export const CONFIRM_SCRIPT = `read -r -p 'Overwrite it? [y/N] ' yn
printf 'answer=%s\\n' "$yn"
exec sleep 3600
`;

/** A yes/no read key by key (the terminal out of line mode), then a line: an Enter after the key would answer it. */
export const ONE_KEY_SCRIPT = `read -r -n1 -p 'Overwrite it? [y/N] ' yn
printf '\\nanswer=%s\\n' "$yn"
read -r -p 'Next: ' next
printf 'next=[%s]\\n' "$next"
exec sleep 3600
`;

/**
 * A yes/no read by a line editor (Node's readline): out of line mode like a one-key read, but echo off, and the
 * answer ends at Enter.
 */
export const LINE_EDITOR_SCRIPT = `exec node -e '
const rl = require("readline").createInterface({ input: process.stdin, output: process.stdout });
rl.question("Overwrite it? [y/N] ", (a) => { console.log("answer=" + a); setInterval(() => {}, 1e9); });'
`;

export async function sha16(s: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16);
}

export interface Setup {
  mcp: McpFixture;
  tmux: TmuxFixture;
  human: Human;
  audit: string;
  dir: string;
  /** Every tool result of the test. */
  results: CallToolResult[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  launch(script: string, shows: string): Promise<string>;
  /**
   * A new window of the workspace running bash without rc files or history file (`script` when given, else
   * interactive); resolves with its pane id once its screen shows `shows`.
   */
  pane(shows: string, script?: string): Promise<string>;
  screen(id: string): Promise<string>;
}

export async function withHuman(
  capabilities: Record<string, unknown> | undefined,
  fn: (s: Setup) => Promise<void>,
  backend = "tmux",
  serverArgs: string[] = [],
): Promise<void> {
  const tmux = await startTmux("handoff");
  const dir = await Deno.makeTempDir({ prefix: "tmcp-handoff-" });
  const audit = `${dir}/audit.log`;
  const human: Human = { reply: "accept", yes: true, secret: "", asked: [], browsing: [] };
  const mcp = await connect({
    socketName: tmux.socketName,
    args: ["--terminal-backend", backend, "--audit-log", audit, ...serverArgs],
    capabilities,
    elicit: capabilities ? answering(human) : undefined,
  });
  const results: CallToolResult[] = [];
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await mcp.call(name, args);
    results.push(r);
    return r;
  };
  const screen = async (id: string) => {
    const r = await call("pty-get-screen", { pty_id: id });
    assert(!r.isError, textOf(r));
    return (r.structuredContent as { screen: string }).screen;
  };
  const launch = async (script: string, shows: string) => {
    const path = `${dir}/prog-${crypto.randomUUID()}.sh`;
    await Deno.writeTextFile(path, script);
    const r = await call("pty-launch", { command: `HISTFILE=/dev/null bash --norc --noprofile ${path}` });
    assert(!r.isError, textOf(r));
    const id = (r.structuredContent as { pty_id: string }).pty_id;
    await waitUntil(`the prompt ${shows}`, async () => (await screen(id)).includes(shows), 30_000);
    return id;
  };
  const pane = async (shows: string, script?: string) => {
    const argv = [
      "env",
      "-i",
      `PATH=${Deno.env.get("PATH")}`,
      `HOME=${dir}`,
      "TERM=xterm-256color",
      "HISTFILE=/dev/null",
    ];
    argv.push("bash", "--norc", "--noprofile");
    if (script !== undefined) {
      const path = `${dir}/prog-${crypto.randomUUID()}.sh`;
      await Deno.writeTextFile(path, script);
      argv.push(path);
    }
    const id = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", ...argv)).trim();
    await waitForPane(tmux, id, (text) => text.includes(shows), 30_000);
    return id;
  };
  try {
    await fn({ mcp, tmux, human, audit, dir, results, call, launch, pane, screen });
  } finally {
    await mcp.close();
    await tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Asserts `secret` is nowhere: tool results, audit log, server stderr, tmux buffers, every pane's screen and
 * history, the client's questions.
 */
export async function assertNowhere(s: Setup, secret: string): Promise<void> {
  for (const r of s.results) assert(!JSON.stringify(r).includes(secret), "the secret is in a tool result");
  await s.mcp.close(); // the audit log is complete once the server has exited
  assert(!(await Deno.readTextFile(s.audit)).includes(secret), "the secret is in the audit log");
  assert(!s.mcp.stderr().includes(secret), "the secret is on the server's stderr");
  assert(!JSON.stringify(s.human.asked).includes(secret), "the secret is in an elicitation request");
  await assertNotOnTmux(s.tmux.tmux, secret);
}

/** Asserts `secret` is in no buffer and on no pane's screen or history of the tmux server `tmux` runs on. */
export async function assertNotOnTmux(tmux: (...args: string[]) => Promise<string>, secret: string): Promise<void> {
  const names = (await tmux("list-buffers", "-F", "#{buffer_name}")).split("\n").filter((n) => n !== "");
  for (const name of names) {
    assert(!(await tmux("show-buffer", "-b", name)).includes(secret), `the secret is in buffer ${name}`);
  }
  const panes = (await tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n").filter((p) => p !== "");
  for (const p of panes) {
    const text = await tmux("capture-pane", "-p", "-J", "-S", "-", "-t", p);
    assert(!text.includes(secret), `the secret is on pane ${p}'s screen or history`);
  }
}

export const BOTH = { elicitation: { form: {}, url: {} } };

/** A throw-away GnuPG home with one signing key, for gpg's own passphrase prompt (pinentry-curses). */
export interface GpgHome {
  /** GNUPGHOME. */
  home: string;
  /** Runs gpg (or gpgconf) on this home; throws with its stderr when it fails. */
  run(bin: "gpg" | "gpgconf", ...args: string[]): Promise<string>;
  /** Ends its gpg-agent and removes the agent's socket directory. */
  close(): Promise<void>;
}

/**
 * Makes a GnuPG home under `dir` whose agent asks through pinentry-curses (on the terminal named by GPG_TTY), with
 * a key protected by `passphrase` (generated in batch mode through loopback pinentry) and no passphrase cached.
 */
export async function gpgHome(dir: string, passphrase: string): Promise<GpgHome> {
  const home = `${dir}/gnupg`;
  await Deno.mkdir(home, { mode: 0o700 });
  await Deno.writeTextFile(
    `${home}/gpg-agent.conf`,
    "pinentry-program /usr/bin/pinentry-curses\nallow-loopback-pinentry\ndefault-cache-ttl 0\nmax-cache-ttl 0\n",
  );
  const run = async (bin: "gpg" | "gpgconf", ...args: string[]) => {
    const child = new Deno.Command(bin, {
      args,
      env: { GNUPGHOME: home, HOME: dir, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // Only key generation reads stdin (the passphrase, kept off the command line).
    const w = child.stdin.getWriter();
    if (args.includes("--quick-gen-key")) await w.write(new TextEncoder().encode(passphrase + "\n"));
    await w.close();
    const out = await child.output();
    if (!out.success) throw new Error(`${bin} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
    return new TextDecoder().decode(out.stdout);
  };
  await run(
    "gpg",
    ...["--batch", "--pinentry-mode", "loopback", "--passphrase-fd", "0", "--quick-gen-key"],
    ...["Handoff Test <handoff@example.invalid>", "ed25519", "sign", "never"],
  );
  // The agent that generated the key ends here: the next one starts from the pane, with the pane's terminal.
  await run("gpgconf", "--kill", "gpg-agent");
  return {
    home,
    run,
    async close() {
      await run("gpgconf", "--kill", "gpg-agent").catch(() => {});
      await run("gpgconf", "--remove-socketdir").catch(() => {});
    },
  };
}

/** A tmux (`bin`, for --tmux-bin) that records each command line it is started with, as `ps` shows it, in `log`. */
export async function argvRecorder(): Promise<{ bin: string; lines(): Promise<string>; close(): Promise<void> }> {
  const log = await Deno.makeTempFile({ prefix: "tmcp-handoff-argv-" });
  const bin = await Deno.makeTempFile({ prefix: "tmcp-handoff-tmux-", suffix: ".sh" });
  await Deno.writeTextFile(bin, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec tmux "$@"\n`);
  await Deno.chmod(bin, 0o755);
  return {
    bin,
    lines: () => Deno.readTextFile(log),
    async close() {
      await Deno.remove(log);
      await Deno.remove(bin);
    },
  };
}

/**
 * Runs `fn` with a human holding a fresh secret, on a server whose every tmux command is a client of its own
 * (`--control-mode off`) started through {@linkcode argvRecorder}; then asserts the secret is on none of their command
 * lines. `fn` gets the secret typed (request-input) and checks where it went.
 */
export async function withRecordedCommandLines(fn: (s: Setup) => Promise<void>): Promise<void> {
  const argv = await argvRecorder();
  try {
    await withHuman(
      BOTH,
      async (s) => {
        s.human.secret = `pw-${crypto.randomUUID()}`;
        await fn(s);
        const lines = await argv.lines();
        assertMatch(lines, /capture-pane/); // the recorder did run
        assertNotOnCommandLines(lines, s.human.secret);
      },
      "tmux",
      ["--control-mode", "off", "--tmux-bin", argv.bin],
    );
  } finally {
    await argv.close();
  }
}

/** Asserts request-input's answer `r` says the secret was typed, once the human is done with the page. */
export async function assertReceived(s: Setup, r: CallToolResult): Promise<void> {
  assert(!r.isError, textOf(r));
  await Promise.all(s.human.browsing);
  assertEquals((r.structuredContent as Record<string, unknown>).outcome, "input_received");
}

/** Asserts `secret`, as text or as `send-keys -H` bytes, is on none of the command lines `lines`. */
export function assertNotOnCommandLines(lines: string, secret: string): void {
  const hex = [...new TextEncoder().encode(secret)].map((b) => b.toString(16).padStart(2, "0"));
  assert(!lines.includes(hex.slice(0, 8).join(" ")), "the secret's bytes were on a tmux command line");
  assert(!lines.includes(secret), "the secret was on a tmux command line");
}
