/**
 * The file policy: every tool that opens a path a model gave (load-buffer,
 * save-buffer, pipe-pane, pty-capture) goes through this module, and
 * nothing else in the server opens such a path.
 *
 * - Regular files only: FIFOs, devices, sockets and directories are refused,
 *   and so is anything under `/proc`, `/sys` or `/dev` — the path as given and
 *   the path after symlinks are resolved (`realpath`), so a link to
 *   `/proc/self/environ` or `/dev/zero` is refused like the target itself.
 * - Never a descriptor of this process: a path that resolves to the file our
 *   stdin, stdout or stderr is (compared by device and inode, which catches
 *   `/proc/self/fd/1` reached through any link) is refused, so a buffer cannot
 *   be written into the JSON-RPC stream as a forged message.
 * - The type is checked with `lstat`/`stat` before any open (a FIFO blocks in
 *   `open` until the other side appears, and Deno has no `O_NONBLOCK`), new
 *   files are created with `O_EXCL` (which follows no symlink), the opened file
 *   is checked again with `fstat`, and every open is bounded by a timeout.
 * - What is opened is what was checked: the opened file must be the one the
 *   checked (resolved) path names through no symlink, asked of the C library
 *   with `O_NOFOLLOW` on every component (lib/policy/path_identity.ts), so a
 *   symlink swapped in on the way between the check and the open is refused;
 *   a file is emptied only after that (never with `O_TRUNC`).
 * - Sizes are counted on bytes actually read, not on what `stat` says.
 * - With `--files-root DIR`, the resolved path must lie inside DIR (itself
 *   resolved).
 *
 * tmux's own load-buffer/save-buffer are not used for user paths because tmux
 * expands `#{...}` and `#(...)` formats in them; Deno's file API takes the
 * path byte-exact.
 *
 * @example
 * ```ts
 * const bytes = await readFileChecked("/tmp/log.txt", 512 * 1024 * 1024, { root: undefined });
 * const real = await prepareWrite("/tmp/out.log", { root: undefined }, { truncate: true });
 * ```
 */
import { UserError } from "../errors.ts";
import { joinChunks } from "../text/bytes.ts";
import { identityWithoutSymlinks } from "./path_identity.ts";

/** Per-server settings of the policy (from the configuration). */
export interface FilePolicy {
  /** `--files-root`: when set, every resolved path must be inside this directory. */
  root?: string;
  /**
   * Whether a write may empty an existing file that holds data and that this server did not create (`--safety
   * destructive`): replacing it loses what it held. Unset: refused, with what to pass instead.
   */
  replace?: boolean;
}

/** The policy of a server's configuration. */
export function filePolicy(config: { filesRoot?: string; safety?: string }): FilePolicy {
  return { root: config.filesRoot, replace: config.safety === "destructive" };
}

/**
 * A file this process created: its identity, and what it was when this process last wrote it whole (save-buffer),
 * so that one a user has edited or replaced since is theirs again. Files others write to by design (pipe-pane,
 * pty-capture) keep no size: only being replaced makes them theirs.
 */
interface Made {
  dev: number;
  ino: number | null;
  size?: number;
  mtime?: number;
}

/** Files this process created (resolved paths), which its later writes may replace; the oldest are forgotten. */
const created = new Map<string, Made>();
const MAX_CREATED = 4096;

function noteCreated(path: string, info: Deno.FileInfo, written: boolean): void {
  created.delete(path);
  const { dev, ino, size, mtime } = info;
  created.set(path, written ? { dev, ino, size, mtime: mtime?.getTime() } : { dev, ino });
  if (created.size > MAX_CREATED) created.delete(created.keys().next().value!);
}

/** Whether the file at `path`, now `info`, is one this process created and left as it was. */
function stillOurs(path: string, info: Deno.FileInfo): boolean {
  const made = created.get(path);
  if (made === undefined || made.dev !== info.dev || made.ino !== info.ino) return false;
  return made.size === undefined || (made.size === info.size && made.mtime === info.mtime?.getTime());
}

