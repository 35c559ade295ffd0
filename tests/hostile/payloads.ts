/**
 * Strings a misbehaving model puts into names, targets, paths, keys and
 * formats. Each must be taken literally: `{{CANARY}}` marks a file that
 * appears only if something ran it.
 *
 * @example
 * ```ts
 * import type { HostileCase } from "./types.ts";
 * const cases: HostileCase[] = [];
 * for (const [label, p] of INJECTIONS) {
 *   cases.push({ name: `set-buffer name ${label}`, tool: "set-buffer", args: { name: p, content: "x" }, expect: "refused" });
 * }
 * ```
 */
import type { HostileCase } from "./types.ts";

/** [label, value]: shell, tmux command-separator, format and option-looking values. */
export const INJECTIONS: ReadonlyArray<readonly [string, string]> = [
  ["$()", "$(touch {{CANARY}})"],
  ["backticks", "`touch {{CANARY}}`"],
  ["; shell", "x; touch {{CANARY}}"],
  ["trailing ;", "x;"],
  ["lone ;", ";"],
  ["escaped ; run-shell", "x \\; run-shell 'touch {{CANARY}}'"],
  ["#()", "#(touch {{CANARY}})"],
  ["#{}", "#{pane_id}"],
  ["#{E:}", "#{E:status-right}"],
  ["-x", "-x"],
  ["-t", "-t"],
  ["--", "--"],
  ["quotes", `it's "quoted"`],
  ["braces run-shell", "{ run-shell 'touch {{CANARY}}' }"],
  ["pipe", "a|touch {{CANARY}}"],
  ["&&", "a && touch {{CANARY}}"],
  ["~", "~/.ssh/id_rsa"],
  ["bidi", "a\u202eb"],
];

/** [label, value]: characters no name may hold. */
export const CONTROL: ReadonlyArray<readonly [string, string]> = [
  ["newline", "a\nb"],
  ["NUL", "a\0b"],
  ["CR", "a\rb"],
  ["ESC", "\x1b[31mred"],
];

/** Cases that a server of `tier` must refuse for the tier alone: one per [tool, args]. */
export function tierRefusals(
  tier: "readonly" | "mutating",
  calls: ReadonlyArray<readonly [string, Record<string, unknown>]>,
): HostileCase[] {
  return calls.map(([tool, args]) => ({
    name: `${tier} server refuses ${tool}${typeof args.what === "string" ? ` ${args.what}` : ""}`,
    tool,
    args,
    ...(tier === "readonly" ? { safety: "readonly" as const } : {}),
    expect: "refused" as const,
    match: /--safety/,
  }));
}

/** Far over any name or path limit. */
export const HUGE = "x".repeat(100_000);
