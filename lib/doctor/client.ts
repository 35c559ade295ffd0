/**
 * The command line to paste into an MCP client's config: for a compiled
 * binary its own path, for a checkout `deno task --quiet --config
 * <abs>/deno.json start` — followed by the flags doctor was given, file
 * paths made absolute.
 *
 * @example
 * ```ts
 * clientCommand(["--socket-name", "agent"]);
 * // "deno task --quiet --config /src/tmux-mcp/deno.json start --socket-name agent"
 * ```
 */
import { fileURLToPath } from "node:url";
import type { CheckResult } from "./check.ts";

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'"'"'`)}'`;
}

/** True when this process is the `deno` CLI running sources, not a `deno compile` binary. */
function runFromSource(): boolean {
  const exe = Deno.execPath().split("/").pop() ?? "";
  return /^deno(\.exe)?$/.test(exe);
}

/** Flags whose value is a file: a client starts the server in a directory of its own choosing. */
const PATH_FLAGS = new Set(["--config", "--audit-log", "--socket-path", "--ssh-config", "--hosts"]);

/** `flags` with the values of {@linkcode PATH_FLAGS} made absolute (against `cwd`). */
export function absoluteFlags(flags: readonly string[], cwd: string): string[] {
  const abs = (v: string) => v.startsWith("/") ? v : `${cwd.replace(/\/+$/, "")}/${v}`;
  return flags.map((f, i) => {
    const eq = f.indexOf("=");
    if (f.startsWith("--") && eq > 0 && PATH_FLAGS.has(f.slice(0, eq))) {
      return `${f.slice(0, eq)}=${abs(f.slice(eq + 1))}`;
    }
    return i > 0 && PATH_FLAGS.has(flags[i - 1]) ? abs(f) : f;
  });
}

/** The command for this installation, as argv. */
export function clientArgv(rawFlags: readonly string[]): string[] {
  const flags = absoluteFlags(rawFlags, Deno.cwd());
  if (!runFromSource()) return [Deno.execPath(), ...flags];
  const config = fileURLToPath(new URL("../../deno.json", import.meta.url));
  return ["deno", "task", "--quiet", "--config", config, "start", ...flags];
}

/** Informational: the command to paste. */
export function clientCommand(flags: readonly string[]): CheckResult {
  return { status: "info", name: "client command", detail: clientArgv(flags).map(shellWord).join(" ") };
}
