/**
 * Hostile cases for the file policy (lib/policy/files.ts): every tool that
 * opens a path, against FIFOs without a peer, devices, /proc, the server's own
 * descriptors, symlinks to all of these, directories and malformed paths.
 */
import type { HostileCase } from "./types.ts";

const REFUSED = /refusing|only regular files|is a directory|does not exist|permission denied|symlink|ends with "\/"/;

/** Paths nobody may read. */
const UNREADABLE: ReadonlyArray<readonly [string, string]> = [
  ["FIFO without writer", "{{FIXTURES}}/fifo"],
  ["symlink to FIFO", "{{FIXTURES}}/link-fifo"],
  ["/dev/zero", "/dev/zero"],
  ["symlink to /dev/zero", "{{FIXTURES}}/link-zero"],
  ["/dev/urandom", "/dev/urandom"],
  ["symlink to /dev/urandom", "{{FIXTURES}}/link-urandom"],
  ["/proc/self/environ", "/proc/self/environ"],
  ["symlink to /proc/self/environ", "{{FIXTURES}}/link-environ"],
  ["environ through a /proc/self link", "{{FIXTURES}}/proc/environ"],
  ["/proc/self/fd/0", "/proc/self/fd/0"],
  ["symlink to /proc/self/fd/0", "{{FIXTURES}}/link-stdin"],
  ["/proc/self/fd/1", "/proc/self/fd/1"],
  ["/proc/self/mem", "/proc/self/mem"],
  ["/proc/1/cmdline", "/proc/1/cmdline"],
  ["/dev/stdin", "/dev/stdin"],
  ["/dev/fd/0", "/dev/fd/0"],
  ["/dev/tty", "/dev/tty"],
  ["/dev/null", "/dev/null"],
  ["/sys file", "/sys/kernel/mm/transparent_hugepage/enabled"],
  ["/proc dotdot", "/tmp/../proc/self/environ"],
  ["directory", "{{FIXTURES}}/dir"],
  ["symlink to directory", "{{FIXTURES}}/link-dir"],
  ["dangling symlink", "{{FIXTURES}}/link-dangling"],
  ["root directory", "/"],
  ["missing $() file", "{{FIXTURES}}/$(touch {{CANARY}})"],
  ["missing #() file", "{{FIXTURES}}/#(touch {{CANARY}})"],
];

/** Paths nobody may write. */
const UNWRITABLE: ReadonlyArray<readonly [string, string]> = [
  ["FIFO without reader", "{{FIXTURES}}/fifo"],
  ["symlink to FIFO", "{{FIXTURES}}/link-fifo"],
  ["/proc/self/fd/1", "/proc/self/fd/1"],
  ["symlink to /proc/self/fd/1", "{{FIXTURES}}/link-stdout"],
  ["fd 1 through a /proc/self link", "{{FIXTURES}}/proc/fd/1"],
  ["/dev/stdout", "/dev/stdout"],
  ["/dev/stderr", "/dev/stderr"],
  ["/dev/fd/1", "/dev/fd/1"],
  ["/dev/null", "/dev/null"],
  ["symlink to /dev/zero", "{{FIXTURES}}/link-zero"],
  ["/proc/self/environ", "/proc/self/environ"],
  ["/sys file", "/sys/kernel/mm/transparent_hugepage/enabled"],
  ["directory", "{{FIXTURES}}/dir"],
  ["symlink to directory", "{{FIXTURES}}/link-dir"],
  ["dangling symlink", "{{FIXTURES}}/link-dangling"],
  ["missing directory", "{{FIXTURES}}/nope/$(touch {{CANARY}})"],
  ["trailing slash", "{{FIXTURES}}/out/"],
];

/** Malformed paths: refused by validation. */
const MALFORMED: ReadonlyArray<readonly [string, unknown]> = [
  ["relative", "file.txt"],
  ["tilde", "~/.bashrc"],
  ["NUL", "{{FIXTURES}}/file.txt\0.x"],
  ["empty", ""],
  ["5000 characters", "/" + "a".repeat(5000)],
  ["not a string", 42],
];

