/**
 * One doctor check's outcome, printed as one line.
 *
 * @example
 * ```ts
 * formatCheck({ status: "fail", name: "tmux", detail: "not found: install it" });
 * // "FAIL  tmux: not found: install it"
 * ```
 */

/** ok: works; fail: something the configured toolsets need does not work; warn/skip: not needed or degraded. */
export type CheckStatus = "ok" | "warn" | "fail" | "skip" | "info";

export interface CheckResult {
  status: CheckStatus;
  /** Short label, e.g. "tmux", "socket". */
  name: string;
  /** What was found, or what to do; always one line. */
  detail: string;
}

const LABEL: Record<CheckStatus, string> = { ok: "ok", warn: "warn", fail: "FAIL", skip: "skip", info: "info" };

/** The result as one line: every line break in the detail is folded to a space. */
export function formatCheck(r: CheckResult): string {
  return `${LABEL[r.status].padEnd(4)}  ${r.name}: ${r.detail.replace(/\s*[\r\n]+\s*/g, " ").trim()}`;
}

/** The message of anything thrown, as one line (never a stack). */
export function messageOf(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/** `fail` when the configured toolsets need the thing, otherwise `warn`. */
export function failIfNeeded(needed: boolean): CheckStatus {
  return needed ? "fail" : "warn";
}
