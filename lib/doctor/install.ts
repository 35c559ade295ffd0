/**
 * `tmux-mcp doctor --install CLIENT [--dry-run]`: adds (or updates) the
 * server `tmux` in one MCP client's user config — the command of this very
 * installation plus the flags doctor was given — keeping every other server,
 * comment and key, with a backup of the old file. `--dry-run` prints the
 * diff and writes nothing. A file that is not what the client reads is
 * refused with one line and left as it was. Plain `doctor` uses
 * {@linkcode clientHints} to say, for each client it finds, whether the
 * server is there and what to run or paste.
 *
 * @example
 * ```ts
 * const { lines, ok } = await runInstall({ client: "cursor", flags: ["--socket-name", "agent"], dryRun: true });
 * ```
 */
import { OPTIONS } from "../config.ts";
import { type CheckResult, messageOf } from "./check.ts";
import { clientArgv, shellWord } from "./client.ts";
import { findOnPath } from "../host/binaries.ts";
import { ownUid } from "../host/process.ts";
import { CLIENT_IDS, type ClientSpec, clientSpec, currentWhere, type Where } from "./install_clients.ts";
import { mergeEntry, unifiedDiff } from "./install_edit.ts";

/** The server's name in every client config. */
export const SERVER_NAME = "tmux";

/** What `--install` was asked to do. */
export interface InstallOptions {
  /** The client's name, one of {@linkcode CLIENT_IDS}. */
  client: string;
  /** The server flags to pass through (doctor's flags without `--install`/`--dry-run`). */
  flags: readonly string[];
  dryRun: boolean;
  /** Whose files (default: this process's HOME, OS and environment). */
  where?: Where;
  /** The command to write instead of this installation's own (tests). */
  argv?: readonly string[];
}

/** The file's text, or "" with `exists: false` when there is none; throws on a directory or an unreadable file. */
async function readConfig(
  path: string,
): Promise<{ text: string; exists: boolean; real: string; mode?: number; owner?: [number, number] }> {
  let real = path;
  try {
    // A symlinked config (a dotfiles repository, say) is edited where it lives; the link stays a link.
    real = await Deno.realPath(path);
  } catch (e) {
    // No file: a dangling link (dotfiles whose file is not made yet) gets the file where it points.
    if (e instanceof Deno.errors.NotFound) return { text: "", exists: false, real: await linkEnd(path) };
    if (e instanceof Deno.errors.NotADirectory) {
      throw new Error(
        `${await fileOnTheWay(path)} is a file, where the client keeps a folder: move it aside and run again`,
      );
    }
    throw e;
  }
  const info = await Deno.stat(real);
  if (!info.isFile) {
    const what = info.isDirectory ? "a folder" : "not a regular file";
    throw new Error(`${path} is ${what}, where the client expects its config file: move it aside and run again`);
  }
  const owner: [number, number] | undefined = info.uid !== null && info.gid !== null ? [info.uid, info.gid] : undefined;
  return { text: utf8(await Deno.readFile(real), path), exists: true, real, mode: info.mode ?? undefined, owner };
}

/** The nearest folder above `path` that is a file instead (~/.cursor as a file, say); `path`'s own folder when none. */
async function fileOnTheWay(path: string): Promise<string> {
  const parts = path.split("/");
  for (let n = 2; n < parts.length; n++) {
    const dir = parts.slice(0, n).join("/");
    if (await Deno.stat(dir).then((s) => !s.isDirectory, () => false)) return dir;
  }
  return path.slice(0, path.lastIndexOf("/"));
}

/** The file's bytes as text; throws when they are not UTF-8, which a lenient decode would write back as U+FFFD. */
function utf8(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`${path} is not UTF-8 text, which this does not edit: save it as UTF-8 and run again`);
  }
}

