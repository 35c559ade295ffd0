/**
 * The call-budget side of the waiting exec tools: start the wait or run in
 * the background (lib/exec/parked.ts) or take over the one a `continue`
 * token names, follow it for what is left of this call's --call-budget-ms,
 * and answer its result or a `running` result with the token.
 *
 * @example
 * ```ts
 * declare const ctx: import("../tool.ts").ToolContext; // the call's
 * const out = await budgeted(ctx, {
 *   kind: "wait (what: quiet)",
 *   token: undefined,
 *   start: (work) => Promise.resolve({ outcome: work.signal.aborted ? "cancelled" : "quiet" }),
 *   meta: {},
 *   running: (token) => Promise.resolve({ outcome: "running", continue: token }),
 * });
 * ```
 */
import { z } from "zod";
import { hostAddress, type ToolContext } from "../tool.ts";
import { budgetLeft, type Parked } from "../../exec/parked.ts";

/** The `continue` parameter: a token from a `running` result. */
export const continueParam = z.string().min(1).max(64);

/** The `continue` field of a running result. */
export const continueField = z.string().optional().describe("present while running");

export interface Budgeted<T, M> {
  /** The tool call a token belongs to ("wait (what: text)"), for errors. */
  kind: string;
  /** The `continue` argument, if given. */
  token: string | undefined;
  /** Starts the work (a new call); `work` is the call's context, whose signal and progress outlive the call. */
  start(work: ToolContext): Promise<T>;
  /** What a running answer needs later (ids, a log cursor). */
  meta: M;
  /** The `running` answer, made from the work's meta. */
  running(token: string, meta: M, parked: Parked<T, M>): Promise<T>;
  /** Frees what the work holds once its result is returned or dropped (see `Parked.dispose`). */
  dispose?(): void;
  /** performance.now() when the call began (default: now). */
  started?: number;
  /** This call's budget when not --call-budget-ms (0: answer at once unless the work is done). */
  budgetMs?: number;
}

/** Starts or continues a work and follows it for the rest of this call's budget. */
export async function budgeted<T, M>(ctx: ToolContext, b: Budgeted<T, M>): Promise<T> {
  // The budget counts from the client's call (a batch's, for its inner calls), not from this handler's start.
  const started = Math.min(ctx.startedAt, b.started ?? Infinity);
  const lot = ctx.exec.parked;
  const parked = b.token !== undefined ? lot.take<T, M>(b.kind, b.token, b.kind.split(" ")[0]) : lot.start<T, M>(
    b.kind,
    (relay) => b.start({ ...ctx, signal: relay.signal, progress: relay.progress }),
    b.meta,
    { shown: (token) => hostAddress(ctx, token), dispose: b.dispose },
  );
  const turn = await lot.follow(parked, ctx, budgetLeft(b.budgetMs ?? ctx.config.callBudgetMs, started));
  if (turn.kind === "done") return turn.value;
  // The token names its host: a continuation without it would go to the first host, which has no such work.
  const token = hostAddress(ctx, turn.token);
  ctx.noteContinue?.(token);
  return await b.running(token, parked.meta, parked);
}
