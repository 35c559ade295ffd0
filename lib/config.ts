/**
 * Command line and environment → a validated {@linkcode Config}.
 *
 * Every option has one row in {@linkcode OPTIONS}: its flag, its environment
 * variable and its parser. A bad value is a {@linkcode UsageError}, which
 * `main.ts` prints as one line before exiting with code 2 — never a silent
 * fallback.
 *
 * @example
 * ```ts
 * const cfg = parseConfig(["--socket-name", "work", "--safety", "readonly"], {});
 * cfg.safety; // "readonly"
 * ```
 */
import { type HostSpec, LOCAL_HOST, parseHostList, parseHostsFile } from "./tmux/hosts.ts";
import { CONNECT_TIMEOUT_MS } from "./tmux/connect_wait.ts";
import { parseSessionPattern, type ScopeRule, type SessionPattern } from "./policy/scope.ts";

export const TIERS = ["readonly", "mutating", "destructive"] as const;
export type Tier = (typeof TIERS)[number];
export const TOOLSETS = ["buffers", "workspace", "exec", "pty"] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** Whether a server with this configuration serves tools of `toolset` ("any": a tool of every toolset, as batch). */
export function servesToolset(config: Pick<Config, "toolsets">, toolset: string): boolean {
  return toolset === "any" || (config.toolsets as readonly string[]).includes(toolset);
}

/** Whether `--safety` allows tools of `tier`; a tier that is none of TIERS never (fail closed). */
export function allowsTier(config: Pick<Config, "safety">, tier: string): boolean {
  const t = TIERS.indexOf(tier as Tier);
  return t >= 0 && t <= TIERS.indexOf(config.safety);
}
export const TERMINAL_BACKENDS = ["pty", "tmux"] as const;
export type TerminalBackendName = (typeof TERMINAL_BACKENDS)[number];

export interface Config {
  socketName?: string;
  socketPath?: string;
  tmuxBin: string;
  maxConcurrency: number;
  safety: Tier;
  toolsets: Toolset[];
  maxMessageBytes: number;
  /** Where audit lines go; undefined = stderr. */
  auditLog?: string;
  /** Upper bound for a wait's timeout_ms: the whole wait or run, across its continuations. */
  maxWaitMs: number;
  /** `--call-budget-ms`: the longest one tool call blocks; a wait or run still going then returns `running`. */
  callBudgetMs: number;
  terminalBackend: TerminalBackendName;
  keepSessions: boolean;
  /** Path of the JSON/JSONC response-budget config file. */
  configPath?: string;
  /** `--max-tokens`: overrides the config file's maxTokensPerResponse. */
  maxTokens?: number;
  /** `--ssh`: the first host's ssh destination (the host of a target without `HOST::`); undefined: this machine. */
  ssh?: string;
  /** Every `--ssh [NAME=]DEST` and `--hosts` line, in order (lib/tmux/hosts.ts); empty: this machine only. */
  hosts: HostSpec[];
  /** `--ssh-config`: ssh client config file, passed as `ssh -F`. */
  sshConfig?: string;
  /** `--files-root`: confine every file tool to this directory (after symlinks). */
  filesRoot?: string;
  /** `--control-mode`: carry commands over a persistent `tmux -C` client (false: spawn one per command). */
  controlMode: boolean;
  /** `--redact`: hide secrets (tokens, keys, passwords) in pane, buffer and output text before the model sees it. */
  redact: boolean;
  /** `--connect-timeout-ms`: bound of every start (ssh login, `tmux -V`, a control client's attach). */
  connectTimeoutMs: number;
  /** `--sessions`: the sessions in scope by name (empty: no name rule). */
  sessions: SessionPattern[];
  /** `--scope tagged`: sessions the person tagged with `@mcp` are in scope. */
  scope: "all" | "tagged";
}

/** The session scope of a configuration (lib/policy/scope.ts); undefined when every session is in view. */
export function scopeRule(config: Pick<Config, "sessions" | "scope">): ScopeRule | undefined {
  if (config.sessions.length === 0 && config.scope === "all") return undefined;
  return { patterns: config.sessions, tagged: config.scope === "tagged" };
}

