/**
 * Hostile cases that live in tmux commands: tier bypass
 * through options, hooks, aliases and environment; prefixes and globs for
 * destructive tools; keys into the MCP server's own pane; format strings
 * that would make the tmux server allocate, backtrack or run commands.
 *
 * They expect the world {@linkcode setup} builds on a fresh
 * `startTmux()` server: sessions `prod-db` (windows `logs`, `logs-old`),
 * `other` (window `gone-w`), `gone-a`, `gone-b` and `self`, and an MCP server
 * started with {@linkcode SetupResult.env}, which makes it believe it runs in
 * the pane of session `self` (as TMUX and TMUX_PANE say for a process in that
 * pane), so the self-kill guard protects that pane.
 *
 * @example
 * ```ts
 * import { connect, type TmuxFixture } from "../helpers.ts";
 * declare const tmux: TmuxFixture; // a fresh `startTmux()`
 * const { env } = await setup(tmux);
 * const mcp = await connect({ socketName: tmux.socketName, args: ["--safety", "destructive"], env });
 * ```
 */
import type { HostileCase } from "./types.ts";
import type { TmuxFixture } from "../helpers.ts";

export interface SetupResult {
  /** Environment for the MCP server: it runs "inside" the pane of session `self`. */
  env: Record<string, string>;
  /** That pane's id. */
  selfPane: string;
}

/** Builds the sessions and windows the cases name. */
export async function setup(tmux: TmuxFixture): Promise<SetupResult> {
  const shell = "exec sh";
  await tmux.tmux("new-session", "-d", "-s", "prod-db", "-n", "logs", shell);
  await tmux.tmux("new-window", "-d", "-t", "prod-db:", "-n", "logs-old", shell);
  await tmux.tmux("new-session", "-d", "-s", "other", shell);
  await tmux.tmux("new-window", "-d", "-t", "other:", "-n", "gone-w", shell);
  for (const s of ["gone-a", "gone-b"]) await tmux.tmux("new-session", "-d", "-s", s, shell);
  const selfPane = (await tmux.tmux("new-session", "-d", "-s", "self", "-P", "-F", "#{pane_id}", shell)).trim();
  const [socketPath, pid] = (await tmux.tmux("display-message", "-p", "#{socket_path}\t#{pid}")).trim().split("\t");
  return { env: { TMUX: `${socketPath},${pid},0`, TMUX_PANE: selfPane }, selfPane };
}

const TIER = /needs the destructive tier.*--safety destructive/;
/** A hook newer than the tmux under test (command-error came in 3.5): refused as tmux would, as unknown. */
const TIER_OR_UNKNOWN = new RegExp(
  `${TIER.source}|^unknown option "[a-z-]+(\\[\\d+\\])?": this tmux has no option or hook`,
);
const SELF_GUARD = /tmux-mcp runs inside this tmux server/;
const NOT_EXACT =
  /not an exact name|is not exact|relative tmux token|names no session|needs an explicit target|not one (pane|window)|leaves out the window/;
const SELF_INPUT = /refusing to type into pane %\d+: .*tmux-mcp server itself runs in this pane/;
const FORMAT = /^display-message refused: /;
const CANARY = "{{CANARY}}";

function option(
  name: string,
  value: string,
  scope: "server" | "session" | "window" | "pane" = "session",
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const global = scope === "session" || scope === "window";
  return { what: "option", scope, ...(global ? { global: true } : {}), name, value, ...extra };
}