/** How long an open may take before the call fails (a FIFO or a hung network file system). */
export const OPEN_TIMEOUT_MS = 5_000;

/** Directories whose entries are not ordinary files even when `stat` says so. */
const FORBIDDEN_TREES = ["/proc", "/sys", "/dev"] as const;

const q = JSON.stringify;

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** `path` with `.` and `..` segments removed, lexically (for a path that does not resolve). */
function normalize(path: string): string {
  const out: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

function within(path: string, dir: string): boolean {
  return dir === "/" || path === dir || path.startsWith(dir + "/");
}

/** Why a file system takes no more bytes, by errno name, and what to do. */
const NO_ROOM: Record<string, string> = {
  ENOSPC: "its file system is full: free space or choose a path on another file system",
  EDQUOT: "the disk quota is used up: free space or choose a path on another file system",
  EFBIG: "the file would be larger than its file system allows: choose a path on another file system",
  EROFS: "its file system is read-only: choose a path on a writable file system",
};

function explain(e: unknown, path: string, writing: boolean): Error {
  if (e instanceof UserError) return e;
  if (e instanceof Deno.errors.NotFound) {
    return new UserError(
      writing
        ? `directory ${q(dirOf(path))} does not exist: create it first or choose another path`
        : `file ${q(path)} does not exist: check the path (it must be absolute)`,
    );
  }
  if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) {
    return new UserError(
      `permission denied for ${q(path)}: choose a path the server may ${writing ? "write" : "read"}`,
    );
  }
  if (e instanceof Deno.errors.IsADirectory) return new UserError(`${q(path)} is a directory: give a file path`);
  if (e instanceof Deno.errors.NotADirectory) {
    return new UserError(`a parent of ${q(path)} is not a directory: check the path`);
  }
  // Deno has no error class for these: a plain Error with the errno's name as its code.
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code in NO_ROOM) return new UserError(`cannot write ${q(path)}: ${NO_ROOM[code]}`);
  if (code === "ENAMETOOLONG") {
    const shown = path.length > 80 ? `${path.slice(0, 80)}…` : path;
    return new UserError(
      `path ${q(shown)} is too long for the file system (at most 255 bytes a name, 4096 in all): give a shorter path`,
    );
  }
  // Any other refusal of the system's for this path (a program running from it: "Text file busy", an I/O error) is
  // no fault of the server's: one line, without the system call Deno names.
  const os = e instanceof Error ? /^(.+?) \(os error \d+\)/.exec(e.message) : null;
  if (os) return new UserError(`cannot ${writing ? "write" : "read"} ${q(path)}: ${os[1]}: choose another path`);
  return e instanceof Error ? e : new Error(String(e));
}

function kindOf(info: Deno.FileInfo): string {
  if (info.isFile) return "regular file";
  if (info.isDirectory) return "directory";
  if (info.isSymlink) return "symlink";
  if (info.isFifo) return "FIFO (named pipe)";
  if (info.isSocket) return "socket";
  if (info.isCharDevice || info.isBlockDevice) return "device";
  return "special file";
}

/**
 * Refuses a path that is, or resolves into, /proc, /sys or /dev. `rest`: the components of the path not resolved
 * yet, named with `resolved` in the error (a refusal at `/proc` of `/tmp/../proc/self/environ` says where it leads).
 */
function refuseTree(given: string, resolved: string, rest: readonly string[] = []): void {
  for (const tree of FORBIDDEN_TREES) {
    if (within(given, tree) || within(resolved, tree)) {
      const whole = normalize([resolved, ...rest].join("/"));
      const shown = within(whole, tree) ? whole : resolved;
      const via = given === shown ? "" : ` (it resolves to ${q(shown)})`;
      throw new UserError(
        `refusing ${q(given)}${via}: files under ${tree} are not ordinary files; give a regular file elsewhere`,
      );
    }
  }
}

/**
 * A path on another host (the --ssh host, where tmux runs): checked lexically only — its file system is
 * not ours to look at — against /proc, /sys, /dev and --files-root. Returns it with `.`/`..` removed.
 *
 * @example
 * ```ts
 * remotePath("/tmp/a/../log", {}); // "/tmp/log"
 * ```
 */