/** A bad command line or environment value; message is one line. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

type Parsed = string | boolean | undefined;

/** One command-line option: its flag, environment variable, `--help` line and parser. */
export interface OptionRow {
  flag: string;
  env?: string;
  type: "string" | "boolean";
  /** May be given several times; `apply` runs once per value, in order. */
  multiple?: boolean;
  help: string;
  apply(cfg: Config, value: string | boolean, source: string): void;
}

/**
 * The smallest token budget of one result (`--max-tokens`, maxTokensPerResponse, a tool's maxTokens): an answer over
 * a smaller one is a buffered response whose required fields (where the result is and how to read it) alone are over it.
 */
export const MIN_MAX_TOKENS = 150;

function intIn(source: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim())) {
    throw new UsageError(`${source}: expected a whole number from ${min} to ${max}, got "${raw}"`);
  }
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`${source}: ${n} is out of range (${min}..${max})`);
  return n;
}

/**
 * One of `allowed`, read as a person types it into a client's settings form: any case, spaces around ignored
 * (`Read-Only`, ` READONLY`); anything else is refused with the values it takes, never a silent default.
 */
function oneOf<T extends string>(
  source: string,
  raw: string,
  allowed: readonly T[],
  aliases: Record<string, T> = {},
): T {
  const typed = raw.trim().toLowerCase();
  const v = Object.hasOwn(aliases, typed) ? aliases[typed] : typed;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new UsageError(`${source}: "${raw}" is not one of ${allowed.join(", ")}`);
  }
  return v as T;
}

/** A yes/no setting from the environment: 1, true, yes, on or 0, false, no, off, in any case. */
function onOff(source: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new UsageError(`${source}: "${raw}" is neither on (1, true, yes, on) nor off (0, false, no, off)`);
}

function nonEmpty(source: string, raw: string): string {
  if (raw.length === 0) throw new UsageError(`${source}: must not be empty`);
  if (raw.includes("\0")) throw new UsageError(`${source}: must not contain NUL`);
  return raw;
}

/** `path` made absolute against `cwd` (a leading `./` dropped). */
export function absolutePath(path: string, cwd: string): string {
  return path.startsWith("/") ? path : `${cwd.replace(/\/+$/, "")}/${path.replace(/^(\.\/)+/, "")}`;
}

function existingFile(source: string, path: string): string {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (e) {
    throw new UsageError(`${source}: cannot read "${path}" (${(e as Error).name}): give the path of an existing file`);
  }
  if (!info.isFile) throw new UsageError(`${source}: "${path}" is not a file`);
  return path;
}

/** An absolute directory that exists now, resolved through symlinks. */
function existingDirectory(source: string, raw: string): string {
  const path = nonEmpty(source, raw);
  if (!path.startsWith("/")) throw new UsageError(`${source}: "${raw}" is not an absolute path`);
  try {
    if (!Deno.statSync(path).isDirectory) throw new UsageError(`${source}: "${raw}" is not a directory`);
    return Deno.realPathSync(path);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`${source}: "${raw}" cannot be used: ${(e as Error).message.split("\n")[0]}`);
  }
}

const MiB = 1024 * 1024;

/**
 * The configuration one host works with: its destination as `ssh`, and its own socket and tmux binary (from
 * `--ssh NAME=DEST,socket-name=…`) in place of the server's. A socket of its own replaces both of the
 * server's: tmux takes one of -L and -S.
 */
export function hostConfig(config: Config, spec: HostSpec): Config {
  const own = spec.socketName !== undefined || spec.socketPath !== undefined;
  return {
    ...config,
    ssh: spec.destination,
    socketName: own ? spec.socketName : config.socketName,
    socketPath: own ? spec.socketPath : config.socketPath,
    tmuxBin: spec.tmuxBin ?? config.tmuxBin,
  };
}

