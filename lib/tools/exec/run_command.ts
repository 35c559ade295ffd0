import { z } from "zod";
import { defineTool } from "../declared.ts";
import { resolvedTarget } from "../declared.ts";
import { runCommand } from "../../exec/run.ts";
import { warningsSchema } from "../../exec/warnings.ts";
import { waitTimeout } from "../schemas.ts";
import { resolvedShape } from "../workspace/shapes.ts";

export default defineTool({
  name: "run-command",
  title: "Run a shell command in a pane",
  description:
    "Runs a command at a pane's idle bash/zsh/fish prompt; returns its exit_code and only its output. Elsewhere (a REPL, a question) it fails, typing nothing.",
  toolset: "exec",
  tier: "mutating",
  target: "pane",
  waitBound: "timeout_ms",
  annotations: { destructiveHint: true, openWorldHint: true },
  textField: "output",
  input: z.object({
    command: z.string().min(1, "command must not be empty").max(65536, "command is longer than 65536 characters")
      .refine((s) => !s.includes("\0"), "command must not contain NUL")
      .describe("in the pane's shell syntax"),
    timeout_ms: waitTimeout(30000).describe("then timed_out, still running"),
    max_lines: z.number().int().min(1).max(20000).default(400).describe("last kept"),
  }),
  output: z.object({
    exit_code: z.number().int().nullable().describe("the command's exit status; null when it timed out"),
    output: z.string(),
    output_truncated: z.boolean().describe(
      "true when lines were cut (more than max_lines, or the start left tmux's history)",
    ),
    timed_out: z.boolean(),
    elapsed_ms: z.number().int(),
    ...resolvedShape,
    warnings: warningsSchema,
  }),
  secrets: ["command"],
  async handler({ command, timeout_ms, max_lines }, ctx) {
    const target = resolvedTarget(ctx);
    const result = await runCommand(ctx, { target, command, timeoutMs: timeout_ms, maxLines: max_lines });
    const { output, ...facts } = result;
    return {
      structured: result,
      content: [{ type: "text", text: output }, { type: "text", text: JSON.stringify(facts) }],
    };
  },
});
