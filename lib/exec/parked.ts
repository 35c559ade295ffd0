/**
 * Waits and runs that outlive one tool call. A client kills a call that
 * blocks too long (Codex and claude.ai at 60 s), so no call blocks longer
 * than the server's call budget (--call-budget-ms): the wait or run goes on
 * in the background under a `continue` token, the call answers `running`,
 * and the next call with that token takes over where the last one left (the
 * work never stopped, so nothing it saw in between is lost). The work itself
 * ends by its own timeout_ms, so an abandoned token costs nothing for long.
 *
 * While a call follows the work, the work's progress notifications go to that
 * call and that call's cancellation cancels the work (a {@linkcode Relay}).
 *
 * @example
 * ```ts
 * declare const lot: ParkingLot; // the server's: `ctx.exec.parked`
 * declare const ctx: import("./context.ts").CallControl; // the call's
 * const p = lot.start("wait (what: text)", (control) => Promise.resolve(`cancelled: ${control.signal.aborted}`), {});
 * const turn = await lot.follow(p, ctx, 50_000);
 * if (turn.kind === "running") console.log(`continue with ${turn.token}`);
 * ```
 */
import type { CallControl } from "./context.ts";
import { UserError } from "../errors.ts";

/**
 * The control a background work uses: its cancellation fires when the call
 * following it is cancelled; its progress goes to that call (none between calls).
 */
