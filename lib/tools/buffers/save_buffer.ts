import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath, bufferName } from "../schemas.ts";
import { filePolicy, writeFileChecked } from "../../policy/files.ts";

export default defineTool({
  name: "save-buffer",
  title: "Save a buffer to a file",
  description: "Writes a paste buffer to a file on the MCP server's machine.",
  toolset: "buffers",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true, openWorldHint: true },
  input: z.object({
    name: bufferName,
    path: absolutePath,
    append: z.boolean().default(false),
  }),
  output: z.object({ name: z.string(), path: z.string(), bytes_written: z.number().int(), appended: z.boolean() }),
  secrets: [],
  async handler({ name, path, append }, ctx) {
    const bytes = await ctx.buffers.read(name);
    await writeFileChecked(path, bytes, filePolicy(ctx.config), { truncate: !append });
    return { structured: { name, path, bytes_written: bytes.length, appended: append } };
  },
});
