import { z } from "zod";
import { defineTool } from "../declared.ts";
import { resolvedTarget } from "../declared.ts";
import { hostAddress, type ToolContext } from "../tool.ts";
import { PaneRespawned, runCommand, type RunResult } from "../../exec/run.ts";
import { MAX_LOG_BYTES, MAX_LOG_LINE, MAX_POOL_BYTES, RunLog } from "../../exec/runlog.ts";
import { warningsSchema } from "../../exec/warnings.ts";
import { finalView, inspectCommands } from "../../exec/observe.ts";
import { withTerminalMode } from "../../exec/pane_handoff.ts";
import { waitTimeout } from "../schemas.ts";
import { resolvedShape } from "../workspace/shapes.ts";
import { resolvedOf } from "../../tmux/target.ts";
import { EnvironmentError, UserError } from "../../errors.ts";
import { budgeted, continueField, continueParam } from "./continued.ts";

const output = z.object({
  exit_code: z.number().int().nullable().describe("null: running or timed out"),
  output: z.string(),
  output_lines: z.number().int().describe('lines in output ("" with 1: one blank line)'),
  output_truncated: z.boolean().describe("lines cut (max_lines, tmux history)"),
  full_output_buffer: z.string().optional().describe("only if cut and kept: the output"),
  timed_out: z.boolean(),
  continue: continueField,
  elapsed_ms: z.number().int(),
  ...resolvedShape,
  warnings: warningsSchema,
});
type Out = z.infer<typeof output>;
type Meta = { log: RunLog; ids: ReturnType<typeof resolvedOf>; started: number; maxLines: number };

export default defineTool({
  name: "run-command",
  title: "Run a shell command in a pane",
  description:
    "Runs a command at a pane's idle bash/zsh/fish prompt; returns its exit_code and only its output. Elsewhere (a REPL, a question) it fails, typing nothing.",
  toolset: "exec",
  tier: "mutating",
  target: "pane",
  targetless: (a) => a.continue !== undefined,
  // The run begins with the pane's facts and screen: read them with the target's resolution.
  targetRead: inspectCommands,
  waitBound: "timeout_ms",
  annotations: { destructiveHint: true, openWorldHint: true },
  textField: "output",
  input: z.object({
    command: z.string().min(1, "command must not be empty").max(65536, "command is longer than 65536 characters")
      .refine((s) => !s.includes("\0"), "command must not contain NUL")
      .describe("in the pane's shell syntax").optional(),
    timeout_ms: waitTimeout(30000).describe("then timed_out, still running"),
    max_lines: z.number().int().min(1).max(20000).default(400).describe("last kept"),
    continue: continueParam.optional(),
  }),
  output,
  secrets: ["command"],
  async handler({ command, timeout_ms, max_lines, continue: token }, ctx) {
    const started = performance.now();
    if (token === undefined && command === undefined) {
      throw new UserError("give command (the shell command to run), or continue from a running result");
    }
    let meta: Meta | undefined;
    let pageWaiting = false;
    let log: RunLog;
    if (token === undefined) {
      const target = resolvedTarget(ctx);
      log = new RunLog(ctx.exec.logs);
      meta = { log, ids: resolvedOf(target, target.defaulted), started, maxLines: max_lines };
    } else {
      // A token this server does not know may be from before a restart: its command ran or still runs.
      const again = "look at the pane (capture-pane) before running the command again: it may have run, or still run";
      const parked = ctx.exec.parked.take<Out, Meta>("run-command", token, "run-command", again).meta;
      log = parked.log;
      pageWaiting = log.pending >= parked.maxLines;
    }
    const structured = await budgeted<Out, Meta | undefined>(ctx, {
      kind: "run-command",
      token,
      started,
      meta,
      // Output already waiting makes a full page: answer it at once.
      ...(pageWaiting ? { budgetMs: 0 } : {}),
      // A first call only (a continuation's work was started by one): the log leaves the server's pool with its run.
      dispose: () => meta?.log.release(),
      async start(work) {
        const m = meta!;
        let r: RunResult;
        try {
          r = await runCommand(work, {
            target: resolvedTarget(ctx),
            command: command!,
            timeoutMs: timeout_ms,
            maxLines: m.maxLines,
            log: m.log,
          });
        } catch (e) {
          throw work.signal.aborted ? e : await withOutputKept(ctx, e, m.log);
        }
        return await withFullOutput(ctx, r, m.log);
      },
      async running(token, m) {
        const { log, ids, maxLines } = m!;
        const handedOut = log.handedOut;
        const page = log.take(maxLines);
        let view;
        try {
          // A command waiting at a password or yes/no prompt runs on only once someone answers: say so now.
          view = await finalView(ctx.tmux, ids.pane_id, 1);
          if (ctx.signal.aborted) throw new UserError("run-command ended before its answer: continue with its token");
        } catch (e) {
          // A call that failed, or was cut at its budget while tmux stalled, answers nobody: the next one gets the page.
          log.giveBack(page, handedOut);
          throw e;
        }
        const prompts = view.warnings.filter((w) => w.kind === "input_prompt");
        return {
          exit_code: null,
          output: page.lines.join("\n"),
          output_lines: page.lines.length,
          output_truncated: page.lost > 0,
          timed_out: false,
          continue: token,
          elapsed_ms: Math.round(performance.now() - m!.started),
          ...(view.pane ? resolvedOf(view.pane, ids.defaulted) : ids),
          warnings: view.pane ? withTerminalMode(ctx.tmux, view.pane, prompts) : prompts,
        };
      },
    });
    const { output, ...facts } = structured;
    return {
      structured,
      content: [{ type: "text", text: output }, {
        type: "text",
        text: JSON.stringify({ ...facts, note: note(structured, log) }),
      }],
    };
  },
});