const cases: HostileCase[] = [
  {
    name: "buffer for file cases",
    tool: "set-buffer",
    args: { name: "fx", content: '{"jsonrpc":"2.0","id":1}\n' },
    expect: "ok",
  },
  {
    name: "load-buffer a regular file",
    tool: "load-buffer",
    args: { name: "ld", path: "{{FIXTURES}}/file.txt" },
    expect: "ok",
  },
  {
    name: "load-buffer through a symlink to a file",
    tool: "load-buffer",
    args: { name: "ld", path: "{{FIXTURES}}/link-file" },
    expect: "ok",
  },
];

for (const [label, path] of UNREADABLE) {
  cases.push({
    name: `load-buffer ${label}`,
    tool: "load-buffer",
    args: { name: "ld", path },
    expect: "refused",
    match: REFUSED,
  });
}
for (const [label, path] of UNWRITABLE) {
  cases.push(
    {
      name: `save-buffer ${label}`,
      tool: "save-buffer",
      args: { name: "fx", path },
      expect: "refused",
      match: REFUSED,
    },
    {
      name: `save-buffer append ${label}`,
      tool: "save-buffer",
      args: { name: "fx", path, append: true },
      expect: "refused",
      match: REFUSED,
    },
    {
      name: `pipe-pane ${label}`,
      tool: "pipe-pane",
      args: { target: "{{PANE}}", path },
      expect: "refused",
      match: REFUSED,
    },
    {
      name: `pty-capture ${label}`,
      tool: "pty-capture",
      args: { pty_id: "{{PTY}}", output_file: path },
      expect: "refused",
      match: REFUSED,
    },
  );
}
for (const [label, path] of MALFORMED) {
  cases.push(
    {
      name: `load-buffer path ${label}`,
      tool: "load-buffer",
      args: { name: "ld", path },
      expect: "error",
      match: /invalid arguments/,
    },
    {
      name: `save-buffer path ${label}`,
      tool: "save-buffer",
      args: { name: "fx", path },
      expect: "error",
      match: /invalid arguments/,
    },
    {
      name: `pipe-pane path ${label}`,
      tool: "pipe-pane",
      args: { target: "{{PANE}}", path },
      expect: "error",
      match: /invalid arguments/,
    },
  );
}

// Names tmux or a shell could misread are fine as file names: written literally, nothing runs
// (a file name cannot hold the canary's absolute path, so these would run `id`).
for (
  const [label, file] of [
    ["$()", "$(id)"],
    ["#()", "#(id)"],
    ["backticks", "`id`"],
    ["quote", "it's"],
    ["trailing ;", "x;"],
    ["%", "100%Y"],
  ] as const
) {
  cases.push(
    {
      name: `save-buffer to a file named ${label}`,
      tool: "save-buffer",
      args: { name: "fx", path: `{{FIXTURES}}/out/s-${file}` },
      expect: "ok",
    },
    {
      name: `pipe-pane to a file named ${label}`,
      tool: "pipe-pane",
      args: { target: "{{PANE}}", path: `{{FIXTURES}}/out/p-${file}` },
      expect: "ok",
    },
    {
      name: `pty-capture to a file named ${label}`,
      tool: "pty-capture",
      args: { pty_id: "{{PTY}}", output_file: `{{FIXTURES}}/out/c-${file}` },
      expect: "ok",
    },
    {
      name: `pty-capture stop after ${label}`,
      tool: "pty-capture",
      args: { pty_id: "{{PTY}}" },
      expect: "ok",
    },
  );
}
cases.push({ name: "pipe-pane stop", tool: "pipe-pane", args: { target: "{{PANE}}" }, expect: "ok" });

export const CASES: readonly HostileCase[] = cases;
