/** Hostile cases for the pty toolset: session ids, keys, working directories, sizes, tiers. */
import type { HostileCase } from "./types.ts";
import { INJECTIONS, tierRefusals } from "./payloads.ts";

const cases: HostileCase[] = [];

for (const [label, p] of INJECTIONS) {
  cases.push(
    {
      name: `pty-send-keys pty_id ${label}`,
      tool: "pty-send-keys",
      args: { pty_id: p, keys: "x" },
      expect: "error",
    },
    {
      name: `pty-get-screen pty_id ${label}`,
      tool: "pty-get-screen",
      args: { pty_id: p },
      safety: "readonly",
      expect: "error",
    },
    // Typed into `cat > /dev/null`: bytes for a program, never a command of ours.
    {
      name: `pty-send-keys keys ${label}`,
      tool: "pty-send-keys",
      args: { pty_id: "{{PTY}}", keys: p + "\n" },
      expect: "ok",
    },
    {
      name: `pty-launch working_dir ${label}`,
      tool: "pty-launch",
      args: { command: "cat", working_dir: `/nonexistent/${p}` },
      expect: "error",
    },
  );
}
cases.push(
  {
    name: "pty-launch pty_id with ;",
    tool: "pty-launch",
    args: { command: "cat", pty_id: "a;kill-server" },
    expect: "error",
  },
  {
    name: "pty-launch pty_id $()",
    tool: "pty-launch",
    args: { command: "cat", pty_id: "$(touch {{CANARY}})" },
    expect: "error",
  },
  { name: "pty-launch rows 1e6", tool: "pty-launch", args: { command: "cat", rows: 1e6 }, expect: "error" },
  { name: "pty-launch cols -1", tool: "pty-launch", args: { command: "cat", cols: -1 }, expect: "error" },
  { name: "pty-launch command NUL", tool: "pty-launch", args: { command: "cat\0x" }, expect: "error" },
  {
    name: "pty-launch working_dir is a file",
    tool: "pty-launch",
    args: { command: "cat", working_dir: "{{FIXTURES}}/file.txt" },
    expect: "error",
  },
  {
    name: "pty-get-scrollback lines 1e9",
    tool: "pty-get-scrollback",
    args: { pty_id: "{{PTY}}", lines: 1e9 },
    expect: "error",
  },
  {
    name: "pty-get-scrollback lines 2^53-1",
    tool: "pty-get-scrollback",
    args: { pty_id: "{{PTY}}", lines: 2 ** 53 - 1 },
    expect: "error",
  },
  {
    name: "pty-resize rows 1e9",
    tool: "pty-resize",
    args: { pty_id: "{{PTY}}", rows: 1e9, cols: 80 },
    expect: "error",
  },
  {
    name: "pty-resize cols NaN-ish",
    tool: "pty-resize",
    args: { pty_id: "{{PTY}}", rows: 24, cols: "NaN" },
    expect: "error",
  },
  {
    name: "pty-send-keys invalid key name",
    tool: "pty-send-keys",
    args: { pty_id: "{{PTY}}", key_names: ["password=x"] },
    expect: "error",
  },
  {
    name: "pty-capture stop when not capturing",
    tool: "pty-capture",
    args: { pty_id: "{{PTY}}" },
    expect: "error",
  },
  { name: "pty-kill-session unknown id", tool: "pty-kill-session", args: { pty_id: "nosuch" }, expect: "error" },
  ...tierRefusals("readonly", [
    ["pty-launch", { command: "touch {{CANARY}}" }],
    ["pty-send-keys", { pty_id: "{{PTY}}", keys: "x" }],
    ["pty-capture", { pty_id: "{{PTY}}", output_file: "{{FIXTURES}}/out/ro" }],
  ]),
);

export const CASES: readonly HostileCase[] = cases;
