/**
 * Several tmux hosts behind one server: the host list (`--ssh [NAME=]DEST`,
 * repeatable, `local` among them, or a `--hosts FILE`), and the syntax of a
 * host-qualified target.
 *
 * A target on a named host is `HOST::TARGET`, where TARGET is anything tmux
 * itself takes (`%3`, `@2`, `$1`, `main`, `main:0.1`). Why `::`: a tmux
 * session name can hold any character but `:` and `.` (tmux replaces both
 * with `_`), so no session name, and no prefix of one, ends in `:`; and tmux
 * reads `a::b` as the window `:b` of session `a`, a window name nobody types.
 * A host name is letters, digits, `_` and `-` (no `:` or `.`), so the first
 * `::` of a target always ends the host. Without a prefix a target means
 * the first host, which keeps every target of a one-host server unchanged.
 *
 * @example
 * ```ts
 * const hosts = parseHostList(["web=me@web1", "local"]);
 * hosts[0]; // { name: "web", destination: "me@web1" }
 * splitHostTarget("web::main:0.1"); // { host: "web", target: "main:0.1" }
 * qualify("web", "%3"); // "web::%3"
 * ```
 */
import { destinationProblem } from "./ssh.ts";

/** One tmux host: its name in targets, where it is (undefined: this machine), and its own tmux settings. */
export interface HostSpec {
  name: string;
  /** The ssh destination; undefined for the tmux server on this machine. */
  destination?: string;
  /** Its tmux socket name (`tmux -L`), instead of the server's --socket-name/--socket-path. */
  socketName?: string;
  /** Its tmux socket path (`tmux -S`), instead of the server's --socket-name/--socket-path. */
  socketPath?: string;
  /** Its tmux executable, instead of the server's --tmux-bin. */
  tmuxBin?: string;
}

/**
 * The settings a host may have of its own, after its destination: `,KEY=VALUE` each. The values reach a remote
 * login's command line (quoted there all the same), so they are held to characters no shell reads specially.
 */
const HOST_OPTIONS: Readonly<Record<string, { key: "socketName" | "socketPath" | "tmuxBin"; ok: RegExp; is: string }>> =
  {
    "socket-name": { key: "socketName", ok: /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, is: "letters, digits, _ . -" },
    "socket-path": {
      key: "socketPath",
      ok: /^\/[A-Za-z0-9_.\/-]{1,255}$/,
      is: "an absolute path of letters, digits, _ . - /",
    },
    "tmux-bin": {
      key: "tmuxBin",
      ok: /^(~\/|\/)?[A-Za-z0-9_.+][A-Za-z0-9_.+\/-]{0,255}$/,
      is: "a command name or a path (/…, ~/…) of letters, digits, _ . + - /",
    },
  };

/** `,socket-name=…` and the like after a destination: the settings, or a one-line problem. */
function parseHostOptions(raw: string): Partial<HostSpec> | string {
  const out: Partial<HostSpec> = {};
  for (const part of raw.split(",")) {
    const eq = part.indexOf("=");
    const key = eq < 0 ? part : part.slice(0, eq);
    const opt = Object.hasOwn(HOST_OPTIONS, key) ? HOST_OPTIONS[key] : undefined;
    if (!opt || eq < 0) {
      return `"${part}" is not a host setting: after the destination come ,socket-name=NAME, ` +
        `,socket-path=PATH or ,tmux-bin=PATH`;
    }
    const value = part.slice(eq + 1);
    if (!opt.ok.test(value)) return `${key} ${JSON.stringify(value)} is not ${opt.is}`;
    if (out[opt.key] !== undefined) return `${key} is given twice`;
    out[opt.key] = value;
  }
  if (out.socketName !== undefined && out.socketPath !== undefined) {
    return "socket-name and socket-path both name the socket: give one";
  }
  return out;
}

/** Separates a host name from the tmux target after it. */
export const HOST_SEPARATOR = "::";

/** What a host name may be: no `:` or `.`, so a qualified target splits one way only. */
export const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** The name of the host on this machine. */
export const LOCAL_HOST = "local";

/**
 * The name a destination gets when none is given: its host part up to the first dot (an IP address whole),
 * cleaned to a {@linkcode HOST_NAME}, so the targets its rows carry are taken back.
 */
export function defaultHostName(destination: string): string {
  let host = destination.replace(/^ssh:\/\//, "");
  host = host.slice(host.lastIndexOf("@") + 1);
  const bracketed = /^\[([^\]]*)\]/.exec(host);
  // A port follows one ":" only: an IPv6 address has several (and is bracketed when a port follows).
  if (bracketed) host = bracketed[1];
  else if (host.indexOf(":") === host.lastIndexOf(":")) host = host.replace(/:\d*$/, "");
  const first = /^\d+(\.\d+){3}$/.test(host) || host.includes(":") ? host : host.split(".")[0];
  const name = first.replace(/[^A-Za-z0-9_-]/g, "-").replace(/^[_-]+/, "").slice(0, 32);
  return HOST_NAME.test(name) ? name : "host";
}

