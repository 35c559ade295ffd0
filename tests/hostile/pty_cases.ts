/** Hostile cases for the pty toolset: session ids, keys, working directories, sizes, tiers. */
import type { HostileCase } from "./types.ts";
import { INJECTIONS, tierRefusals } from "./payloads.ts";

const cases: HostileCase[] = [];

for (const [label, p] of INJECTIONS) {
  cases.push(
    {
      name: `pty_send_keys session_id ${label}`,
      tool: "pty_send_keys",
      args: { session_id: p, keys: "x" },
      expect: "error",
    },
    {
      name: `pty_get_screen session_id ${label}`,
      tool: "pty_get_screen",
      args: { session_id: p },
      safety: "readonly",
      expect: "error",
    },
    // Typed into `cat > /dev/null`: bytes for a program, never a command of ours.
    {
      name: `pty_send_keys keys ${label}`,
      tool: "pty_send_keys",
      args: { session_id: "{{PTY}}", keys: p + "\n" },
      expect: "ok",
    },
    {
      name: `pty_launch working_dir ${label}`,
      tool: "pty_launch",
      args: { command: "cat", working_dir: `/nonexistent/${p}` },
      expect: "error",
    },
  );
}
cases.push(
  {
    name: "pty_launch session_id with ;",
    tool: "pty_launch",
    args: { command: "cat", session_id: "a;kill-server" },
    expect: "error",
  },
  {
    name: "pty_launch session_id $()",
    tool: "pty_launch",
    args: { command: "cat", session_id: "$(touch {{CANARY}})" },
    expect: "error",
  },
  { name: "pty_launch rows 1e6", tool: "pty_launch", args: { command: "cat", rows: 1e6 }, expect: "error" },
  { name: "pty_launch cols -1", tool: "pty_launch", args: { command: "cat", cols: -1 }, expect: "error" },
  { name: "pty_launch command NUL", tool: "pty_launch", args: { command: "cat\0x" }, expect: "error" },
  {
    name: "pty_launch working_dir is a file",
    tool: "pty_launch",
    args: { command: "cat", working_dir: "{{FIXTURES}}/file.txt" },
    expect: "error",
  },
  {
    name: "pty_get_scrollback lines 1e9",
    tool: "pty_get_scrollback",
    args: { session_id: "{{PTY}}", lines: 1e9 },
    expect: "error",
  },
  {
    name: "pty_get_scrollback lines 2^53-1",
    tool: "pty_get_scrollback",
    args: { session_id: "{{PTY}}", lines: 2 ** 53 - 1 },
    expect: "error",
  },
  {
    name: "pty_resize rows 1e9",
    tool: "pty_resize",
    args: { session_id: "{{PTY}}", rows: 1e9, cols: 80 },
    expect: "error",
  },
  {
    name: "pty_resize cols NaN-ish",
    tool: "pty_resize",
    args: { session_id: "{{PTY}}", rows: 24, cols: "NaN" },
    expect: "error",
  },
  {
    name: "pty_send_keys invalid key name",
    tool: "pty_send_keys",
    args: { session_id: "{{PTY}}", key_names: ["password=x"] },
    expect: "error",
  },
  {
    name: "pty_capture_stop when not capturing",
    tool: "pty_capture_stop",
    args: { session_id: "{{PTY}}" },
    expect: "error",
  },
  { name: "pty_kill_session unknown id", tool: "pty_kill_session", args: { session_id: "nosuch" }, expect: "error" },
  ...tierRefusals("readonly", [
    ["pty_launch", { command: "touch {{CANARY}}" }],
    ["pty_send_keys", { session_id: "{{PTY}}", keys: "x" }],
    ["pty_capture_start", { session_id: "{{PTY}}", output_file: "{{FIXTURES}}/out/ro" }],
  ]),
);

export const CASES: readonly HostileCase[] = cases;
