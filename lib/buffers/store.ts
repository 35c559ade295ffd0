/**
 * tmux paste buffers as a byte store: list, read, write, append, rename,
 * delete. Content always travels as bytes and goes to tmux on stdin, so
 * megabytes work and nothing is limited by argv size. No content is kept
 * here: tmux is the only store.
 *
 * @example
 * ```ts
 * declare const tmux: Parameters<typeof createBufferStore>[0]; // the engine
 * const store = createBufferStore(tmux);
 * await store.write("notes", new TextEncoder().encode("hello"));
 * const bytes = await store.read("notes");
 * ```
 */
import { COMMAND_SEPARATOR, type RunOptions, type TmuxArg, TmuxError, type TmuxExecutor } from "../tmux/executor.ts";
import { EnvironmentError, UserError } from "../errors.ts";
import { createFileLocks, type FileLocks, KeyedLocks, socketIdentity } from "../host/locks.ts";
import { formatLiteral } from "../tmux/quote.ts";
import { parseRows, rowFormat, type RowSpec } from "../tmux/rows.ts";
import type { ServerFileReader } from "./server_file.ts";
import { tempPrefix } from "../host/process.ts";
import { TEMP_BUFFER_PREFIX } from "./paste.ts";

export interface BufferInfo {
  name: string;
  size_bytes: number;
  /** 0 = most recently added (tmux's own list order). */
  order_index: number;
}

export interface AppendOutcome {
  created: boolean;
  size_bytes: number;
}

export interface BufferStore {
  /** The buffers, newest first; `ro.spawn` for a one-off that should attach no client. */
  list(ro?: RunOptions): Promise<BufferInfo[]>;
  /** Whole content; throws a {@linkcode UserError} naming the buffer when it does not exist. */
  read(name: string): Promise<Uint8Array>;
  /** Creates or replaces. */
  write(name: string, content: Uint8Array): Promise<void>;
  append(name: string, content: Uint8Array): Promise<AppendOutcome>;
  delete(name: string): Promise<void>;
  /** Renames; refuses when `to` exists and `overwrite` is false. Returns whether `to` was replaced. */
  rename(from: string, to: string, overwrite: boolean): Promise<{ replaced: boolean }>;
  /** Runs `fn` while no other store operation touches these names. */
  locked<T>(names: readonly string[], fn: () => Promise<T>): Promise<T>;
  /**
   * Records a buffer this server wrote without the store (`load-buffer` of a file on the tmux host): under a
   * session scope the store shows only the buffers this server wrote.
   */
  own(name: string): void;
  /**
   * Every buffer, listed and deleted whatever the session scope: for the sweep of the result buffers of servers
   * that are gone (lib/budget/registry.ts), which a scope hides like any buffer this server did not write.
   */
  readonly unscoped: Pick<BufferStore, "list" | "delete">;
}

export interface BufferStoreOptions {
  /** Appends whose result exceeds this go through a temp file (default 8 MiB). */
  tempFileThreshold?: number;
  /** The fast read route (the server writes a file); without it, or when it is unavailable, `show-buffer`. */
  files?: ServerFileReader;
  /** Locks shared with other server processes on this machine (default: flock files in $TMPDIR). */
  fileLocks?: FileLocks;
}

/**
 * Appends up to this size go to tmux as one `set-buffer -a` (atomic in the
 * tmux server, and no read of the old content); tmux refuses a command line
 * over 16 KiB ("command too long").
 */
const SMALL_APPEND = 8 * 1024;

/** The text of a small append that `set-buffer -a` carries byte-exact (argv: valid UTF-8, no NUL), else undefined. */
function argvText(content: Uint8Array): string | undefined {
  if (content.length === 0 || content.length > SMALL_APPEND || content.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(content);
  } catch {
    return undefined;
  }
}

/** A buffer's row: its name may hold any byte (see lib/tmux/rows.ts). */
const LIST_SPEC = { size_bytes: ["buffer_size", "int"], name: ["buffer_name", "str"] } as const satisfies RowSpec;
const LIST_FORMAT = rowFormat(LIST_SPEC);

/** Parses `list-buffers -F LIST_FORMAT` output, in tmux's order (newest first). */
export function parseBufferList(out: Uint8Array): BufferInfo[] {
  return parseRows(LIST_SPEC, out).rows.map((r, i) => ({ name: r.name, size_bytes: r.size_bytes, order_index: i }));
}

/** Whether a tmux failure says the buffer does not exist (from show-buffer, save-buffer, delete-buffer). */
export function isMissingBuffer(e: unknown): boolean {
  return e instanceof TmuxError && e.kind === "failed" &&
    /^(no buffer|unknown buffer)/.test(e.message);
}

