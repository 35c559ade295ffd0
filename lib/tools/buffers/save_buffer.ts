import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath, bufferName } from "../schemas.ts";
import { filePolicy, writeFileChecked } from "../../policy/files.ts";
import { fileHost, localFile, tmuxHostPath } from "./file_side.ts";
import { missingBuffer } from "../../buffers/store.ts";

export default defineTool({
  name: "save-buffer",
  title: "Save a buffer to a file",
  description: "Writes a buffer to a file on the tmux host.",
  toolset: "buffers",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true, openWorldHint: true },
  input: z.object({
    name: bufferName,
    path: absolutePath,
    append: z.boolean().default(false),
    local_file: localFile,
  }),
  output: z.object({
    name: z.string(),
    path: z.string(),
    bytes_written: z.number().int(),
    appended: z.boolean(),
    file_host: z.string(),
  }),
  secrets: [],
  async handler({ name, path, append, local_file }, ctx) {
    const file_host = fileHost(ctx, local_file);
    if (file_host !== "local") {
      // tmux writes the file on its own host: the buffer never comes to this machine.
      const size = (await ctx.buffers.list({ signal: ctx.signal })).find((b) => b.name === name)?.size_bytes;
      if (size === undefined) throw missingBuffer(name);
      await ctx.tmux.run(["save-buffer", ...(append ? ["-a"] : []), "-b", name, tmuxHostPath(ctx, path)], {
        signal: ctx.signal,
        spawn: true,
      });
      return { structured: { name, path, bytes_written: size, appended: append, file_host } };
    }
    const bytes = await ctx.buffers.read(name);
    await writeFileChecked(path, bytes, filePolicy(ctx.config), { truncate: !append });
    return { structured: { name, path, bytes_written: bytes.length, appended: append, file_host } };
  },
});
