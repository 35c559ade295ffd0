import { assertEquals, assertMatch } from "./assert.ts";
import { defaultConfig, parseConfig, parseFlags, UsageError } from "../lib/config.ts";
import { parseArgs } from "node:util";
import { connect, ROOT, runProcess, START_PERMISSIONS, startTmux } from "./helpers.ts";
import { tmuxFormat, waitUntil } from "./pane_helpers.ts";

function runMain(args: string[], env: Record<string, string> = {}) {
  return runProcess(Deno.execPath(), ["run", ...START_PERMISSIONS, ROOT + "main.ts", ...args], { env });
}

Deno.test("--help lists every option and exits 0", async () => {
  const r = await runMain(["--help"]);
  assertEquals(r.code, 0);
  for (const flag of ["--socket-name", "--socket-path", "--tmux-bin", "--max-concurrency", "--safety", "--toolsets"]) {
    assertMatch(r.stdout, new RegExp(flag));
  }
});

Deno.test("--version prints the version", async () => {
  const r = await runMain(["--version"]);
  assertEquals(r.code, 0);
  assertMatch(r.stdout, /^tmux-mcp \d+\.\d+\.\d+\n$/);
});

for (
  const [args, env, pattern] of [
    [["--bogus"], {}, /Unknown option '--bogus'/],
    [["--safety", "admin"], {}, /--safety: "admin" is not one of readonly, mutating, destructive/],
    [[], { TMUX_MCP_SAFETY: "nope" }, /TMUX_MCP_SAFETY: "nope" is not one of/],
    [["--max-concurrency", "0"], {}, /--max-concurrency: 0 is out of range \(1\.\.64\)/],
    [["--max-concurrency", "65"], {}, /out of range/],
    [["--max-concurrency", "x"], {}, /expected a whole number/],
    [["--toolsets", "buffers,nope"], {}, /--toolsets: "nope" is not one of buffers, workspace, exec, pty/],
    [["serve"], {}, /unexpected argument "serve"/],
    [
      ["doctor", "--install", "cursor", "--install=vscode"],
      {},
      /--install takes one client: run doctor --install once/,
    ],
    // A misspelt client is a bad value like any other: it exited 1 on stdout, as a failed check does.
    [
      ["doctor", "--install", "claude", "--socket-name", "agent"],
      {},
      /^tmux-mcp: unknown client "claude" for --install: use one of claude-code, claude-desktop, .*zed \(see --help\)\n$/,
    ],
    [
      ["doctor", "extra"],
      {},
      /^tmux-mcp: unexpected argument "extra" \(the server takes flags only, plus the subcommand doctor\) \(see --help\)\n$/,
    ],
    // Several hosts, each under its own name: a second host of the same name must not replace the first.
    [["--ssh", "a", "--ssh", "b@a"], {}, /--ssh: "b@a": the host name "a" is taken \(by a\); name it: --ssh NAME=b@a/],
    [["--ssh=x=local", "--ssh=x=h"], {}, /the host name "x" is taken/],
    [["--ssh", "web=-oProxyCommand=x"], {}, /starts with "-"/],
    [["--connect-timeout-ms", "10"], {}, /--connect-timeout-ms: 10 is out of range \(1000\.\.3600000\)/],
    // tmux takes -S over -L: one of the two was ignored without a word.
    [["--socket-name", "a", "--socket-path=/tmp/s"], {}, /^tmux-mcp: --socket-name and --socket-path both name the/],
    [[], { TMUX_MCP_SOCKET_NAME: "a", TMUX_MCP_SOCKET_PATH: "/tmp/s" }, /TMUX_MCP_SOCKET_PATH both name .*: unset one/],
    // The audit log opened at start: a missing directory was an uncaught NotFound with a stack trace, exit 1.
    [
      ["--audit-log", "/nonexistent-tmcp-dir/audit.log"],
      {},
      /^tmux-mcp: --audit-log: cannot open "\/nonexistent-tmcp-dir\/audit\.log" to append \(NotFound\)/,
    ],
    [[], { TMUX_MCP_AUDIT_LOG: "/" }, /--audit-log: cannot open "\/" to append/],
    // The parser keeps the last value: a readonly earlier on the line was lifted without a word.
    [
      ["--safety", "readonly", "--safety=destructive"],
      {},
      /--safety is given twice \("readonly", then "destructive"\)/,
    ],
    [["doctor", "--redact", "on", "--socket-name", "a", "--redact", "off"], {}, /--redact is given twice/],
  ] as [string[], Record<string, string>, RegExp][]
) {
  Deno.test(`bad command line ${JSON.stringify(args)} ${JSON.stringify(env)} exits 2 with one line`, async () => {
    const r = await runMain(args, env);
    assertEquals(r.code, 2);
    assertEquals(r.stdout, "");
    assertEquals(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
    assertMatch(r.stderr, pattern);
    assertEquals(r.stderr.split("see --help").length, 2, `"see --help" once: ${r.stderr}`);
  });
}

Deno.test("flags win over environment variables, which win over defaults", () => {
  const cfg = parseConfig(["--socket-name", "flag"], {
    TMUX_MCP_SOCKET_NAME: "env",
    TMUX_MCP_MAX_CONCURRENCY: "3",
    TMUX_MCP_TOOLSETS: "buffers, exec",
  });
  assertEquals(cfg.socketName, "flag");
  assertEquals(cfg.maxConcurrency, 3);
  assertEquals(cfg.toolsets, ["buffers", "exec"]);
  assertEquals(parseConfig([], {}), defaultConfig());
  assertEquals(parseConfig(["--terminal-backend", "internal"], {}).terminalBackend, "pty");
  // A host flag replaces the hosts of both host variables: --hosts added to TMUX_MCP_SSH's, while --ssh replaced them.
  const hostsFile = Deno.makeTempFileSync();
  try {
    Deno.writeTextFileSync(hostsFile, "db=me@b\n");
    const fromFile = parseConfig(["--hosts", hostsFile], { TMUX_MCP_SSH: "web=me@a" });
    assertEquals([fromFile.hosts.map((h) => h.name), fromFile.ssh], [["db"], "me@b"]);
    assertEquals(parseConfig(["--ssh", "web=me@a"], { TMUX_MCP_HOSTS: hostsFile }).hosts.map((h) => h.name), ["web"]);
    const both = parseConfig(["--ssh", "web=me@a", "--hosts", hostsFile], { TMUX_MCP_SSH: "x=me@x" });
    assertEquals(both.hosts.map((h) => h.name), ["web", "db"]);
    assertEquals(parseConfig([], { TMUX_MCP_SSH: "web=me@a", TMUX_MCP_HOSTS: hostsFile }).hosts.length, 2);
  } finally {
    Deno.removeSync(hostsFile);
  }
  // A socket flag wins over either socket variable (tmux -S from the environment beat --socket-name).
  const named = parseConfig(["--socket-name", "flag"], { TMUX_MCP_SOCKET_PATH: "/tmp/env" });
  assertEquals([named.socketName, named.socketPath], ["flag", undefined]);
  const pathed = parseConfig(["--socket-path", "/tmp/flag"], { TMUX_MCP_SOCKET_NAME: "env" });
  assertEquals([pathed.socketName, pathed.socketPath], [undefined, "/tmp/flag"]);
  // The same value twice is harmless; a repeatable flag is a list.
  assertEquals(
    parseConfig(["--safety", "readonly", "--safety=readonly", "--keep-sessions", "--keep-sessions"], {}).safety,
    "readonly",
  );
  // The same value in two spellings is the same value: it was refused as two.
  assertEquals(parseConfig(["--safety", "READONLY", "--safety", "read-only"], {}).safety, "readonly");
  assertEquals(parseConfig(["--max-concurrency", "4", "--max-concurrency", " 4"], {}).maxConcurrency, 4);
  assertEquals(parseConfig(["--sessions", "a*", "--sessions", "b*"], {}).sessions.length, 2);
});

Deno.test("parseConfig throws UsageError rather than falling back", () => {
  let err: unknown;
  try {
    parseConfig(["--safety=readonlyy"], {});
  } catch (e) {
    err = e;
  }
  assertEquals(err instanceof UsageError, true);
});

Deno.test("choice settings read as typed into a client's form: any case, spaces around; others refused", () => {
  // Claude Desktop's settings form takes what the person types: "Read-Only" meant readonly, not a refusal.
  for (const typed of ["readonly", "Read-Only", "READONLY", " readonly ", "read_only"]) {
    assertEquals(parseConfig([], { TMUX_MCP_SAFETY: typed }).safety, "readonly", typed);
    assertEquals(parseConfig(["--safety", typed], {}).safety, "readonly", typed);
  }
  assertEquals(parseConfig([], { TMUX_MCP_SAFETY: "Destructive" }).safety, "destructive");
  assertEquals(parseConfig([], { TMUX_MCP_SCOPE: "Tagged" }).scope, "tagged");
  assertEquals(parseConfig([], { TMUX_MCP_REDACT: "OFF" }).redact, false);
  assertEquals(parseConfig([], { TMUX_MCP_CONTROL_MODE: "Off" }).controlMode, false);
  assertEquals(parseConfig([], { TMUX_MCP_TERMINAL_BACKEND: "Internal" }).terminalBackend, "pty");
  assertEquals(parseConfig([], { TMUX_MCP_TOOLSETS: "Buffers, EXEC" }).toolsets, ["buffers", "exec"]);
  // A yes/no variable: "yes" and "on" were read as no without a word.
  for (
    const [typed, kept] of [["1", true], ["TRUE", true], ["yes", true], ["On", true], ["0", false], ["off", false]]
  ) {
    assertEquals(parseConfig([], { TMUX_MCP_KEEP_SESSIONS: typed as string }).keepSessions, kept, String(typed));
  }
  assertEquals(parseConfig(["--keep-sessions"], {}).keepSessions, true);
  const refused: [Record<string, string>, RegExp][] = [
    [{ TMUX_MCP_SAFETY: "read only" }, /^TMUX_MCP_SAFETY: "read only" is not one of readonly, mutating, destructive$/],
    [{ TMUX_MCP_SAFETY: "admin" }, /is not one of readonly, mutating, destructive/],
    [{ TMUX_MCP_KEEP_SESSIONS: "please" }, /^TMUX_MCP_KEEP_SESSIONS: "please" is neither on \(1, true, yes, on\)/],
  ];
  for (const [env, message] of refused) {
    let error = "";
    try {
      parseConfig([], env);
    } catch (e) {
      error = (e as Error).message;
    }
    assertMatch(error, message, JSON.stringify(env));
  }
});

Deno.test("the flag parser reads argv as node:util's parseArgs does (strict), without loading node:util at start", () => {
  const options = {
    "socket-name": { type: "string" as const },
    ssh: { type: "string" as const, multiple: true },
    redact: { type: "boolean" as const },
    "dry-run": { type: "boolean" as const },
    install: { type: "string" as const },
  };
  const good = [
    [],
    ["--socket-name", "a", "--socket-name=b", "--redact"],
    ["doctor", "--install", "claude", "--dry-run", "--ssh", "h1", "--ssh=h2"],
    ["--install=x", "-", "--", "--redact", "pos"],
    ["--socket-name", "", "--socket-name="],
    ["--ssh", "web=-o"],
  ];
  for (const args of good) {
    const node = parseArgs({ args, options, strict: true, allowPositionals: true, tokens: true });
    const ours = parseFlags(args, options);
    assertEquals({ ...ours.values }, { ...node.values }, JSON.stringify(args));
    assertEquals(ours.positionals, node.positionals, JSON.stringify(args));
    const tokens = node.tokens.map((t) => {
      const { rawName: _, ...rest } = t as typeof t & { rawName?: string };
      return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    });
    assertEquals(
      ours.tokens.map((t) => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined))),
      tokens,
      JSON.stringify(args),
    );
  }
  const bad: [string[], RegExp][] = [
    [["--bogus"], /^Unknown option '--bogus'$/],
    [["--bogus=1"], /^Unknown option '--bogus'$/],
    [["-x"], /^Unknown option '-x'$/],
    [["--socket-name"], /^Option '--socket-name <value>' argument missing$/],
    [["--socket-name", "-x"], /^Option '--socket-name' argument is ambiguous/],
    [["--redact=yes"], /^Option '--redact' does not take an argument$/],
  ];
  for (const [args, message] of bad) {
    let nodeFailed = false;
    try {
      parseArgs({ args, options, strict: true, allowPositionals: true });
    } catch {
      nodeFailed = true;
    }
    assertEquals(nodeFailed, true, JSON.stringify(args));
    let err: unknown;
    try {
      parseFlags(args, options);
    } catch (e) {
      err = e;
    }
    assertEquals(err instanceof UsageError, true, JSON.stringify(args));
    assertMatch((err as Error).message, message);
  }
});

Deno.test("the checkout's start task serves from the folder the client starts it in, not from the checkout", async () => {
  // `deno task` runs a task in its deno.json's folder: a session opened without cwd started in the tmux-mcp
  // checkout, where a compiled binary (npx, Homebrew, a release) starts it in the client's project.
  const tmux = await startTmux();
  const project = await Deno.realPath(await Deno.makeTempDir({ prefix: "tmux-mcp-project-" }));
  const start = ["task", "--quiet", "--config", ROOT + "deno.json", "start", "--socket-name", tmux.socketName];
  const mcp = await connect({ spawn: [Deno.execPath(), ...start], cwd: project });
  try {
    const { pane_id } = await mcp.ok<{ pane_id: string }>("new", { what: "session", name: "from-client" });
    await waitUntil(`the new pane to be in ${project}`, async () => {
      const where = await tmuxFormat(tmux, pane_id, "#{pane_current_path}");
      if (where !== project) throw new Error(`it is in ${where}`);
      return true;
    }, 30_000);
  } finally {
    await mcp.close();
    await tmux.kill();
    await Deno.remove(project, { recursive: true });
  }
});
