/**
 * `tmux-mcp doctor --install CLIENT [--dry-run]`, run as users run it (the
 * real entry point as a subprocess) on a temporary HOME, for each of the
 * eight clients: a new config file, a file with other servers and comments
 * (kept, with a backup of the old file; `--dry-run` prints the diff and
 * writes nothing), a second install (nothing to do), and a malformed file
 * (refused with one line, left byte for byte). Then plain `doctor`'s line
 * per client found, the npm launcher's command, and the merge and diff
 * pieces on their own.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { ROOT, runProcess, runWithReadOnlyDir, START_PERMISSIONS } from "./helpers.ts";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { CLIENT_IDS, type ClientId, CLIENTS } from "../lib/doctor/install_clients.ts";
import { mergeEntry, unifiedDiff } from "../lib/doctor/install_edit.ts";
import { denoPath } from "../lib/doctor/client.ts";

/** The deno cache of this run: a test HOME must not make deno fetch the dependencies again. */
const DENO_DIR = Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno`;

/** What a checkout's doctor writes: this deno's start task through this deno.json, then the flags. */
const CHECKOUT_ARGV = [
  denoPath(Deno.env.get("PATH") ?? ""),
  "task",
  "--quiet",
  "--config",
  `${ROOT}deno.json`,
  "start",
];
/** {@linkcode CHECKOUT_ARGV}'s deno as a regular expression's text. */
const DENO_RE = CHECKOUT_ARGV[0].replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function tmuxMcp(home: string, args: string[], env: Record<string, string> = {}) {
  return runProcess(Deno.execPath(), ["run", ...START_PERMISSIONS, ROOT + "main.ts", ...args], {
    env: { HOME: home, PATH: Deno.env.get("PATH") ?? "", DENO_DIR, ...env },
    clearEnv: true,
  });
}

/** Per client: the config path under HOME (Linux), a file with another server and comments, a malformed file. */
const CASES: Record<ClientId, { path: string; others: string; malformed: string }> = {
  "claude-code": {
    path: ".claude.json",
    // Plain JSON as Claude Code writes it: other state at the top level, another user-scope server.
    others:
      `{\n  "numStartups": 3,\n  "mcpServers": {\n    "other": {\n      "type": "stdio",\n      "command": "other-mcp",\n      "args": []\n    }\n  },\n  "projects": {}\n}\n`,
    // Claude Code reads it with a strict parser: a comment makes the file malformed for it.
    malformed: `{\n  // not JSON\n  "mcpServers": {}\n}\n`,
  },
  "claude-desktop": {
    path: ".config/Claude/claude_desktop_config.json",
    others:
      `{\n  "mcpServers": {\n    "other": { "command": "other-mcp", "args": ["--x"] }\n  },\n  "globalShortcut": ""\n}\n`,
    malformed: `{\n  "mcpServers": {\n    "other": { "command": "other-mcp" \n  }\n`,
  },
  cursor: {
    path: ".cursor/mcp.json",
    others:
      `{\n  // my servers\n  "mcpServers": {\n    "other": { "command": "other-mcp", "args": [] }, // keep me\n  },\n}\n`,
    malformed: `{ "mcpServers": [ "not", "an", "object" ] }\n`,
  },
  codex: {
    path: ".codex/config.toml",
    others:
      `# my Codex settings\nmodel = "o3"\n\n[mcp_servers.other] # keep me\ncommand = "other-mcp"\nargs = ["--x"]\n`,
    malformed: `model = "o3"\n[mcp_servers.other\ncommand = "x"\n`,
  },
  vscode: {
    path: ".config/Code/User/mcp.json",
    others:
      `{\n  /* user servers */\n  "servers": {\n    "other": {\n      "type": "stdio",\n      "command": "other-mcp" // keep me\n    }\n  },\n  "inputs": []\n}\n`,
    malformed: `{\n  "servers": {\n    "other": {\n}\n`,
  },
  "gemini-cli": {
    path: ".gemini/settings.json",
    others:
      `{\n  // theme first\n  "theme": "Default",\n  "mcpServers": {\n    "other": { "command": "other-mcp", "args": [] }\n  }\n}\n`,
    malformed: `["not", "settings"]\n`,
  },
  windsurf: {
    path: ".codeium/windsurf/mcp_config.json",
    others: `{\n  "mcpServers": {\n    // the one I use\n    "other": { "command": "other-mcp", "args": [] }\n  }\n}\n`,
    malformed: `{\n  "mcpServers": {\n    "tmux": "not an entry"\n  }\n}\n`,
  },
  zed: {
    path: ".config/zed/settings.json",
    others:
      `// Zed settings\n{\n\t"theme": "One Dark",\n\t"context_servers": {\n\t\t"other": { "command": "other-mcp", "args": [], "env": {} }, // keep me\n\t},\n}\n`,
    malformed: `{\n\t"theme": "One Dark",,\n}\n`,
  },
};

/** The servers section of a config text, parsed as the client reads it. */
function serversOf(id: ClientId, text: string): Record<string, Record<string, unknown>> {
  const spec = CLIENTS[id];
  const doc = spec.format === "toml"
    ? parseToml(text) as Record<string, unknown>
    : spec.format === "json"
    ? JSON.parse(text)
    : parseJsonc(text, [], { allowTrailingComma: true });
  return doc[spec.section] as Record<string, Record<string, unknown>>;
}

