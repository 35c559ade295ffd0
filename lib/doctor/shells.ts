/**
 * Which shells run-command can drive are installed: it types at the prompt
 * of a shell whose line editor reads it (bash, zsh, fish; lib/exec/prompt.ts).
 * Not `sh`: on Debian and Ubuntu it is dash, whose prompt, read without a line
 * editor, cannot be told from a `read`.
 *
 * @example
 * ```ts
 * findOnPath("bash", "/usr/local/bin:/usr/bin"); // "/usr/bin/bash"
 * ```
 */
import { type CheckResult, failIfNeeded } from "./check.ts";

/** The shells doctor looks for, in the order it reports them. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** The first executable file called `name` in the `PATH` list, or undefined. */
export function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    const full = `${dir.replace(/\/+$/, "")}/${name}`;
    try {
      const st = Deno.statSync(full);
      if (st.isFile && (st.mode === null || (st.mode & 0o111) !== 0)) return full;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

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