// Every route to a hook: global session and window tables, one session, one window, one pane, array items.
const HOOK_ROUTES: [string, Record<string, unknown>][] = [
  ["global session hook after-select-window", option("after-select-window", "kill-server")],
  ["global hook array item after-select-window[3]", option("after-select-window[3]", "kill-server")],
  [
    "session hook after-list-panes runs a shell",
    option("after-list-panes", `run-shell 'touch ${CANARY}'`, "session", { global: false, target: "main" }),
  ],
  ["window hook pane-focus-in", option("pane-focus-in", "kill-pane", "window")],
  [
    "window hook of one window after-new-window",
    option("after-new-window", "kill-window", "window", { global: false, target: "main" }),
  ],
  ["pane hook pane-died", option("pane-died", "kill-server", "pane", { target: "main" })],
  ["global hook session-created", option("session-created", "kill-server")],
  ["global hook client-attached", option("client-attached", "kill-session")],
  ["global hook window-linked", option("window-linked", "kill-server")],
  ["global hook alert-bell", option("alert-bell", `run-shell 'touch ${CANARY}'`)],
  ["global hook command-error (tmux 3.5+)", option("command-error", "kill-server")],
  ["global hook after-capture-pane", option("after-capture-pane", `if-shell true 'run-shell "touch ${CANARY}"'`)],
];

const SHELL_OPTIONS: [string, Record<string, unknown>][] = [
  ["command-alias list-panes=kill-server", option("command-alias[10]", "list-panes=kill-server", "server")],
  [
    "command-alias capture-pane=run-shell",
    option("command-alias[11]", `capture-pane=run-shell 'touch ${CANARY}'`, "server"),
  ],
  ["command-alias new name", option("command-alias[99]", "zz=kill-server", "server")],
  ["default-command", option("default-command", `touch ${CANARY}`)],
  ["default-shell", option("default-shell", "/bin/sh")],
  ["copy-command", option("copy-command", `touch ${CANARY}`, "server")],
  ["lock-command", option("lock-command", `touch ${CANARY}`)],
  ["editor", option("editor", `touch ${CANARY}`, "server")],
  ["exit-unattached on", option("exit-unattached", "on", "server")],
  ["exit-empty off", option("exit-empty", "off", "server")],
  ["destroy-unattached on", option("destroy-unattached", "on")],
  ["history-file", option("history-file", CANARY, "server")],
  ["#( in status-right", option("status-right", `#(touch ${CANARY})`)],
  ["#( after a style in status-left", option("status-left", `#[fg=red]#(touch ${CANARY})`)],
  ["#( in set-titles-string", option("set-titles-string", `#(touch ${CANARY})`)],
  ["#( in pane-border-format", option("pane-border-format", `#(touch ${CANARY})`, "window")],
  ["#( in window-status-format", option("window-status-format", `#{?window_active,x,#(touch ${CANARY})}`, "window")],
  ["#( in status-format[0]", option("status-format[0]", `#(touch ${CANARY})`)],
  ["#( in automatic-rename-format", option("automatic-rename-format", `#(touch ${CANARY})`, "window")],
  ["#( in a user option a theme expands", option("@evil", `#(touch ${CANARY})`)],
  ["E: re-expansion in status-right", option("status-right", "#{E:@evil}")],
  ["T: re-expansion in status-right", option("status-right", "#{T:@evil}")],
];