/** Adds hosts to the list; the first one's destination is `ssh`, the host of an unqualified target. */
function addHosts(c: Config, source: string, values: readonly string[]): void {
  try {
    c.hosts = parseHostList(values, c.hosts);
  } catch (e) {
    throw new UsageError(`${source}: ${(e as Error).message}`);
  }
  c.ssh = c.hosts[0]?.destination;
}

/** The option table: one row per flag, in `--help` order. */
export const OPTIONS: readonly OptionRow[] = [
  {
    flag: "socket-name",
    env: "TMUX_MCP_SOCKET_NAME",
    type: "string",
    help: "tmux socket name (tmux -L)",
    apply: (c, v, s) => c.socketName = nonEmpty(s, String(v)),
  },
  {
    flag: "socket-path",
    env: "TMUX_MCP_SOCKET_PATH",
    type: "string",
    help: "tmux socket path (tmux -S)",
    apply: (c, v, s) => c.socketPath = nonEmpty(s, String(v)),
  },
  {
    flag: "tmux-bin",
    env: "TMUX_MCP_TMUX_BIN",
    type: "string",
    help: "tmux executable (default: tmux on PATH, else in a package manager's folder: docs/install.md)",
    apply: (c, v, s) => c.tmuxBin = nonEmpty(s, String(v)),
  },
  {
    flag: "max-concurrency",
    env: "TMUX_MCP_MAX_CONCURRENCY",
    type: "string",
    help: "most tmux commands at once, 1..64 (default: 8); with several hosts each keeps one for itself",
    apply: (c, v, s) => c.maxConcurrency = intIn(s, String(v), 1, 64),
  },
  {
    flag: "safety",
    env: "TMUX_MCP_SAFETY",
    type: "string",
    help: "highest tool tier served: readonly|mutating|destructive (default: mutating)",
    apply: (c, v, s) => c.safety = oneOf(s, String(v), TIERS, { "read-only": "readonly", "read_only": "readonly" }),
  },
  {
    flag: "toolsets",
    env: "TMUX_MCP_TOOLSETS",
    type: "string",
    help: `comma-separated toolsets to serve: ${TOOLSETS.join(",")} (default: all)`,
    apply: (c, v, s) => {
      const names = String(v).split(",").map((x) => x.trim()).filter((x) => x.length > 0);
      if (names.length === 0) throw new UsageError(`${s}: name at least one of ${TOOLSETS.join(", ")}`);
      c.toolsets = [...new Set(names.map((n) => oneOf(s, n, TOOLSETS)))];
    },
  },
  {
    flag: "max-message-bytes",
    env: "TMUX_MCP_MAX_MESSAGE_BYTES",
    type: "string",
    help: "largest JSON-RPC message accepted on stdin (default: 67108864 = 64 MiB)",
    apply: (c, v, s) => c.maxMessageBytes = intIn(s, String(v), 1024, 1024 * MiB),
  },
  {
    flag: "audit-log",
    env: "TMUX_MCP_AUDIT_LOG",
    type: "string",
    help: "append one JSON line per tool call to this file (default: stderr)",
    apply: (c, v, s) => c.auditLog = nonEmpty(s, String(v)),
  },
  {
    flag: "max-wait-ms",
    env: "TMUX_MCP_MAX_WAIT_MS",
    type: "string",
    help: "upper bound for timeout_ms: how long one wait or run-command may last in all, across its " +
      "continuations (default: 3600000)",
    apply: (c, v, s) => c.maxWaitMs = intIn(s, String(v), 100, 24 * 3600 * 1000),
  },
  {
    flag: "call-budget-ms",
    env: "TMUX_MCP_CALL_BUDGET_MS",
    type: "string",
    help: "longest one tool call blocks; a wait or run-command still going then answers running with a continue " +
      "token (default: 50000, under the 60 s tool timeouts of Codex and claude.ai)",
    apply: (c, v, s) => c.callBudgetMs = intIn(s, String(v), 100, 24 * 3600 * 1000),
  },
  {
    flag: "terminal-backend",
    env: "TMUX_MCP_TERMINAL_BACKEND",
    type: "string",
    help: "backend of the pty-* tools: pty (alias internal, this machine) or tmux (default: tmux with --ssh, else pty)",
    apply: (c, v, s) => c.terminalBackend = oneOf(s, String(v), TERMINAL_BACKENDS, { internal: "pty" }),
  },
  {
    flag: "keep-sessions",
    env: "TMUX_MCP_KEEP_SESSIONS",
    type: "boolean",
    help: "tmux backend: leave pty-* sessions running when the server exits",
    apply: (c, v, s) => c.keepSessions = v === true || onOff(s, String(v)),
  },
  {
    flag: "config",
    env: "TMUX_MCP_CONFIG",
    type: "string",
    help: "JSON/JSONC file with response-budget settings",
    apply: (c, v, s) => c.configPath = nonEmpty(s, String(v)),
  },
  {
    flag: "max-tokens",
    env: "TMUX_MCP_MAX_TOKENS",
    type: "string",
    help: "token budget per tool result (overrides maxTokensPerResponse)",
    apply: (c, v, s) => c.maxTokens = intIn(s, String(v), MIN_MAX_TOKENS, 10_000_000),
  },
  {
    flag: "ssh",
    env: "TMUX_MCP_SSH",
    type: "string",
    multiple: true,
    help: "host to drive over ssh (user@host, alias, ssh://…); NAME=DEST names it (NAME::TARGET), local is " +
      "this machine; its own ,socket-name= ,socket-path= ,tmux-bin= follow; repeatable (the variable: space-separated)",
    apply: (c, v, s) => addHosts(c, s, s === "TMUX_MCP_SSH" ? String(v).split(/\s+/).filter((x) => x) : [String(v)]),
  },
  {
    flag: "hosts",
    env: "TMUX_MCP_HOSTS",
    type: "string",
    help: "file with one host per line as --ssh takes it (NAME=DEST, DEST or local; # comments)",
    apply: (c, v, s) => {
      const path = existingFile(s, nonEmpty(s, String(v)));
      addHosts(c, s, parseHostsFile(Deno.readTextFileSync(path)));
    },
  },
  {
    flag: "connect-timeout-ms",
    env: "TMUX_MCP_CONNECT_TIMEOUT_MS",
    type: "string",
    help: `longest wait for a start: the ssh login (rc files included), tmux -V, a control client's attach ` +
      `(default: ${CONNECT_TIMEOUT_MS})`,
    apply: (c, v, s) => c.connectTimeoutMs = intIn(s, String(v), 1000, 3600 * 1000),
  },
  {
    flag: "ssh-config",
    env: "TMUX_MCP_SSH_CONFIG",
    type: "string",
    help: "ssh client config file for --ssh (ssh -F FILE)",
    // Absolute: it is also in the commands given to a person (request-input's attach line, error hints), run elsewhere.
    apply: (c, v, s) => c.sshConfig = absolutePath(existingFile(s, nonEmpty(s, String(v))), Deno.cwd()),
  },
  {
    flag: "files-root",
    env: "TMUX_MCP_FILES_ROOT",
    type: "string",
    help: "confine file tools (load/save-buffer, pipe-pane, pty-capture) to this directory",
    apply: (c, v, s) => c.filesRoot = existingDirectory(s, String(v)),
  },
  {
    flag: "control-mode",
    env: "TMUX_MCP_CONTROL_MODE",
    type: "string",
    help: "on: commands travel over one persistent tmux -C client; off: one tmux process per command (default: on)",
    apply: (c, v, s) => c.controlMode = oneOf(s, String(v), ["on", "off"] as const) === "on",
  },
  {
    flag: "redact",
    env: "TMUX_MCP_REDACT",
    type: "string",
    help: "on|off: secrets in results become [redacted:KIND:HASH] (default: on)",
    apply: (c, v, s) => c.redact = oneOf(s, String(v), ["on", "off"] as const) === "on",
  },
  {
    flag: "sessions",
    env: "TMUX_MCP_SESSIONS",
    type: "string",
    multiple: true,
    help: "only sessions whose name matches this glob (HOST::GLOB: on that host) are visible; repeatable " +
      "(the variable: space-separated)",
    apply: (c, v, s) => {
      const values = s === "TMUX_MCP_SESSIONS" ? String(v).split(/\s+/).filter((x) => x) : [String(v)];
      for (const one of values) {
        try {
          c.sessions.push(parseSessionPattern(one));
        } catch (e) {
          throw new UsageError(`${s}: ${(e as Error).message}`);
        }
      }
    },
  },
  {
    flag: "scope",
    env: "TMUX_MCP_SCOPE",
    type: "string",
    help: "tagged: only sessions the user tagged (tmux set @mcp on), matched by --sessions or created here " +
      "are visible (default: all)",
    apply: (c, v, s) => c.scope = oneOf(s, String(v), ["all", "tagged"] as const),
  },
];