/** Comment lines of a config text: each must survive a merge. */
function commentsOf(text: string): string[] {
  return text.split("\n").map((l) => /(\/\/.*|\/\*.*\*\/|#.*)$/.exec(l)?.[1]).filter((c): c is string =>
    c !== undefined && !c.includes('"')
  );
}

async function inHome(fn: (home: string) => Promise<void>) {
  const home = await Deno.makeTempDir({ prefix: "tmux-mcp-install-" });
  try {
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

async function writeConfig(home: string, rel: string, text: string): Promise<string> {
  const path = `${home}/${rel}`;
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
  return path;
}

const backupsOf = async (path: string) => {
  const dir = path.slice(0, path.lastIndexOf("/"));
  const name = path.slice(dir.length + 1);
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).filter((n) => n.startsWith(`${name}.bak-`));
};

for (const id of CLIENT_IDS) {
  const c = CASES[id];
  Deno.test(`install ${id}: new file, merge beside other servers and comments (backup, dry-run diff), again, malformed`, async () => {
    // A new file: created with the entry, flags passed through.
    await inHome(async (home) => {
      const r = await tmuxMcp(home, ["doctor", "--install", id, "--socket-name", "agent"]);
      assertEquals(r.code, 0, r.stdout + r.stderr);
      const path = `${home}/${c.path}`;
      assertMatch(r.stdout, new RegExp(`added server "tmux" in .*${path.replaceAll(".", "\\.")} \\(a new file\\)`));
      const tmux = serversOf(id, await Deno.readTextFile(path)).tmux;
      assertEquals(tmux.command, CHECKOUT_ARGV[0]);
      assertEquals(tmux.args, [...CHECKOUT_ARGV.slice(1), "--socket-name", "agent"]);
      if (id === "vscode" || id === "claude-code") assertEquals(tmux.type, "stdio");
    });

    // Other servers and comments: dry run first (diff, nothing written), then the merge.
    await inHome(async (home) => {
      const path = await writeConfig(home, c.path, c.others);
      const dry = await tmuxMcp(home, ["doctor", "--install", id, "--dry-run"]);
      assertEquals(dry.code, 0, dry.stdout + dry.stderr);
      assertMatch(dry.stdout, new RegExp(`^--- ${path}\n\\+\\+\\+ ${path}\n@@ -\\d+,\\d+ \\+\\d+,\\d+ @@\n`));
      assertMatch(dry.stdout, /^\+.*"?tmux"?/m);
      // An add takes no line away: at most the last server's line gets a comma.
      const removed = dry.stdout.split("\n").slice(2).filter((l) => l.startsWith("-"));
      assert(removed.length <= 1, dry.stdout);
      for (const l of removed) {
        assert(
          dry.stdout.split("\n").some((a) =>
            a.startsWith("+") && a.slice(1).replace(/,(\s*(\/\/.*)?)$/, "$1") === l.slice(1)
          ),
          l,
        );
      }
      assertMatch(dry.stdout, /dry run: would add server "tmux" in .*; nothing written\n$/);
      assertEquals(await Deno.readTextFile(path), c.others, "the dry run wrote");
      assertEquals(await backupsOf(path), []);

      const r = await tmuxMcp(home, ["doctor", "--install", id]);
      assertEquals(r.code, 0, r.stdout + r.stderr);
      const after = await Deno.readTextFile(path);
      const servers = serversOf(id, after);
      assertEquals(Object.keys(servers).sort(), ["other", "tmux"]);
      assertEquals(servers.other, serversOf(id, c.others).other);
      assertEquals(servers.tmux.args, CHECKOUT_ARGV.slice(1));
      for (const comment of commentsOf(c.others)) assert(after.includes(comment), `lost ${comment}:\n${after}`);
      // Every line of the old file is still there: the merge only added lines (and at most one comma).
      const added = after.split("\n");
      for (const line of c.others.split("\n")) {
        assert(added.some((l) => l === line || l.replace(/,(\s*(\/\/.*)?)$/, "$1") === line), `lost line ${line}`);
      }
      const backups = await backupsOf(path);
      assertEquals(backups.length, 1, String(backups));
      assertEquals(await Deno.readTextFile(`${path.slice(0, path.lastIndexOf("/"))}/${backups[0]}`), c.others);
      assertMatch(r.stdout, /the old file is .*\.bak-/);

      // Again: nothing to do, nothing written, no second backup.
      const again = await tmuxMcp(home, ["doctor", "--install", id]);
      assertEquals(again.code, 0, again.stdout + again.stderr);
      assertMatch(again.stdout, /already has server "tmux" = .*; nothing to do\n$/);
      assertEquals(await Deno.readTextFile(path), after);
      assertEquals((await backupsOf(path)).length, 1);

      // Other flags: the entry is updated in place, the other server still untouched.
      const update = await tmuxMcp(home, ["doctor", "--install", id, "--safety", "readonly"]);
      assertEquals(update.code, 0, update.stdout + update.stderr);
      assertMatch(update.stdout, /updated server "tmux"/);
      const updated = serversOf(id, await Deno.readTextFile(path));
      assertEquals(updated.tmux.args, [...CHECKOUT_ARGV.slice(1), "--safety", "readonly"]);
      assertEquals(updated.other, servers.other);
    });

    // Malformed: one line, exit 1, the file byte for byte as it was, no backup.
    await inHome(async (home) => {
      const path = await writeConfig(home, c.path, c.malformed);
      for (const args of [["--dry-run"], []]) {
        const r = await tmuxMcp(home, ["doctor", "--install", id, ...args]);
        assertEquals(r.code, 1, r.stdout + r.stderr);
        assertEquals(r.stderr, "");
        assertEquals(r.stdout.trimEnd().split("\n").length, 1, r.stdout);
        assertMatch(r.stdout, new RegExp(`^tmux-mcp doctor: not changing ${path}: it is .+; it is left as it was\n$`));
      }
      assertEquals(await Deno.readTextFile(path), c.malformed);
      assertEquals(await backupsOf(path), []);
    });
  });
}

Deno.test("install: an unknown client, --dry-run without --install, --install without doctor: one line each", async () => {
  await inHome(async (home) => {
    const unknown = await tmuxMcp(home, ["doctor", "--install", "notepad"]);
    assertEquals(unknown.code, 2);
    assertMatch(
      unknown.stderr,
      /^tmux-mcp: unknown client "notepad" for --install: use one of claude-code, .*zed \(see --help\)\n$/,
    );
    const dry = await tmuxMcp(home, ["doctor", "--dry-run"]);
    assertEquals(dry.code, 2);
    assertMatch(dry.stderr, /^tmux-mcp: --dry-run needs --install CLIENT \(see --help\)\n$/);
    const serve = await tmuxMcp(home, ["--install", "cursor"]);
    assertEquals(serve.code, 2);
    assertMatch(serve.stderr, /^tmux-mcp: --install belongs to doctor: tmux-mcp doctor --install CLIENT/);
  });
});

Deno.test("install: flags the server would stop on at start (a bad --config, an --audit-log it cannot open) write nothing", async () => {
  await inHome(async (home) => {
    const budgets = `${home}/budgets.json`;
    await Deno.writeTextFile(budgets, '{"maxTokensPerResponse": ');
    const cursor = `${home}/.cursor/mcp.json`;
    const refused: [string[], RegExp][] = [
      [["--config", budgets], /config: config file .*budgets\.json: not valid JSON.*: fix the file or drop --config$/],
      [["--config", `${home}/missing.json`], /config: config file .*missing\.json: cannot read the file/],
      [["--audit-log", `${home}/no/such/audit.log`], /audit log: the directory of .* does not exist: create /],
      // The server exits 2 at start: the pty tools' tmux backend without a tmux.
      [["--terminal-backend", "tmux", "--tmux-bin", `${home}/no-tmux`], /terminal backend: tmux not found/],
    ];
    for (const [flags, reason] of refused) {
      for (const dry of [[], ["--dry-run"]]) {
        const r = await tmuxMcp(home, ["doctor", "--install", "cursor", ...dry, ...flags]);
        assertEquals(r.code, 1, r.stdout);
        assertEquals(r.stdout.trimEnd().split("\n").length, 1, r.stdout);
        assertMatch(r.stdout, /^tmux-mcp doctor: not installed, the server would not start with these flags: /);
        assertMatch(r.stdout.trimEnd(), reason);
        assertEquals(await Deno.stat(cursor).then(() => true, () => false), false, "nothing written");
      }
    }
    await Deno.writeTextFile(budgets, '{"maxTokensPerResponse": 5000}');
    const good = await tmuxMcp(home, ["doctor", "--install", "cursor", "--config", budgets]);
    assertEquals(good.code, 0, good.stdout);
    const entry = parseJsonc(await Deno.readTextFile(cursor)).mcpServers.tmux;
    assertEquals(entry.args.slice(-2), ["--config", budgets]);
  });
});

Deno.test("install: the npm launcher's command is what gets written, and what doctor tells to run", async () => {
  await inHome(async (home) => {
    const launcher = ["npx", "-y", "@tmux-mcp/server@1.2.3"];
    const env = { TMUX_MCP_LAUNCHER: JSON.stringify(launcher) };
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor", "--socket-name", "agent"], env);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    const tmux = serversOf("cursor", await Deno.readTextFile(`${home}/.cursor/mcp.json`)).tmux;
    assertEquals(tmux, { command: "npx", args: ["-y", "@tmux-mcp/server@1.2.3", "--socket-name", "agent"] });
    // A value that is not a JSON array of strings is ignored, as if unset.
    const bad = await tmuxMcp(home, ["doctor", "--install", "codex", "--dry-run"], { TMUX_MCP_LAUNCHER: "npx -y x" });
    assertMatch(bad.stdout, new RegExp(`^\\+command = "${DENO_RE}"$`, "m"));
  });
});

Deno.test("install: under npx, a client started with a short PATH (Claude Desktop, Zed) gets npx by its path", async () => {
  await inHome(async (home) => {
    await Deno.mkdir(`${home}/bin`);
    await Deno.writeTextFile(`${home}/bin/npx`, "#!/bin/sh\n", { mode: 0o755 });
    await Deno.chmod(`${home}/bin/npx`, 0o755);
    const env = {
      TMUX_MCP_LAUNCHER: JSON.stringify(["npx", "-y", "@tmux-mcp/server@1.2.3"]),
      PATH: `${home}/bin:${Deno.env.get("PATH")}`,
    };
    const args = ["-y", "@tmux-mcp/server@1.2.3"];
    for (
      const [id, command] of [["claude-desktop", `${home}/bin/npx`], ["zed", `${home}/bin/npx`], ["cursor", "npx"]]
    ) {
      const r = await tmuxMcp(home, ["doctor", "--install", id], env);
      assertEquals(r.code, 0, r.stdout + r.stderr);
      const tmux = serversOf(id as ClientId, await Deno.readTextFile(`${home}/${CASES[id as ClientId].path}`)).tmux;
      assertEquals([tmux.command, tmux.args], [command, args], id);
    }
    // And plain doctor finds them installed with that command.
    const hints = (await tmuxMcp(home, ["doctor"], env)).stdout.split("\n").filter((l) => / mcp client: /.test(l));
    assertEquals(hints.filter((l) => l.startsWith("ok ")).length, 3, hints.join("\n"));
  });
});

Deno.test("doctor: one line per client found — the --install command and the snippet, or ok once installed", async () => {
  await inHome(async (home) => {
    await Deno.mkdir(`${home}/.cursor`);
    await writeConfig(home, ".codex/config.toml", `model = "o3"\n`);
    const lines = async () => (await tmuxMcp(home, ["doctor", "--socket-name", "agent"])).stdout.split("\n");
    const before = (await lines()).filter((l) => / mcp client: /.test(l));
    assertEquals(before.length, 2, before.join("\n"));
    const [cursor, codex] = [before.find((l) => l.includes("cursor:"))!, before.find((l) => l.includes("codex:"))!];
    assertMatch(
      cursor,
      new RegExp(
        `^info {2}mcp client: cursor: run \`${DENO_RE} task .*start doctor --install cursor --socket-name agent\`, or add to `,
      ),
    );
    assertMatch(
      cursor,
      new RegExp(
        `: \\{"mcpServers":\\{"tmux":\\{"command":"${DENO_RE}","args":\\["task",.*"start","--socket-name","agent"\\]\\}\\}\\}$`,
      ),
    );
    // TOML has no one-line table: the hint gives the table's lines, which pasted one per line are the entry.
    assertMatch(codex, /or add to \S*config\.toml the lines `\[mcp_servers\.tmux\]`, `command = .*` and `args = .*`$/);
    const pasted = [...codex.matchAll(/`([^`]*)`/g)].map((m) => m[1]).slice(1).join("\n");
    assertEquals(JSON.parse(JSON.stringify(parseToml(`model = "o3"\n${pasted}\n`))), {
      model: "o3",
      mcp_servers: { tmux: { command: CHECKOUT_ARGV[0], args: [...CHECKOUT_ARGV.slice(1), "--socket-name", "agent"] } },
    });
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor", "--socket-name", "agent"]);
    assertEquals(r.code, 0, r.stdout);
    const after = (await lines()).filter((l) => / mcp client: cursor/.test(l));
    assertMatch(after[0], /^ok {4}mcp client: cursor: .*mcp\.json has server "tmux" with this command$/);
  });
  await inHome(async (home) => {
    const none = (await tmuxMcp(home, ["doctor"])).stdout.split("\n").filter((l) => / mcp client: /.test(l));
    assertEquals(none, [
      `info  mcp client: none found: \`doctor --install CLIENT\` with one of ${CLIENT_IDS.join(", ")}`,
    ]);
  });
});

