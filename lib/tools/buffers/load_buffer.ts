import { z } from "zod";
import { defineTool } from "../declared.ts";
import { absolutePath, bufferName } from "../schemas.ts";
import { filePolicy, readFileChecked } from "../../policy/files.ts";

const MAX_FILE = 512 * 1024 * 1024;

export default defineTool({
  name: "load-buffer",
  title: "Load a file into a buffer",
  description: "Reads a file on the MCP server's machine (up to 512 MiB) into a paste buffer.",
  toolset: "buffers",
  tier: "mutating",
  smallResult: true,
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z.object({ name: bufferName, path: absolutePath }),
  output: z.object({ name: z.string(), path: z.string(), size_bytes: z.number().int() }),
  secrets: [],
  async handler({ name, path }, ctx) {
    const bytes = await readFileChecked(path, MAX_FILE, filePolicy(ctx.config), ctx.signal);
    await ctx.buffers.write(name, bytes);
    return { structured: { name, path, size_bytes: bytes.length } };
  },
});