/** Where the chain of symbolic links from `path` ends: `path` itself when it is no link. */
async function linkEnd(path: string): Promise<string> {
  let p = path;
  for (let hops = 0; hops < 40; hops++) {
    try {
      if (!(await Deno.lstat(p)).isSymlink) return p;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return p;
      throw e;
    }
    const to = await Deno.readLink(p);
    p = to.startsWith("/") ? to : `${p.slice(0, p.lastIndexOf("/"))}/${to}`;
  }
  throw new Error(`${path}: too many levels of symbolic links`);
}

/** `2026-11-27T09-41-05` for file names. */
function stamp(d = new Date()): string {
  return d.toISOString().slice(0, 19).replaceAll(":", "-");
}

/**
 * Copies `path` to `<path>.bak-<stamp>` beside it, or `.bak-<stamp>-2`, `-3`… when a backup of that second is there
 * already (two runs within a second): an earlier backup is never overwritten. Returns the backup's path.
 */
async function backUp(path: string): Promise<string> {
  const base = `${path}.bak-${stamp()}`;
  for (let n = 1;; n++) {
    const backup = n === 1 ? base : `${base}-${n}`;
    let out;
    try {
      out = await Deno.open(backup, { write: true, createNew: true, mode: 0o600 });
    } catch (e) {
      if (e instanceof Deno.errors.AlreadyExists) continue;
      throw e;
    }
    try {
      using src = await Deno.open(path);
      await src.readable.pipeTo(out.writable); // closes `out`
    } catch (e) {
      await Deno.remove(backup).catch(() => {});
      throw e;
    }
    await Deno.chmod(backup, (await Deno.stat(path)).mode! & 0o777);
    return backup;
  }
}

/**
 * Gives `path` the owner and group `owner` when they are not this process's: run as root (sudo) on a user's config,
 * the new file stays the user's, so the client can still write it. Best effort: a user cannot give a file away (nor
 * always keep a group it is not in), and then the new file is simply the user's own, as any editor leaves it.
 */
async function keepOwner(path: string, owner: [number, number] | undefined): Promise<void> {
  if (!owner || Deno.build.os === "windows") return;
  const made = await Deno.stat(path); // ours (no sys permission needed to learn who that is)
  if (made.uid === owner[0] && made.gid === owner[1]) return;
  await Deno.chown(path, owner[0], owner[1]).catch(() => {});
}

