import { z } from "zod";
import { defineTool } from "../declared.ts";
import { resolvedTarget } from "../declared.ts";
import { waitOnPane } from "../../exec/observe.ts";
import { warningsSchema } from "../../exec/warnings.ts";
import { tailLines, waitTimeout } from "../schemas.ts";
import { resolvedShape } from "../workspace/shapes.ts";
import { resolvedOf } from "../../tmux/target.ts";

export default defineTool({
  name: "wait-for-quiet",
  title: "Wait until a pane stops printing",
  description:
    "Waits until a pane prints nothing for quiet_ms (or the timeout passes, or the program exits); returns the screen's last lines. For REPLs, installers and builds.",
  toolset: "exec",
  tier: "readonly",
  target: "pane",
  waitBound: "timeout_ms",
  textField: "tail",
  input: z.object({
    quiet_ms: z.number().int().min(10).max(3_600_000).default(500).describe("silence that counts"),
    timeout_ms: waitTimeout(30000),
    tail_lines: tailLines,
  }),
  output: z.object({
    outcome: z.enum(["quiet", "timeout", "pane_exited"]),
    output_bytes: z.number().int().describe("bytes the pane printed during the wait"),
    tail: z.string().describe("the last tail_lines lines of the pane's screen when the wait ended"),
    elapsed_ms: z.number().int(),
    ...resolvedShape,
    warnings: warningsSchema,
  }),
  secrets: [],
  async handler({ quiet_ms, timeout_ms, tail_lines }, ctx) {
    const started = performance.now();
    const quiet = Promise.withResolvers<"quiet">();
    let timer = setTimeout(() => quiet.resolve("quiet"), quiet_ms);
    let bytes = 0;
    try {
      const { pane, defaulted, end, view } = await waitOnPane(ctx, {
        target: resolvedTarget(ctx),
        started,
        timeoutMs: timeout_ms,
        tailLines: tail_lines,
        what: (id) => `${quiet_ms} ms without output in ${id}`,
        onBytes(chunk) {
          bytes += chunk.length;
          clearTimeout(timer);
          timer = setTimeout(() => quiet.resolve("quiet"), quiet_ms);
        },
        until: quiet.promise,
        cancelled: "wait-for-quiet cancelled by the client",
        during: "waiting for quiet",
      });
      return {
        structured: {
          outcome: end.kind === "timeout" ? "timeout" as const : end.value,
          output_bytes: bytes,
          tail: view.tail.join("\n"),
          elapsed_ms: Math.round(performance.now() - started),
          ...resolvedOf(pane, defaulted),
          warnings: view.warnings,
        },
      };
    } finally {
      clearTimeout(timer);
    }
  },
});