/** Defaults before flags and environment apply. */
export function defaultConfig(): Config {
  return {
    tmuxBin: "tmux",
    maxConcurrency: 8,
    safety: "mutating",
    toolsets: [...TOOLSETS],
    maxMessageBytes: 64 * MiB,
    maxWaitMs: 3_600_000,
    callBudgetMs: 50_000,
    terminalBackend: "pty",
    keepSessions: false,
    controlMode: true,
    redact: true,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    hosts: [],
    sessions: [],
    scope: "all",
  };
}

export type Command =
  | { kind: "serve"; config: Config }
  | { kind: "help" }
  | { kind: "version" }
  /**
   * `tmux-mcp doctor [flags]`: check the set-up for this config; `args` are the flags as given (without `--install`
   * and `--dry-run`). With `install`, write this server into that MCP client's config instead (`dryRun`: show the diff).
   */
  | { kind: "doctor"; config: Config; args: string[]; install?: { client: string; dryRun: boolean } };

/** One argument as {@linkcode parseFlags} read it (node:util parseArgs' tokens). */
type FlagToken =
  | { kind: "option"; index: number; name: string; value?: string; inlineValue?: boolean }
  | { kind: "positional"; index: number; value: string }
  | { kind: "option-terminator"; index: number };

/**
 * Long flags (`--name value`, `--name=value`, booleans without a value) and positionals, as node:util's `parseArgs`
 * reads them with `strict`, `allowPositionals` and `tokens` (the same values and tokens, one-line errors): written
 * here because importing node:util slowed every start.
 */