export function remotePath(path: string, policy: FilePolicy): string {
  const resolved = normalize(path);
  refuseTree(path, resolved);
  refuseOutsideRoot(path, resolved, policy, policy.root === undefined ? undefined : normalize(policy.root));
  return resolved;
}

function refuseOutsideRoot(given: string, resolved: string, policy: FilePolicy, root: string | undefined): void {
  if (policy.root === undefined || root === undefined) return;
  if (!within(resolved, root)) {
    const via = given === resolved ? "" : ` (it resolves to ${q(resolved)})`;
    throw new UserError(
      `refusing ${q(given)}${via}: this server confines file tools to ${q(policy.root)} (--files-root); ` +
        `give a path inside it`,
    );
  }
}

async function resolvedRoot(policy: FilePolicy): Promise<string | undefined> {
  if (policy.root === undefined) return undefined;
  try {
    return await Deno.realPath(policy.root);
  } catch {
    throw new UserError(`the --files-root directory ${q(policy.root)} is gone: ask the user to restart the server`);
  }
}

function requireRegular(given: string, resolved: string, info: Deno.FileInfo): void {
  if (info.isFile) return;
  const via = given === resolved ? "" : ` (it resolves to ${q(resolved)})`;
  throw new UserError(`refusing ${q(given)}${via}: it is a ${kindOf(info)}; only regular files can be used`);
}

/** Most symlinks followed in one path, as Linux's own limit. */
const MAX_HOPS = 40;

/**
 * `realpath` done here, one component at a time, checking the target of
 * every symlink on the way against /proc, /sys and /dev. Needed because
 * the kernel resolves `/proc/PID/fd/1` to the file behind the descriptor: a
 * link to our own stdout would resolve to a harmless-looking path (when
 * stdout is a file) or fail like a missing file (a pipe), and Deno refuses
 * this process a look at /proc/self to tell. Returns undefined when a
 * component does not exist, and hands `missing` where the path leads then:
 * the part resolved, then the rest as written (a link out of --files-root to
 * nothing is out of it, as a link to a file there is).
 */
async function resolvePath(given: string, missing?: (at: string) => void): Promise<string | undefined> {
  let pending = given.split("/");
  let done = "/";
  let hops = 0;
  while (pending.length > 0) {
    const seg = pending.shift()!;
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      done = dirOf(done);
      continue;
    }
    const next = done === "/" ? `/${seg}` : `${done}/${seg}`;
    refuseTree(given, next, pending);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(next);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        missing?.(normalize([next, ...pending].join("/")));
        return undefined;
      }
      throw e;
    }
    if (!info.isSymlink) {
      done = next;
      continue;
    }
    if (++hops > MAX_HOPS) throw new UserError(`refusing ${q(given)}: more than ${MAX_HOPS} symlinks to follow`);
    const target = await Deno.readLink(next);
    const absolute = target.startsWith("/") ? target : `${done}/${target}`;
    refuseTree(given, normalize(absolute), pending);
    pending = [...absolute.split("/"), ...pending];
    done = "/";
  }
  return done;
}

/** (dev, ino) of this process's stdin, stdout and stderr when they are files; empty where /proc is absent. */
async function ownDescriptors(): Promise<Array<{ dev: number; ino: number }>> {
  const out: Array<{ dev: number; ino: number }> = [];
  for (const fd of [0, 1, 2]) {
    try {
      const s = await Deno.stat(`/proc/self/fd/${fd}`);
      if (s.ino !== null) out.push({ dev: s.dev, ino: s.ino });
    } catch {
      // no /proc, or the descriptor is closed: nothing to compare against
    }
  }
  return out;
}

async function refuseOwnDescriptor(given: string, info: Deno.FileInfo): Promise<void> {
  if (info.ino === null) return;
  for (const d of await ownDescriptors()) {
    if (d.dev === info.dev && d.ino === info.ino) {
      throw new UserError(
        `refusing ${q(given)}: it is this server's own stdin, stdout or stderr (the MCP channel); give another file`,
      );
    }
  }
}

