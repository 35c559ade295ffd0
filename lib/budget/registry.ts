/**
 * The result buffers this server created: ordinary tmux paste buffers named
 * `mcp-result-<server pid>-<8 hex digits>`, kept for a TTL and within a count and byte
 * cap (oldest deleted first), all deleted by {@linkcode ResultRegistry.clear}
 * on exit. tmux holds the content; this module only remembers names, sizes
 * and ages.
 *
 * @example
 * ```ts
 * declare const buffers: Parameters<typeof createResultRegistry>[0]; // the server's buffer store
 * const registry = createResultRegistry(buffers, { ttlMs: 600_000, maxCount: 32, maxBytes: 256 << 20, sweep: true });
 * const name = await registry.store(new TextEncoder().encode("a big result")); // "mcp-result-4242-3f2a91bc"
 * registry.clear(); // at exit
 * ```
 */
import { type BufferStore, RESULT_BUFFER_NAME } from "../buffers/store.ts";
import { deadOwners } from "../host/process.ts";

/** `mcp-result-<pid>-`: the owner's pid lets a later server sweep what a killed one left. */
export const RESULT_BUFFER_PREFIX = `mcp-result-${Deno.pid}-`;
/**
 * A result buffer name estimated at as many tokens as any stored one (letters and digits alternating: each of its
 * 8 hex digits a token of its own): an answer that fits with it in place of the real name fits with the real one.
 */
export const COSTLIEST_RESULT_NAME = `${RESULT_BUFFER_PREFIX}a0a0a0a0`;

export interface ResultRegistryOptions {
  ttlMs: number;
  maxCount: number;
  maxBytes: number;
  /**
   * Whether the first store sweeps the buffers of servers that are gone: only for a tmux on this machine. A
   * remote one (`--ssh`) may serve servers on other machines, whose pids are no process here.
   */
  sweep: boolean;
}

export interface ResultRegistry {
  /**
   * Writes `content` to a new result buffer and returns its name, then
   * deletes expired buffers and the oldest ones beyond the caps (never the
   * one just written). Throws what the buffer store throws (no tmux server…). `name`, if given, is one from
   * `newName`.
   */
  store(content: Uint8Array, name?: string): Promise<string>;
  /**
   * A name for a result buffer not stored yet, none kept has: a caller that must know the name before it stores
   * (an answer fitted with it) passes it to `store`.
   */
  newName(): string;
  /** Names kept, oldest first. */
  names(): string[];
  /** Deletes every result buffer and stops the expiry timer. */
  clear(): Promise<void>;
}

interface Entry {
  name: string;
  bytes: number;
  expiresAt: number;
}

function shortId(): string {
  const b = crypto.getRandomValues(new Uint8Array(4));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

export function createResultRegistry(buffers: BufferStore, opts: ResultRegistryOptions): ResultRegistry {
  const entries: Entry[] = []; // oldest first
  let totalBytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const newName = () => {
    let name = RESULT_BUFFER_PREFIX + shortId();
    while (entries.some((e) => e.name === name)) name = RESULT_BUFFER_PREFIX + shortId();
    return name;
  };
  let swept = false;

  // Best effort: the model may have deleted or renamed the buffer, or tmux may be gone.
  const remove = (e: Entry) => buffers.delete(e.name).catch(() => {});

  function take(count: number): Entry[] {
    const gone = entries.splice(0, count);
    for (const e of gone) totalBytes -= e.bytes;
    return gone;
  }

  /**
   * Forgets the entries whose buffer is gone (deleted, or renamed away to keep it): they must not count under the
   * caps, or a result still there would be deleted to make room they do not take.
   */
  async function forgetGone(): Promise<void> {
    const present = new Set((await buffers.list()).map((b) => b.name));
    for (let i = entries.length - 1; i >= 0; i--) {
      if (present.has(entries[i].name)) continue;
      totalBytes -= entries[i].bytes;
      entries.splice(i, 1);
    }
  }

  async function expire(): Promise<void> {
    const now = Date.now();
    let n = 0;
    while (n < entries.length && entries[n].expiresAt <= now) n++;
    await Promise.all(take(n).map(remove));
  }

  function schedule(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (entries.length === 0) return;
    const delay = Math.max(0, entries[0].expiresAt - Date.now());
    timer = setTimeout(() => {
      timer = undefined;
      void expire().then(schedule);
    }, delay);
    // Expiry must not keep the process alive on its own.
    Deno.unrefTimer(timer);
  }

  return {
    newName,
    async store(content, given) {
      // Where there are result buffers, there may be some of a killed server: sweep once (the start may have
      // found no tmux server).
      if (!swept && opts.sweep) {
        swept = true;
        void sweepResultBuffers(buffers.unscoped).catch(() => {});
      }
      const name = given ?? newName();
      await buffers.write(name, content);
      entries.push({ name, bytes: content.length, expiresAt: Date.now() + opts.ttlMs });
      totalBytes += content.length;
      if (entries.length > opts.maxCount || totalBytes > opts.maxBytes) await forgetGone().catch(() => {});
      let over = 0;
      let bytes = totalBytes;
      while (entries.length - over > 1 && (entries.length - over > opts.maxCount || bytes > opts.maxBytes)) {
        bytes -= entries[over].bytes;
        over++;
      }
      await Promise.all(take(over).map(remove));
      await expire();
      schedule();
      return name;
    },
    names: () => entries.map((e) => e.name),
    async clear() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await Promise.all(take(entries.length).map(remove));
    },
  };
}

/** What {@linkcode registriesOf} needs of one host's services. */
export interface RegistryHost {
  buffers: BufferStore;
  tmux: { remote?: string };
  atExit(fn: () => Promise<void>): void;
}

/**
 * One registry per host (its buffer store), made on first use and cleared at exit there: every result buffer a
 * server keeps on a host (over-budget results, run-command's whole outputs) shares its TTL and caps.
 */
export function registriesOf(opts: Omit<ResultRegistryOptions, "sweep">): (host: RegistryHost) => ResultRegistry {
  const made = new WeakMap<object, ResultRegistry>();
  return (host) => {
    let r = made.get(host.buffers);
    if (!r) {
      // A remote tmux (--ssh) may serve servers on other machines, whose pids are no process here.
      const fresh = createResultRegistry(host.buffers, { ...opts, sweep: host.tmux.remote === undefined });
      host.atExit(() => fresh.clear());
      made.set(host.buffers, r = fresh);
    }
    return r;
  };
}

/** Deletes `mcp-result-<pid>-…` buffers whose server is gone; returns their names. */
export async function sweepResultBuffers(buffers: Pick<BufferStore, "list" | "delete">): Promise<string[]> {
  // Spawned: a starting server attaches no control client for its sweep (lib/tmux/attach_gate.ts).
  const names = (await buffers.list({ spawn: true })).map((b) => b.name).filter((n) => RESULT_BUFFER_NAME.test(n));
  const dead = await deadOwners(names, RESULT_BUFFER_NAME);
  const gone = names.filter((n) => dead.has(Number(RESULT_BUFFER_NAME.exec(n)![1])));
  await Promise.all(gone.map((n) => buffers.delete(n).catch(() => {})));
  return gone;
}
