import { z } from "zod";
import { defineTool } from "../tool.ts";
import { UserError } from "../../errors.ts";
import { handOff } from "../../terminal/handoff.ts";
import { sessionId } from "./schemas.ts";

export default defineTool({
  name: "pty_request_input",
  title: "Hand a session to the human for input",
  description: "For input you must not type or see (passwords, passphrases, one-time codes, confirmations the " +
    "user should make): asks the human to enter it directly into the session, and waits. With the tmux backend " +
    "the human gets an exact `tmux attach` command (in progress notifications and in the result); the wait ends " +
    "when the program has read a password (its terminal leaves no-echo line mode), when the human detaches, when the program " +
    "exits, or at timeout_ms. The internal pty backend cannot be attached to: the result says so at once. " +
    "What the human typed is never returned. Next: pty_get_screen.",
  toolset: "pty",
  tier: "mutating",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z.object({
    session_id: sessionId,
    prompt: z.string().min(1, "prompt must not be empty").max(2000, "prompt is longer than 2000 characters")
      .describe('what the human should enter, e.g. "Please enter the sudo password"'),
    timeout_ms: z.number().int().min(100).max(24 * 3600 * 1000).optional()
      .describe("longest wait in ms (default and upper bound: the server's --max-wait-ms, 120000 unless set)"),
  }),
  output: z.object({
    session_id: z.string(),
    outcome: z.enum(["input_received", "detached", "exited", "timeout", "cancelled", "unavailable"]),
    message: z.string(),
    attach_command: z.string().optional(),
    waited_ms: z.number().int(),
  }),
  secrets: ["prompt"],
  async handler({ session_id, prompt, timeout_ms }, ctx) {
    const max = ctx.config.maxWaitMs;
    if (timeout_ms !== undefined && timeout_ms > max) {
      throw new UserError(`timeout_ms ${timeout_ms} is over this server's --max-wait-ms ${max}: use at most ${max}`);
    }
    const r = await handOff(ctx.terminal, session_id, prompt, {
      timeoutMs: timeout_ms ?? max,
      signal: ctx.signal,
      progress: ctx.progress,
    });
    return { structured: { session_id, ...r } };
  },
});
