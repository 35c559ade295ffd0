/** Hostile cases for the buffers toolset: names, contents, queries, offsets, tiers. */
import type { HostileCase } from "./types.ts";
import { CONTROL, HUGE, INJECTIONS, tierRefusals } from "./payloads.ts";

const cases: HostileCase[] = [];

for (const [label, p] of INJECTIONS) {
  cases.push(
    { name: `set-buffer name ${label}`, tool: "set-buffer", args: { name: p, content: "v" }, expect: "ok" },
    { name: `append-buffer name ${label}`, tool: "append-buffer", args: { name: p, content: "w" }, expect: "ok" },
    {
      name: `set-buffer content ${label}`,
      tool: "set-buffer",
      args: { name: `content ${label}`, content: p },
      expect: "ok",
    },
    {
      name: `show-buffer missing name ${label}`,
      tool: "show-buffer",
      args: { name: `absent ${p}` },
      expect: "error",
      match: /no buffer named/,
    },
    {
      name: `delete-buffer missing name ${label}`,
      tool: "delete-buffer",
      args: { name: `absent ${p}` },
      expect: "error",
      match: /no buffer named/,
    },
    {
      name: `rename-buffer to ${label}`,
      tool: "rename-buffer",
      args: { from: `content ${label}`, to: `renamed ${p}` },
      expect: "ok",
    },
    { name: `search-buffer literal ${label}`, tool: "search-buffer", args: { query: p }, expect: "ok" },
  );
}

for (const [label, p] of CONTROL) {
  cases.push(
    {
      name: `set-buffer name with ${label}`,
      tool: "set-buffer",
      args: { name: p, content: "v" },
      expect: "error",
      match: /invalid arguments/,
    },
    {
      // A name another tmux client gave may hold one (it is read, as it is listed); only NUL is none tmux holds.
      name: `show-buffer name with ${label}`,
      tool: "show-buffer",
      args: { name: p },
      expect: "error",
      match: label === "NUL" ? /invalid arguments/ : /^no buffer named ".*": call list-buffers/,
    },
  );
}

cases.push(
  { name: "set-buffer huge name", tool: "set-buffer", args: { name: HUGE, content: "v" }, expect: "error" },
  { name: "set-buffer empty name", tool: "set-buffer", args: { name: "", content: "v" }, expect: "error" },
  { name: "set-buffer name not a string", tool: "set-buffer", args: { name: 7, content: "v" }, expect: "error" },
  { name: "set-buffer content NUL", tool: "set-buffer", args: { name: "nul", content: "a\0b" }, expect: "ok" },
  {
    name: "set-buffer unknown parameter",
    tool: "set-buffer",
    args: { name: "u", content: "v", x: 1 },
    expect: "error",
  },
  {
    name: "show-buffer offset 2^53-1",
    tool: "show-buffer",
    args: { name: "nul", offset_bytes: 2 ** 53 - 1 },
    expect: "error",
  },
  {
    name: "show-buffer offset 2^53",
    tool: "show-buffer",
    args: { name: "nul", offset_bytes: 2 ** 53 },
    expect: "error",
  },
  {
    name: "show-buffer offset negative",
    tool: "show-buffer",
    args: { name: "nul", offset_bytes: -1 },
    expect: "error",
  },
  {
    name: "show-buffer offset NaN-ish",
    tool: "show-buffer",
    args: { name: "nul", offset_bytes: "NaN" },
    expect: "error",
  },
  { name: "show-buffer offset 1e11", tool: "show-buffer", args: { name: "nul", offset_bytes: 1e11 }, expect: "error" },
  { name: "show-buffer max_bytes 1e12", tool: "show-buffer", args: { name: "nul", max_bytes: 1e12 }, expect: "error" },
  { name: "show-buffer offset 1.5", tool: "show-buffer", args: { name: "nul", offset_bytes: 1.5 }, expect: "error" },
  {
    name: "search-buffer near an offset far past the end",
    tool: "search-buffer",
    args: { near: { buffer: "nul", offset_bytes: 2 ** 40, match_len: 1 }, query: "a" },
    expect: "error",
  },
  {
    name: "search-buffer near offset 2^53-1",
    tool: "search-buffer",
    args: { near: { buffer: "nul", offset_bytes: 2 ** 53 - 1, match_len: 1 }, query: "a" },
    expect: "error",
  },
  {
    name: "search-buffer invalid regex",
    tool: "search-buffer",
    args: { query: "(unclosed", mode: "regex" },
    expect: "error",
    match: /invalid regex/,
  },
  {
    name: "search-buffer resume offset 2^53-1",
    tool: "search-buffer",
    args: { query: "a", resume_from_offset: { nul: 2 ** 53 - 1 } },
    expect: "error",
  },
  { name: "search-buffer huge query", tool: "search-buffer", args: { query: HUGE }, expect: "error" },
  {
    name: "search-buffer resume offset of a buffer named __proto__",
    tool: "search-buffer",
    args: { query: "a", resume_from_offset: { ["__proto__"]: 1 } },
    expect: "error",
    match: /: resume_from_offset: a key named "__proto__" cannot be taken/,
  },
  // Numbers: a fraction is said to be one, and a bound past 2^53 once.
  {
    name: "show-buffer max_bytes a fraction",
    tool: "show-buffer",
    args: { name: "nosuch", max_bytes: 1.5 },
    expect: "error",
    match: /^invalid arguments for show-buffer: max_bytes: 1\.5 is not a whole number: give one$/,
  },
  {
    name: "show-buffer offset_bytes 1e20",
    tool: "show-buffer",
    args: { name: "nosuch", offset_bytes: 1e20 },
    expect: "error",
    match: /^invalid arguments for show-buffer: offset_bytes: Too big: [^;]*$/,
  },
  // A misspelt key inside near is refused as one at the top level is, not dropped.
  {
    name: "search-buffer near with a misspelt key",
    tool: "search-buffer",
    args: { query: "a", near: { buffer: "nosuch", offset_bytes: 0, match_length: 4 } },
    expect: "error",
    match: /: near: unknown parameter\(s\) match_length \(did you mean match_len\?\)$/,
  },
  // A name the model made up is quoted in the error: its newline would split the one line, its ESC reach a terminal.
  {
    name: "search-buffer resume key with a newline",
    tool: "search-buffer",
    args: { query: "a", resume_from_offset: { "a\nb": -1 } },
    expect: "error",
    match: /: resume_from_offset\."a\\nb": Too small/,
  },
  {
    name: "show-buffer unknown parameter with a newline and ESC",
    tool: "show-buffer",
    args: { name: "x", "a\nb\x1b[31m": 1 },
    expect: "error",
    match: /unknown parameter\(s\) "a\\nb\\u001b\[31m"$/,
  },
);

cases.push(...tierRefusals("readonly", [
  ["set-buffer", { name: "r", content: "x" }],
  ["append-buffer", { name: "r", content: "x" }],
  ["delete-buffer", { name: "r" }],
  ["rename-buffer", { from: "r", to: "s" }],
  ["load-buffer", { name: "r", path: "{{FIXTURES}}/file.txt" }],
  ["save-buffer", { name: "r", path: "{{FIXTURES}}/out/ro" }],
]));

export const CASES: readonly HostileCase[] = cases;
