import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool.ts";
import { targetSchema } from "../../tmux/target.ts";
import { getPane } from "../../tmux/panes.ts";
import { UserError } from "../../errors.ts";
import { finalView, observePane } from "../../exec/observe.ts";
import { checkTimeout, waitFor } from "../../exec/wait.ts";
import { warningsSchema } from "../../exec/warnings.ts";

export default defineTool({
  name: "wait-for-quiet",
  title: "Wait until a pane stops printing",
  description: "Blocks until the pane has printed nothing for quiet_ms (counted from this call's start), or " +
    "timeout_ms passes (outcome timeout is a normal result), or the pane's program exits. For REPLs, installers, " +
    "builds and full-screen programs where no exit code or known text marks the end: e.g. send-keys to a python " +
    "REPL, then wait-for-quiet, then capture-pane. Any output counts, also a clock or spinner redrawing itself " +
    "(then it times out). Returns the last tail_lines screen lines and warnings (e.g. the program waits for " +
    "input). Other tool calls proceed meanwhile; progress notifications are sent when the request has a " +
    "progressToken.",
  toolset: "exec",
  tier: "readonly",
  annotations: READ_ONLY,
  textField: "tail",
  input: z.object({
    target: targetSchema.optional().describe(
      "pane to watch; default: the active pane of the most recently used session",
    ),
    quiet_ms: z.number().int().min(10).max(3_600_000).default(500).describe("how long without output counts as quiet"),
    timeout_ms: z.number().int().min(0).max(24 * 3600 * 1000).default(30000)
      .describe("how long to wait in all (at most the server's --max-wait-ms, default 120000)"),
    tail_lines: z.number().int().min(0).max(500).default(20).describe("how many last screen lines to return"),
  }),
  output: z.object({
    outcome: z.enum(["quiet", "timeout", "pane_exited"]),
    output_bytes: z.number().int().describe("bytes the pane printed during the wait"),
    tail: z.string().describe("the last tail_lines lines of the pane's screen when the wait ended"),
    elapsed_ms: z.number().int(),
    pane_id: z.string(),
    warnings: warningsSchema,
  }),
  async handler({ target, quiet_ms, timeout_ms, tail_lines }, ctx) {
    const started = performance.now();
    checkTimeout(timeout_ms, ctx.config.maxWaitMs);
    const { pane } = await getPane(ctx.tmux, target, { signal: ctx.signal });
    const quiet = Promise.withResolvers<"quiet">();
    let timer = setTimeout(() => quiet.resolve("quiet"), quiet_ms);
    let bytes = 0;
    let end;
    try {
      const obs = await observePane(ctx, pane, (chunk) => {
        bytes += chunk.length;
        clearTimeout(timer);
        timer = setTimeout(() => quiet.resolve("quiet"), quiet_ms);
      });
      try {
        end = await waitFor(Promise.race([quiet.promise, obs.exited]), {
          ctx,
          started,
          timeoutMs: timeout_ms,
          what: `${quiet_ms} ms without output in ${pane.pane_id}`,
          tick: obs.checkAlive,
        });
      } finally {
        obs.stop();
      }
    } finally {
      clearTimeout(timer);
    }
    if (end.kind === "cancelled") throw new UserError("wait-for-quiet cancelled by the client");
    const view = await finalView(ctx.tmux, pane.pane_id, tail_lines);
    return {
      structured: {
        outcome: end.kind === "timeout" ? "timeout" as const : end.value,
        output_bytes: bytes,
        tail: view.tail.join("\n"),
        elapsed_ms: Math.round(performance.now() - started),
        pane_id: pane.pane_id,
        warnings: view.warnings,
      },
    };
  },
});