export function parseFlags(
  args: string[],
  options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>,
): { values: Record<string, Parsed | Parsed[]>; positionals: string[]; tokens: FlagToken[] } {
  const values: Record<string, Parsed | Parsed[]> = {};
  const positionals: string[] = [];
  const tokens: FlagToken[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      tokens.push({ kind: "option-terminator", index: i });
      for (let k = i + 1; k < args.length; k++) {
        positionals.push(args[k]);
        tokens.push({ kind: "positional", index: k, value: args[k] });
      }
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      tokens.push({ kind: "positional", index: i, value: arg });
      continue;
    }
    if (!arg.startsWith("--")) throw new UsageError(`Unknown option '-${arg[1]}'`); // no short flags
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) throw new UsageError(`Unknown option '--${name}'`);
    const index = i;
    let value: string | undefined;
    let inlineValue: boolean | undefined;
    if (eq !== -1) value = arg.slice(eq + 1), inlineValue = true;
    else if (option.type === "string" && i + 1 < args.length) {
      value = args[++i];
      inlineValue = false;
      if (value.length > 1 && value.startsWith("-")) {
        throw new UsageError(
          `Option '--${name}' argument is ambiguous. To give a value starting with a dash use '--${name}=-XYZ'`,
        );
      }
    }
    if (option.type === "string" && value === undefined) {
      throw new UsageError(`Option '--${name} <value>' argument missing`);
    }
    if (option.type === "boolean" && value !== undefined) {
      throw new UsageError(`Option '--${name}' does not take an argument`);
    }
    tokens.push({ kind: "option", index, name, value, inlineValue });
    const v = option.type === "boolean" ? true : value;
    if (option.multiple) ((values[name] ??= []) as Parsed[]).push(v);
    else values[name] = v;
  }
  return { values, positionals, tokens };
}