const ENV: [string, string, Record<string, unknown>][] = [
  ["set-environment LD_PRELOAD global", "set-environment", { global: true, name: "LD_PRELOAD", value: "/tmp/x.so" }],
  ["set-environment BASH_ENV in a session", "set-environment", { target: "main", name: "BASH_ENV", value: CANARY }],
  ["set-environment PROMPT_COMMAND", "set-environment", {
    global: true,
    name: "PROMPT_COMMAND",
    value: `touch ${CANARY}`,
  }],
  ["set-environment ZDOTDIR", "set-environment", { global: true, name: "ZDOTDIR", value: "/tmp" }],
  ["set-environment DYLD_INSERT_LIBRARIES", "set-environment", {
    global: true,
    name: "DYLD_INSERT_LIBRARIES",
    value: "x",
  }],
  // git runs core.fsmonitor on `git status`; less runs LESSOPEN on every file it opens.
  ["set-environment GIT_CONFIG_COUNT", "set-environment", { target: "main", name: "GIT_CONFIG_COUNT", value: "1" }],
  ["set-environment GIT_CONFIG_PARAMETERS", "set-environment", {
    target: "main",
    name: "GIT_CONFIG_PARAMETERS",
    value: `'core.fsmonitor'='touch ${CANARY}'`,
  }],
  ["set-environment LESSOPEN", "set-environment", { global: true, name: "LESSOPEN", value: `|touch ${CANARY}` }],
  ["new-session env JAVA_TOOL_OPTIONS", "new", {
    what: "session",
    name: "envx3",
    env: { JAVA_TOOL_OPTIONS: "-javaagent:/tmp/x.jar" },
  }],
  // git, man, sudo and ssh run these through sh -c: a later `git log` or `sudo` in the session runs the value.
  ["set-environment GIT_PAGER", "set-environment", { global: true, name: "GIT_PAGER", value: `touch ${CANARY}` }],
  ["set-environment EDITOR a path", "set-environment", { target: "main", name: "EDITOR", value: "/tmp/x.sh" }],
  ["new-session env GIT_ASKPASS", "new", { what: "session", name: "envx4", env: { GIT_ASKPASS: "/tmp/x.sh" } }],
  ["new-session env PAGER with shell syntax", "new", {
    what: "session",
    name: "envx5",
    env: { PAGER: `less;touch ${CANARY}` },
  }],
  // sh reads git's log as a script; vim -S sources the Session.vim of the working directory.
  ["new-session env GIT_PAGER sh", "new", { what: "session", name: "envx6", env: { GIT_PAGER: "sh" } }],
  ["new-session env EDITOR vim -S", "new", { what: "session", name: "envx7", env: { EDITOR: "vim -S" } }],
  ["new-session env LD_PRELOAD", "new", { what: "session", name: "envx1", env: { LD_PRELOAD: "/tmp/x.so" } }],
  ["new-session env PROMPT_COMMAND", "new", {
    what: "session",
    name: "envx2",
    env: { PROMPT_COMMAND: `touch ${CANARY}` },
  }],
];

const tierBypass: HostileCase[] = [
  ...[...HOOK_ROUTES, ...SHELL_OPTIONS].map(([name, args]): HostileCase => ({
    name: `mutating: set-option ${name}`,
    tool: "set",
    args,
    expect: "refused",
    match: name.endsWith("(tmux 3.5+)") ? TIER_OR_UNKNOWN : TIER,
  })),
  ...ENV.map(([name, tool, args]): HostileCase => ({
    name: `mutating: ${name}`,
    ...(tool === "set-environment" ? { tool: "set", args: { what: "environment", ...args } } : { tool, args }),
    expect: "refused",
    match: TIER,
  })),
  {
    name: "mutating: new-session env PAGER may still pick a known pager, GIT_EDITOR a known editor",
    tool: "new",
    args: { what: "session", name: "envok", env: { PAGER: "less -R", GIT_EDITOR: "vim" } },
    expect: "ok",
  },
  {
    name: "readonly: set-option hook is refused by the tier gate",
    tool: "set",
    args: option("after-select-window", "kill-server"),
    safety: "readonly",
    expect: "refused",
    match: /set is mutating/,
  },
];

