/**
 * Response-budget overhead: the token estimate, the stage on a result under
 * budget (the common case: must stay far below 1 ms), and building the
 * preview of a 1 MiB result. No tmux: autoTruncate keeps nothing.
 */
import { z } from "zod";
import type { CallToolResult } from "../../lib/sdk.ts";
import { estimateTokens } from "../../lib/budget/estimate.ts";
import { createBudget } from "../../lib/server/budget.ts";
import { largestFitting } from "../../lib/budget/page.ts";
import { defaultBudgetSettings } from "../../lib/budget/settings.ts";
import { createServices } from "../../lib/server/server.ts";
import { parseConfig } from "../../lib/config.ts";
import { READ_ONLY, type ToolContext } from "../../lib/tools/tool.ts";
import { defineTool } from "../../lib/tools/declared.ts";

const english = Deno.readTextFileSync(new URL("../fixtures/tokens/english.txt", import.meta.url));
const chinese = Deno.readTextFileSync(new URL("../fixtures/tokens/chinese.txt", import.meta.url));
const MiB = 1024 * 1024;
const englishMiB = english.repeat(Math.ceil(MiB / english.length)).slice(0, MiB);
const chineseMiB = chinese.repeat(Math.ceil(MiB / 3 / chinese.length)).slice(0, MiB / 3);
const log = Array.from({ length: 40_000 }, (_, i) => `[build] step ${i}: compiling module_${i % 97}.ts ok`).join("\n");

const tool = defineTool({
  name: "show-text",
  title: "bench",
  description: "bench",
  toolset: "buffers",
  tier: "readonly",
  annotations: READ_ONLY,
  textField: "text",
  input: z.object({}),
  output: z.object({ name: z.string(), text: z.string() }),
  handler: () => Promise.resolve({ structured: { name: "x", text: "" } }),
});

const { services } = createServices(parseConfig(["--socket-name", "tmcp-bench-none"], {}));
const settings = { ...defaultBudgetSettings(), autoTruncate: true };
const budget = createBudget({ services, settings, tools: [tool], isServed: () => true });
const ctx = {
  ...services,
  signal: new AbortController().signal,
  startedAt: performance.now(),
  progress: () => Promise.resolve(),
  noteTarget: () => {},
  budget: budget.pageBudget(tool),
  keepResult: (content: Uint8Array) => budget.keepResult(services, content),
  call: () => Promise.reject(new Error("not in this bench")),
} as ToolContext;

function textResult(text: string): CallToolResult {
  const structured = { name: "x", text };
  return { content: [{ type: "text", text }], structuredContent: structured };
}
const small = textResult("hello world\n".repeat(20));
const page64k = textResult(log.slice(0, 64 * 1024));
const big = textResult(log.slice(0, MiB));

Deno.bench("estimateTokens: 1 MiB English", () => void estimateTokens(englishMiB));
Deno.bench("estimateTokens: 1 MiB of CJK (UTF-8)", () => void estimateTokens(chineseMiB));
Deno.bench("stage: small result under budget", async () => void await budget.stage(tool, small, ctx, () => undefined));
Deno.bench("stage: 64 KiB text under budget", async () => void await budget.stage(tool, page64k, ctx, () => undefined));
Deno.bench(
  "stage: 1 MiB log over budget → preview",
  async () => void await budget.stage(tool, big, ctx, () => undefined),
);

// show-buffer's fit of a 1 MiB slice to the budget: bisection over bytes, one estimate per step.
const logBytes = new TextEncoder().encode(log.slice(0, MiB));
const pageOf = (n: number) => {
  const text = new TextDecoder().decode(logBytes.subarray(0, n));
  return { structured: { name: "x", text }, content: [{ type: "text" as const, text }] };
};
Deno.bench("page fit: 1 MiB slice cut to the 25,000-token budget", () => {
  void largestFitting(1, logBytes.length, (n) => ctx.budget.fits(pageOf(n)));
});
