/** Hostile cases for the exec toolset: forged cursors, targets, patterns, bounds. */
import type { HostileCase } from "./types.ts";
import { INJECTIONS, tierRefusals } from "./payloads.ts";

/** A capture-since cursor for {{PANE}} with these wire fields (see lib/exec/cursor.ts). */
function cursor(fields: Record<string, unknown>): string {
  const wire = { p: "{{PANE}}", q: "{{CURSOR_PID}}", r: 0, x: 0, a: "", b: "", h: 0, ...fields };
  // The pid is substituted as text; keep it a JSON number.
  const json = JSON.stringify(wire).replace('"{{CURSOR_PID}}"', "{{CURSOR_PID}}");
  return "tmc1.B64:" + json;
}

const cases: HostileCase[] = [];
const INVALID = /cursor is not one that capture-since returned|invalid arguments/;

for (
  const [label, c] of [
    ["row 1e11", cursor({ r: 1e11 })],
    ["row 2^53-1", cursor({ r: 2 ** 53 - 1 })],
    ["row 2^32+1", cursor({ r: 2 ** 32 + 1 })],
    ["row negative", cursor({ r: -1 })],
    ["row fractional", cursor({ r: 0.5 })],
    ["row NaN string", cursor({ r: "NaN" })],
    ["row Infinity string", cursor({ r: "Infinity" })],
    ["row exponent string", cursor({ r: "1e11" })],
    ["history 1e15", cursor({ h: 1e15 })],
    ["column 1e9", cursor({ x: 1e9 })],
    ["pane with ;", cursor({ p: "%1;kill-server" })],
    ["pane #()", cursor({ p: "#(touch {{CANARY}})" })],
    ["extra field", cursor({ z: 1 })],
    ["fingerprint not hex", cursor({ a: "$(touch)" })],
    ["wrong prefix", "tmc2.e30"],
    ["bad base64", "tmc1.!!!!"],
    ["empty body", "tmc1."],
    ["not JSON", "tmc1." + btoa("not json")],
    ["JSON array", "tmc1." + btoa("[1,2]")],
    ["600 characters", "tmc1." + "A".repeat(600)],
    ["empty", ""],
    ["$()", "$(touch {{CANARY}})"],
  ] as const
) {
  cases.push({
    name: `capture-since cursor ${label}`,
    tool: "capture-since",
    args: { cursor: c },
    safety: "readonly",
    expect: "error",
    match: INVALID,
  });
}
cases.push(
  {
    name: "capture-since max_lines 2^53-1",
    tool: "capture-since",
    args: { max_lines: 2 ** 53 - 1 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "wait-for-text timeout 1e12",
    tool: "wait",
    args: { what: "text", target: "{{PANE}}", patterns: ["x"], timeout_ms: 1e12 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "wait-for-text 21 patterns",
    tool: "wait",
    args: { what: "text", target: "{{PANE}}", patterns: Array(21).fill("x") },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "wait-for-text invalid regex",
    tool: "wait",
    args: { what: "text", target: "{{PANE}}", patterns: ["("], regex: true, timeout_ms: 0 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "wait-for-text backtracking regex",
    tool: "wait",
    args: { what: "text", target: "{{PANE}}", patterns: ["(a+)+$"], regex: true, timeout_ms: 0 },
    safety: "readonly",
    expect: "ok",
  },
  {
    name: "wait-for-quiet quiet_ms 2^53-1",
    tool: "wait",
    args: { what: "quiet", target: "{{PANE}}", quiet_ms: 2 ** 53 - 1 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "wait-for-quiet tail_lines 1e9",
    tool: "wait",
    args: { what: "quiet", target: "{{PANE}}", tail_lines: 1e9 },
    safety: "readonly",
    expect: "error",
  },
  {
    name: "run-command max_lines 1e9",
    tool: "run-command",
    args: { target: "{{PANE}}", command: "true", max_lines: 1e9 },
    expect: "error",
  },
  {
    name: "run-command empty command",
    tool: "run-command",
    args: { target: "{{PANE}}", command: "" },
    expect: "error",
  },
  ...tierRefusals("readonly", [["run-command", { command: "touch {{CANARY}}" }]]),
);
for (const [label, p] of INJECTIONS.filter(([l]) => !["-t", "--", "~"].includes(l))) {
  cases.push(
    {
      name: `capture-since target ${label}`,
      tool: "capture-since",
      args: { target: p },
      safety: "readonly",
      expect: "error",
    },
    {
      name: `wait-for-quiet target ${label}`,
      tool: "wait",
      args: { what: "quiet", target: p, timeout_ms: 0 },
      safety: "readonly",
      expect: "error",
    },
    {
      name: `run-command target ${label}`,
      tool: "run-command",
      args: { target: p, command: "touch {{CANARY}}" },
      expect: "error",
    },
  );
}
for (const [label, p] of INJECTIONS) {
  cases.push({
    name: `wait-for-text literal pattern ${label}`,
    tool: "wait",
    args: { what: "text", target: "{{PANE}}", patterns: [p], timeout_ms: 0 },
    safety: "readonly",
    expect: "ok",
  });
}

export const CASES: readonly HostileCase[] = cases;