// At the destructive tier, with tmux-mcp inside the server: the self-kill guard.
const selfGuard: HostileCase[] = [
  ["hook kill-server", option("after-select-window", "kill-server")],
  ["hook alias killp", option("after-select-pane", "killp")],
  ["hook unique prefix kill-ser", option("after-select-window", "kill-ser")],
  ["hook after ; chain", option("after-select-window", "display-message hi ; kill-session")],
  ["hook in braces", option("after-select-window", "if -F 1 { kill-server }")],
  ["hook respawn-pane -k", option("pane-focus-in", "respawn-pane -k", "window")],
  ["hook run-shell", option("after-list-panes", `run-shell 'touch ${CANARY}'`)],
  ["hook send-keys into panes", option("after-select-window", "send-keys C-c")],
  ["command-alias list-panes=kill-server", option("command-alias[10]", "list-panes=kill-server", "server")],
  ["command-alias zz=respawn-pane", option("command-alias[12]", "zz=respawn-pane -k", "server")],
  ["default-command", option("default-command", `touch ${CANARY}`)],
  ["#( in status-right", option("status-right", `#(touch ${CANARY})`)],
  ["exit-unattached", option("exit-unattached", "on", "server")],
  ["destroy-unattached", option("destroy-unattached", "on")],
].map(([name, args]) => ({
  name: `destructive, inside the server: set-option ${name}`,
  tool: "set",
  args: args as Record<string, unknown>,
  safety: "destructive" as const,
  expect: "refused" as const,
  match: SELF_GUARD,
}));
selfGuard.push({
  name: "destructive, inside the server: set-environment PROMPT_COMMAND",
  tool: "set",
  args: { what: "environment", global: true, name: "PROMPT_COMMAND", value: `touch ${CANARY}` },
  safety: "destructive",
  expect: "refused",
  match: SELF_GUARD,
});

const harmlessSettings: HostileCase[] = [
  {
    name: "destructive, inside the server: a harmless hook is set",
    tool: "set",
    args: option("after-select-layout", "display-message hi"),
    safety: "destructive",
    expect: "ok",
  },
  {
    name: "mutating: status-right with variables",
    tool: "set",
    args: option("status-right", "#{session_name} %H:%M"),
    expect: "ok",
  },
  { name: "mutating: mouse on", tool: "set", args: option("mouse", "on"), expect: "ok" },
  { name: "mutating: a plain user option", tool: "set", args: option("@flag", "on"), expect: "ok" },
  {
    name: "mutating: unset a hook",
    tool: "set",
    args: { what: "option", scope: "session", global: true, name: "after-select-layout", unset: true },
    expect: "ok",
  },
  {
    name: "mutating: set-environment RUST_LOG",
    tool: "set",
    args: { what: "environment", global: true, name: "RUST_LOG", value: "debug" },
    expect: "ok",
  },
];

const formatOptionDos: HostileCase[] = [
  ["padding in status-right", "#{p+50000000+:x}"],
  ["regex in status-left", "#{m/r:(a+)+$,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!}"],
  ["three nested loops in status-right", "#{S:#{W:#{P:x}}}"],
].flatMap(([name, value]) =>
  (["mutating", "destructive"] as const).map((safety): HostileCase => ({
    name: `${safety}: set-option ${name}`,
    tool: "set",
    args: option(name.includes("status-left") ? "status-left" : "status-right", value),
    safety,
    expect: "refused",
    match: /set-option refused: the value, read as a tmux format/,
  }))
);

