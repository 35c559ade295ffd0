import { z } from "zod";
import { defineTool } from "../declared.ts";
import { resolvedTarget } from "../declared.ts";
import { compileMatcher, type Hit } from "../../exec/match.ts";
import { waitOnPane } from "../../exec/observe.ts";
import { LineAssembler } from "../../exec/stream.ts";
import { warningsSchema } from "../../exec/warnings.ts";
import { tailLines, waitTimeout } from "../schemas.ts";
import { resolvedShape } from "../workspace/shapes.ts";
import { resolvedOf } from "../../tmux/target.ts";

const pattern = z.string().min(1, "a pattern must not be empty").max(1000, "a pattern is longer than 1000 characters");
const MAX_LINE = 1000;

export default defineTool({
  name: "wait-for-text",
  title: "Wait until a pane prints some text",
  description:
    "Waits until new output of a pane contains one of patterns (or of stop, checked first), the timeout passes or the program exits; returns the matching line and the screen's last lines.",
  toolset: "exec",
  tier: "readonly",
  target: "pane",
  waitBound: "timeout_ms",
  textField: "tail",
  input: z.object({
    patterns: z.array(pattern).min(1, "give at least one pattern").max(20, "at most 20 patterns"),
    regex: z.boolean().default(false).describe("patterns and stop are regexes"),
    ignore_case: z.boolean().default(false),
    stop: z.array(pattern).max(20, "at most 20 stop patterns").default([])
      .describe("end the wait first (errors)"),
    timeout_ms: waitTimeout(30000),
    tail_lines: tailLines,
  }),
  output: z.object({
    outcome: z.enum(["matched", "stopped", "timeout", "pane_exited"]),
    matched_pattern: z.string().nullable(),
    matched_line: z.string().nullable(),
    tail: z.string().describe("the last tail_lines lines of the pane's screen when the wait ended"),
    elapsed_ms: z.number().int(),
    ...resolvedShape,
    warnings: warningsSchema,
  }),
  secrets: ["patterns"],
  async handler({ patterns, regex, ignore_case, stop, timeout_ms, tail_lines }, ctx) {
    const started = performance.now();
    const matcher = compileMatcher({ patterns, stop, regex, ignoreCase: ignore_case }, ctx.regex);
    const hit = Promise.withResolvers<Hit>();
    // Lines wait here while the matcher (a worker for regexes) is busy.
    let queue: string[] = [];
    let busy = false;
    const pump = async () => {
      if (busy) return;
      busy = true;
      try {
        while (queue.length > 0) {
          const batch = queue;
          queue = [];
          const h = await matcher.check(batch);
          if (h) return hit.resolve(h);
        }
      } catch (e) {
        hit.reject(e);
      } finally {
        busy = false;
      }
    };
    const lines = new LineAssembler((text) => {
      if (text) queue.push(text.length > MAX_LINE * 4 ? text.slice(-MAX_LINE * 4) : text);
    });
    try {
      const { pane, defaulted, end, view } = await waitOnPane(ctx, {
        target: resolvedTarget(ctx),
        started,
        timeoutMs: timeout_ms,
        tailLines: tail_lines,
        what: (id) => `${JSON.stringify(patterns[0])}${patterns.length > 1 ? " (or another pattern)" : ""} in ${id}`,
        onBytes(bytes) {
          lines.push(bytes);
          void pump();
        },
        until: hit.promise,
        cancelled: "wait-for-text cancelled by the client",
        during: "waiting for text",
      });
      const h = end.kind === "done" && end.value !== "pane_exited" ? end.value : undefined;
      return {
        structured: {
          outcome: h ? h.kind : end.kind === "timeout" ? "timeout" as const : "pane_exited" as const,
          matched_pattern: h?.pattern ?? null,
          matched_line: h ? h.line.slice(0, MAX_LINE) : null,
          tail: view.tail.join("\n"),
          elapsed_ms: Math.round(performance.now() - started),
          ...resolvedOf(pane, defaulted),
          warnings: view.warnings,
        },
      };
    } finally {
      matcher.close();
    }
  },
});
