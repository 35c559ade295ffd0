import { z } from "zod";
import { defineTool } from "../declared.ts";
import { pipeToFileCommand } from "../../tmux/quote.ts";
import { absolutePath } from "../schemas.ts";
import { filePolicy, prepareWrite, remotePath } from "../../policy/files.ts";
import { FACTS_ONLY, refuseDeadPane, resolvedShape } from "./common.ts";
import { resolvedTarget } from "../declared.ts";
import { fileHost } from "../buffers/file_side.ts";

export default defineTool({
  name: "pipe-pane",
  title: "Log a pane to a file",
  description: "Copies a pane's output from now on to a file on the tmux host; no path: stops.",
  toolset: "workspace",
  tier: "mutating",
  smallResult: true,
  target: "pane",
  targetRead: FACTS_ONLY,
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true },
  input: z.object({
    path: absolutePath.optional(),
    append: z.boolean().default(true),
  }),
  output: z.object({
    ...resolvedShape,
    piping: z.boolean().describe("false: stopped"),
    path: z.string().optional().describe("present when piping"),
    file_host: z.string(),
  }),
  secrets: [],
  async handler({ path, append }, ctx) {
    const { read, ...t } = resolvedTarget(ctx);
    // tmux 3.3a refuses pipe-pane on a dead pane (remain-on-exit) with a bare "target pane has exited", after the
    // file below was created or truncated; stopping fails the same way and the pipe stays (a respawn keeps it).
    refuseDeadPane(
      { read, ...t },
      path === undefined
        ? "tmux cannot stop its pipe now; respawn-pane it, then stop the pipe, or kill the pane, which ends the pipe"
        : "it prints nothing more to log, and the file was not touched; respawn-pane it first, or pipe a live pane",
    );
    if (path === undefined) {
      await ctx.tmux.run(["pipe-pane", "-t", t.pane_id], { signal: ctx.signal });
      return { structured: { ...t, piping: false, file_host: fileHost(ctx, false) } };
    }
    // Create (or truncate) the file here under the file policy, with errors a model can act on; the
    // pipe's shell then only appends to the resolved path (no symlink of the model's left to follow).
    // With --ssh the file is on the tmux host: checked by its name only, created by the pipe's shell there.
    const remote = ctx.tmux.remote !== undefined;
    const file = remote
      ? { path: remotePath(path, filePolicy(ctx.config)) }
      : await prepareWrite(path, filePolicy(ctx.config), { truncate: !append });
    await ctx.tmux.run(["pipe-pane", "-t", t.pane_id, "--", pipeToFileCommand(file.path, append || !remote, file.id)], {
      signal: ctx.signal,
    });
    return { structured: { ...t, piping: true, path, file_host: fileHost(ctx, false) } };
  },
});