/** Opens with a time bound; a late open that does complete is closed again. */
async function openBounded(path: string, options: Deno.OpenOptions, given: string): Promise<Deno.FsFile> {
  const opening = Deno.open(path, options);
  const timeout = AbortSignal.timeout(OPEN_TIMEOUT_MS);
  const timedOut = new Promise<never>((_, reject) => {
    timeout.addEventListener("abort", () =>
      reject(
        new UserError(
          `opening ${q(given)} did not complete within ${OPEN_TIMEOUT_MS / 1000} s (a FIFO or a hung file ` +
            `system?): give a regular local file`,
        ),
      ), { once: true });
  });
  try {
    return await Promise.race([opening, timedOut]);
  } catch (e) {
    opening.then((f) => f.close(), () => {});
    throw e;
  }
}

/** Checks an opened file again (it may have been swapped since the stat). */
async function checkOpened(file: Deno.FsFile, given: string, resolved: string): Promise<void> {
  const info = await file.stat();
  requireRegular(given, resolved, info);
  await refuseOwnDescriptor(given, info);
}

/** {@linkcode checkOpened}, closing the file when it fails. */
async function keepIfRegular(file: Deno.FsFile, given: string, resolved: string): Promise<Deno.FsFile> {
  try {
    await checkOpened(file, given, resolved);
    return file;
  } catch (e) {
    file.close();
    throw e;
  }
}

/**
 * Refuses an opened file that is not the file at `resolved`, the symlink-free path the checks looked at: a
 * symlink swapped in for the file or for a directory on its path between the check and the open would have the
 * open reach another file, which the checks never saw (outside --files-root, under /proc). Compared with the file
 * that path names through no symlink now (lib/policy/path_identity.ts); where that cannot be asked (no FFI), with
 * `fallback`'s `stat` of what was checked.
 */
async function requireSame(
  file: Deno.FsFile,
  resolved: string,
  given: string,
  fallback: () => Promise<Deno.FileInfo | undefined>,
): Promise<void> {
  const opened = await file.stat();
  const now = await identityWithoutSymlinks(resolved);
  const expected = now === "unavailable" ? await fallback() : now;
  if (expected === undefined || opened.dev !== expected.dev || opened.ino !== expected.ino) {
    throw new UserError(
      `${q(given)} changed while it was being checked (a file or directory on its path was replaced), or the ` +
        `server may not read it: check the path and try again`,
    );
  }
}

/** {@linkcode requireSame}, closing the file when it fails. */
async function keepIfSame(
  file: Deno.FsFile,
  resolved: string,
  given: string,
  fallback: () => Promise<Deno.FileInfo | undefined>,
): Promise<void> {
  try {
    await requireSame(file, resolved, given, fallback);
  } catch (e) {
    file.close();
    throw e;
  }
}

/**
 * Resolves and checks a path to read: it must exist, be a regular file after
 * symlinks, lie outside /proc, /sys and /dev (and inside --files-root), and
 * not be one of our standard descriptors. Returns the resolved path.
 */
export async function checkReadable(path: string, policy: FilePolicy): Promise<string> {
  return (await checkedReadable(path, policy)).resolved;
}

/** {@linkcode checkReadable}, with the `stat` of the file it checked. */
async function checkedReadable(path: string, policy: FilePolicy): Promise<{ resolved: string; info: Deno.FileInfo }> {
  try {
    refuseTree(path, path);
    const root = await resolvedRoot(policy);
    let reached = normalize(path);
    const resolved = await resolvePath(path, (at) => reached = at);
    if (resolved === undefined) {
      refuseOutsideRoot(path, reached, policy, root); // no hint about files outside the root
      const link = await Deno.lstat(path).catch(() => undefined);
      if (link?.isSymlink) {
        throw new UserError(
          `refusing ${q(path)}: it is a symlink to something that does not exist or is not a file ` +
            `(a descriptor or pipe?); give a regular file`,
        );
      }
      throw new Deno.errors.NotFound();
    }
    refuseTree(path, resolved);
    refuseOutsideRoot(path, resolved, policy, root);
    const info = await Deno.stat(resolved);
    requireRegular(path, resolved, info);
    await refuseOwnDescriptor(path, info);
    return { resolved, info };
  } catch (e) {
    throw explain(e, path, false);
  }
}

