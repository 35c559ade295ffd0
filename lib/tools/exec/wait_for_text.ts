import { z } from "zod";
import { defineTool, resolvedTarget } from "../declared.ts";
import type { ToolContext } from "../tool.ts";
import { compileMatcher, type Hit, type Matcher } from "../../exec/match.ts";
import { waitOnPane } from "../../exec/observe.ts";
import { LINE_COLUMNS, LineAssembler } from "../../exec/stream.ts";
import { waitPty } from "../../exec/pty_wait.ts";
import { ptyEchoKey } from "../../exec/typed.ts";
import { type Warning, warningsSchema } from "../../exec/warnings.ts";
import { tailLines, waitTimeout } from "../schemas.ts";
import { ptyId } from "../pty/schemas.ts";
import { resolvedOf } from "../../tmux/target.ts";
import { positionFrom, positionRead } from "../../tmux/grid.ts";
import { UserError } from "../../errors.ts";
import type { Redactor } from "../../text/redact.ts";
import { redactedExcerpt } from "../../text/redact_page.ts";
import { budgeted, continueField, continueParam } from "./continued.ts";
import { checkPtyWait, type PaneIds, tailOf, type Waited, waitIds } from "./wait_common.ts";

const pattern = z.string().min(1, "a pattern must not be empty").max(1000, "a pattern is longer than 1000 characters");
const MAX_LINE = 1000;
/** How much two pieces of a long line overlap: a pattern (at most MAX_LINE characters) lies whole in one of them. */
const SLIDE = MAX_LINE + 24;

/** A line in pieces of at most LINE_COLUMNS, overlapping by SLIDE: a match anywhere in it is in one piece. */
function pieces(line: string): string[] {
  if (line.length <= LINE_COLUMNS) return [line];
  const out: string[] = [];
  for (let at = 0;; at += LINE_COLUMNS - SLIDE) {
    out.push(line.slice(at, at + LINE_COLUMNS));
    if (at + LINE_COLUMNS >= line.length) return out;
  }
}

const output = z.object({
  outcome: z.enum(["matched", "stopped", "timeout", "pane_exited", "running"]),
  matched_pattern: z.string().nullable(),
  matched_line: z.string().nullable(),
  tail: z.string(),
  visible_in_tail: z.literal(true).optional(),
  elapsed_ms: z.number().int(),
  ...waitIds,
  continue: continueField,
  warnings: warningsSchema,
});
type Out = z.infer<typeof output>;
type Meta = Waited & { started: number; tailLines: number };

/**
 * Feeds lines to a matcher (a worker for regexes) one batch at a time; `hit` resolves at the first hit. `settled`:
 * the hit among the lines pushed so far, once they are all checked (a screen read at the deadline is still judged).
 */
function matchQueue(matcher: Matcher) {
  const hit = Promise.withResolvers<Hit>();
  let found: Hit | undefined;
  let failed = false;
  let queue: string[] = [];
  let busy = false;
  let idle = Promise.resolve();
  const pump = async () => {
    if (busy) return;
    busy = true;
    const done = Promise.withResolvers<void>();
    idle = done.promise;
    try {
      while (queue.length > 0 && !found) {
        const batch = queue;
        queue = [];
        const h = await matcher.check(batch);
        if (h) hit.resolve(found = h);
      }
    } catch (e) {
      failed = true;
      hit.reject(e);
    } finally {
      busy = false;
      done.resolve();
    }
  };
  return {
    hit: hit.promise,
    push(lines: string[]) {
      // A screen's line (wrapped rows joined) can be longer than the matcher takes: all of it is looked at.
      for (const l of lines) if (l) queue.push(...pieces(l));
      void pump();
    },
    async settled(): Promise<Hit | undefined> {
      while (busy) await idle;
      // A failed check (a regex stopped as too slow) is the answer, as it would have been in time.
      return failed ? await hit.promise : found;
    },
  };
}