/**
 * One `--ssh` value: `DEST`, `NAME=DEST`, `local` or `NAME=local`, each optionally followed by the host's own
 * settings (`,socket-name=NAME`, `,socket-path=PATH`, `,tmux-bin=PATH`). Returns the spec or a one-line problem.
 */
export function parseHostSpec(raw: string): HostSpec | string {
  const comma = raw.indexOf(",");
  const options = comma < 0 ? {} : parseHostOptions(raw.slice(comma + 1));
  if (typeof options === "string") return options;
  const head = comma < 0 ? raw : raw.slice(0, comma);
  const eq = head.indexOf("=");
  // Before an "=" comes a name: a name that is no host name is refused, never read as part of the destination (ssh
  // would log in as the user "my.web=me" at web1). An "=" after a user@ is the destination's own.
  const named = eq > 0 && HOST_NAME.test(head.slice(0, eq));
  const dest = named ? head.slice(eq + 1) : head;
  if (dest === LOCAL_HOST) return { name: named ? head.slice(0, eq) : LOCAL_HOST, ...options };
  const bad = destinationProblem(dest);
  if (bad) return bad;
  if (eq >= 0 && !named && !head.slice(0, eq).includes("@")) {
    return `${JSON.stringify(head.slice(0, eq))} before "=" is not a host name (letters, digits, _ and -, at most ` +
      "32, starting with a letter or digit): give --ssh NAME=DEST";
  }
  const name = named ? head.slice(0, eq) : defaultHostName(dest);
  // "local" names this machine (results say a file or session is "local"): an ssh host under that name would read
  // as this machine, and `local::` would lead elsewhere than the user meant.
  if (name.toLowerCase() === LOCAL_HOST) {
    return `the host name "${name}" is this machine's, not an ssh host's: give it another name: ` +
      `--ssh NAME=${dest} (and --ssh local for this machine)`;
  }
  return { name, destination: dest, ...options };
}

/**
 * Several `--ssh` values (and hosts-file lines) as specs, after the `before` ones; throws an Error with a
 * one-line message.
 */
export function parseHostList(values: readonly string[], before: readonly HostSpec[] = []): HostSpec[] {
  const out: HostSpec[] = [...before];
  for (const v of values) {
    const spec = parseHostSpec(v);
    if (typeof spec === "string") throw new Error(`"${v}": ${spec}`);
    const twin = out.find((h) => h.name === spec.name);
    if (twin) {
      throw new Error(
        `"${v}": the host name "${spec.name}" is taken (by ${twin.destination ?? "local"}); ` +
          `name it: --ssh NAME=${spec.destination ?? "local"}`,
      );
    }
    out.push(spec);
  }
  return out;
}

/**
 * A hosts file: one host per line as `--ssh` takes it (`NAME=DEST`, `DEST`, `local`); blank lines and lines
 * starting with `#` are skipped, and so is a `#` comment after a host and a space (a host holds no space).
 */
export function parseHostsFile(text: string): string[] {
  return text.split("\n").map((l) => l.replace(/\s#.*$/, "").trim()).filter((l) => l.length > 0 && !l.startsWith("#"));
}

/** A target split at its host prefix; `host` undefined when there is none. */
export interface HostTarget {
  host?: string;
  target: string;
}

/** Splits `HOST::TARGET`; a target without `::` is returned whole. Throws on an invalid host name. */
export function splitHostTarget(target: string): HostTarget {
  const at = target.indexOf(HOST_SEPARATOR);
  if (at < 0) return { target };
  const host = target.slice(0, at);
  if (!HOST_NAME.test(host)) {
    throw new Error(
      `target ${JSON.stringify(target)}: "${host}" before "::" is not a host name (letters, digits, _ and -); ` +
        `give HOST::TARGET with a name from list {what: "hosts"}`,
    );
  }
  return { host, target: target.slice(at + HOST_SEPARATOR.length) };
}

/** `HOST::ID`: a target that names `id` on `host` whatever host is the default. */
export function qualify(host: string, id: string): string {
  return `${host}${HOST_SEPARATOR}${id}`;
}

/** The ids a row names its object by, most specific first. */
export const ID_KEYS = ["pane_id", "window_id", "session_id"] as const;

/**
 * `row` with `host` and, when it has an id, `target` (its most specific id on `host`); a pty session's id
 * becomes `HOST::ID`, the form every pty tool takes, so no two hosts' sessions share an id.
 *
 * @example
 * ```ts
 * withTarget({ pane_id: "%3", window_id: "@1" }, "web"); // { host: "web", target: "web::%3", pane_id: "%3", window_id: "@1" }
 * ```
 */
export function withTarget(row: Record<string, unknown>, host: string): Record<string, unknown> {
  const id = ID_KEYS.map((k) => row[k]).find((v): v is string => typeof v === "string");
  const pty = typeof row.pty_id === "string" ? { pty_id: qualify(host, row.pty_id) } : {};
  return id === undefined ? { host, ...row, ...pty } : { host, target: qualify(host, id), ...row, ...pty };
}
