/**
 * The command line to paste into an MCP client's config: for a compiled
 * binary its own path, for a checkout `deno task --quiet --config
 * <abs>/deno.json start` — followed by the flags doctor was given.
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

/** The command for this installation, as argv. */
export function clientArgv(flags: readonly string[]): string[] {
  if (!runFromSource()) return [Deno.execPath(), ...flags];
  const config = fileURLToPath(new URL("../../deno.json", import.meta.url));
  return ["deno", "task", "--quiet", "--config", config, "start", ...flags];
}

/** Informational: the command to paste. */
export function clientCommand(flags: readonly string[]): CheckResult {
  return { status: "info", name: "client command", detail: clientArgv(flags).map(shellWord).join(" ") };
}
