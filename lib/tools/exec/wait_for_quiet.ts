import { z } from "zod";
import { defineTool } from "../declared.ts";
import type { ToolContext } from "../tool.ts";
import { resolvedTarget } from "../declared.ts";
import { waitOnPane } from "../../exec/observe.ts";
import { warningsSchema } from "../../exec/warnings.ts";
import { tailLines, waitTimeout } from "../schemas.ts";
import { resolvedShape } from "../workspace/shapes.ts";
import { resolvedOf } from "../../tmux/target.ts";
import { finalView } from "../../exec/observe.ts";
import { budgeted, continueField, continueParam } from "./continued.ts";

const output = z.object({
  outcome: z.enum(["quiet", "timeout", "pane_exited", "running"]),
  output_bytes: z.number().int().describe("bytes the pane printed during the wait"),
  tail: z.string(),
  elapsed_ms: z.number().int(),
  ...resolvedShape,
  continue: continueField,
  warnings: warningsSchema,
});
type Out = z.infer<typeof output>;

export default defineTool({
  name: "wait-for-quiet",
  title: "Wait until a pane stops printing",
  description:
    "Waits until a pane prints nothing for quiet_ms (or the timeout passes, or the program exits); returns the screen's last lines. For REPLs, installers and builds.",
  toolset: "exec",
  tier: "readonly",
  target: "pane",
  targetless: (a) => a.continue !== undefined,
  waitBound: "timeout_ms",
  textField: "tail",
  input: z.object({
    quiet_ms: z.number().int().min(10).max(3_600_000).default(500).describe("silence that counts"),
    timeout_ms: waitTimeout(30000),
    tail_lines: tailLines,
    continue: continueParam.optional(),
  }),
  output,
  secrets: [],
  async handler({ quiet_ms, timeout_ms, tail_lines, continue: token }, ctx) {
    const started = performance.now();
    const meta = {
      started,
      tailLines: tail_lines,
      bytes: 0,
      ids: undefined as ReturnType<typeof resolvedOf> | undefined,
    };
    const structured = await budgeted<Out, typeof meta>(ctx, {
      kind: "wait (what: quiet)",
      token,
      started,
      meta,
      start: (work) => quiet(work, meta, quiet_ms, timeout_ms),
      async running(token, m) {
        const view = await finalView(ctx.tmux, m.ids!.pane_id, m.tailLines);
        return {
          outcome: "running" as const,
          output_bytes: m.bytes,
          tail: view.tail.join("\n"),
          elapsed_ms: Math.round(performance.now() - m.started),
          ...m.ids!,
          continue: token,
          warnings: view.warnings,
        };
      },
    });
    return { structured };
  },
});

async function quiet(
  ctx: ToolContext,
  meta: { started: number; tailLines: number; bytes: number; ids?: ReturnType<typeof resolvedOf> },
  quiet_ms: number,
  timeout_ms: number,
): Promise<Out> {
  {
    const started = meta.started;
    const tail_lines = meta.tailLines;
    const target = resolvedTarget(ctx);
    meta.ids = resolvedOf(target, target.defaulted);
    const quiet = Promise.withResolvers<"quiet">();
    let timer = setTimeout(() => quiet.resolve("quiet"), quiet_ms);
    let bytes = 0;
    try {
      const { pane, defaulted, end, view } = await waitOnPane(ctx, {
        target,
        started,
        timeoutMs: timeout_ms,
        tailLines: tail_lines,
        what: (id) => `${quiet_ms} ms without output in ${id}`,
        onBytes(chunk) {
          bytes += chunk.length;
          meta.bytes = bytes;
          clearTimeout(timer);
          timer = setTimeout(() => quiet.resolve("quiet"), quiet_ms);
        },
        until: quiet.promise,
        cancelled: "wait-for-quiet cancelled by the client",
        during: "waiting for quiet",
      });
      return {
        outcome: end.kind === "timeout" ? "timeout" as const : end.value,
        output_bytes: bytes,
        tail: view.tail.join("\n"),
        elapsed_ms: Math.round(performance.now() - started),
        ...resolvedOf(pane, defaulted),
        warnings: view.warnings,
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