/**
 * Reads a whole regular file under the policy, refusing one over `maxBytes`
 * (counted while reading, so a file that grows or lies about its size is
 * still bounded).
 */
export async function readFileChecked(
  path: string,
  maxBytes: number,
  policy: FilePolicy,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const tooBig = () => new UserError(`file ${q(path)} is over the ${maxBytes}-byte limit: give a smaller file`);
  try {
    const { resolved, info } = await checkedReadable(path, policy);
    using file = await openBounded(resolved, { read: true }, path);
    await requireSame(file, resolved, path, () => Promise.resolve(info));
    await checkOpened(file, path, resolved);
    const claimed = (await file.stat()).size;
    if (claimed > maxBytes) throw tooBig();
    const chunks: Uint8Array[] = [];
    let total = 0;
    while (true) {
      signal?.throwIfAborted();
      const chunk = new Uint8Array(Math.min(Math.max(claimed - total, 64 * 1024), 16 * 1024 * 1024));
      const n = await file.read(chunk);
      if (n === null) break;
      total += n;
      if (total > maxBytes) throw tooBig();
      chunks.push(chunk.subarray(0, n));
    }
    return joinChunks(chunks, total);
  } catch (e) {
    throw explain(e, path, false);
  }
}

/** Whether a write replaces the file's content or appends to it. */
export interface WriteMode {
  /** true: empty the file first; false: append. */
  truncate: boolean;
}

/**
 * Resolves a path to write and opens it under the policy: an existing target
 * must be a regular file (after symlinks); a missing one is created with
 * `O_EXCL` in a directory that must exist. The caller writes and closes.
 */
export async function openForWrite(
  path: string,
  policy: FilePolicy,
  mode: WriteMode,
): Promise<{ file: Deno.FsFile; resolved: string }> {
  try {
    refuseTree(path, path);
    if (path.endsWith("/")) throw new UserError(`${q(path)} ends with "/": give a file path`);
    const root = await resolvedRoot(policy);
    const name = path.slice(path.lastIndexOf("/") + 1);
    let reached = normalize(path);
    const dir = await resolvePath(dirOf(path), (at) => reached = `${at}/${name}`);
    if (dir === undefined) {
      refuseOutsideRoot(path, reached, policy, root); // no hint about directories outside the root
      throw new Deno.errors.NotFound();
    }
    const dirInfo = await Deno.stat(dir);
    if (!dirInfo.isDirectory) throw new Deno.errors.NotADirectory();
    const direct = `${dir === "/" ? "" : dir}/${name}`;
    refuseTree(path, direct);
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await Deno.lstat(direct).catch((e) => {
        if (e instanceof Deno.errors.NotFound) return undefined;
        throw e;
      });
      if (existing === undefined) {
        refuseOutsideRoot(path, direct, policy, root);
        try {
          const file = await openBounded(direct, { write: true, createNew: true, mode: 0o644 }, path);
          const kept = await keepIfRegular(file, path, direct);
          // Created where a directory on the path was swapped for a symlink, it is left there, empty.
          await keepIfSame(kept, direct, path, async () => {
            const at = await resolvePath(direct);
            return at === direct ? await Deno.lstat(direct).catch(() => undefined) : undefined;
          });
          noteCreated(direct, await kept.stat(), false);
          return { file: kept, resolved: direct };
        } catch (e) {
          if (e instanceof Deno.errors.AlreadyExists) continue; // created meanwhile: look again
          throw e;
        }
      }
      const resolved = existing.isSymlink ? await checkReadable(direct, policy) : direct;
      refuseTree(path, resolved);
      refuseOutsideRoot(path, resolved, policy, root);
      const info = existing.isSymlink ? await Deno.stat(resolved) : existing;
      requireRegular(path, resolved, info);
      await refuseOwnDescriptor(path, info);
      if (mode.truncate && info.size > 0 && !policy.replace && !stillOurs(resolved, info)) {
        throw new UserError(
          `${q(path)} exists and holds ${info.size} bytes, which replacing it would lose: write to a path that does ` +
            `not exist yet, or append (append: true); replacing files this server did not create (or that changed ` +
            `since it wrote them) needs --safety destructive (ask the user to restart the server with it)`,
        );
      }
      // Emptied only once it is known to be the file checked: an open with O_TRUNC would empty whatever a swapped
      // symlink reached first.
      const file = await openBounded(resolved, mode.truncate ? { write: true } : { append: true }, path);
      try {
        await requireSame(file, resolved, path, () => Promise.resolve(info));
        await checkOpened(file, path, resolved);
        if (mode.truncate) await file.truncate(0);
      } catch (e) {
        file.close();
        throw e;
      }
      return { file, resolved };
    }
    throw new UserError(`${q(path)} keeps being created and removed by something else: try again`);
  } catch (e) {
    throw explain(e, path, true);
  }
}

