/**
 * Which shells run-command can drive are installed: it types at the prompt
 * of a shell whose line editor reads it (bash, zsh, fish; lib/exec/prompt.ts).
 * Not `sh`: on Debian and Ubuntu it is dash, whose prompt, read without a line
 * editor, cannot be told from a `read`.
 *
 * @example
 * ```ts
 * checkShells("/usr/local/bin:/usr/bin", true).detail; // "for run-command: bash, zsh, fish" when all are there
 * ```
 */
import { type CheckResult, failIfNeeded } from "./check.ts";
import { findOnPath } from "../host/binaries.ts";

/** The shells doctor looks for, in the order it reports them. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** Lists the shells found; fails only when run-command is served and none is there. */
export function checkShells(path: string, needed: boolean): CheckResult {
  const found = SHELLS.filter((s) => findOnPath(s, path) !== undefined);
  const missing = SHELLS.filter((s) => !found.includes(s));
  if (found.length === 0) {
    return {
      status: failIfNeeded(needed),
      name: "shells",
      detail: `none of ${SHELLS.join(", ")} on PATH: run-command needs one (install bash, e.g. apt-get install bash)`,
    };
  }
  const rest = missing.length ? `; not found: ${missing.join(", ")} (optional)` : "";
  return { status: "ok", name: "shells", detail: `for run-command: ${found.join(", ")}${rest}` };
}
