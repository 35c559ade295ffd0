/**
 * Which shells run-command can drive are installed: it types into panes
 * running fish or a POSIX-family shell (bash, zsh, sh, dash, ksh…: see
 * lib/exec/shell.ts); doctor looks for the four most common.
 *
 * @example
 * ```ts
 * findOnPath("bash", "/usr/local/bin:/usr/bin"); // "/usr/bin/bash"
 * ```
 */
import { type CheckResult, failIfNeeded } from "./check.ts";

/** The shells doctor looks for, in the order it reports them. */
export const SHELLS = ["bash", "zsh", "fish", "sh"] as const;

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