// Destructive tools act only on an exact target.
const exactTargets: HostileCase[] = [
  ["kill-session", "prod"],
  ["kill-session", "p*"],
  ["kill-session", "*"],
  ["kill-session", "pro?-db"],
  ["kill-session", "[p]rod-db"],
  ["kill-session", "=prod"],
  ["kill-session", "=pr"],
  ["kill-window", "prod"],
  ["kill-window", "prod-db:log"],
  ["kill-window", "prod-db:l*"],
  ["kill-window", "p*:0"],
  ["kill-window", ":0"],
  ["kill-window", "prod-db:{last}"],
  ["kill-window", "prod-db:!"],
  ["kill-window", "prod-db:+1"],
  ["kill-window", "0"],
  ["kill-pane", "prod"],
  ["kill-pane", "p*:0.0"],
  ["kill-pane", "prod-db:0.{top}"],
  ["kill-pane", "{marked}"],
  ["kill-pane", "prod-db.0"],
].map(([tool, target]) => ({
  name: `destructive: ${tool} ${JSON.stringify(target)} is not exact`,
  tool: "kill",
  args: { what: tool.slice("kill-".length), target },
  safety: "destructive" as const,
  expect: "refused" as const,
  match: NOT_EXACT,
}));
exactTargets.push(
  {
    name: "mutating: respawn-pane prefix",
    tool: "respawn-pane",
    args: { target: "prod", kill: true },
    expect: "refused",
    match: NOT_EXACT,
  },
  {
    name: "mutating: respawn-pane glob",
    tool: "respawn-pane",
    args: { target: "p*", kill: true },
    expect: "refused",
    match: NOT_EXACT,
  },
  {
    name: "mutating: respawn-pane without target",
    tool: "respawn-pane",
    args: { kill: true },
    expect: "error",
    match: /target/,
  },
  {
    name: "destructive: kill-session listing names what the prefix matched",
    tool: "kill",
    args: { what: "session", target: "prod" },
    safety: "destructive",
    expect: "refused",
    match: /it would match the session "prod-db".*pass an id \(\$1, @2, %3\) or the exact =name/,
  },
  {
    name: "destructive: kill-window prefix lists the windows",
    tool: "kill",
    args: { what: "window", target: "prod-db:log" },
    safety: "destructive",
    expect: "refused",
    match: /windows "logs", "logs-old"/,
  },
  {
    name: "destructive: kill-session =gone-a (exact form)",
    tool: "kill",
    args: { what: "session", target: "=gone-a" },
    safety: "destructive",
    expect: "ok",
  },
  {
    name: "destructive: kill-session gone-b (exact name)",
    tool: "kill",
    args: { what: "session", target: "gone-b" },
    safety: "destructive",
    expect: "ok",
  },
  {
    name: "destructive: kill-window other:=gone-w",
    tool: "kill",
    args: { what: "window", target: "other:=gone-w" },
    safety: "destructive",
    expect: "ok",
  },
  {
    name: "readonly: display-message accepts =prod-db",
    tool: "show",
    args: { what: "format", target: "=prod-db", format: "#{session_name}" },
    safety: "readonly",
    expect: "ok",
  },
  {
    name: "readonly: capture-pane accepts =prod-db:logs",
    tool: "capture-pane",
    args: { target: "=prod-db:=logs" },
    safety: "readonly",
    expect: "ok",
  },
);

// Keys and text that would signal or end the process in the server's own pane ("self").
const selfInput: HostileCase[] = [
  ["send-keys C-c", "send-keys", { target: "self", keys: ["C-c"] }],
  ["send-keys C-\\", "send-keys", { target: "self", keys: ["C-\\"] }],
  ["send-keys C-z", "send-keys", { target: "self", keys: ["C-z"] }],
  ["send-keys C-d", "send-keys", { target: "self", keys: ["C-d"] }],
  ["send-keys ^C", "send-keys", { target: "self", keys: ["^C"] }],
  ["send-keys M-C-c", "send-keys", { target: "self", keys: ["M-C-c"] }],
  ["send-keys C-C upper case", "send-keys", { target: "self", keys: ["C-C"] }],
  ["send-keys text with a ^C byte", "send-keys", { target: "self", text: "\u0003" }],
  ["send-keys exit + enter", "send-keys", { target: "self", text: "exit", enter: true }],
  ["send-keys exit + newline", "send-keys", { target: "self", text: "exit\n" }],
  ["send-keys e x i t Enter as keys", "send-keys", { target: "self", keys: ["e", "x", "i", "t", "Enter"] }],
  ["send-keys kill $PPID", "send-keys", { target: "self", text: "kill -9 $PPID", enter: true }],
  ["send-keys logout + C-m", "send-keys", { target: "self", text: "logout", keys: ["C-m"] }],
  ["send-keys tmux kill-server", "send-keys", { target: "self", text: "tmux kill-server", keys: ["Enter"] }],
  ["send-keys by session:window.pane", "send-keys", { target: "self:0.0", keys: ["C-c"] }],
  ["paste-text exit newline", "paste-text", { target: "self", text: "exit\n" }],
  ["paste-text ^D", "paste-text", { target: "self", text: "\u0004" }],
  ["run-command exit", "run-command", { target: "self", command: "exit", timeout_ms: 5000 }],
].map(([name, tool, args]) => ({
  name: `mutating: ${name} into our own pane`,
  tool: tool as string,
  args: args as Record<string, unknown>,
  expect: "refused" as const,
  match: SELF_INPUT,
}));
selfInput.push(
  {
    name: "mutating: harmless text into our own pane",
    tool: "send-keys",
    args: { target: "self", text: "true", enter: true },
    expect: "ok",
  },
  {
    name: "mutating: C-c into another pane",
    tool: "send-keys",
    args: { target: "other", keys: ["C-c"] },
    expect: "ok",
  },
  {
    name: "mutating: exit typed (no Enter) into our pane",
    tool: "send-keys",
    args: { target: "self", text: "exit" },
    expect: "ok",
  },
  {
    name: "mutating: C-u clears our pane's line",
    tool: "send-keys",
    args: { target: "self", keys: ["C-u"] },
    expect: "ok",
  },
);