/** Writes `text` to `path` through a temporary file and a rename, so a client never reads half a file. */
async function writeAtomically(path: string, text: string, mode: number, owner?: [number, number]): Promise<void> {
  const dir = path.slice(0, path.lastIndexOf("/")) || "/";
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${path}.tmux-mcp-${Deno.pid}.tmp`;
  try {
    await Deno.writeTextFile(tmp, text, { mode });
    await Deno.chmod(tmp, mode); // writeTextFile's mode is filtered by the umask
    await keepOwner(tmp, owner);
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/** How to get the entry in when `path` cannot be written; `readOnly`: the file's own write bit is off. */
function byHand(path: string, readOnly: boolean): string {
  const dir = path.slice(0, path.lastIndexOf("/")) || "/";
  const fix = readOnly ? `chmod u+w ${shellWord(path)} first` : `make ${shellWord(dir)} and the file writable first`;
  return `${fix}, or add the entry by hand (--dry-run shows it)`;
}

/**
 * Why `where.home` cannot locate the configs (unset, empty or relative: the files would land under / or the current
 * folder, where no client looks), or undefined when it can.
 */
function homeProblem(where: Where): string | undefined {
  if (where.home.startsWith("/")) return undefined;
  const what = where.home === "" ? "not set" : `${JSON.stringify(where.home)}, not an absolute path`;
  return `HOME is ${what}: set it to your home directory`;
}

/**
 * Why a variable that moves `spec`'s config (CODEX_HOME, say) cannot locate it: a relative one names a folder under
 * whatever folder the client happens to start in, not under this one. Undefined when none is relative.
 */
function movedProblem(spec: ClientSpec, where: Where): string | undefined {
  const name = spec.moves?.find((v) => where.env[v] && !where.env[v]!.startsWith("/"));
  if (name === undefined) return undefined;
  return `${name} is ${JSON.stringify(where.env[name])}, not an absolute path, so where ${spec.title} reads its ` +
    `config depends on the folder it starts in: set ${name} to an absolute path`;
}

/**
 * `argv` as `spec` can start it: for a client started with a short PATH, a command by bare name (the npm launcher's
 * `npx`) by the path this PATH finds it at.
 */
function forClient(spec: ClientSpec, argv: readonly string[], where: Where): string[] {
  if (!spec.shortPath || argv[0].includes("/")) return [...argv];
  return [findOnPath(argv[0], where.env.PATH ?? "") ?? argv[0], ...argv.slice(1)];
}

/** Flags that replace each other's variables too (a socket flag both socket variables, a host flag both host ones). */
const FLAG_GROUPS = [["socket-name", "socket-path"], ["ssh", "hosts"]];

/**
 * The settings this environment gives (its `TMUX_MCP_*` variables) that `flags` do not override: doctor checked
 * them, but the entry holds only the flags, so a client started outside this environment (a GUI app) runs without
 * them, on another socket or tier, say. As a line saying so and what to do; undefined when there are none.
 */
export function unwrittenEnv(flags: readonly string[], env: Where["env"]): string | undefined {
  const given = (flag: string) =>
    (FLAG_GROUPS.find((g) => g.includes(flag)) ?? [flag]).some((f) =>
      flags.some((a) => a === `--${f}` || a.startsWith(`--${f}=`))
    );
  // Each as the flags that say the same: a boolean variable that is off needs none, a repeatable one holds
  // space-separated values.
  const unwritten = OPTIONS.filter((o) => o.env && env[o.env]?.trim() && !given(o.flag)).map((o) => {
    const value = env[o.env!]!.trim();
    if (o.type === "boolean") return { name: o.env!, flags: /^(0|false|off|no)$/i.test(value) ? [] : [`--${o.flag}`] };
    return {
      name: o.env!,
      flags: (o.multiple ? value.split(/\s+/) : [value]).map((v) => `--${o.flag} ${shellWord(v)}`),
    };
  }).filter((u) => u.flags.length > 0);
  if (unwritten.length === 0) return undefined;
  return `tmux-mcp doctor: not written: ${unwritten.map((u) => u.name).join(", ")} from this environment, which a ` +
    `client started elsewhere does not have: to keep ${unwritten.length === 1 ? "it" : "them"}, run again with ` +
    unwritten.flatMap((u) => u.flags).join(" ");
}

/**
 * When this environment's TMUX_TMPDIR moves tmux's sockets (`$TMUX_TMPDIR/tmux-UID/NAME`) and the entry names the
 * socket by name: a client started without that variable looks in /tmp and finds no server there. As a line with
 * the `--socket-path` to install with instead; undefined when the socket is given by path or TMUX_TMPDIR is unset.
 */
function tmpdirNote(flags: readonly string[], env: Where["env"], uid?: number): string | undefined {
  const tmpdir = env.TMUX_TMPDIR;
  if (!tmpdir || uid === undefined || flags.some((a) => /^--socket-path(=|$)/.test(a))) return undefined;
  const at = flags.findIndex((a) => /^--socket-name(=|$)/.test(a));
  const flagName = at === -1 ? undefined : flags[at].includes("=") ? flags[at].slice(14) : flags[at + 1];
  if (flagName === undefined && env.TMUX_MCP_SOCKET_PATH?.trim()) return undefined;
  const name = flagName ?? (env.TMUX_MCP_SOCKET_NAME?.trim() || "default");
  const path = `${tmpdir.replace(/\/+$/, "")}/tmux-${uid}/${name}`;
  return `tmux-mcp doctor: TMUX_TMPDIR is set here, so the socket is ${path}, which a client started elsewhere ` +
    `does not look in: to keep it, run again with --socket-path ${shellWord(path)}` +
    (flagName === undefined ? "" : ` in place of --socket-name ${shellWord(name)}`);
}

/**
 * How an entry the client will not start says so (`disabled: true`, as Windsurf's file has it; `enabled: false`, as
 * Zed's and Codex's), as that key and value in the file's syntax; undefined for an entry that is on.
 */
function turnedOff(entry: Record<string, unknown>, format: ClientSpec["format"]): string | undefined {
  const key = entry.disabled === true ? "disabled" : entry.enabled === false ? "enabled" : undefined;
  if (key === undefined) return undefined;
  return format === "toml" ? `${key} = ${entry[key]}` : `"${key}": ${entry[key]}`;
}

/** Why `name` cannot be given to `--install` (not a client it knows), or undefined. */
export function unknownClient(name: string): string | undefined {
  return clientSpec(name) ? undefined : `unknown client "${name}" for --install: use one of ${CLIENT_IDS.join(", ")}`;
}

/** Runs `--install`; `lines` go to stdout, `ok` is false when nothing could be (or would be) written. */
export async function runInstall(opts: InstallOptions): Promise<{ lines: string[]; ok: boolean }> {
  const spec = clientSpec(opts.client);
  if (!spec) return { lines: [`tmux-mcp doctor: ${unknownClient(opts.client)}`], ok: false };
  const where = opts.where ?? currentWhere();
  const noHome = homeProblem(where);
  if (noHome) return { lines: [`tmux-mcp doctor: ${noHome} and run --install again`], ok: false };
  const moved = movedProblem(spec, where);
  if (moved) return { lines: [`tmux-mcp doctor: ${moved} and run --install again`], ok: false };
  const path = spec.path(where);
  const argv = forClient(spec, opts.argv ?? clientArgv(opts.flags), where);
  const refuse = (reason: string) => ({
    lines: [`tmux-mcp doctor: not changing ${path}: ${reason}; it is left as it was`],
    ok: false,
  });
  let file;
  try {
    file = await readConfig(path);
  } catch (e) {
    return refuse(messageOf(e));
  }
  const merged = mergeEntry(file.text, spec.format, spec.section, SERVER_NAME, spec.entry(argv));
  if (merged.kind === "refused") return refuse(`it is ${merged.reason}`);
  const command = argv.map(shellWord).join(" ");
  const off = turnedOff(merged.entry, spec.format);
  const notes = [
    ...off
      ? [`tmux-mcp doctor: the entry is turned off there (${off}): ${spec.title} starts it once that key is gone`]
      : [],
    ...[unwrittenEnv(opts.flags, where.env), tmpdirNote(opts.flags, where.env, await ownUid())].filter((n) =>
      n !== undefined
    ),
  ];
  if (merged.kind === "unchanged") {
    return {
      lines: [
        `tmux-mcp doctor: ${spec.title} already has server "${SERVER_NAME}" = ${command} in ${path}; nothing to do`,
        ...notes,
      ],
      ok: true,
    };
  }
  const verb = merged.replaced ? "update" : "add";
  const diff = unifiedDiff(file.text, merged.text, path).trimEnd().split("\n");
  if (opts.dryRun) {
    return {
      lines: [
        ...diff,
        `tmux-mcp doctor: dry run: would ${verb} server "${SERVER_NAME}" in ${path}; nothing written`,
        ...notes,
      ],
      ok: true,
    };
  }
  // A file made read-only says "do not edit me": the rename below would replace it all the same (and root may write
  // anything), so the owner's write bit is asked first, then whether it opens for writing.
  if (file.exists && file.mode !== undefined && (file.mode & 0o200) === 0) {
    return refuse(
      `it is read-only (mode ${(file.mode & 0o777).toString(8).padStart(4, "0")}): ${byHand(file.real, true)}`,
    );
  }
  let backup = "";
  try {
    // The file may have changed since it was read (the client itself writes some of these): then start over.
    if ((await readConfig(path)).text !== file.text) return refuse("it changed while being merged: run again");
    if (file.exists) (await Deno.open(file.real, { write: true })).close();
    if (file.exists) {
      backup = await backUp(file.real);
      await keepOwner(backup, file.owner);
    }
    await writeAtomically(file.real, merged.text, (file.mode ?? 0o600) & 0o7777, file.owner);
  } catch (e) {
    return refuse(`${messageOf(e)}: ${byHand(file.real, false)}`);
  }
  return {
    lines: [
      `tmux-mcp doctor: ${verb === "add" ? "added" : "updated"} server "${SERVER_NAME}" in ${spec.title}'s ${path}` +
      (backup ? ` (the old file is ${backup})` : " (a new file)"),
      `tmux-mcp doctor: command: ${command}`,
      `tmux-mcp doctor: restart ${spec.title} (or reload its MCP servers) to start it`,
      ...notes,
    ],
    ok: true,
  };
}

