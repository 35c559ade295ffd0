/**
 * The command line to paste into an MCP client's config: for a compiled
 * binary its own path (by the PATH's name for it: Homebrew's link, not the
 * versioned Cellar file), for a checkout `<abs>/deno task --quiet --config
 * <abs>/deno.json start`, when the npm launcher started this process the
 * command it names in {@linkcode LAUNCHER_ENV} — followed by the flags
 * doctor was given, file paths made absolute. Absolute, as GUI clients
 * (Claude Desktop, Zed) start servers without the user's shell `PATH`.
 *
 * @example
 * ```ts
 * clientCommand(["--socket-name", "agent"]);
 * // "/usr/local/bin/deno task --quiet --config /src/tmux-mcp/deno.json start --socket-name agent"
 * ```
 */
import { fileURLToPath } from "node:url";
import { findOnPath } from "../host/binaries.ts";
import { runFromSource } from "../host/process.ts";
import type { CheckResult } from "./check.ts";
import { absolutePath } from "../config.ts";

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'"'"'`)}'`;
}

/** Flags whose value is a file or folder: a client starts the server in a directory of its own choosing. */
const PATH_FLAGS = new Set(["--config", "--audit-log", "--socket-path", "--ssh-config", "--hosts", "--files-root"]);
/** Flags whose value is a path only when it has a slash (a bare name is looked up on PATH). */
const SLASH_PATH_FLAGS = new Set(["--tmux-bin"]);

/** `flags` with the values of {@linkcode PATH_FLAGS} (and of `--tmux-bin ./x`) made absolute (against `cwd`). */
export function absoluteFlags(flags: readonly string[], cwd: string): string[] {
  const absolute = (v: string) => absolutePath(v, cwd);
  const abs = (flag: string, v: string) => PATH_FLAGS.has(flag) || v.includes("/") ? absolute(v) : v;
  const isPath = (flag: string) => PATH_FLAGS.has(flag) || SLASH_PATH_FLAGS.has(flag);
  return flags.map((f, i) => {
    const eq = f.indexOf("=");
    if (f.startsWith("--") && eq > 0 && isPath(f.slice(0, eq))) {
      return `${f.slice(0, eq)}=${abs(f.slice(0, eq), f.slice(eq + 1))}`;
    }
    return i > 0 && isPath(flags[i - 1]) ? abs(flags[i - 1], f) : f;
  });
}

/**
 * Set by the npm launcher for the binary it starts: the command that starts this installation again, as a JSON
 * array of strings (`["npx", "-y", "pkg@1.2.3"]` under npx, else node and the launcher's path). The binary itself
 * sits in npm's cache or node_modules, a path that a client config must not name.
 */
export const LAUNCHER_ENV = "TMUX_MCP_LAUNCHER";

/** The launcher's command from `value`, or undefined when it is absent or not a non-empty array of non-empty strings. */
export function launcherArgv(value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  try {
    const argv: unknown = JSON.parse(value);
    if (Array.isArray(argv) && argv.length > 0 && argv.every((a) => typeof a === "string" && a !== "")) return argv;
  } catch {
    // not JSON: ignored, as an unset variable
  }
  return undefined;
}

/**
 * The executable `exe` by the name `path` gives it when that name is `exe` (a name that outlives an upgrade, such as
 * /opt/homebrew/bin/deno or a Homebrew binary's link in bin, where the executable's own path names its version in the
 * Cellar), else `exe` itself.
 */
export function lastingPath(exe: string, path: string): string {
  const onPath = findOnPath(exe.slice(exe.lastIndexOf("/") + 1), path);
  if (!onPath?.startsWith("/")) return exe;
  try {
    return Deno.realPathSync(onPath) === Deno.realPathSync(exe) ? onPath : exe;
  } catch {
    return exe;
  }
}

/** This deno by an absolute path: {@linkcode lastingPath} of the executable. */
export function denoPath(path: string): string {
  return lastingPath(Deno.execPath(), path);
}

/** The command for this installation, as argv. */
export function clientArgv(rawFlags: readonly string[]): string[] {
  const flags = absoluteFlags(rawFlags, Deno.cwd());
  const launcher = launcherArgv(Deno.env.get(LAUNCHER_ENV));
  if (launcher) return [...launcher, ...flags];
  if (!runFromSource()) return [lastingPath(Deno.execPath(), Deno.env.get("PATH") ?? ""), ...flags];
  const config = fileURLToPath(new URL("../../deno.json", import.meta.url));
  return [denoPath(Deno.env.get("PATH") ?? ""), "task", "--quiet", "--config", config, "start", ...flags];
}

/** Informational: the command to paste. */
export function clientCommand(flags: readonly string[]): CheckResult {
  return { status: "info", name: "client command", detail: clientArgv(flags).map(shellWord).join(" ") };
}