/**
 * Parses argv and environment. Flags win over environment variables.
 * Throws {@linkcode UsageError} on any unknown flag or bad value.
 */
export function parseCommand(args: string[], env: Record<string, string | undefined>): Command {
  const options: Record<string, { type: "string" | "boolean" }> = {
    help: { type: "boolean" },
    version: { type: "boolean" },
    // doctor's own: not server flags, so not in OPTIONS
    install: { type: "string" },
    "dry-run": { type: "boolean" },
  };
  for (const o of OPTIONS) options[o.flag] = { type: o.type, ...(o.multiple ? { multiple: true } : {}) };
  const parsed = parseFlags(args, options);
  if (parsed.values.help) return { kind: "help" };
  if (parsed.values.version) return { kind: "version" };
  const doctor = parsed.positionals[0] === "doctor";
  if (parsed.positionals.length > (doctor ? 1 : 0)) {
    throw new UsageError(
      `unexpected argument "${parsed.positionals[doctor ? 1 : 0]}" (the server takes flags only, ` +
        `plus the subcommand doctor)`,
    );
  }
  checkRepeats(parsed.tokens);
  const cfg = defaultConfig();
  for (const o of OPTIONS) {
    const fromEnv = o.env ? env[o.env] : undefined;
    if (fromEnv !== undefined && fromEnv !== "") o.apply(cfg, fromEnv, o.env!);
  }
  checkOneSocket(cfg, "TMUX_MCP_SOCKET_NAME and TMUX_MCP_SOCKET_PATH", "unset one");
  // A socket flag wins over both socket variables: tmux -S would otherwise beat the --socket-name asked for.
  if (parsed.values["socket-name"] !== undefined || parsed.values["socket-path"] !== undefined) {
    cfg.socketName = cfg.socketPath = undefined;
  }
  // Likewise a host flag (--ssh or --hosts) replaces the hosts of both host variables.
  if (parsed.values.ssh !== undefined || parsed.values.hosts !== undefined) cfg.hosts = [], cfg.ssh = undefined;
  for (const o of OPTIONS) {
    const v = parsed.values[o.flag];
    if (v === undefined) continue;
    // Flags win over the environment: a repeatable flag given on the command line replaces its variable's list.
    if (Array.isArray(v)) {
      if (o.flag === "sessions") cfg.sessions = [];
      for (const one of v) if (one !== undefined) o.apply(cfg, one, `--${o.flag}`);
    } else o.apply(cfg, v, `--${o.flag}`);
  }
  checkOneSocket(cfg, "--socket-name and --socket-path", "give one");
  checkPatternHosts(cfg);
  const install = parsed.values.install as string | undefined;
  const dryRun = parsed.values["dry-run"] === true;
  if (!doctor && (install !== undefined || dryRun)) {
    throw new UsageError(
      `--${
        install !== undefined ? "install" : "dry-run"
      } belongs to doctor: tmux-mcp doctor --install CLIENT [--dry-run]`,
    );
  }
  if (dryRun && install === undefined) throw new UsageError("--dry-run needs --install CLIENT");
  // The parser keeps the last of a repeated option: a second client would be skipped without a word.
  const installs = parsed.tokens.filter((t) => t.kind === "option" && t.name === "install").length;
  if (installs > 1) throw new UsageError("--install takes one client: run doctor --install once per client");
  // With --ssh the pty_* tools run on the tmux host unless the user asked for this machine's PTYs: any ssh host,
  // not only a first one (with `local` first, a session asked for on an ssh host would run on this machine).
  const backendGiven = parsed.values["terminal-backend"] !== undefined || !!env.TMUX_MCP_TERMINAL_BACKEND;
  if (!backendGiven && cfg.hosts.some((h) => h.destination !== undefined)) cfg.terminalBackend = "tmux";
  if (doctor) {
    // Drop the subcommand and doctor's own flags: the rest are server flags, repeated in the client command.
    const own = new Set<number>();
    for (const tok of parsed.tokens) {
      if (tok.kind === "positional") own.add(tok.index);
      if (tok.kind === "option" && (tok.name === "install" || tok.name === "dry-run")) {
        own.add(tok.index);
        if (tok.name === "install" && !tok.inlineValue) own.add(tok.index + 1);
      }
    }
    return {
      kind: "doctor",
      config: cfg,
      args: args.filter((_, i) => !own.has(i)),
      ...(install !== undefined ? { install: { client: install, dryRun } } : {}),
    };
  }
  return { kind: "serve", config: cfg };
}

