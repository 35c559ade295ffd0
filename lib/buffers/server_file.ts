/**
 * Reading a buffer through a file the tmux server writes itself: the fast
 * route for large buffers. tmux hands the file IO of `save-buffer` to the
 * client that asked, unless that client is attached, in which case the
 * server writes the file itself: a spawned `tmux show-buffer` streams the
 * buffer server → client → pipe → us in 16 KiB messages, several times
 * slower for a large buffer than the server writing a file and us reading
 * it back. So the command goes over the engine's attached control client
 * (`runAttached`, lib/tmux/engine.ts).
 *
 * Files go to a private directory (mode 0700, made on first use, removed by
 * `close`), one fresh name per read, and are deleted as soon as they are
 * read. When the route cannot work here (no session to attach to yet, a
 * tmux server that cannot write our directory or sees another file system),
 * `read` answers undefined and the caller uses `show-buffer`; a route that
 * turned out not to work at all is not tried again.
 *
 * @example
 * ```ts
 * declare const engine: Parameters<typeof createServerFileReader>[0] & { run(args: string[]): Promise<Uint8Array> };
 * const files = createServerFileReader(engine);
 * const bytes = (await files.read("log")) ?? await engine.run(["show-buffer", "-b", "log"]);
 * ```
 */
import { ConnectionUnavailable, type TmuxEngine } from "../tmux/engine.ts";
import { TmuxError } from "../tmux/executor.ts";
import { formatLiteral } from "../tmux/quote.ts";
import { log } from "../log.ts";
import { isMissingBuffer } from "./store.ts";

export interface ServerFileReader {
  /** The buffer's bytes; undefined when this route is not available. Throws tmux's `no buffer` as a TmuxError. */
  read(name: string): Promise<Uint8Array | undefined>;
  /** Removes the private directory. */
  close(): Promise<void>;
}

/** Reads a whole file into one exactly sized array (`Deno.readFile` grows its array and costs twice as long). */
export async function readWholeFile(path: string): Promise<Uint8Array> {
  using file = await Deno.open(path);
  const size = (await file.stat()).size;
  const out = new Uint8Array(size);
  let at = 0;
  while (at < size) {
    const n = await file.read(out.subarray(at));
    if (n === null) return out.subarray(0, at);
    at += n;
  }
  return out;
}

/** Makes the reader; `parent` is where its private directory goes (default: the system temp dir). */
export function createServerFileReader(
  engine: Pick<TmuxEngine, "runAttached">,
  parent?: string,
): ServerFileReader {
  let dir: Promise<string> | undefined;
  let broken = false;
  let counter = 0;

  const disable = (why: string) => {
    if (!broken) log("info", `reading buffers through show-buffer from now on: ${why}`);
    broken = true;
  };

  return {
    async read(name) {
      if (broken) return undefined;
      dir ??= Deno.makeTempDir({ dir: parent, prefix: `tmux-mcp-${Deno.pid}-buffers-` });
      let made: string;
      try {
        made = await dir;
      } catch (e) {
        // A full or missing temporary folder: show-buffer needs none, and a failed promise kept would fail every read.
        dir = undefined;
        disable(`no private directory for the files: ${e instanceof Error ? e.message : e}`);
        return undefined;
      }
      const path = `${made}/${counter++}`;
      try {
        await engine.runAttached(["save-buffer", "-b", name, formatLiteral(path)], { timeoutMs: 60_000 });
      } catch (e) {
        if (e instanceof ConnectionUnavailable) return undefined;
        if (e instanceof TmuxError && e.kind === "failed" && !isMissingBuffer(e)) {
          disable(`the tmux server cannot write ${path}: ${e.message}`);
          return undefined;
        }
        throw e;
      }
      try {
        return await readWholeFile(path);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
        disable(`the tmux server wrote ${path} where this process cannot see it`);
        return undefined;
      } finally {
        await Deno.remove(path).catch(() => {});
      }
    },
    async close() {
      const d = dir;
      dir = undefined;
      if (d) await Deno.remove(await d, { recursive: true }).catch(() => {});
    },
  };
}
