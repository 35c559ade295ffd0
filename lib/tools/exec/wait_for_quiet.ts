import { z } from "zod";
import { defineTool } from "../declared.ts";
import type { ToolContext } from "../tool.ts";
import { resolvedTarget } from "../declared.ts";
import { waitOnPane } from "../../exec/observe.ts";
import { waitPty } from "../../exec/pty_wait.ts";
import { warningsSchema } from "../../exec/warnings.ts";
import { tailLines, waitTimeout } from "../schemas.ts";
import { ptyId } from "../pty/schemas.ts";
import { resolvedOf } from "../../tmux/target.ts";
import { UserError } from "../../errors.ts";
import { budgeted, continueField, continueParam } from "./continued.ts";
import { checkPtyWait, tailOf, type Waited, waitIds } from "./wait_common.ts";

const output = z.object({
  outcome: z.enum(["quiet", "timeout", "pane_exited", "running"]),
  output_bytes: z.number().int().optional().describe("bytes the pane printed during the wait (absent for pty_id)"),
  tail: z.string(),
  elapsed_ms: z.number().int(),
  ...waitIds,
  continue: continueField,
  warnings: warningsSchema,
});
type Out = z.infer<typeof output>;
type Meta = Waited & { started: number; tailLines: number; bytes: number };

export default defineTool({
  name: "wait-for-quiet",
  title: "Wait until a pane stops printing",
  description:
    "Waits until a pane (or a pty, pty_id) prints nothing for quiet_ms (or the timeout passes, or the program exits); returns the screen's last lines. For REPLs, installers and builds.",
  toolset: "exec",
  tier: "readonly",
  target: "pane",
  targetless: (a) => a.continue !== undefined || a.pty_id !== undefined,
  waitBound: "timeout_ms",
  textField: "tail",
  input: z.object({
    quiet_ms: z.number().int().min(10).max(3_600_000).default(500).describe("silence that counts"),
    pty_id: ptyId.optional(),
    timeout_ms: waitTimeout(30000),
    tail_lines: tailLines,
    continue: continueParam.optional(),
  }),
  output,
  secrets: [],
  async handler(args, ctx) {
    const { quiet_ms, pty_id, timeout_ms, tail_lines, continue: token } = args;
    const started = performance.now();
    if (token === undefined) checkPtyWait(args, ctx);
    // Silence counts from when the pane is watched, a moment after the deadline starts: an equal one never ends first.
    if (token === undefined && quiet_ms >= timeout_ms) {
      // An omitted timeout_ms is this server's limit when that is below its default: a larger one would be refused.
      const capped = ctx.given !== undefined && !ctx.given.has("timeout_ms") && timeout_ms === ctx.config.maxWaitMs;
      throw new UserError(
        `quiet_ms (${quiet_ms}) is ${quiet_ms > timeout_ms ? "longer than" : "as long as"} timeout_ms ` +
          `(${timeout_ms}${capped ? ": this server's limit, --max-wait-ms" : ""}), so the wait could only time out: ` +
          (capped ? `pass a quiet_ms below ${timeout_ms}` : `pass a timeout_ms above quiet_ms, or a shorter quiet_ms`),
      );
    }
    const meta: Meta = { started, tailLines: tail_lines, bytes: 0, ...(pty_id !== undefined ? { ptyId: pty_id } : {}) };
    const structured = await budgeted<Out, Meta>(ctx, {
      kind: "wait (what: quiet)",
      token,
      started,
      meta,
      start: (work) =>
        pty_id !== undefined
          ? quietOnPty(work, meta, pty_id, quiet_ms, timeout_ms)
          : quiet(work, meta, quiet_ms, timeout_ms),
      async running(token, m) {
        return {
          outcome: "running" as const,
          ...(m.ptyId === undefined ? { output_bytes: m.bytes } : {}),
          ...await tailOf(ctx, m, m.tailLines),
          elapsed_ms: Math.round(performance.now() - m.started),
          continue: token,
        };
      },
    });
    return { structured };
  },
});

async function quiet(ctx: ToolContext, meta: Meta, quiet_ms: number, timeout_ms: number): Promise<Out> {
  const target = resolvedTarget(ctx);
  meta.ids = resolvedOf(target, target.defaulted);
  const quiet = Promise.withResolvers<"quiet">();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const restart = () => {
    clearTimeout(timer);
    timer = setTimeout(() => quiet.resolve("quiet"), quiet_ms);
  };
  try {
    const { pane, defaulted, end, view } = await waitOnPane(ctx, {
      target,
      started: meta.started,
      timeoutMs: timeout_ms,
      tailLines: meta.tailLines,
      what: (id) => `${quiet_ms} ms without output in ${id}`,
      onBytes(chunk) {
        meta.bytes += chunk.length;
        restart();
      },
      // Silence counts from the moment output is watched: what the pane printed while the watch started is unseen.
      watching: restart,
      until: quiet.promise,
      cancelled: "wait-for-quiet cancelled by the client",
      during: "waiting for quiet",
    });
    // A dead program prints nothing: its pane is quiet for good, which the wait may see before its liveness tick.
    const exited = !view.pane || view.pane.dead;
    return {
      outcome: end.kind === "timeout" ? "timeout" as const : exited ? "pane_exited" as const : end.value,
      output_bytes: meta.bytes,
      tail: view.tail.join("\n"),
      elapsed_ms: Math.round(performance.now() - meta.started),
      ...resolvedOf(pane, defaulted),
      warnings: view.warnings,
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A pty streams nothing to a watcher: the wait reads its lines (the shared pty wait's reads) and calls it
 * quiet at a read that finds them as they were for quiet_ms, so a change is never missed between reads.
 */
async function quietOnPty(ctx: ToolContext, meta: Meta, id: string, quiet_ms: number, timeout_ms: number) {
  const quiet = Promise.withResolvers<"quiet">();
  let last: string | undefined;
  let since = performance.now();
  const r = await waitPty(ctx, {
    id,
    started: meta.started,
    timeoutMs: timeout_ms,
    read: "window",
    tailLines: meta.tailLines,
    what: `${quiet_ms} ms without output in pty ${id}`,
    onLines(lines) {
      const now = lines.join("\n");
      if (now !== last) {
        last = now;
        since = performance.now();
      } else if (performance.now() - since >= quiet_ms) quiet.resolve("quiet");
    },
    until: quiet.promise,
  });
  if (r.end === "cancelled") throw new UserError("wait-for-quiet cancelled by the client");
  return {
    outcome: r.end === "quiet" ? "quiet" as const : r.end === "timeout" ? "timeout" as const : "pane_exited" as const,
    tail: r.tail.join("\n"),
    elapsed_ms: Math.round(performance.now() - meta.started),
    warnings: [],
  };
}
