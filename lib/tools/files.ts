/**
 * File-system access for tools, with errors a model can act on. tmux's own
 * load-buffer/save-buffer are not used for user paths because tmux expands
 * `#{...}` and `#(...)` formats in them; Deno's file API takes the path
 * byte-exact.
 *
 * @example
 * ```ts
 * const bytes = await readFileChecked("/tmp/log.txt", 512 * 1024 * 1024);
 * ```
 */
import { UserError } from "../errors.ts";

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

function explain(e: unknown, path: string, writing: boolean): Error {
  if (e instanceof Deno.errors.NotFound) {
    return new UserError(
      writing
        ? `directory ${JSON.stringify(dirOf(path))} does not exist: create it first or choose another path`
        : `file ${JSON.stringify(path)} does not exist: check the path (it must be absolute)`,
    );
  }
  if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) {
    return new UserError(
      `permission denied for ${JSON.stringify(path)}: choose a path the server may ${writing ? "write" : "read"}`,
    );
  }
  if (e instanceof Deno.errors.IsADirectory) {
    return new UserError(`${JSON.stringify(path)} is a directory: give a file path`);
  }
  if (e instanceof Deno.errors.NotADirectory) {
    return new UserError(`a parent of ${JSON.stringify(path)} is not a directory: check the path`);
  }
  return e instanceof Error ? e : new Error(String(e));
}

/** Reads a whole regular file, refusing files over `maxBytes`. */
export async function readFileChecked(path: string, maxBytes: number): Promise<Uint8Array> {
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) throw new Deno.errors.IsADirectory();
    if (info.size > maxBytes) {
      throw new UserError(`file ${JSON.stringify(path)} is ${info.size} bytes, over the ${maxBytes}-byte limit`);
    }
    return await Deno.readFile(path);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw explain(e, path, false);
  }
}

/** Writes (or appends) bytes to a file, creating it if needed. */
export async function writeFileChecked(path: string, data: Uint8Array, append: boolean): Promise<void> {
  try {
    await Deno.writeFile(path, data, { append, create: true });
  } catch (e) {
    throw explain(e, path, true);
  }
}

/** Opens a file for appending, creating it if needed. */
export async function openForAppend(path: string): Promise<Deno.FsFile> {
  try {
    return await Deno.open(path, { append: true, create: true });
  } catch (e) {
    throw explain(e, path, true);
  }
}

/** Checks that `path` is an existing directory (a working directory to start a program in). */
export async function requireDirectory(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new UserError(`directory ${JSON.stringify(path)} does not exist: give an existing absolute directory`);
    }
    throw explain(e, path, false);
  }
  if (!info.isDirectory) throw new UserError(`${JSON.stringify(path)} is not a directory: give a directory`);
}
