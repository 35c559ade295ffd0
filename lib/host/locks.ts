/**
 * Per-key mutual exclusion, so that read-modify-write sequences on one tmux
 * buffer (append, rename) never interleave and lose data.
 *
 * @example
 * ```ts
 * const locks = new KeyedLocks();
 * await locks.with(["a", "b"], async () => {
 *   // both names held here
 * });
 * ```
 */
import { sha256Hex } from "../text/hash.ts";
import { ownUid } from "./process.ts";

export class KeyedLocks {
  #tails = new Map<string, Promise<void>>();

  async #lock(key: string): Promise<() => void> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => release = r);
    const tail = prev.then(() => mine);
    this.#tails.set(key, tail);
    await prev;
    return () => {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
  }

  /** Runs `fn` holding every key; keys are taken in sorted order so two callers cannot deadlock. */
  async with<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const releases: Array<() => void> = [];
    try {
      for (const k of sorted) releases.push(await this.#lock(k));
      return await fn();
    } finally {
      for (const r of releases.reverse()) r();
    }
  }

  /** Keys currently held or waited for (for tests and leak checks). */
  get size(): number {
    return this.#tails.size;
  }
}

/**
 * The socket a tmux client with these flags talks to, as tmux itself finds
 * it (`-S` path; `-L` name or "default" under `$TMUX_TMPDIR/tmux-UID`; the
 * `$TMUX` socket inside tmux), so that two servers given `-L x` and
 * `-S /tmp/tmux-1000/x` agree on one name.
 */
export async function socketIdentity(socket: { socketName?: string; socketPath?: string }): Promise<string> {
  if (socket.socketPath) return socket.socketPath;
  const inside = Deno.env.get("TMUX");
  if (!socket.socketName && inside) return inside.split(",")[0];
  const dir = (Deno.env.get("TMUX_TMPDIR") || "/tmp").replace(/\/+$/, "");
  return `${dir}/tmux-${(await ownUid()) ?? "?"}/${socket.socketName ?? "default"}`;
}

/**
 * Mutual exclusion between processes: an exclusive `flock` on a small file in
 * a private directory (`$TMPDIR/tmux-mcp-locks-UID`, mode 0700). The kernel
 * drops the lock when its holder exits, however it exits, so a crashed
 * server never leaves a stale lock — which tmux's own `wait-for -L` does when
 * a waiting client dies (it is granted the lock later and never releases it).
 *
 * @example
 * ```ts
 * const locks = createFileLocks();
 * await locks.with(`${await socketIdentity({ socketName: "x" })}\0buffer-name`, async () => {});
 * ```
 */
export interface FileLocks {
  with<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

export function createFileLocks(parent?: string): FileLocks {
  let dir: Promise<string> | undefined;
  const makeDir = async (): Promise<string> => {
    const uid = await ownUid();
    const d = `${parent ?? Deno.env.get("TMPDIR") ?? "/tmp"}/tmux-mcp-locks-${uid ?? "user"}`;
    await Deno.mkdir(d, { mode: 0o700 }).catch((e) => {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    });
    const info = await Deno.lstat(d);
    if (!info.isDirectory || (uid !== undefined && info.uid !== uid)) {
      throw new Error(`lock directory ${d} is not a directory of this user`);
    }
    return d;
  };
  return {
    async with(key, fn) {
      dir ??= makeDir().catch((e) => {
        dir = undefined; // try again next time
        throw e;
      });
      const path = `${await dir}/${sha256Hex(key).slice(0, 32)}`;
      using file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
      await file.lock(true);
      try {
        return await fn();
      } finally {
        await file.unlock().catch(() => {});
      }
    },
  };
}