export class Relay implements CallControl {
  #abort = new AbortController();
  #call: CallControl | undefined;
  #last = -1;
  /** performance.now() of the last notification sent. */
  lastSent = 0;

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Forwards to the call following the work; values only increase, whoever reports (MCP asks that). */
  progress = (progress: number, total?: number, message?: string): Promise<void> => {
    if (!this.#call) return Promise.resolve();
    this.#last = Math.max(progress, this.#last + 1);
    this.lastSent = performance.now();
    return this.#call.progress(this.#last, total, message);
  };

  /** Hands the work to `call` until the returned function is called. */
  attach(call: CallControl): () => void {
    this.#call = call;
    const cancel = () => this.#abort.abort();
    if (call.signal.aborted) cancel();
    else call.signal.addEventListener("abort", cancel, { once: true });
    return () => {
      call.signal.removeEventListener("abort", cancel);
      if (this.#call === call) this.#call = undefined;
    };
  }

  /** Ends the work (the server's exit). */
  cancel(): void {
    this.#abort.abort();
  }
}

/** A work in the background, with what its tool keeps about it. */
export interface Parked<T, M = unknown> {
  token: string;
  kind: string;
  work: Promise<T>;
  relay: Relay;
  /** What the tool needs for a `running` answer (the pane, a log cursor…). */
  meta: M;
  /** performance.now() when the work started. */
  since: number;
  /** Frees what the work holds (a run's output log) once its result is returned or dropped. */
  dispose?: () => void;
}

export type Turn<T> = { kind: "done"; value: T } | { kind: "running"; token: string };

/**
 * The longest a followed work goes without a progress notification: the
 * phases that report none themselves (a pane lock, a shell still starting)
 * get a heartbeat. Claude Code restarts its idle timeout at each one.
 */
export const HEARTBEAT_MS = 5000;

/** How long a finished work's result waits for its continuation call. */
const KEEP_DONE_MS = 10 * 60_000;

/**
 * The most works parked at once (each holds a watch of a pane, a run its output log). A new work past it takes the
 * place of the oldest uncollected result; with none, it is refused until one is collected or ends.
 */
export const MAX_PARKED = 32;
const TOKEN = /^c[0-9a-f]{16}$/;

function newToken(): string {
  const b = crypto.getRandomValues(new Uint8Array(8));
  return "c" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** The works of one server that a call left running. */
export class ParkingLot {
  #items = new Map<
    string,
    { parked: Parked<unknown>; busy: boolean; watched: boolean; timer?: ReturnType<typeof setTimeout> }
  >();

  /**
   * Starts `run` in the background (not yet parked: {@linkcode follow} parks it when the budget runs out). `shown`:
   * a token as the caller must give it (with its host), for errors; `dispose`: see {@linkcode Parked.dispose}.
   */
  start<T, M>(
    kind: string,
    run: (control: Relay) => Promise<T>,
    meta: M,
    opts: { shown?: (token: string) => string; dispose?: () => void } = {},
  ): Parked<T, M> {
    this.#makeRoom(opts.shown ?? ((t) => t));
    const relay = new Relay();
    const work = run(relay);
    // Settled while nobody follows it: no unhandled rejection; the next follower sees the error.
    work.catch(() => {});
    return { token: newToken(), kind, work, relay, meta, since: performance.now(), dispose: opts.dispose };
  }

  /**
   * The work a `continue` token names; a clear error for a bad, foreign, finished or busy one. `again`: what to do
   * when the token is unknown (a wait starts again; a command may have run already).
   */
  take<T, M>(kind: string, token: string, toolCall: string, again = "start again"): Parked<T, M> {
    if (!TOKEN.test(token)) {
      throw new UserError(
        `continue ${JSON.stringify(token.slice(0, 40))} is not a token this server returned: pass it exactly as ` +
          `a running result gave it`,
      );
    }
    const item = this.#items.get(token);
    if (!item) {
      throw new UserError(
        `continue token ${token} is unknown: its result was already returned, it ended more than ` +
          `${KEEP_DONE_MS / 60_000} minutes ago or made room for newer ones (at most ${MAX_PARKED} are kept), ` +
          `or it came from another server process; ${again}`,
      );
    }
    if (item.parked.kind !== kind) {
      throw new UserError(`continue token ${token} belongs to ${item.parked.kind}: call ${item.parked.kind} with it`);
    }
    if (item.busy) {
      throw new UserError(`continue token ${token} is being followed by another ${toolCall} call: wait for that one`);
    }
    return item.parked as Parked<T, M>;
  }

  /**
   * Follows the work for at most `budgetMs`: its result when it ends in time
   * (the token is then forgotten), else `running` with the token to continue.
   * The work's error is this call's error.
   */
  async follow<T>(p: Parked<T, unknown>, call: CallControl, budgetMs: number): Promise<Turn<T>> {
    const existing = this.#items.get(p.token);
    if (existing) existing.busy = true;
    const detach = p.relay.attach(call);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const heartbeat = setInterval(() => {
      const now = performance.now();
      if (now - p.relay.lastSent < HEARTBEAT_MS) return;
      const s = ((now - p.since) / 1000).toFixed(1);
      void p.relay.progress(Math.round(now - p.since), undefined, `${p.kind} still working: ${s} s since it started`);
    }, HEARTBEAT_MS / 5);
    try {
      const turn = await Promise.race<Turn<T>>([
        p.work.then((value) => ({ kind: "done", value })),
        new Promise((resolve) => {
          timer = setTimeout(() => resolve({ kind: "running", token: p.token }), Math.max(0, budgetMs));
        }),
      ]);
      if (turn.kind === "done") this.#end(p);
      else this.#park(p);
      return turn;
    } catch (e) {
      this.#end(p);
      throw e;
    } finally {
      clearTimeout(timer);
      clearInterval(heartbeat);
      detach();
    }
  }

  /** Drops the oldest uncollected result when the lot is full; refuses a new work when all still run. */
  #makeRoom(shown: (token: string) => string): void {
    if (this.#items.size < MAX_PARKED) return;
    for (const [token, item] of this.#items) {
      if (item.timer !== undefined && !item.busy) return this.#forget(token);
    }
    const [oldest] = this.#items.values();
    const mins = ((performance.now() - oldest.parked.since) / 60_000).toFixed(0);
    throw new UserError(
      `${this.#items.size} waits and runs left running by earlier calls still go on (the most this server keeps): ` +
        `continue one with its token (the oldest, ${oldest.parked.kind} from ${mins} min ago, is ` +
        `${shown(oldest.parked.token)}) or let one reach its timeout_ms, then retry`,
    );
  }

  #park(p: Parked<unknown>): void {
    const item = this.#items.get(p.token) ?? { parked: p, busy: false, watched: false };
    item.busy = false;
    this.#items.set(p.token, item);
    if (!item.watched) {
      item.watched = true;
      // A result nobody comes back for is dropped a while after the work ended.
      void p.work.catch(() => {}).finally(() => {
        if (this.#items.get(p.token) !== item) return;
        item.timer = setTimeout(() => this.#forget(p.token), KEEP_DONE_MS);
        Deno.unrefTimer(item.timer);
      });
    }
  }

  #forget(token: string): void {
    const item = this.#items.get(token);
    if (item?.timer !== undefined) clearTimeout(item.timer);
    this.#items.delete(token);
    item?.parked.dispose?.();
  }

  /** The work's result or error went to its caller: nothing is kept of it (a first call's work was never parked). */
  #end(p: Parked<unknown>): void {
    this.#forget(p.token);
    p.dispose?.();
  }

  /** Works still parked (tests, diagnostics). */
  get size(): number {
    return this.#items.size;
  }

  /** Cancels every parked work (the server's exit). */
  close(): void {
    for (const { parked } of this.#items.values()) parked.relay.cancel();
    for (const token of [...this.#items.keys()]) this.#forget(token);
  }
}

/** The time left of this call's budget, counted from `started` (performance.now() when the call began). */
export function budgetLeft(budgetMs: number, started: number): number {
  return Math.max(0, budgetMs - (performance.now() - started));
}