/**
 * Where and what to paste by hand: for JSON the entry as one line of JSON; for TOML, which has no one-line table, the
 * table's lines, each to go on a line of its own.
 */
export function pasteHint(spec: ClientSpec, argv: readonly string[], path: string): string {
  const entry = spec.entry(argv);
  if (spec.format === "toml") {
    const values = Object.entries(entry).map(([k, v]) => `${k} = ${JSON.stringify(v).replaceAll('","', '", "')}`);
    const lines = [`[${spec.section}.${SERVER_NAME}]`, ...values].map((l) => `\`${l}\``);
    return `add to ${path} the lines ${lines.slice(0, -1).join(", ")} and ${lines.at(-1)}`;
  }
  return `add to ${path}: ${JSON.stringify({ [spec.section]: { [SERVER_NAME]: entry } })}`;
}

/**
 * One line per client found on this machine (its config file or folder exists): `ok` when its config already has
 * this server with this command, else `info` with the `--install` command to run and the snippet to paste, or `warn`
 * when its file could not be merged.
 */
export async function clientHints(flags: readonly string[], where: Where = currentWhere()): Promise<CheckResult[]> {
  const noHome = homeProblem(where);
  if (noHome) return [{ status: "warn", name: "mcp client", detail: `${noHome} to find the MCP clients' configs` }];
  const given = clientArgv(flags);
  const base = clientArgv([]);
  const out: CheckResult[] = [];
  for (const id of CLIENT_IDS) {
    const spec = clientSpec(id)!;
    const path = spec.path(where);
    const moved = movedProblem(spec, where);
    if (moved) {
      out.push({ status: "warn", name: "mcp client", detail: `${id}: ${moved}` });
      continue;
    }
    const present = await Promise.all(
      [path, ...spec.markers(where)].map((p) => Deno.stat(p).then(() => true, () => false)),
    );
    if (!present.includes(true)) continue;
    const argv = forClient(spec, given, where);
    let result: CheckResult;
    try {
      const file = await readConfig(path);
      const merged = mergeEntry(file.text, spec.format, spec.section, SERVER_NAME, spec.entry(argv));
      const install = [...base, "doctor", "--install", id, ...flags].map(shellWord).join(" ");
      const off = merged.kind === "unchanged" ? turnedOff(merged.entry, spec.format) : undefined;
      result = off
        ? {
          status: "warn",
          name: "mcp client",
          detail: `${id}: ${path} has server "${SERVER_NAME}" with this command, turned off (${off}): remove that key`,
        }
        : merged.kind === "unchanged"
        ? { status: "ok", name: "mcp client", detail: `${id}: ${path} has server "${SERVER_NAME}" with this command` }
        : merged.kind === "refused"
        ? { status: "warn", name: "mcp client", detail: `${id}: ${path} is ${merged.reason}` }
        : {
          status: "info",
          name: "mcp client",
          detail: `${id}: run \`${install}\`, or ${pasteHint(spec, argv, path)}`,
        };
    } catch (e) {
      result = { status: "warn", name: "mcp client", detail: `${id}: ${messageOf(e)}` };
    }
    out.push(result);
  }
  if (out.length === 0) {
    out.push({
      status: "info",
      name: "mcp client",
      detail: `none found: \`doctor --install CLIENT\` with one of ${CLIENT_IDS.join(", ")}`,
    });
  }
  return out;
}
