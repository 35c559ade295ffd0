/**
 * batch: several tool calls in one request, each through the same pipeline
 * as a call from the client (toolset and tier gates, validation, audit,
 * budget), so a batch can do nothing its calls could not do one by one.
 * Results come back in order; the batch stops at the first error unless
 * `continue_on_error` is true, and before a call once the calls before it
 * have used the budget they share (`--call-budget-ms`, as one call). The
 * batch itself is readonly: every inner call is gated by its own tier.
 *
 * @example
 * ```ts
 * // tools/call batch {"calls":[{"tool":"list","arguments":{"what":"panes"}},{"tool":"capture-pane","arguments":{"target":"%1"}}]}
 * // → {"results":[{"tool":"list","ok":true,"result":{...}},{"tool":"capture-pane","ok":true,...}],"completed":2}
 * ```
 */
import { z } from "zod";
import { defineTool } from "./declared.ts";
import type { CallToolResult } from "../sdk.ts";
import { budgetLeft } from "../exec/parked.ts";
import { fingerprint } from "../text/hash.ts";

/** Most calls one batch runs. */
export const MAX_BATCH_CALLS = 20;

const NAME = "batch";

const innerCall = z.object({
  tool: z.string().min(1).refine((t) => t !== NAME, "a batch cannot contain a batch: list its calls here instead"),
  arguments: z.record(z.string(), z.unknown()).default({}),
}).strict();

const innerResult = z.object({
  tool: z.string(),
  ok: z.boolean(),
  result: z.record(z.string(), z.unknown()).optional()
    .describe("present when ok"),
  text: z.string().optional().describe("present when ok, if no result"),
  error: z.string().optional().describe("present when not ok"),
});

function textOf(r: CallToolResult): string {
  return r.content.map((c) => c.type === "text" ? c.text : "").join("\n");
}

export default defineTool({
  name: NAME,
  title: "Run several tool calls",
  description:
    "Runs up to 20 tool calls in order, each as if called alone; stops at the first error unless continue_on_error.",
  toolset: "any",
  tier: "readonly",
  // Its calls may do anything their own tiers allow; tools/list announces it as careful as the least careful
  // tool the server serves (servedListing, lib/server/listing.ts).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  input: z.object({
    calls: z.array(innerCall).min(1, "calls must hold at least one call")
      .max(MAX_BATCH_CALLS, `a batch runs at most ${MAX_BATCH_CALLS} calls: split it`),
    continue_on_error: z.boolean().default(false),
  }),
  output: z.object({
    results: z.array(innerResult).describe("one per call run, in order"),
    completed: z.number().int().describe("calls that succeeded"),
    stopped_at: z.number().int().optional()
      .describe("present when stopped early"),
  }),
  secrets: [],
  innerResults: true,
  // Inner calls get audit lines of their own (with their secrets redacted); this line names them only, an unknown
  // name by its fingerprint as the inner call's own line does.
  auditArgs: (args, isTool) => {
    const a = (args ?? {}) as { calls?: unknown; continue_on_error?: unknown };
    const name = (c: unknown) => {
      const tool = String((c as { tool?: unknown })?.tool);
      return isTool(tool) ? tool : { unknown_tool: fingerprint(tool) };
    };
    const calls = Array.isArray(a.calls) ? a.calls.map(name) : a.calls === undefined ? undefined : fingerprint(a.calls);
    return { calls, ...(a.continue_on_error !== undefined ? { continue_on_error: a.continue_on_error } : {}) };
  },
  async handler({ calls, continue_on_error }, ctx) {
    const results: z.infer<typeof innerResult>[] = [];
    let completed = 0;
    for (const [i, c] of calls.entries()) {
      // The calls share the batch's budget: once it is spent, no call starts that would have none.
      if (budgetLeft(ctx.config.callBudgetMs, ctx.startedAt) <= 0) {
        const error = `not run: the batch used its call budget (--call-budget-ms ${ctx.config.callBudgetMs}) ` +
          `on the calls before it; call the rest (from calls[${i}]) in a new batch`;
        results.push({ tool: c.tool, ok: false, error });
        return { structured: { results, completed, stopped_at: i } };
      }
      const r = await ctx.call(c.tool, c.arguments);
      if (r.isError) {
        results.push({ tool: c.tool, ok: false, error: textOf(r) });
        if (!continue_on_error) return { structured: { results, completed, stopped_at: i } };
        continue;
      }
      completed++;
      results.push(
        r.structuredContent
          ? { tool: c.tool, ok: true, result: r.structuredContent }
          : { tool: c.tool, ok: true, text: textOf(r) },
      );
    }
    return { structured: { results, completed } };
  },
});
