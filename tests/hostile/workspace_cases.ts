/** Hostile cases for the workspace toolset: targets, names, formats, keys, environment, layouts, sizes, tiers. */
import type { HostileCase } from "./types.ts";
import { CONTROL, HUGE, INJECTIONS, tierRefusals } from "./payloads.ts";

const cases: HostileCase[] = [];

/** Payloads that are no target at all (no session, window or pane can be named like this here). */
const NOT_TARGETS = INJECTIONS.filter(([label]) => !["-t", "--", "~"].includes(label));

for (const [label, p] of NOT_TARGETS) {
  cases.push(
    { name: `capture-pane target ${label}`, tool: "capture-pane", args: { target: p }, expect: "error" },
    { name: `send-keys target ${label}`, tool: "send-keys", args: { target: p, text: "x" }, expect: "error" },
    {
      name: `kill-pane target ${label}`,
      tool: "kill",
      args: { what: "pane", target: `${p}-nosuch` },
      safety: "destructive",
      expect: "error",
    },
  );
}

for (const [label, p] of INJECTIONS) {
  cases.push(
    // Typed into `cat > /dev/null`: literal text, never a command.
    {
      name: `send-keys text ${label}`,
      tool: "send-keys",
      args: { target: "{{PANE}}", text: p, enter: true },
      expect: "ok",
    },
    { name: `paste-text ${label}`, tool: "paste-text", args: { target: "{{PANE}}", text: p }, expect: "ok" },
    { name: `search-panes pattern ${label}`, tool: "search-panes", args: { query: p }, expect: "ok" },
    {
      name: `set-environment name ${label}`,
      tool: "set",
      args: { what: "environment", name: p, value: "v" },
      expect: "error",
      match: /environment variable names/,
    },
    {
      name: `set-environment value ${label}`,
      tool: "set",
      args: { what: "environment", target: "{{SESSION}}", name: "HOSTILE_VALUE", value: p },
      expect: "ok",
    },
    {
      name: `select-layout ${label}`,
      tool: "select",
      args: { what: "layout", target: "{{PANE}}", layout: p },
      expect: "error",
    },
    {
      name: `new-window cwd ${label}`,
      tool: "new",
      args: { what: "window", target: "{{SESSION}}", cwd: `/nonexistent/${p}`, command: "cat" },
      expect: "error",
    },
  );
}

for (const [label, p] of CONTROL) {
  cases.push(
    { name: `capture-pane target with ${label}`, tool: "capture-pane", args: { target: p }, expect: "error" },
    {
      name: `rename-window name with ${label}`,
      tool: "rename",
      args: { what: "window", target: "{{WINDOW}}", name: p },
      expect: "error",
    },
    {
      name: `rename-session name with ${label}`,
      tool: "rename",
      args: { what: "session", target: "{{SESSION}}", name: p },
      expect: "error",
    },
  );
}