export default defineTool({
  name: "wait-for-text",
  title: "Wait until a pane prints some text",
  description:
    "Waits until a pane's screen or new output (or a pty's, pty_id) shows one of patterns (or stop, checked first), the timeout passes or the program exits; returns the matching line and the screen's last lines.",
  toolset: "exec",
  tier: "readonly",
  target: "pane",
  targetless: (a) => a.continue !== undefined || a.pty_id !== undefined,
  waitBound: "timeout_ms",
  // Where the cursor was as the call began: new_only then sees what is printed while its watch starts.
  targetRead: positionRead,
  textField: "tail",
  input: z.object({
    patterns: z.array(pattern).min(1, "give at least one pattern").max(20, "at most 20 patterns").optional(),
    regex: z.boolean().default(false).describe("patterns and stop are regexes"),
    ignore_case: z.boolean().default(false),
    stop: z.array(pattern).max(20, "at most 20 stop patterns").default([])
      .describe("end the wait first (errors)"),
    new_only: z.boolean().default(false).describe("only new output"),
    pty_id: ptyId.optional(),
    timeout_ms: waitTimeout(30000),
    tail_lines: tailLines,
    continue: continueParam.optional(),
  }),
  output,
  secrets: ["patterns"],
  async handler(args, ctx) {
    const started = performance.now();
    const { patterns, regex, ignore_case, stop, new_only, pty_id, timeout_ms, tail_lines } = args;
    if (args.continue === undefined) {
      if (!patterns) throw new UserError("give patterns (the text to wait for), or continue from a running result");
      checkPtyWait(args, ctx);
    }
    const spec = { patterns: patterns ?? [], stop, regex, ignoreCase: ignore_case };
    const meta: Meta = {
      started,
      tailLines: tail_lines,
      ...(pty_id !== undefined ? { ptyId: pty_id } : {}),
    };
    const structured = await budgeted<Out, Meta>(ctx, {
      kind: "wait (what: text)",
      token: args.continue,
      started,
      meta,
      start: (work) => {
        const matcher = compileMatcher(spec, work.regex);
        const body = pty_id !== undefined
          ? textOnPty(work, matcher, pty_id, { started, timeout_ms, tail_lines, new_only })
          : textOnPane(work, matcher, meta, { started, timeout_ms, tail_lines, new_only, patterns: spec.patterns });
        return body.finally(() => matcher.close());
      },
      async running(token, m) {
        return {
          outcome: "running" as const,
          matched_pattern: null,
          matched_line: null,
          ...await tailOf(ctx, m, m.tailLines),
          elapsed_ms: Math.round(performance.now() - m.started),
          continue: token,
        };
      },
    });
    return { structured };
  },
});

/** `rows`, each followed by its `written` form when that has spaces at its end (it is the row with them). */
function withWrittenSpaces(rows: string[], written: string[]): string[] {
  return rows.flatMap((r, i) => written[i] !== undefined && written[i] !== r ? [r, written[i]] : [r]);
}

interface Common {
  started: number;
  timeout_ms: number;
  tail_lines: number;
  new_only: boolean;
}

async function textOnPane(
  ctx: ToolContext,
  matcher: Matcher,
  meta: Meta,
  a: Common & { patterns: string[] },
): Promise<Out> {
  const q = matchQueue(matcher);
  // A pattern (at most 1000 characters) anywhere in a line longer than the assembler keeps: the line slides.
  const lines = new LineAssembler((text) => q.push([text]), { slide: SLIDE });
  const target = resolvedTarget(ctx);
  meta.ids = resolvedOf(target, target.defaulted);
  const { pane, defaulted, end, view } = await waitOnPane(ctx, {
    target,
    started: a.started,
    timeoutMs: a.timeout_ms,
    tailLines: a.tail_lines,
    what: (id) => `${JSON.stringify(a.patterns[0])}${a.patterns.length > 1 ? " (or another pattern)" : ""} in ${id}`,
    onBytes(bytes) {
      lines.push(bytes);
    },
    // Not the echo of a line this server typed there (`make; echo DONE` on its prompt line is not DONE printed).
    // A row whose end is spaces a program wrote (a prompt's `>>> `) is checked with them too: a pattern may end so.
    ...(a.new_only
      ? target.read
        ? {
          since: {
            from: positionFrom(target.read.output),
            onRows: (rows: string[]) => q.push(ctx.exec.typed.withoutEchoes(target.pane_id, rows)),
          },
        }
        : {}
      : {
        onScreen: (rows: string[], written: string[]) =>
          q.push(ctx.exec.typed.withoutEchoes(target.pane_id, withWrittenSpaces(rows, written))),
      }),
    until: q.hit,
    cancelled: "wait-for-text cancelled by the client",
    during: "waiting for text",
  });
  // Lines read before the deadline or the program's exit may still be in the matcher (a screen read just done, a
  // regex's worker, the last line a program printed): they are judged before the wait says it found nothing.
  const hit = end.kind === "done" && end.value !== "pane_exited" ? end.value : await q.settled();
  return await ended(matcher, hit ?? (end.kind === "timeout" ? "timeout" : "exited"), {
    tail: view.tail,
    shown: ctx.exec.typed.withoutEchoes(target.pane_id, view.tail),
    started: a.started,
    warnings: view.warnings,
    ids: resolvedOf(pane, defaulted),
    redactor: ctx.redactor,
  });
}