Deno.test("install: a symlinked config (even a dangling link) is edited where it points, the link stays a link", async () => {
  await inHome(async (home) => {
    const real = await writeConfig(home, "dotfiles/mcp.json", `{ "mcpServers": {} }\n`);
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.symlink(real, `${home}/.cursor/mcp.json`);
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor"]);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assert((await Deno.lstat(`${home}/.cursor/mcp.json`)).isSymlink);
    assertEquals(Object.keys(serversOf("cursor", await Deno.readTextFile(real))), ["tmux"]);
  });
  // A dangling link (the dotfiles' file not made yet, its folder neither): the file is made where it points.
  await inHome(async (home) => {
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.symlink("../dotfiles/cursor/mcp.json", `${home}/.cursor/mcp.json`);
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor"]);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assert((await Deno.lstat(`${home}/.cursor/mcp.json`)).isSymlink, "the link was replaced by a file");
    assertEquals(Object.keys(serversOf("cursor", await Deno.readTextFile(`${home}/dotfiles/cursor/mcp.json`))), [
      "tmux",
    ]);
  });
});

Deno.test("merge: TOML keeps the table's other keys and sub-tables, refuses an inline definition", () => {
  const text =
    `[mcp_servers.tmux]\n# why\ncommand = "old"\nargs = [\n  "a",\n  "b",\n]\nstartup_timeout_sec = 20\n\n[mcp_servers.tmux.env]\nX = "1"\n`;
  const r = mergeEntry(text, "toml", "mcp_servers", "tmux", { command: "/bin/tmux-mcp", args: ["--x"] });
  assert(r.kind === "changed", JSON.stringify(r));
  const t = JSON.parse(JSON.stringify(parseToml(r.text))).mcp_servers.tmux;
  assertEquals(t, { command: "/bin/tmux-mcp", args: ["--x"], startup_timeout_sec: 20, env: { X: "1" } });
  assert(r.text.includes("# why"));
  const inline = mergeEntry(`mcp_servers = { tmux = { command = "x" } }\n`, "toml", "mcp_servers", "tmux", {
    command: "y",
  });
  assertEquals(inline.kind, "refused");
  assertMatch((inline as { reason: string }).reason, /inline or with dotted keys.*edit it by hand/);
});