cases.push(
  {
    name: "display-message #() runs nothing",
    tool: "show",
    args: { what: "format", format: "#(touch {{CANARY}})" },
    safety: "readonly",
    expect: "refused",
  },
  {
    name: "display-message nested #()",
    tool: "show",
    args: { what: "format", format: "#{?1,#(touch {{CANARY}}),}" },
    safety: "readonly",
    expect: "refused",
  },
  {
    name: "display-message E: re-expansion",
    tool: "show",
    args: { what: "format", format: "#{E:status-right}" },
    safety: "readonly",
    expect: "refused",
  },
  {
    name: "display-message T: re-expansion",
    tool: "show",
    args: { what: "format", format: "#{T:status-left}" },
    safety: "readonly",
    expect: "refused",
  },
  {
    name: "display-message huge padding",
    tool: "show",
    args: { what: "format", format: "#{p50000000:x}" },
    safety: "readonly",
    expect: "refused",
  },
  {
    name: "display-message plain variable",
    tool: "show",
    args: { what: "format", format: "#{pane_id}", target: "{{PANE}}" },
    safety: "readonly",
    expect: "ok",
  },
  {
    name: "display-message huge format",
    tool: "show",
    args: { what: "format", format: HUGE },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "display-message format with NUL",
    tool: "show",
    args: { what: "format", format: "#{pane_id}\0" },
    safety: "readonly",
    expect: "error",
    match: /^invalid arguments for show \(what: format\): format: format must not contain NUL/,
  },
  // null for a parameter the model means to leave out: the error says to leave it out, where it may be.
  {
    name: "capture-pane target null",
    tool: "capture-pane",
    args: { target: null, max_lines: null },
    safety: "readonly",
    expect: "error",
    match:
      /^invalid arguments for capture-pane: target: null is not a value here: leave target out for its default, or give a string; max_lines: null .* leave max_lines out/,
  },
  {
    name: "rename name null",
    tool: "rename",
    args: { what: "window", target: "{{WINDOW}}", name: null },
    expect: "error",
    match: /: name: null is not a value here: give a string$/,
  },
  {
    name: "batch sub-call target null",
    tool: "batch",
    args: { calls: [{ tool: "capture-pane", arguments: { target: null } }] },
    safety: "readonly",
    expect: "ok",
    match: /target: null is not a value here: leave target out for its default/,
  },
  {
    name: "capture-pane target {mouse} outside a key binding",
    tool: "capture-pane",
    args: { target: "{mouse}" },
    safety: "readonly",
    expect: "error",
    match: /^target "\{mouse\}" means the pane under the mouse, .*: call list \(what: panes\)/,
  },
  {
    name: "capture-pane exact name of no session is named as given",
    tool: "capture-pane",
    args: { target: "=nosuch-session" },
    safety: "readonly",
    expect: "error",
    match: /^unknown target "=nosuch-session" \(/,
  },
  // A key named __proto__ (a computed key here, as JSON.parse makes it: an own key) would set a prototype where
  // zod builds a record: refused, not dropped, in a batch as directly.
  {
    name: "new-session env named __proto__",
    tool: "new",
    args: { what: "session", name: "protoenv", env: { ["__proto__"]: "x", B: "y" } },
    expect: "error",
    match: /^invalid arguments for new: env: a key named "__proto__" cannot be taken .*: use another name/,
  },
  {
    name: "batch sub-call arguments with a __proto__ key",
    tool: "batch",
    args: { calls: [{ tool: "capture-pane", arguments: { ["__proto__"]: { target: "%999999" } } }] },
    safety: "readonly",
    expect: "error",
    match: /^invalid arguments for batch: calls\.0\.arguments: a key named "__proto__" cannot be taken/,
  },
  {
    name: "capture-pane huge target",
    tool: "capture-pane",
    args: { target: HUGE },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "capture-pane start -1e12",
    tool: "capture-pane",
    args: { target: "{{PANE}}", start: -1e12 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "capture-pane end 1e9",
    tool: "capture-pane",
    args: { target: "{{PANE}}", end: 1e9 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "capture-pane max_lines 2^53-1",
    tool: "capture-pane",
    args: { target: "{{PANE}}", max_lines: 2 ** 53 - 1 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "search-panes offset 2^53-1",
    tool: "search-panes",
    args: { query: "x", offset: 2 ** 53 - 1 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "search-panes lines 1e9",
    tool: "search-panes",
    args: { query: "x", lines: 1e9 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "search-panes invalid regex",
    tool: "search-panes",
    args: { query: "[", mode: "regex" },
    safety: "readonly",
    expect: "error",
  },
  { name: "resize-pane width 1e9", tool: "resize-pane", args: { target: "{{PANE}}", width: 1e9 }, expect: "error" },
  { name: "resize-pane height -1", tool: "resize-pane", args: { target: "{{PANE}}", height: -1 }, expect: "error" },
  {
    name: "send-keys invalid key password=",
    tool: "send-keys",
    args: { target: "{{PANE}}", keys: ["password=hunter2"] },
    expect: "error",
    match: /unknown key name/,
  },
  {
    name: "send-keys key $()",
    tool: "send-keys",
    args: { target: "{{PANE}}", keys: ["$(touch {{CANARY}})"] },
    expect: "error",
  },
  {
    name: "send-keys key ; kill-server",
    tool: "send-keys",
    args: { target: "{{PANE}}", keys: ["Enter;", "kill-server"] },
    expect: "error",
  },
  { name: "send-keys key empty", tool: "send-keys", args: { target: "{{PANE}}", keys: [""] }, expect: "error" },
  { name: "send-keys text NUL", tool: "send-keys", args: { target: "{{PANE}}", text: "a\0b" }, expect: "error" },
  {
    name: "show-options name $()",
    tool: "show",
    args: { what: "options", name: "$(touch {{CANARY}})" },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "show-options name #()",
    tool: "show",
    args: { what: "options", name: "#(touch {{CANARY}})" },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "show-options name ;",
    tool: "show",
    args: { what: "options", name: "status;" },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "show-environment target $()",
    tool: "show",
    args: { what: "environment", target: "$(touch {{CANARY}})" },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "list-panes target #()",
    tool: "list",
    args: { what: "panes", target: "#(touch {{CANARY}})" },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "list-windows target ;",
    tool: "list",
    args: { what: "windows", target: "x;" },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "split-window cwd $()",
    tool: "new",
    args: { what: "pane", target: "{{PANE}}", cwd: "/nonexistent/$(touch {{CANARY}})" },
    expect: "error",
  },
  {
    name: "new-session env name injection",
    tool: "new",
    args: { what: "session", name: "envx", env: { "A=$(touch {{CANARY}})": "v" } },
    expect: "error",
    // What a key must be, and the key quoted: a control character in it is never sent raw.
    match: /: env: key "A=\$\(touch [^"]*\)": environment variable names are letters, digits and _/,
  },
  {
    name: "new-session env name with a control character",
    tool: "new",
    args: { what: "session", name: "envy", env: { "A\u0007B": "v" } },
    expect: "error",
    match: /: env: key "A\\u0007B": environment variable names are letters, digits and _/,
  },
  {
    name: "new-session name ; is a literal name",
    tool: "new",
    args: { what: "session", name: "x;kill-server", command: "cat" },
    expect: "ok",
  },
  { name: "new-session name :", tool: "new", args: { what: "session", name: "a:b", command: "cat" }, expect: "error" },
);

cases.push(
  ...tierRefusals(
    "mutating",
    ["session", "window", "pane"].map((what) => ["kill", { what, target: "{{PANE}}" }]),
  ),
  ...tierRefusals("readonly", [
    ["send-keys", { target: "{{PANE}}", text: "x" }],
    ["paste-text", { target: "{{PANE}}", text: "x" }],
    ["pipe-pane", { target: "{{PANE}}", path: "{{FIXTURES}}/out/ro" }],
    ["set", { what: "environment", name: "X", value: "y" }],
    ["new", { what: "window", target: "{{SESSION}}" }],
    ["respawn-pane", { target: "{{PANE}}" }],
  ]),
);
cases.push(
  { name: "unknown tool name with $()", tool: "$(touch {{CANARY}})", args: {}, expect: "error", match: /unknown tool/ },
  { name: "unknown tool name kill-server;", tool: "kill-server;", args: {}, expect: "error", match: /unknown tool/ },
);

export const CASES: readonly HostileCase[] = cases;