/**
 * A result buffer's name, `mcp-result-<owner pid>-<8 hex digits>` (made and swept by lib/budget/registry.ts): the
 * server that made it deletes it when it expires, so nothing else writes to it.
 */
export const RESULT_BUFFER_NAME = /^mcp-result-(\d+)-[0-9a-f]{8}$/;

/** The error for a buffer that does not exist (its class tells it from other refusals). */
export class MissingBuffer extends UserError {
  constructor(readonly buffer: string) {
    super(
      RESULT_BUFFER_NAME.test(buffer)
        ? `no buffer named ${JSON.stringify(buffer)}: result buffers are deleted when they expire, when newer ones ` +
          `push them out, or when their server exits: call the tool that returned it again for a new one`
        : `no buffer named ${JSON.stringify(buffer)}: call list-buffers to see the buffers`,
    );
  }
}

/** The error for a buffer that does not exist. */
export function missingBuffer(name: string): UserError {
  return new MissingBuffer(name);
}

/**
 * The error for a buffer list-buffers shows that tmux does not find by that name: its name holds bytes that are
 * not UTF-8 (another client made it), which the list shows as U+FFFD and no JSON string can spell.
 */
export class UnnamableBuffer extends UserError {
  constructor(readonly buffer: string) {
    super(
      `buffer ${JSON.stringify(buffer)} has a name that is not UTF-8 (list-buffers shows each invalid byte as ` +
        `U+FFFD), so no call can name it: ask the user to rename it in tmux (set-buffer -b OLD -n NEW)`,
    );
  }
}