// Formats that would make the tmux server allocate, backtrack, loop or run commands (display-message, readonly).
const formats: HostileCase[] = [
  "#{p+50000000+:x}",
  "#{p50000000:x}",
  "#{p/50000000/:x}",
  "#{p-50000000:x}",
  "#{=3;p501:x}",
  "#{p-#{e|*:99999,99999}:x}",
  "#{p/#{pane_width}/:x}",
  "#{=/#{e|*:9,9}/...:pane_title}",
  "#{m/r:(a+)+$,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!}",
  "#{m/ri:x,y}",
  "#{mr:x,y}",
  "#{m:*a*a*a*a*a*b,#{pane_title}}",
  "#{m:#{pane_title},x}",
  "#{s/(a+)+$/x/:pane_title}",
  "#{s/./x/:pane_title}",
  "#{C/r:(a+)+$}",
  "#{C:x}",
  `#(touch ${CANARY})`,
  `#{l:#(touch ${CANARY})}`,
  `#{?pane_in_mode,#(touch ${CANARY}),x}`,
  "#{E:status-right}",
  "#{T:status-left}",
  "#{q;E:status-right}",
  "#{S:#{W:#{P:#{pane_id}}}}",
  "#{S:#{S:#{S:x}}}",
  "#{R:x,100000000}",
  "#{" + "?1,".repeat(5) + "#{".repeat(40) + "x" + "}".repeat(40) + "}",
  "#{pane_id",
].map((format) => ({
  name: `readonly: display-message ${format.length > 60 ? format.slice(0, 57) + "…" : format}`,
  tool: "show",
  args: { what: "format", format },
  safety: "readonly" as const,
  expect: "refused" as const,
  match: FORMAT,
}));
formats.push(
  ...[
    "#{pane_id} #{pane_width}x#{pane_height}",
    "#{?pane_in_mode,copy,normal}",
    "#{S:#{session_name} }",
    "#{p10:pane_id}|#{p-5:window_index}|",
    "#{=5:pane_title}#{=/3/...:session_name}",
    "#{m:*sh*,#{pane_current_command}}",
    "#{s|o|0|:session_name}",
    "##(not run)",
    "#{e|*:6,7} #{t:session_created} #{b:pane_current_path}",
  ].map((format): HostileCase => ({
    name: `readonly: display-message legitimate ${format}`,
    tool: "show",
    args: { what: "format", target: "main", format },
    safety: "readonly",
    expect: "ok",
  })),
);

export const CASES: HostileCase[] = [
  ...tierBypass,
  ...selfGuard,
  ...harmlessSettings,
  ...formatOptionDos,
  ...exactTargets,
  ...selfInput,
  ...formats,
];

/** Fires whatever a hook or alias could have been set on, as the user's own client would. */
export async function afterEach(tmux: TmuxFixture): Promise<void> {
  for (const argv of [["list-panes", "-a"], ["capture-pane", "-p", "-t", "main"], ["select-window", "-t", "main:0"]]) {
    await tmux.tmux(...argv).catch(() => "");
  }
}