/**
 * The answer of a wait that ended, on a pane or a pty alike: what ended it (a hit, the timeout, the program's
 * exit), the screen's last lines (and, after a timeout, whether a pattern shows in them), the pane's ids.
 */
async function ended(
  matcher: Matcher,
  end: Hit | "timeout" | "exited",
  r: {
    tail: string[];
    /** The tail's lines a pattern may show in (not the echo of a typed line); default: all. */
    shown?: string[];
    started: number;
    warnings: Warning[];
    ids?: PaneIds;
    redactor?: Redactor;
  },
): Promise<Out> {
  const h = typeof end === "object" ? end : undefined;
  const outcome = h ? h.kind : end === "timeout" ? "timeout" as const : "pane_exited" as const;
  return {
    outcome,
    matched_pattern: h?.pattern ?? null,
    matched_line: h ? await cutLine(r.redactor, h.line) : null,
    tail: r.tail.join("\n"),
    ...(outcome === "timeout" && await inTail(matcher, r.shown ?? r.tail) ? { visible_in_tail: true as const } : {}),
    elapsed_ms: Math.round(performance.now() - r.started),
    ...r.ids,
    warnings: r.warnings,
  };
}

/**
 * A matched line cut at MAX_LINE, a secret the cut splits judged whole (lib/text/redact_page.ts): its first characters
 * alone would pass the redaction of the result. With the preset loaded if the line needs it: a wait cannot be run
 * again, as a call whose handler throws RulesNeeded is (the event it saw would be gone).
 */
function cutLine(redactor: Redactor | undefined, line: string): Promise<string> {
  return redactedExcerpt(redactor, line, 0, Math.min(line.length, MAX_LINE));
}

/**
 * Whether a pattern (not a stop pattern) shows in these lines. A regex stopped as too slow is the answer (a timeout
 * would hide that it can never match); another failure counts as no hit.
 */
async function inTail(matcher: Matcher, tail: string[]): Promise<boolean> {
  const line = await matcher.shows(tail).catch((e) => {
    if (e instanceof UserError) throw e;
    return undefined;
  });
  return line !== undefined;
}

async function textOnPty(ctx: ToolContext, matcher: Matcher, id: string, a: Common): Promise<Out> {
  const q = matchQueue(matcher);
  const r = await waitPty(ctx, {
    id,
    started: a.started,
    timeoutMs: a.timeout_ms,
    read: a.new_only ? "new" : "all",
    tailLines: a.tail_lines,
    what: `text in pty ${id}`,
    onLines: (lines) => q.push(ctx.exec.typed.withoutEchoes(ptyEchoKey(id), lines)),
    until: q.hit,
  });
  if (r.end === "cancelled") throw new UserError("wait-for-text cancelled by the client");
  const warnings: Warning[] = r.missed
    ? [{
      kind: "lines_missed",
      message: `pty ${id} dropped lines from its history before the wait read them, unmatched: wait for a later line`,
    }]
    : [];
  const hit = typeof r.end === "object" ? r.end : await q.settled();
  return await ended(matcher, hit ?? r.end, {
    tail: r.tail,
    shown: ctx.exec.typed.withoutEchoes(ptyEchoKey(id), r.tail),
    started: a.started,
    warnings,
    redactor: ctx.redactor,
  });
}
