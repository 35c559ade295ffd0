/**
 * The MCP clients `tmux-mcp doctor --install` knows: where each keeps its
 * user-level list of MCP servers, in which format, under which key, and the
 * entry it expects for a stdio server.
 *
 * @example
 * ```ts
 * const where = { home: "/home/me", os: "linux", env: {} } as const;
 * CLIENTS.cursor.path(where); // "/home/me/.cursor/mcp.json"
 * ```
 */

/** The clients, by the name given to `--install`. */
export type ClientId =
  | "claude-code"
  | "claude-desktop"
  | "cursor"
  | "codex"
  | "vscode"
  | "gemini-cli"
  | "windsurf"
  | "zed";

/**
 * How a config file is read and written: `json` is plain JSON (the client reads it with a strict parser, so a comment
 * would already break it), `jsonc` allows comments and trailing commas (kept as they are), `toml` is TOML.
 */
export type ConfigFormat = "json" | "jsonc" | "toml";

/** Where the user's files are: the home directory, the OS, and the environment variables that move a config. */
export interface Where {
  home: string;
  os: "linux" | "darwin" | string;
  env: Readonly<Record<string, string | undefined>>;
}

/** One client. */
export interface ClientSpec {
  id: ClientId;
  /** The name users know it by. */
  title: string;
  format: ConfigFormat;
  /** The key (a TOML table for codex) holding the servers, by name. */
  section: string;
  /** The user-level config file. */
  path(where: Where): string;
  /** Folders whose presence means the client is installed (its config file counts too). */
  markers(where: Where): string[];
  /**
   * Started from the desktop with a short PATH (macOS: /usr/bin:/bin:/usr/sbin:/sbin), where a command by bare name
   * (npx) is not found.
   */
  shortPath?: true;
  /** The variables naming a folder that holds its config instead, when set (XDG_CONFIG_HOME, relative, is ignored). */
  moves?: readonly string[];
  /** The server's entry for `argv` = command + arguments. */
  entry(argv: readonly string[]): Record<string, unknown>;
}

/** `$XDG_CONFIG_HOME`, or `~/.config` when it is unset or relative (as the XDG spec says). */
function xdgConfig(w: Where): string {
  const x = w.env.XDG_CONFIG_HOME;
  return x && x.startsWith("/") ? x : `${w.home}/.config`;
}

/** Zed's folder: `$XDG_CONFIG_HOME/zed` on Linux, `~/.config/zed` on macOS (where Zed ignores XDG_CONFIG_HOME). */
function zedConfig(w: Where): string {
  return w.os === "darwin" ? `${w.home}/.config/zed` : `${xdgConfig(w)}/zed`;
}

/** The folder macOS apps keep their settings in; `~/.config` (XDG) elsewhere. */
function appConfig(w: Where): string {
  return w.os === "darwin" ? `${w.home}/Library/Application Support` : xdgConfig(w);
}

const plain = (argv: readonly string[]) => ({ command: argv[0], args: argv.slice(1) });
const typed = (argv: readonly string[]) => ({ type: "stdio", ...plain(argv) });

/** Every client `--install` takes, in the order the README lists them. */
export const CLIENTS: Readonly<Record<ClientId, ClientSpec>> = {
  "claude-code": {
    id: "claude-code",
    title: "Claude Code",
    format: "json",
    section: "mcpServers",
    // User scope (every project): the top-level mcpServers of ~/.claude.json, as `claude mcp add --scope user` writes.
    path: (w) => `${w.env.CLAUDE_CONFIG_DIR || w.home}/.claude.json`,
    markers: (w) => [`${w.env.CLAUDE_CONFIG_DIR || `${w.home}/.claude`}`],
    moves: ["CLAUDE_CONFIG_DIR"],
    entry: (argv) => ({ ...typed(argv), env: {} }),
  },
  "claude-desktop": {
    id: "claude-desktop",
    title: "Claude Desktop",
    format: "json",
    section: "mcpServers",
    path: (w) => `${appConfig(w)}/Claude/claude_desktop_config.json`,
    markers: (w) => [`${appConfig(w)}/Claude`],
    shortPath: true,
    entry: plain,
  },
  cursor: {
    id: "cursor",
    title: "Cursor",
    format: "jsonc",
    section: "mcpServers",
    path: (w) => `${w.home}/.cursor/mcp.json`,
    markers: (w) => [`${w.home}/.cursor`],
    entry: plain,
  },
  codex: {
    id: "codex",
    title: "Codex",
    format: "toml",
    section: "mcp_servers",
    path: (w) => `${w.env.CODEX_HOME || `${w.home}/.codex`}/config.toml`,
    markers: (w) => [w.env.CODEX_HOME || `${w.home}/.codex`],
    moves: ["CODEX_HOME"],
    entry: plain,
  },
  vscode: {
    id: "vscode",
    title: "VS Code",
    format: "jsonc",
    section: "servers",
    // The user profile's mcp.json (a workspace has its own .vscode/mcp.json, same format).
    path: (w) => `${appConfig(w)}/Code/User/mcp.json`,
    markers: (w) => [`${appConfig(w)}/Code/User`],
    entry: typed,
  },
  "gemini-cli": {
    id: "gemini-cli",
    title: "Gemini CLI",
    format: "jsonc",
    section: "mcpServers",
    // GEMINI_CLI_HOME stands in for the home directory (gemini-cli's homedir()).
    path: (w) => `${w.env.GEMINI_CLI_HOME || w.home}/.gemini/settings.json`,
    markers: (w) => [`${w.env.GEMINI_CLI_HOME || w.home}/.gemini`],
    moves: ["GEMINI_CLI_HOME"],
    entry: plain,
  },
  windsurf: {
    id: "windsurf",
    title: "Windsurf",
    format: "jsonc",
    section: "mcpServers",
    path: (w) => `${w.home}/.codeium/windsurf/mcp_config.json`,
    markers: (w) => [`${w.home}/.codeium/windsurf`],
    entry: plain,
  },
  zed: {
    id: "zed",
    title: "Zed",
    format: "jsonc",
    section: "context_servers",
    // Zed reads ~/.config/zed on macOS too, there whatever XDG_CONFIG_HOME says (its paths::config_dir()).
    path: (w) => `${zedConfig(w)}/settings.json`,
    markers: (w) => [zedConfig(w)],
    shortPath: true,
    entry: (argv) => ({ ...plain(argv), env: {} }),
  },
};

/** The client names, for messages. */
export const CLIENT_IDS = Object.keys(CLIENTS) as ClientId[];

/** The spec of `name`, or undefined. */
export function clientSpec(name: string): ClientSpec | undefined {
  return Object.hasOwn(CLIENTS, name) ? CLIENTS[name as ClientId] : undefined;
}

/** This process's {@linkcode Where}: HOME, the OS and the environment. */
export function currentWhere(): Where {
  const env = Deno.env.toObject();
  return { home: env.HOME ?? "", os: Deno.build.os, env };
}
