import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath, writtenBufferName } from "../schemas.ts";
import { filePolicy, readFileChecked } from "../../policy/files.ts";
import { fileHost, localFile, tmuxHostPath } from "./file_side.ts";
import { MissingBuffer } from "../../buffers/store.ts";
import { TEMP_BUFFER_PREFIX } from "../../buffers/paste.ts";
import { UserError } from "../../errors.ts";

const MAX_FILE = 512 * 1024 * 1024;

function emptyFile(path: string, name: string): UserError {
  return new UserError(
    `file ${JSON.stringify(path)} is empty and tmux holds no empty buffer: ${JSON.stringify(name)} was left ` +
      `unchanged (use delete-buffer to remove it)`,
  );
}

export default defineTool({
  name: "load-buffer",
  title: "Load a file into a buffer",
  description: "Reads a file (≤512 MiB) on the tmux host into a buffer.",
  toolset: "buffers",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z.object({ name: writtenBufferName, path: absolutePath, local_file: localFile }),
  output: z.object({ name: z.string(), path: z.string(), size_bytes: z.number().int(), file_host: z.string() }),
  secrets: [],
  async handler({ name, path, local_file }, ctx) {
    const file_host = fileHost(ctx, local_file);
    if (file_host !== "local") {
      // tmux reads the file on its own host: nothing of this machine's reaches it. A client of its own: a
      // control client's reply to a failed read has no shape the connection can frame. tmux loads an empty file
      // as nothing, without a word: into a buffer of its own first, which then replaces `name` only if it exists.
      const temp = TEMP_BUFFER_PREFIX + crypto.randomUUID();
      ctx.buffers.own(temp);
      try {
        await ctx.tmux.run(["load-buffer", "-b", temp, tmuxHostPath(ctx, path)], { signal: ctx.signal, spawn: true });
        await ctx.buffers.rename(temp, name, true);
      } catch (e) {
        await ctx.buffers.delete(temp).catch(() => {});
        throw e instanceof MissingBuffer && e.buffer === temp ? emptyFile(path, name) : e;
      }
      const size = (await ctx.buffers.list({ signal: ctx.signal })).find((b) => b.name === name)?.size_bytes ?? 0;
      return { structured: { name, path, size_bytes: size, file_host } };
    }
    const bytes = await readFileChecked(path, MAX_FILE, filePolicy(ctx.config), ctx.signal);
    if (bytes.length === 0) throw emptyFile(path, name);
    await ctx.buffers.write(name, bytes);
    return { structured: { name, path, size_bytes: bytes.length, file_host } };
  },
});