/**
 * A setting given twice with two values is refused: the parser keeps the last, so a `--safety readonly` earlier on
 * the line (in a client's config, say) would be overridden without a word. Repeatable flags and doctor's own are not
 * settings; the same value twice is harmless.
 */
function checkRepeats(tokens: FlagToken[]): void {
  const seen = new Map<string, { value: string | undefined; meaning: string }>();
  for (const tok of tokens) {
    if (tok.kind !== "option") continue;
    const row = OPTIONS.find((o) => o.flag === tok.name);
    if (!row || row.multiple) continue;
    // Compared by what the value sets, so `readonly` and `READONLY` (or `read-only`) are the same value given twice.
    const scratch = defaultConfig();
    row.apply(scratch, tok.value ?? true, `--${tok.name}`);
    const meaning = JSON.stringify(scratch);
    const first = seen.get(tok.name);
    if (first && first.meaning !== meaning) {
      throw new UsageError(
        `--${tok.name} is given twice (${JSON.stringify(first.value)}, then ${JSON.stringify(tok.value)}): ` +
          "give it once",
      );
    }
    seen.set(tok.name, { value: tok.value, meaning });
  }
}

/** A socket name and a socket path together are refused: tmux would take the path and ignore the name. */
function checkOneSocket(cfg: Config, both: string, fix: string): void {
  if (cfg.socketName !== undefined && cfg.socketPath !== undefined) {
    throw new UsageError(`${both} both name the socket: ${fix}`);
  }
}

/** A `--sessions HOST::GLOB` must name a host this server drives. */
function checkPatternHosts(cfg: Config): void {
  const names = cfg.hosts.length > 0 ? cfg.hosts.map((h) => h.name) : [LOCAL_HOST];
  const stray = cfg.sessions.find((p) => p.host !== undefined && !names.includes(p.host));
  if (stray) {
    throw new UsageError(
      `--sessions: "${stray.host}::${stray.glob}" names no host of this server (hosts: ${names.join(", ")}); ` +
        "name one, or drop HOST:: to match on every host",
    );
  }
}

/** Convenience for tests: the serve config or an error. */
export function parseConfig(args: string[], env: Record<string, string | undefined>): Config {
  const cmd = parseCommand(args, env);
  if (cmd.kind !== "serve") throw new UsageError(`--${cmd.kind} does not produce a config`);
  return cmd.config;
}

/** How an option is written on the command line, in `--help` and the README: `--socket-name NAME`, `--keep-sessions`. */
export function flagSyntax(o: OptionRow): string {
  return o.type === "string" ? `--${o.flag} ${o.flag.split("-").pop()!.toUpperCase()}` : `--${o.flag}`;
}

/** The `--help` text. */
export function helpText(version: string): string {
  const rows = OPTIONS.map((o) => {
    const env = o.env ? ` [env ${o.env}]` : "";
    return `  ${flagSyntax(o)}\n      ${o.help}${env}`;
  });
  return [
    `tmux-mcp ${version}: an MCP server (stdio) that lets AI agents drive tmux.`,
    "",
    "Usage: tmux-mcp [options]          serve MCP on stdin/stdout",
    "       tmux-mcp doctor [options]   check tmux, the socket, shells, libc and the config file for these options",
    "       tmux-mcp doctor --install CLIENT [--dry-run] [options]",
    "                                   add this server (with these options) to an MCP client's config: claude-code,",
    "                                   claude-desktop, cursor, codex, vscode, gemini-cli, windsurf or zed",
    "",
    "Options:",
    ...rows,
    "  --help       show this help",
    "  --version    print the version",
    "",
  ].join("\n");
}