Deno.test("merge: a TOML update keeps the comments on the tmux table's header and on the lines it replaces", () => {
  const text = `[mcp_servers.tmux] # the agent's own tmux\r\ncommand = "old"  # pinned\r\nargs = [ # flags\r\n` +
    `  "a", # one\r\n  "b#c",\r\n] # end\r\nenv = { A = "1" } # keep\r\n`;
  const r = mergeEntry(text, "toml", "mcp_servers", "tmux", { command: "/bin/tmux-mcp", args: ["--x"] });
  assert(r.kind === "changed", JSON.stringify(r));
  assertEquals(
    r.text,
    `[mcp_servers.tmux] # the agent's own tmux\r\ncommand = "/bin/tmux-mcp" # pinned\r\n` +
      `args = [ "--x" ] # flags # one # end\r\nenv = { A = "1" } # keep\r\n`,
  );
});

Deno.test("merge: JSON keeps an existing entry's other keys (an env), and its formatting outside the entry", () => {
  const text =
    `{\n    "mcpServers": {\n        "tmux": { "command": "old", "env": { "A": "1" } },\n        "z": {}\n    }\n}\n`;
  const r = mergeEntry(text, "json", "mcpServers", "tmux", { command: "new", args: [] });
  assert(r.kind === "changed");
  assertEquals(JSON.parse(r.text).mcpServers, { tmux: { command: "new", env: { A: "1" }, args: [] }, z: {} });
  assert(r.text.includes(`\n        "z": {}\n`), r.text);
  assertMatch(r.text, /\n {8}"tmux": \{\n {12}"command": "new",/);
});

Deno.test("diff: unified, removals before additions, hunks with three lines of context", () => {
  const a = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"].join("\n") + "\n";
  const b = a.replace("2\n", "two\n").replace("11\n", "eleven\n");
  assertEquals(
    unifiedDiff(a, b, "f"),
    "--- f\n+++ f\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+eleven\n 12\n",
  );
  assertEquals(unifiedDiff("", "x\n", "f"), "--- /dev/null\n+++ f\n@@ -0,0 +1,1 @@\n+x\n");
  assertEquals(unifiedDiff("same\n", "same\n", "f"), "");
});

Deno.test("merge: JSONC keeps every byte outside the new entry — CRLF, comments, servers sharing a line, one-line files", () => {
  const entry = { command: "/bin/t", args: ["a"] };
  const merged = (text: string) => {
    const r = mergeEntry(text, "jsonc", "mcpServers", "tmux", entry);
    assert(r.kind === "changed", JSON.stringify(r));
    // The client reads the entry, and a second merge has nothing to do.
    assertEquals(parseJsonc(r.text, [], { allowTrailingComma: true }).mcpServers.tmux, entry);
    assertEquals(mergeEntry(r.text, "jsonc", "mcpServers", "tmux", entry).kind, "unchanged");
    return r.text;
  };
  const block = `{\r\n      "command": "/bin/t",\r\n      "args": [\r\n        "a"\r\n      ]\r\n    }`;
  // CRLF: the other server stays on its line, the new lines end in CRLF too.
  assertEquals(
    merged(`{\r\n  "mcpServers": {\r\n    "other": { "command": "x" } // c\r\n  }\r\n}\r\n`),
    `{\r\n  "mcpServers": {\r\n    "other": { "command": "x" }, // c\r\n    "tmux": ${block}\r\n  }\r\n}\r\n`,
  );
  // The comma goes right after the value, not after the space before a comment.
  assertEquals(
    merged(`{\n  "theme": "a" // t\n}\n`),
    `{\n  "theme": "a", // t\n  "mcpServers": {\n    "tmux": ${block.replaceAll("\r", "")}\n  }\n}\n`,
  );
  const line = `"tmux": {"command":"/bin/t","args":["a"]}`;
  // A comment running on to the next line, servers sharing a line, a one-line file: one line of JSON is added.
  assertEquals(
    merged(`{\n  "mcpServers": {\n    "other": { "command": "x" } /* a\n   b */\n  }\n}\n`),
    `{\n  "mcpServers": {\n    "other": { "command": "x" }, ${line} /* a\n   b */\n  }\n}\n`,
  );
  assertEquals(
    merged(`{\n  "mcpServers": {\n    "a": {}, "b": { "command": "x" }, // two\n  }\n}\n`),
    `{\n  "mcpServers": {\n    "a": {}, "b": { "command": "x" }, ${line}, // two\n  }\n}\n`,
  );
  assertEquals(
    merged(`{"mcpServers": {"other": {"command": "x"}}, "theme": "a"}\n`),
    `{"mcpServers": {"other": {"command": "x"}, ${line}}, "theme": "a"}\n`,
  );
  // A key twice: the client reads the last, an edit would land in the first.
  const twice = mergeEntry(
    `{\n  "mcpServers": {},\n  "mcpServers": { "o": {} }\n}\n`,
    "jsonc",
    "mcpServers",
    "tmux",
    entry,
  );
  assertEquals(twice, { kind: "refused", reason: `a file with "mcpServers" twice: keep one` });
});

Deno.test("install: a read-only config file or folder is refused in one line saying what to do, nothing written or lost", async () => {
  const text = `{\n  "mcpServers": {\n    "other": { "command": "other-mcp" }\n  }\n}\n`;
  await inHome(async (home) => {
    const path = await writeConfig(home, CASES.cursor.path, text);
    await Deno.chmod(path, 0o444);
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor"]);
    assertEquals(r.code, 1, r.stdout + r.stderr);
    assertEquals(r.stderr, "");
    assertEquals(
      r.stdout,
      `tmux-mcp doctor: not changing ${path}: it is read-only (mode 0444): chmod u+w ${path} first, or add the ` +
        `entry by hand (--dry-run shows it); it is left as it was\n`,
    );
    assertEquals(await Deno.readTextFile(path), text);
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o444);
    assertEquals(await backupsOf(path), []);
    // The dry run still shows the entry to add by hand.
    const dry = await tmuxMcp(home, ["doctor", "--install", "cursor", "--dry-run"]);
    assertEquals(dry.code, 0, dry.stdout);
    assertMatch(dry.stdout, /^\+ {4}"tmux": \{$/m);
  });
  // A folder that cannot be written: chmod for a user; root writes anyway, so there a read-only bind mount of it in
  // a mount namespace of its own (skipped where unshare is not allowed).
  await inHome(async (home) => {
    const path = await writeConfig(home, CASES.cursor.path, text);
    const dir = path.slice(0, path.lastIndexOf("/"));
    let r;
    if (Deno.uid() !== 0) {
      await Deno.chmod(dir, 0o555);
      r = await tmuxMcp(home, ["doctor", "--install", "cursor"]);
      await Deno.chmod(dir, 0o755);
    } else {
      const env = { HOME: home, PATH: Deno.env.get("PATH") ?? "", DENO_DIR };
      const ro = await runWithReadOnlyDir(dir, ["doctor", "--install", "cursor"], { env, clearEnv: true });
      if (!ro) return;
      r = ro;
    }
    assertEquals(r.code, 1, r.stdout + r.stderr);
    assertEquals(r.stdout.trimEnd().split("\n").length, 1, r.stdout);
    assertMatch(
      r.stdout,
      new RegExp(
        `^tmux-mcp doctor: not changing ${path}: .+: make ${dir} and the file writable first, or add the entry by ` +
          `hand \\(--dry-run shows it\\); it is left as it was\n$`,
      ),
    );
    assertEquals(await Deno.readTextFile(path), text);
    assertEquals(await backupsOf(path), []);
  });
});

Deno.test("paths: each client's file on Linux and macOS, with and without the variables that move it, as docs/install.md says", () => {
  const home = "/home/me";
  const at = (id: ClientId, os: string, env: Record<string, string> = {}) => CLIENTS[id].path({ home, os, env });
  const moved = { XDG_CONFIG_HOME: "/xdg", CLAUDE_CONFIG_DIR: "/cc", CODEX_HOME: "/cx", GEMINI_CLI_HOME: "/gh" };
  const mac = `${home}/Library/Application Support`;
  const expected: Record<ClientId, [string, string, string, string]> = {
    // linux, linux with the variables, darwin, darwin with the variables
    "claude-code": [`${home}/.claude.json`, "/cc/.claude.json", `${home}/.claude.json`, "/cc/.claude.json"],
    "claude-desktop": [
      `${home}/.config/Claude/claude_desktop_config.json`,
      "/xdg/Claude/claude_desktop_config.json",
      `${mac}/Claude/claude_desktop_config.json`,
      `${mac}/Claude/claude_desktop_config.json`,
    ],
    cursor: [
      `${home}/.cursor/mcp.json`,
      `${home}/.cursor/mcp.json`,
      `${home}/.cursor/mcp.json`,
      `${home}/.cursor/mcp.json`,
    ],
    codex: [`${home}/.codex/config.toml`, "/cx/config.toml", `${home}/.codex/config.toml`, "/cx/config.toml"],
    vscode: [
      `${home}/.config/Code/User/mcp.json`,
      "/xdg/Code/User/mcp.json",
      `${mac}/Code/User/mcp.json`,
      `${mac}/Code/User/mcp.json`,
    ],
    "gemini-cli": [
      `${home}/.gemini/settings.json`,
      "/gh/.gemini/settings.json",
      `${home}/.gemini/settings.json`,
      "/gh/.gemini/settings.json",
    ],
    windsurf: Array(4).fill(`${home}/.codeium/windsurf/mcp_config.json`) as [string, string, string, string],
    // Zed on macOS reads ~/.config/zed whatever XDG_CONFIG_HOME says.
    zed: [
      `${home}/.config/zed/settings.json`,
      "/xdg/zed/settings.json",
      `${home}/.config/zed/settings.json`,
      `${home}/.config/zed/settings.json`,
    ],
  };
  for (const id of CLIENT_IDS) {
    assertEquals(
      [at(id, "linux"), at(id, "linux", moved), at(id, "darwin"), at(id, "darwin", moved)],
      expected[id],
      id,
    );
  }
});

Deno.test("merge: a CRLF config.toml stays CRLF, and its tmux table can be updated", () => {
  const entry = { command: "/bin/t", args: ["a"] };
  const add = mergeEntry(
    `model = "o3"\r\n\r\n[mcp_servers.other]\r\ncommand = "x"\r\n`,
    "toml",
    "mcp_servers",
    "tmux",
    entry,
  );
  assertEquals(add, {
    kind: "changed",
    replaced: false,
    text:
      `model = "o3"\r\n\r\n[mcp_servers.other]\r\ncommand = "x"\r\n\r\n[mcp_servers.tmux]\r\ncommand = "/bin/t"\r\n` +
      `args = [ "a" ]\r\n`,
    entry: { command: "/bin/t", args: ["a"] },
  });
  const text =
    `[mcp_servers.tmux]\r\ncommand = "old"\r\nargs = []\r\nstartup_timeout_sec = 20\r\n\r\n[mcp_servers.other]\r\n` +
    `command = "x"\r\n`;
  const update = mergeEntry(text, "toml", "mcp_servers", "tmux", entry);
  assertEquals(update, {
    kind: "changed",
    replaced: true,
    text: `[mcp_servers.tmux]\r\ncommand = "/bin/t"\r\nargs = [ "a" ]\r\nstartup_timeout_sec = 20\r\n\r\n` +
      `[mcp_servers.other]\r\ncommand = "x"\r\n`,
    entry: { startup_timeout_sec: 20, command: "/bin/t", args: ["a"] },
  });
  // What it cannot rewrite (a multi-line string) is refused with what to do.
  const multi = mergeEntry(`[mcp_servers.tmux]\ncommand = """\nold\n"""\n`, "toml", "mcp_servers", "tmux", entry);
  assertMatch((multi as { reason: string }).reason, /cannot rewrite safely .*: edit it by hand$/);
});

Deno.test("install: a backup never overwrites an earlier one of the same second", async () => {
  await inHome(async (home) => {
    const path = await writeConfig(home, CASES.cursor.path, CASES.cursor.others);
    // Earlier backups named for every second of the next two minutes: whichever second the run falls in, its
    // backup's name is taken.
    const now = Date.now();
    const earlier = new Map<string, string>();
    for (let s = -1; s < 120; s++) {
      const name = `${path}.bak-${new Date(now + s * 1000).toISOString().slice(0, 19).replaceAll(":", "-")}`;
      earlier.set(name, `earlier ${s}\n`);
      await Deno.writeTextFile(name, `earlier ${s}\n`);
    }
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor"]);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    for (const [name, text] of earlier) assertEquals(await Deno.readTextFile(name), text, name);
    const backup = /the old file is (\S+)\)/.exec(r.stdout)![1];
    assertMatch(backup, /\.bak-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-2$/);
    assertEquals(await Deno.readTextFile(backup), CASES.cursor.others);
  });
});

