import { z } from "zod";
import { defineTool, resolvedTarget } from "../declared.ts";
import { handOff, type HandOffSubject } from "../../terminal/handoff.ts";
import { paneSubject } from "../../exec/pane_handoff.ts";
import { sessionSubject } from "../../exec/session_handoff.ts";
import { UserError } from "../../errors.ts";
import { servesToolset } from "../../config.ts";
import { ptyId } from "../pty/schemas.ts";
import { budgetLeft } from "../../exec/parked.ts";

const INSTEAD = "request-input with pty_id";

/**
 * request-input: the human answers the password or yes/no prompt a pane (or
 * a pty session) waits at, through the client or an attach command
 * (lib/terminal/handoff.ts); nothing typed ever comes back.
 */
export default defineTool({
  name: "request-input",
  replaces: { "pty-request-input": INSTEAD, pty_request_input: INSTEAD },
  title: "Ask the human for input",
  description: "Has the human answer a password or yes/no prompt a pane (or pty_id) waits at, via client or " +
    "tmux attach; returns no secret.",
  toolset: "exec",
  tier: "mutating",
  target: "pane",
  targetless: (a) => a.pty_id !== undefined,
  annotations: { openWorldHint: true },
  waitBound: "timeout_ms",
  smallResult: true,
  input: z.object({
    pty_id: ptyId.optional(),
    prompt: z.string().min(1, "prompt must not be empty").max(2000, "prompt is longer than 2000 characters")
      .describe("what to enter"),
    timeout_ms: z.number().int().min(100).max(24 * 3600 * 1000).optional()
      .describe("default: --call-budget-ms"),
  }),
  output: z.object({
    pane_id: z.string().optional().describe("absent for pty_id"),
    pty_id: z.string().optional().describe("only for pty_id"),
    outcome: z.enum(["input_received", "declined", "detached", "exited", "timeout", "cancelled", "unavailable"]),
    message: z.string(),
    attach_command: z.string().optional().describe("only via attach"),
    via: z.enum(["form", "url", "attach"]).optional().describe("absent: not asked"),
    waited_ms: z.number().int(),
  }),
  secrets: ["prompt"],
  async handler({ pty_id, prompt, timeout_ms, target }, ctx) {
    let subject: HandOffSubject;
    let who: { pane_id: string } | { pty_id: string };
    if (pty_id !== undefined) {
      if (target !== undefined) throw new UserError("pass target (a pane) or pty_id (a pty session), not both");
      if (!servesToolset(ctx.config, "pty")) {
        throw new UserError("pty_id needs the pty toolset, which this server does not serve (--toolsets)");
      }
      subject = sessionSubject(ctx.terminal, pty_id);
      who = { pty_id };
    } else {
      const { pane_id } = resolvedTarget(ctx);
      subject = paneSubject(ctx.tmux, pane_id);
      who = { pane_id };
    }
    // The human's time inside this request ends with the call budget (a client cuts the call at its own timeout);
    // a 2026-era question parks the call between requests instead, so its timeout_ms holds as given.
    const asked = timeout_ms ?? Math.min(ctx.config.maxWaitMs, ctx.config.callBudgetMs);
    const r = await handOff(subject, prompt, {
      timeoutMs: ctx.ask?.parks ? asked : Math.min(asked, budgetLeft(ctx.config.callBudgetMs, ctx.startedAt)),
      signal: ctx.signal,
      progress: ctx.progress,
      ask: ctx.ask,
      redactor: ctx.redactor,
    });
    return { structured: { ...who, ...r } };
  },
});