/** Writes (or appends) bytes to a file under the policy; returns the resolved path written. */
export async function writeFileChecked(
  path: string,
  data: Uint8Array,
  policy: FilePolicy,
  mode: WriteMode,
): Promise<string> {
  const { file, resolved } = await openForWrite(path, policy, mode);
  using _ = file;
  const before = await file.stat();
  const start = before.size;
  // Appended to a file of its own that someone changed meanwhile, it stays theirs: noted, the change would be lost
  // to the next replace.
  const ours = mode.truncate || stillOurs(resolved, before);
  try {
    let off = 0;
    while (off < data.length) off += await file.write(data.subarray(off));
    // What this server wrote, it may replace again, until someone else changes it.
    if (ours && created.has(resolved)) noteCreated(resolved, await file.stat(), true);
  } catch (e) {
    // A write cut short (a full disk) leaves no part of the data behind: an appended file ends as it did.
    await file.truncate(start).catch(() => {});
    const error = explain(e, path, true);
    throw error instanceof UserError
      ? new UserError(`${error.message} (the file is ${start > 0 ? "as it was before" : "left empty"})`)
      : error;
  }
  return resolved;
}

/** A file prepared for a shell to open: its resolved path, and what the shell must find there. */
export interface PreparedFile {
  path: string;
  /** Its device and inode: the shell checks the file it opened is this one (lib/tmux/quote.ts). */
  id?: { dev: number; ino: number };
}

/**
 * Creates `path` if missing (or empties it when `truncate`), checked under the
 * policy, and returns its resolved path and identity: for a path handed on to
 * tmux or a shell (pipe-pane, a capture), which then opens that path and must
 * check it reached that file (a directory on the path may be swapped meanwhile).
 */
export async function prepareWrite(path: string, policy: FilePolicy, mode: WriteMode): Promise<PreparedFile> {
  const { file, resolved } = await openForWrite(path, policy, mode);
  try {
    const { dev, ino } = await file.stat();
    return ino === null ? { path: resolved } : { path: resolved, id: { dev, ino } };
  } finally {
    file.close();
  }
}

/** Opens a file for appending under the policy (creating it if needed). */
export async function openForAppend(path: string, policy: FilePolicy = {}): Promise<Deno.FsFile> {
  return (await openForWrite(path, policy, { truncate: false })).file;
}

/**
 * Refuses a start directory (`cwd`, `working_dir`) that is not an existing directory: tmux
 * would silently start the program somewhere else, a pty would fail later.
 */
export async function requireDirectory(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) throw explain(e, path, false);
    // missing, a file on the way, a symlink loop
    throw new UserError(`directory ${q(path)} does not exist: give an absolute path to an existing one`);
  }
  if (!info.isDirectory) throw new UserError(`${q(path)} is not a directory: give an absolute path to a directory`);
}