export function createBufferStore(tmux: TmuxExecutor, opts: BufferStoreOptions = {}): BufferStore {
  const locks = new KeyedLocks();
  const fileLocks = opts.fileLocks ?? createFileLocks();
  const threshold = opts.tempFileThreshold ?? 8 * 1024 * 1024;
  let socket: Promise<string> | undefined;
  /**
   * Held across processes (two servers, two agents, on one tmux server) by every change of a buffer: an append
   * that reads and rewrites it must not overwrite what another server set, renamed onto it or deleted meanwhile.
   * Names are taken in sorted order, so two renames cannot deadlock.
   */
  const acrossProcesses = async <T>(names: readonly string[], fn: () => Promise<T>): Promise<T> => {
    socket ??= socketIdentity(tmux.socket);
    const id = await socket;
    const hold = (rest: string[]): Promise<T> =>
      rest.length === 0 ? fn() : fileLocks.with(`${id}\0${rest[0]}`, () => hold(rest.slice(1)));
    return await hold([...new Set(names)].sort());
  };

  async function appendRaw(name: string, content: Uint8Array): Promise<AppendOutcome> {
    // A name with U+FFFD may be how the list shows one that is not UTF-8, which `set-buffer -a` would not find and
    // would make a second buffer beside: such a name is read first, which tells the two apart.
    const text = name.includes("\ufffd") ? undefined : argvText(content);
    if (text !== undefined) {
      const out = await tmux.run([
        ...["list-buffers", "-F", LIST_FORMAT],
        COMMAND_SEPARATOR,
        ...["set-buffer", "-a", "-b", name, "--", text],
      ]);
      const old = parseBufferList(out).find((b) => b.name === name);
      return { created: old === undefined, size_bytes: (old?.size_bytes ?? 0) + content.length };
    }
    let old: Uint8Array | undefined;
    try {
      old = await readRaw(name);
    } catch (e) {
      if (!(e instanceof MissingBuffer)) throw e;
    }
    const joined = old ? concat(old, content) : content;
    await writeRaw(name, joined);
    return { created: old === undefined, size_bytes: joined.length };
  }

  async function readRaw(name: string): Promise<Uint8Array> {
    try {
      return (await opts.files?.read(name)) ?? await tmux.run(["show-buffer", "-b", name]);
    } catch (e) {
      if (isMissingBuffer(e)) throw await missing(name);
      throw e;
    }
  }

  /** The error for `name` that tmux did not find: missing, or listed under a name that is not UTF-8. */
  async function missing(name: string): Promise<UserError> {
    if (!name.includes("\ufffd")) return missingBuffer(name);
    const listed = await listAll().then((all) => all.some((b) => b.name === name), () => false);
    return listed ? new UnnamableBuffer(name) : missingBuffer(name);
  }

  async function writeRaw(name: string, content: Uint8Array): Promise<void> {
    try {
      await writeUnchecked(name, content);
    } catch (e) {
      // Content goes to tmux through a temporary file (here, or the engine's for stdin).
      const code = (e as { code?: unknown } | null)?.code;
      if (code !== "ENOSPC" && code !== "EDQUOT") throw e;
      throw new EnvironmentError(
        `buffer ${JSON.stringify(name)} was left unchanged: the temporary folder has no room for its content ` +
          `(${code}): free space there, or ask the user to set TMPDIR to a folder on another file system`,
      );
    }
  }

  async function writeUnchecked(name: string, content: Uint8Array): Promise<void> {
    if (content.length === 0) {
      throw new UserError(
        `tmux cannot hold an empty buffer: ${JSON.stringify(name)} was left unchanged (use delete-buffer to remove it)`,
      );
    }
    if (content.length <= threshold) {
      await tmux.run(["load-buffer", "-b", name, "-"], { stdin: content, timeoutMs: 60_000 });
      return;
    }
    // Large content: hand tmux a file instead of a long stdin stream.
    const path = await Deno.makeTempFile({ prefix: tempPrefix("load") });
    try {
      await Deno.writeFile(path, content);
      await tmux.run(["load-buffer", "-b", name, formatLiteral(path)], { timeoutMs: 60_000 });
    } finally {
      await Deno.remove(path).catch(() => {});
    }
  }

  /**
   * Under a session scope (`--sessions`, `--scope`): the buffers this server wrote. tmux buffers belong to no
   * session, and the user's own (copy mode, their paste history) may hold text of sessions out of scope, so the
   * store shows, reads, appends to, renames and deletes only these; a name it writes replaces a buffer of the
   * user's of that name. Undefined: every buffer.
   */
  const owned = tmux.scope ? new Set<string>() : undefined;
  const mine = (name: string) => owned === undefined || owned.has(name);

  async function listAll(ro?: RunOptions): Promise<BufferInfo[]> {
    return parseBufferList(await tmux.run(["list-buffers", "-F", LIST_FORMAT], ro));
  }

  /** Deletes `name` when `may` allows it (else it is as missing). */
  function deleteIf(name: string, may: (name: string) => boolean): Promise<void> {
    return locks.with([name], () =>
      acrossProcesses([name], async () => {
        if (!may(name)) throw missingBuffer(name);
        owned?.delete(name);
        try {
          await tmux.run(["delete-buffer", "-b", name]);
        } catch (e) {
          if (isMissingBuffer(e)) throw await missing(name);
          throw e;
        }
      }));
  }

  async function list(ro?: RunOptions): Promise<BufferInfo[]> {
    const all = await listAll(ro);
    if (owned === undefined) return all;
    return all.filter((b) => owned.has(b.name)).map((b, i) => ({ ...b, order_index: i }));
  }

  return {
    list,
    read: (name) =>
      locks.with([name], () => {
        if (!mine(name)) throw missingBuffer(name);
        return readRaw(name);
      }),
    write: (name, content) =>
      locks.with([name], () =>
        acrossProcesses([name], async () => {
          await writeRaw(name, content);
          owned?.add(name);
        })),
    append: (name, content) =>
      locks.with([name], () =>
        acrossProcesses([name], async () => {
          // A buffer of the user's is not read into ours: ours starts afresh.
          if (!mine(name)) {
            await writeRaw(name, content);
            owned!.add(name);
            return { created: true, size_bytes: content.length };
          }
          const r = await appendRaw(name, content);
          owned?.add(name);
          return r;
        })),
    own: (name) => void owned?.add(name),
    delete: (name) => deleteIf(name, mine),
    unscoped: { list: listAll, delete: (name) => deleteIf(name, () => true) },
    rename: (from, to, overwrite) =>
      locks.with([from, to], () =>
        acrossProcesses([from, to], async () => {
          const all = new Set((await listAll()).map((b) => b.name));
          if (!all.has(from) || !mine(from)) throw missingBuffer(from);
          if (from === to) return { replaced: false };
          const replaced = all.has(to) && mine(to);
          if (replaced && !overwrite) {
            throw new UserError(
              `buffer ${JSON.stringify(to)} already exists: nothing was changed; pass overwrite: true to replace it`,
            );
          }
          // tmux renames in place (set-buffer -n), so the content is never
          // absent: at every moment `from`, a temporary name or `to` holds it. `to` is deleted only once `from`
          // was found (tmux stops at a failed command): a name it does not find (not UTF-8) must not cost `to`.
          const temp = TEMP_BUFFER_PREFIX + crypto.randomUUID();
          const args: TmuxArg[] = all.has(to)
            ? [
              ...["set-buffer", "-b", from, "-n", temp],
              COMMAND_SEPARATOR,
              ...["delete-buffer", "-b", to],
              COMMAND_SEPARATOR,
              ...["set-buffer", "-b", temp, "-n", to],
            ]
            : ["set-buffer", "-b", from, "-n", to];
          await tmux.run(args).catch(async (e) => {
            throw isMissingBuffer(e) ? await missing(from) : e;
          });
          owned?.delete(from);
          owned?.add(to);
          return { replaced };
        })),
    locked: (names, fn) => locks.with(names, fn),
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
