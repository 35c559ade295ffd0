import { z } from "zod";
import { defineTool } from "../declared.ts";
import { handOff } from "../../terminal/handoff.ts";
import { formerName, ptyId } from "./schemas.ts";

export default defineTool({
  name: "pty-request-input",
  replaces: formerName("pty-request-input"),
  title: "Ask the human for input",
  description: "Has the human answer the password or yes/no prompt the session waits at (via the client, or an " +
    "attach command); never returns a secret.",
  toolset: "pty",
  tier: "mutating",
  annotations: { openWorldHint: true },
  waitBound: "timeout_ms",
  smallResult: true,
  input: z.object({
    pty_id: ptyId,
    prompt: z.string().min(1, "prompt must not be empty").max(2000, "prompt is longer than 2000 characters")
      .describe("what to enter"),
    timeout_ms: z.number().int().min(100).max(24 * 3600 * 1000).optional()
      .describe("default: --call-budget-ms"),
  }),
  output: z.object({
    pty_id: z.string(),
    outcome: z.enum(["input_received", "declined", "detached", "exited", "timeout", "cancelled", "unavailable"]),
    message: z.string(),
    attach_command: z.string().optional().describe("only via attach"),
    via: z.enum(["form", "url", "attach"]).optional().describe("absent: not asked"),
    waited_ms: z.number().int(),
  }),
  secrets: ["prompt"],
  async handler({ pty_id, prompt, timeout_ms }, ctx) {
    const r = await handOff(ctx.terminal, pty_id, prompt, {
      timeoutMs: timeout_ms ?? Math.min(ctx.config.maxWaitMs, ctx.config.callBudgetMs),
      signal: ctx.signal,
      progress: ctx.progress,
      ask: ctx.ask,
    });
    return { structured: { pty_id, ...r } };
  },
});
