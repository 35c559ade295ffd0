/**
 * Option and hook names are read as tmux reads them (unique prefix, [index],
 * @user, old spellings) before the option policy judges them: tested over
 * the lists the test's own tmux prints, against tmux's own verdicts.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, startTmux, textOf, type TmuxFixture, withServer } from "./helpers.ts";
import { resolveOptionName, tableFromListings } from "../lib/tmux/option_names.ts";

/** The options (besides every hook) that run commands, end the server or write files: lib/policy/options.ts. */
const DANGEROUS_OPTIONS = [
  "command-alias",
  "default-command",
  "default-shell",
  "copy-command",
  "lock-command",
  "editor",
  "exit-empty",
  "exit-unattached",
  "destroy-unattached",
  "history-file",
];

type Scope = "server" | "session" | "window";

/** tmux's own lists: every option and hook name with the table it lives in, and which are hooks. */
async function tmuxLists(tmux: TmuxFixture) {
  const words = (text: string) => text.split("\n").map((l) => l.split(" ")[0].replace(/\[\d+\]$/, "")).filter(Boolean);
  const listings = {
    server: await tmux.tmux("show-options", "-s", "-H"),
    session: await tmux.tmux("show-options", "-g", "-H"),
    window: await tmux.tmux("show-options", "-g", "-w", "-H"),
    hooks: await tmux.tmux("show-hooks", "-g") + await tmux.tmux("show-hooks", "-g", "-w"),
  };
  const scopes = new Map<string, Scope>();
  for (const scope of ["server", "session", "window"] as const) {
    for (const n of words(listings[scope])) if (!n.startsWith("@")) scopes.set(n, scope);
  }
  return { listings, scopes, hooks: new Set(words(listings.hooks)) };
}

/** Every option value of every table the test server has, to show that nothing changed. */
async function snapshot(tmux: TmuxFixture): Promise<string> {
  const parts = await Promise.all([
    tmux.tmux("show-options", "-s", "-H"),
    tmux.tmux("show-options", "-g", "-H"),
    tmux.tmux("show-options", "-g", "-w", "-H"),
    tmux.tmux("show-options", "-H", "-t", "main"),
    tmux.tmux("show-options", "-w", "-H", "-t", "main:0"),
    tmux.tmux("show-options", "-p", "-H", "-t", "main:0.0"),
  ]);
  return parts.join("\n--\n");
}

/** A value tmux would take for `name`, harmless in the test server if a refusal were missing. */
function harmlessValue(name: string, hook: boolean): string {
  if (hook) return "display-message -d 1 hooked";
  return ({
    "command-alias": "zz-test=list-sessions",
    "default-shell": "/bin/sh",
    "exit-empty": "off",
    "exit-unattached": "off",
    "destroy-unattached": "off",
  } as Record<string, string>)[name] ?? "true";
}

