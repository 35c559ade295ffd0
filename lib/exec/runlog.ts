/**
 * A run's output as lines, read from the pane's output stream (control mode)
 * between the run's start and end markers, independent of tmux's history
 * limit: what a `running` answer hands out page by page (every line once),
 * and the whole output when the final answer must cut it.
 *
 * Lines are complete lines (the unfinished last one comes with
 * {@linkcode RunLog.finish}), colours and cursor movements dropped, a `\r`
 * progress line as it stood when its newline came. Memory is bounded: past
 * {@linkcode MAX_LOG_BYTES}, or past {@linkcode MAX_POOL_BYTES} for the logs
 * of one server together (up to 32 runs are kept between calls), the oldest
 * lines not yet handed out of the log being written are dropped and counted.
 *
 * @example
 * ```ts
 * const log = new RunLog();
 * log.active = true;
 * log.push(new TextEncoder().encode("one\ntwo\nthr"));
 * log.take(10); // { lines: ["one", "two"], lost: 0 }
 * log.finish();
 * log.take(10); // { lines: ["thr"], lost: 0 }
 * ```
 */
import { LineAssembler } from "./stream.ts";

/** Bytes of lines a log keeps at most. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;
/** Columns kept per line. */
export const MAX_LOG_LINE = 1024 * 1024;
/** Bytes of lines the logs of one server's runs keep together at most. */
export const MAX_POOL_BYTES = 256 * 1024 * 1024;

/** What the logs of one server's runs hold together. */
export class LogPool {
  bytes = 0;
  constructor(readonly limit = MAX_POOL_BYTES) {}
}

export class RunLog {
  #pool: LogPool;
  /** Set while the command runs (between its markers): only then do bytes count. */
  active = false;
  #lines: string[] = [];
  #bytes = 0;
  #lost = 0;
  #total = 0;
  #taken = false;
  #finished = false;
  #asm = new LineAssembler((text, complete) => {
    if (complete) this.#add(text);
  }, { blankLines: true, maxLine: MAX_LOG_LINE });

  /** `pool`: the server's (`ctx.exec.logs`), shared by the logs of all its runs. */
  constructor(pool = new LogPool()) {
    this.#pool = pool;
  }

  /** Counts `n` more bytes kept (fewer when negative), here and in the pool. */
  #grow(n: number): void {
    this.#bytes += n;
    this.#pool.bytes += n;
  }

  /** Feeds the pane's output bytes (ignored unless {@linkcode active}). */
  push(bytes: Uint8Array): void {
    if (this.active && !this.#finished) this.#asm.push(bytes);
  }

  #add(line: string): void {
    this.#lines.push(line);
    this.#total++;
    this.#grow(line.length + 1);
    while ((this.#bytes > MAX_LOG_BYTES || this.#pool.bytes > this.#pool.limit) && this.#lines.length > 1) {
      this.#grow(-(this.#lines.shift()!.length + 1));
      this.#lost++;
    }
  }

  /** The command ended: its unfinished last line counts as a line. */
  finish(): void {
    if (this.#finished) return;
    const rest = this.#asm.partial;
    if (rest !== "") this.#add(rest);
    this.#finished = true;
    this.active = false;
  }

  /** The pane's width, once known: cursor moves stop at a row's right margin ({@linkcode LineAssembler.width}). */
  set width(w: number) {
    this.#asm.width = w;
  }

  /** Lines cut to their first {@linkcode MAX_LOG_LINE} columns. */
  get cut(): number {
    return this.#asm.cut;
  }

  /** Lines kept and not handed out yet. */
  get pending(): number {
    return this.#lines.length;
  }

  /** Lines seen in all. */
  get total(): number {
    return this.#total;
  }

  /** Whether {@linkcode take} handed out a page (a running answer): the rest must come from here too. */
  get handedOut(): boolean {
    return this.#taken;
  }

  /** Hands out (and forgets) the next `max` lines; `lost`: lines dropped before them for memory. */
  take(max: number): { lines: string[]; lost: number } {
    const lines = this.#lines.splice(0, max);
    for (const l of lines) this.#grow(-(l.length + 1));
    const lost = this.#lost;
    this.#lost = 0;
    this.#taken = true;
    return { lines, lost };
  }

  /**
   * Puts back a page {@linkcode take} handed out that reached nobody (its call was cut or cancelled first): it
   * goes out again, first. `handedOut`: {@linkcode handedOut} before that take.
   */
  giveBack(page: { lines: string[]; lost: number }, handedOut: boolean): void {
    this.#lines.unshift(...page.lines);
    for (const l of page.lines) this.#grow(l.length + 1);
    this.#lost += page.lost;
    this.#taken = handedOut;
  }

  /**
   * The run's answer went out (or was dropped): its lines leave the pool, and the log takes no more (its counts
   * stay).
   */
  release(): void {
    this.finish();
    this.#grow(-this.#bytes);
    this.#lines = [];
  }

  /** Every line kept (not handed out), without handing them out; `lost` as in {@linkcode take}. */
  peekAll(): { lines: readonly string[]; lost: number } {
    return { lines: this.#lines, lost: this.#lost };
  }
}