Deno.test("install: HOME unset, empty or relative is one line and exit 1, never a config under / or the current folder", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "tmux-mcp-install-cwd-" });
  try {
    for (const home of [undefined, "", "relative"]) {
      const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "", DENO_DIR };
      if (home !== undefined) env.HOME = home;
      const run = (args: string[]) =>
        runProcess(Deno.execPath(), ["run", ...START_PERMISSIONS, ROOT + "main.ts", "doctor", ...args], {
          env,
          clearEnv: true,
          cwd,
        });
      const what = home ? `"${home}", not an absolute path` : "not set";
      // The dry run first: on a build that would write, it fails here before anything is written.
      for (const args of [["--install", "cursor", "--dry-run"], ["--install", "cursor"]]) {
        const r = await run(args);
        assertEquals(r.code, 1, `${home}: ${r.stdout}${r.stderr}`);
        assertEquals(
          r.stdout,
          `tmux-mcp doctor: HOME is ${what}: set it to your home directory and run --install again\n`,
        );
      }
      const hints = (await run([])).stdout.split("\n").filter((l) => / mcp client: /.test(l));
      assertEquals(hints, [
        `warn  mcp client: HOME is ${what}: set it to your home directory to find the MCP clients' configs`,
      ]);
      assertEquals(await Array.fromAsync(Deno.readDir(cwd)), []);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("install: a relative CODEX_HOME, CLAUDE_CONFIG_DIR or GEMINI_CLI_HOME is one line and exit 1, no config in the current folder", async () => {
  const home = await Deno.makeTempDir({ prefix: "tmux-mcp-install-home-" });
  const cwd = await Deno.makeTempDir({ prefix: "tmux-mcp-install-cwd-" });
  try {
    for (
      const [client, name, title] of [
        ["codex", "CODEX_HOME", "Codex"],
        ["claude-code", "CLAUDE_CONFIG_DIR", "Claude Code"],
        ["gemini-cli", "GEMINI_CLI_HOME", "Gemini CLI"],
      ]
    ) {
      const env = { HOME: home, PATH: Deno.env.get("PATH") ?? "", DENO_DIR, [name]: "conf" };
      const run = (args: string[]) =>
        runProcess(Deno.execPath(), ["run", ...START_PERMISSIONS, ROOT + "main.ts", "doctor", ...args], {
          env,
          clearEnv: true,
          cwd,
        });
      const why = `${name} is "conf", not an absolute path, so where ${title} reads its config depends on the ` +
        `folder it starts in: set ${name} to an absolute path`;
      for (const args of [["--install", client, "--dry-run"], ["--install", client]]) {
        const r = await run(args);
        assertEquals(r.code, 1, `${client}: ${r.stdout}${r.stderr}`);
        assertEquals(r.stdout, `tmux-mcp doctor: ${why} and run --install again\n`);
      }
      const hints = (await run([])).stdout.split("\n").filter((l) => l.startsWith(`warn  mcp client: ${client}:`));
      assertEquals(hints, [`warn  mcp client: ${client}: ${why}`]);
      assertEquals(await Array.fromAsync(Deno.readDir(cwd)), []);
      assertEquals(await Array.fromAsync(Deno.readDir(home)), []);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("install: run as root (sudo) on a user's config, the new file and its backup stay the user's", async () => {
  if (Deno.uid() !== 0) return; // only root can hand a file to another user, and only its run can take one over
  await inHome(async (home) => {
    const path = await writeConfig(home, CASES.cursor.path, CASES.cursor.others);
    await Deno.chown(path, 65534, 65534);
    await Deno.chmod(path, 0o640);
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor"]);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    const after = await Deno.stat(path);
    assertEquals([after.uid, after.gid, after.mode! & 0o777], [65534, 65534, 0o640]);
    assert((await Deno.readTextFile(path)).includes(`"tmux"`));
    const backup = await Deno.stat(`${path.slice(0, path.lastIndexOf("/"))}/${(await backupsOf(path))[0]}`);
    assertEquals([backup.uid, backup.gid], [65534, 65534]);
  });
});

Deno.test('merge: an update keeps the user\'s env in the tmux entry (Claude Code and Zed write "env": {} only when there is none)', () => {
  const argv = ["/bin/tmux-mcp", "--socket-name", "agent"];
  for (const id of ["claude-code", "zed"] as const) {
    const spec = CLIENTS[id];
    const text =
      `{\n  "${spec.section}": {\n    "tmux": { "command": "old", "args": [], "env": { "TMUX_TMPDIR": "/run/t" } }\n  }\n}\n`;
    const r = mergeEntry(text, spec.format, spec.section, "tmux", spec.entry(argv));
    assert(r.kind === "changed", `${id}: ${JSON.stringify(r)}`);
    const tmux = serversOf(id, r.text).tmux;
    assertEquals([tmux.command, tmux.args, tmux.env], [argv[0], argv.slice(1), { TMUX_TMPDIR: "/run/t" }], id);
    // Again with the same command: nothing to do (it used to "update" the env away each time).
    assertEquals(mergeEntry(r.text, spec.format, spec.section, "tmux", spec.entry(argv)).kind, "unchanged", id);
    // A new entry still gets the empty env the client expects.
    const fresh = mergeEntry("", spec.format, spec.section, "tmux", spec.entry(argv));
    assert(fresh.kind === "changed");
    assertEquals(serversOf(id, fresh.text).tmux.env, {});
  }
});

Deno.test("merge: a file starting with a byte-order mark is refused saying to save it without one", () => {
  const entry = { command: "/bin/t", args: [] };
  for (
    const [format, text] of [["json", `\uFEFF{ "mcpServers": {} }\n`], ["jsonc", `\uFEFF{}\n`], [
      "toml",
      `\uFEFFa = 1\n`,
    ]] as const
  ) {
    assertEquals(mergeEntry(text, format, format === "toml" ? "mcp_servers" : "mcpServers", "tmux", entry), {
      kind: "refused",
      reason: "a file starting with a byte-order mark (U+FEFF), which this does not edit: save it as UTF-8 " +
        "without a BOM and run again",
    }, format);
  }
});

Deno.test("install: a config that is not UTF-8 is refused in one line and left byte for byte (no U+FFFD written)", async () => {
  await inHome(async (home) => {
    const path = await writeConfig(home, ".cursor/mcp.json", "");
    // A Latin-1 "é" in a comment: decoded leniently it would be written back as U+FFFD.
    const bytes = new Uint8Array([
      ...new TextEncoder().encode("{\n  // caf"),
      0xe9,
      ...new TextEncoder().encode('\n  "mcpServers": {}\n}\n'),
    ]);
    await Deno.writeFile(path, bytes);
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor"]);
    assertEquals(r.code, 1, r.stdout);
    assertEquals(r.stdout.trimEnd().split("\n").length, 1, r.stdout);
    assertMatch(
      r.stdout,
      /not changing .*mcp\.json: .*is not UTF-8 text.*: save it as UTF-8 and run again; it is left/,
    );
    assertEquals(await Deno.readFile(path), bytes);
    assertEquals(await backupsOf(path), []);
    const hint = (await tmuxMcp(home, ["doctor"])).stdout.split("\n").filter((l) => / mcp client: /.test(l));
    assertMatch(hint.join("\n"), /^warn {2}mcp client: cursor: .*is not UTF-8 text/);
  });
});

Deno.test("install: settings from TMUX_MCP_* variables, which the entry does not hold, are named with their flags", async () => {
  await inHome(async (home) => {
    const env = { TMUX_MCP_SAFETY: "readonly", TMUX_MCP_SOCKET_PATH: "/tmp/x", TMUX_MCP_KEEP_SESSIONS: "off" };
    // --socket-name replaces the socket variable; a boolean variable that is off needs no flag.
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor", "--socket-name", "agent"], env);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertEquals(
      r.stdout.trimEnd().split("\n").at(-1),
      "tmux-mcp doctor: not written: TMUX_MCP_SAFETY from this environment, which a client started elsewhere does " +
        "not have: to keep it, run again with --safety readonly",
    );
    assertEquals(
      (serversOf("cursor", await Deno.readTextFile(`${home}/.cursor/mcp.json`)).tmux.args as string[]).slice(-2),
      [
        "--socket-name",
        "agent",
      ],
    );
    const again = await tmuxMcp(home, [
      "doctor",
      "--install",
      "cursor",
      "--socket-name",
      "agent",
      "--safety",
      "readonly",
    ], env);
    assertEquals(again.code, 0, again.stdout + again.stderr);
    assert(!again.stdout.includes("not written"), again.stdout);
  });
});

Deno.test("install: a TMUX_TMPDIR that moves the socket is named with the --socket-path to install instead", async () => {
  await inHome(async (home) => {
    const tmpdir = `${home}/run`;
    await Deno.mkdir(tmpdir);
    const name = `tmcp-tmpdir-${crypto.randomUUID().slice(0, 8)}`;
    // Where tmux itself puts the socket with that TMUX_TMPDIR.
    const tmux = (...args: string[]) =>
      new Deno.Command("tmux", { args: ["-L", name, "-f", "/dev/null", ...args], env: { TMUX_TMPDIR: tmpdir } })
        .output();
    await tmux("new-session", "-d");
    try {
      const path = `${tmpdir}/tmux-${Deno.uid()}/${name}`;
      assert((await Deno.stat(path)).isSocket, path);
      const r = await tmuxMcp(home, ["doctor", "--install", "cursor", "--socket-name", name], { TMUX_TMPDIR: tmpdir });
      assertEquals(r.code, 0, r.stdout + r.stderr);
      assertEquals(
        r.stdout.split("\n").filter((l) => l.includes("TMUX_TMPDIR")),
        [
          `tmux-mcp doctor: TMUX_TMPDIR is set here, so the socket is ${path}, which a client started elsewhere does ` +
          `not look in: to keep it, run again with --socket-path ${path} in place of --socket-name ${name}`,
        ],
      );
      // Done so: nothing more to say.
      const again = await tmuxMcp(home, ["doctor", "--install", "cursor", "--socket-path", path], {
        TMUX_TMPDIR: tmpdir,
      });
      assertEquals(again.code, 0, again.stdout + again.stderr);
      assert(!again.stdout.includes("TMUX_TMPDIR"), again.stdout);
    } finally {
      await tmux("kill-server");
    }
  });
});

Deno.test("install: an entry the client has turned off is said so, by --install and by doctor (warn, not ok)", async () => {
  await inHome(async (home) => {
    const path = await writeConfig(
      home,
      ".codeium/windsurf/mcp_config.json",
      `{\n  "mcpServers": {\n    "tmux": { "command": "old", "disabled": true }\n  }\n}\n`,
    );
    const r = await tmuxMcp(home, ["doctor", "--install", "windsurf"]);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertEquals(
      r.stdout.trimEnd().split("\n").at(-1),
      `tmux-mcp doctor: the entry is turned off there ("disabled": true): Windsurf starts it once that key is gone`,
    );
    assertEquals(serversOf("windsurf", await Deno.readTextFile(path)).tmux.disabled, true, "the user's key stays");
    const hint = (await tmuxMcp(home, ["doctor"])).stdout.split("\n").filter((l) => / mcp client: windsurf/.test(l));
    assertEquals(hint.length, 1, hint.join("\n"));
    assertMatch(
      hint[0],
      /^warn {2}mcp client: windsurf: .* with this command, turned off \("disabled": true\): remove that key$/,
    );
    // Codex's (and Zed's) own switch, in TOML.
    await writeConfig(home, ".codex/config.toml", `[mcp_servers.tmux]\ncommand = "old"\nenabled = false\n`);
    const codex = await tmuxMcp(home, ["doctor", "--install", "codex"]);
    assertMatch(codex.stdout, /turned off there \(enabled = false\): Codex starts it once that key is gone/);
  });
});

Deno.test("install: a file where the client keeps its folder (~/.cursor) is one line saying to move it aside", async () => {
  await inHome(async (home) => {
    await Deno.writeTextFile(`${home}/.cursor`, "mine");
    const why = `${home}/.cursor is a file, where the client keeps a folder: move it aside and run again`;
    const r = await tmuxMcp(home, ["doctor", "--install", "cursor"]);
    assertEquals(r.code, 1, r.stdout + r.stderr);
    assertEquals(r.stdout, `tmux-mcp doctor: not changing ${home}/.cursor/mcp.json: ${why}; it is left as it was\n`);
    assertEquals(await Deno.readTextFile(`${home}/.cursor`), "mine");
    const hint = (await tmuxMcp(home, ["doctor"])).stdout.split("\n").filter((l) => / mcp client: /.test(l));
    assertEquals(hint, [`warn  mcp client: cursor: ${why}`]);
  });
});

Deno.test("install: a folder where the config file should be is one line saying to move it aside, untouched", async () => {
  await inHome(async (home) => {
    await Deno.mkdir(`${home}/.claude.json/inside`, { recursive: true });
    const r = await tmuxMcp(home, ["doctor", "--install", "claude-code"]);
    assertEquals(r.code, 1, r.stdout + r.stderr);
    assertEquals(
      r.stdout,
      `tmux-mcp doctor: not changing ${home}/.claude.json: ${home}/.claude.json is a folder, where the client ` +
        `expects its config file: move it aside and run again; it is left as it was\n`,
    );
    assert((await Deno.stat(`${home}/.claude.json/inside`)).isDirectory);
    const hint = (await tmuxMcp(home, ["doctor"])).stdout.split("\n").filter((l) => / mcp client: /.test(l));
    assertEquals(hint, [
      `warn  mcp client: claude-code: ${home}/.claude.json is a folder, where the client expects its config file: ` +
      "move it aside and run again",
    ]);
  });
});