Deno.test("every prefix of every dangerous option and hook tmux lists is refused below --safety destructive", async () => {
  const tmux = await startTmux("optpfx");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--safety", "mutating"] });
  try {
    const { scopes, hooks } = await tmuxLists(tmux);
    assert(hooks.size >= 50 && hooks.has("after-new-window") && hooks.has("pane-died"), `hooks: ${[...hooks]}`);
    for (const name of DANGEROUS_OPTIONS) assert(scopes.has(name), `${name} in tmux's lists`);
    const dangerous = [...hooks, ...DANGEROUS_OPTIONS];
    // Each prefix once, judged for the first dangerous name it starts; a prefix that is itself the full name of a
    // harmless option is that option (tmux takes an exact name first).
    const cases = new Map<string, { name: string; scope: Scope; value: string }>();
    for (const name of dangerous) {
      for (let n = 1; n <= name.length; n++) {
        const prefix = name.slice(0, n);
        if (cases.has(prefix) || (scopes.has(prefix) && !dangerous.includes(prefix))) continue;
        const c = { name, scope: scopes.get(name)!, value: harmlessValue(name, hooks.has(name)) };
        cases.set(prefix, c);
        // Hooks and command-alias are arrays: "name[index]" sets one item.
        if (hooks.has(name) || name === "command-alias") cases.set(`${prefix}[7]`, c);
      }
    }
    assert(cases.size > 1000, `${cases.size} cases`);
    const before = await snapshot(tmux);
    let ambiguous = 0;
    const accepted: string[] = [];
    const otherwise: string[] = [];
    for (const [prefix, c] of cases) {
      const r = await mcp.call("set", { what: "option", scope: c.scope, name: prefix, value: c.value });
      const e = textOf(r);
      if (!r.isError) accepted.push(`${prefix} (${c.name})`);
      else if (/^ambiguous option "[^"]+": tmux would not know which of [a-z-]+, [a-z-]+/.test(e)) ambiguous++;
      else if (!/needs the destructive tier and this server runs with --safety mutating/.test(e)) {
        otherwise.push(`${prefix}: ${e}`);
      }
    }
    assertEquals(accepted, [], `${accepted.length} of ${cases.size} dangerous prefixes accepted`);
    assertEquals(otherwise, []);
    assert(ambiguous > 0 && ambiguous < cases.size, `${ambiguous} of ${cases.size} ambiguous`);
    assertEquals(await snapshot(tmux), before);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("the abbreviations that got past the policy are refused, each judged by its full name", async () => {
  const tmux = await startTmux("optrepro");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--safety", "mutating"] });
  try {
    const before = await snapshot(tmux);
    const repro: [string, string, RegExp][] = [
      ["command-a[90]", "list-panes=kill-server ; list-panes", /command-alias makes a command name run/],
      ["command-al", "zz=run-shell 'touch /tmp/x'", /command-alias makes a command name run/],
      ["default-comm", "touch C", /default-command is a shell command/],
      ["window-lin", "kill-server", /window-linked is a hook/],
      ["destroy-u", "on", /destroy-unattached can end/],
      ["exit-em", "on", /exit-empty can end/],
      ["history-f", "/tmp/h", /history-file is a file tmux writes/],
      ["pane-di", "kill-server", /pane-died is a hook/],
      ["client-at", "kill-server", /client-attached is a hook/],
      ["copy-comm", "true", /copy-command is a shell command/],
      ["lock-comm", "true", /lock-command is a shell command/],
      ["default-sh", "/bin/sh", /default-shell is a shell command/],
    ];
    for (const [name, value, why] of repro) {
      for (const scope of ["server", "session", "window", "pane"]) {
        const e = await mcp.err("set", { what: "option", scope, name, value });
        assertMatch(e, why, `${name} (${scope}): ${e}`);
        assertMatch(e, /needs the destructive tier/, name);
      }
    }
    await mcp.ok("list", { what: "panes" });
    assertEquals(await snapshot(tmux), before);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("harmless options work by prefix and report the full name; ambiguous, unknown and wrong-scope names are refused", async () => {
  await withServer(async (mcp, tmux) => {
    const set = await mcp.ok<{ name: string }>("set", {
      what: "option",
      scope: "session",
      target: "main",
      name: "history-l",
      value: "4321",
    });
    assertEquals(set.name, "history-limit");
    assertEquals((await tmux.tmux("show-options", "-v", "-t", "main", "history-limit")).trim(), "4321");
    const old = await mcp.ok<{ name: string }>("set", {
      what: "option",
      scope: "window",
      global: true,
      name: "cursor-color",
      value: "red",
    });
    assertEquals(old.name, "cursor-colour");
    type Opts = { options: { name: string; value: string | null; inherited: boolean }[] };
    const shown = await mcp.ok<Opts>("show", { what: "options", scope: "session", target: "main", name: "history-l" });
    assertEquals(shown.options, [{ name: "history-limit", value: "4321", inherited: false }]);
    // Values, not tmux's quoted form: spaces, quotes, #{}, a lone special character, the empty string.
    for (const value of ['say "hi" #{session_name} $x', "it's ~ok", "#", "", "~home"]) {
      await mcp.ok("set", { what: "option", scope: "session", target: "main", name: "@v", value });
      const v = await mcp.ok<Opts>("show", { what: "options", scope: "session", target: "main", name: "@v" });
      assertEquals(v.options[0].value, value);
    }

    const amb = await mcp.err("set", { what: "option", scope: "session", name: "status-l", value: "x" });
    assertMatch(amb, /^ambiguous option "status-l": tmux would not know which of status-left, status-left-length/);
    assertMatch(await mcp.err("show", { what: "options", scope: "session", name: "status-l" }), /^ambiguous option/);
    // Bounded: a one-letter prefix of many names lists a few and counts the rest.
    assertMatch(
      await mcp.err("set", { what: "option", scope: "session", name: "s", value: "x" }),
      / and \d+ more you mean; give the full name$/,
    );
    assertMatch(
      await mcp.err("set", { what: "option", scope: "session", name: "histroy-limit", value: "1" }),
      /^unknown option "histroy-limit": .*\(closest: history-file, history-limit\)/,
    );
    assertMatch(
      await mcp.err("set", { what: "option", scope: "server", name: "status-left", value: "x" }),
      /status-left is a session option, not a server one: pass scope "session"/,
    );
    assertMatch(
      await mcp.err("show", { what: "options", scope: "session", name: "mode-k" }),
      /mode-keys is a window option, not a session one: pass scope "window" \(or "pane"\)/,
    );
    // A user option is never a prefix of anything.
    await mcp.ok("set", { what: "option", scope: "session", target: "main", name: "@his", value: "1" });
    assertEquals((await tmux.tmux("show-options", "-v", "-t", "main", "@his")).trim(), "1");
  });
});

Deno.test("a value tmux refuses names the option and what values it takes, and changes nothing", async () => {
  await withServer(async (mcp, tmux) => {
    const refused = [["mouse", "maybe"], ["history-limit", "lots"], ["status-position", "middle"], [
      "history-limit",
      "-5",
    ]];
    for (const [name, value] of refused) {
      const e = await mcp.err("set", { what: "option", scope: "session", target: "main", name, value });
      // A number out of range was tmux's bare "value is too small: -5".
      assertMatch(
        e,
        new RegExp(`^tmux refused the value for ${name} \\((bad|unknown) value|value is (invalid|too small)`),
      );
      assertMatch(e, new RegExp(`show \\(what: "options", scope: "session", name: "${name}"\\)`));
    }
    assertEquals((await tmux.tmux("show-options", "-q", "-t", "main", "mouse")).trim(), "");
    // Showing a user option that is not set: tmux says "invalid option", and the advice named no tool of ours.
    assertMatch(
      await mcp.err("show", { what: "options", scope: "session", target: "main", name: "@unset" }),
      /^user option @unset is not set at scope session for this target: call show \(what: "options", scope: "session"\)/,
    );
  });
});

Deno.test("at --safety destructive a hook set by prefix is set under its full name", async () => {
  await withServer(async (mcp, tmux) => {
    const r = await mcp.ok<{ name: string }>("set", {
      what: "option",
      scope: "window",
      global: true,
      name: "pane-di[3]",
      value: "display-message died",
    });
    assertEquals(r.name, "pane-died[3]");
    assertMatch(await tmux.tmux("show-hooks", "-g", "-w"), /^pane-died\[3\] display-message died$/m);
  }, { args: ["--safety", "destructive"] });
});

/** tmux's verdict on each name, from one control-mode client: "ambiguous", "unknown" or the canonical name. */
async function tmuxVerdicts(tmux: TmuxFixture, names: string[]): Promise<string[]> {
  const child = new Deno.Command("tmux", {
    args: ["-u", "-L", tmux.socketName, "-C", "attach-session", "-t", "main"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  const enc = new TextEncoder();
  await w.write(enc.encode(names.map((n) => `show-options -A -H -- ${n}\n`).join("") + "detach-client\n"));
  const out = new TextDecoder().decode((await child.output()).stdout);
  const verdicts: string[] = [];
  let block: string[] | undefined;
  for (const line of out.split("\n")) {
    // Flag 1: the reply to a command this client sent (the attach's own block has 0).
    if (line.startsWith("%begin ") && line.endsWith(" 1")) block = [];
    else if (block && (line.startsWith("%end ") || line.startsWith("%error "))) {
      const text = block.join("\n");
      if (line.startsWith("%error ")) verdicts.push(/ambiguous option/.test(text) ? "ambiguous" : "unknown");
      else verdicts.push(block.length ? block[0].split(" ")[0].replace(/\*$/, "").replace(/\[\d+\]$/, "") : "");
      block = undefined;
    } else if (block) block.push(line);
  }
  return verdicts.slice(0, names.length); // the last one answers detach-client
}

Deno.test("every prefix of every option and hook name resolves as tmux itself resolves it", async () => {
  const tmux = await startTmux("optall");
  try {
    const { listings, scopes } = await tmuxLists(tmux);
    const table = tableFromListings(listings);
    assertEquals([...table.scopes.keys()].sort(), [...scopes.keys()].sort());
    const prefixes = new Set<string>();
    for (const name of scopes.keys()) for (let n = 1; n <= name.length; n++) prefixes.add(name.slice(0, n));
    for (const old of ["cursor-color", "pane-colors", "clock-mode-color", "nosuch", "zz"]) prefixes.add(old);
    const names = [...prefixes];
    const verdicts = await tmuxVerdicts(tmux, names);
    assertEquals(verdicts.length, names.length);
    names.forEach((name, i) => {
      let ours: string;
      try {
        ours = resolveOptionName(table, name).base;
      } catch (e) {
        ours = /^ambiguous/.test((e as Error).message) ? "ambiguous" : "unknown";
      }
      // An array tmux has no items of prints nothing: then only "not an error" can be compared.
      const theirs = verdicts[i] === "" && !["ambiguous", "unknown"].includes(ours) ? ours : verdicts[i];
      assertEquals(ours, theirs, name);
    });
  } finally {
    await tmux.kill();
  }
});