/** A cut output gets a buffer with all of it (the lines not handed out before, when pages were). */
async function withFullOutput(ctx: ToolContext, r: RunResult, log: RunLog): Promise<Out> {
  if (!r.output_truncated) return r;
  const kept = log.peekAll();
  if (kept.lines.length === 0) return r;
  const name = await ctx.keepResult(new TextEncoder().encode(kept.lines.join("\n") + "\n"));
  return name === undefined ? r : { ...r, full_output_buffer: hostAddress(ctx, name) };
}

/**
 * A run that failed once its command ran (its pane closed or was respawned under it, the connection to tmux
 * ended): the output it printed, not handed out yet, goes to a buffer that the error names (it says why).
 */
async function withOutputKept(ctx: ToolContext, e: unknown, log: RunLog): Promise<unknown> {
  if (!(e instanceof UserError || e instanceof EnvironmentError)) return e;
  log.finish();
  const kept = log.peekAll();
  if (kept.lines.length === 0) return e;
  const name = await ctx.keepResult(new TextEncoder().encode(kept.lines.join("\n") + "\n"))
    .catch(() => undefined);
  if (name === undefined) return e;
  const where = `are in buffer ${hostAddress(ctx, name)} (show-buffer)`;
  const message = e instanceof PaneRespawned
    ? `${e.message}; the ${kept.lines.length} line(s) the pane printed since the last answer ${where}: the ` +
      `command's output, maybe followed by the first lines of what the pane runs now`
    : `${e.message}; the ${kept.lines.length} line(s) of its output not returned yet ${where}`;
  return e instanceof UserError ? new UserError(message) : new EnvironmentError(message);
}

/** One sentence for the model when the answer is partial. */
function note(r: Out, log: RunLog): string | undefined {
  if (r.continue) {
    return `still running: call run-command with continue: ${JSON.stringify(r.continue)} for the next output ` +
      `(no line is repeated or skipped)`;
  }
  if (r.full_output_buffer) {
    // The buffer holds what the log kept: say what it could not.
    const lost = log.peekAll().lost;
    const gaps = [
      ...(lost > 0
        ? [
          `its first ${lost} line(s) dropped: the log keeps the last ${MAX_LOG_BYTES / 2 ** 20} MiB (all runs ` +
          `still running or uncollected together ${MAX_POOL_BYTES / 2 ** 20} MiB)`,
        ]
        : []),
      ...(log.cut > 0 ? [`${log.cut} line(s) cut to their first ${MAX_LOG_LINE / 2 ** 20} MiB`] : []),
    ];
    return `output cut to its last lines: the ${gaps.length ? "kept" : "whole"} output is in buffer ` +
      `${r.full_output_buffer}${gaps.length ? ` (${gaps.join("; ")})` : ""} ` +
      `(show-buffer with offset_bytes pages through it; search-buffer searches it)`;
  }
  // withFullOutput kept nothing though there was more: no served tool could read it back. (The log itself may be
  // freed by now: the answer is going out.)
  if (r.output_truncated) {
    return `output cut to its last ${r.output_lines} line(s); the rest was not kept, since show-buffer is not ` +
      `served (--toolsets without buffers): a larger max_lines returns more`;
  }
  return undefined;
}
