/**
 * Asking the human through the MCP client (elicitation): the one small
 * interface a tool's hand-off sees, whichever protocol era carries it. In
 * the 2025 era the server sends `elicitation/create` and awaits the answer
 * (lib/server/ask.ts `legacyAsker`); in the 2026-07-28 era the call is
 * parked and answered with an `InputRequiredResult`, and the client's retry
 * resumes it (lib/server/ask.ts `Parking`). The tool cannot tell which.
 *
 * @example
 * ```ts
 * declare const ask: Asker; // the call's `ctx.ask`, undefined when the client cannot be asked
 * const a = await ask.form({ message: "Overwrite build/?", field: "answer", type: "boolean" }, AbortSignal.timeout(60_000));
 * if (a.action === "accept" && a.value === true) {
 *   // type "y" and Enter
 * }
 * ```
 */

/** A form question with one field (the restricted, flat schema form mode allows). Never for secrets. */
export interface FormQuestion {
  message: string;
  /** The field's name in the form. */
  field: string;
  type: "boolean" | "string";
  /** The field's label. */
  title?: string;
}

/**
 * A URL-mode question: the client offers the human to open `url` (a page
 * outside the client, where a secret can be typed without passing through
 * the client or the model). `id` correlates the completion notice.
 */
export interface UrlQuestion {
  message: string;
  url: string;
  id: string;
}

/**
 * The human's reply. `accept` of a form carries the field's value (already
 * checked against the field's type); `accept` of a URL question means they
 * agreed to open it, not that they finished. `timeout`: no reply in time.
 */
export type Answer =
  | { action: "accept"; value?: string | boolean }
  | { action: "decline" }
  | { action: "cancel" }
  | { action: "timeout" };

/** The human, as far as the client lets the server reach them. */
export interface Asker {
  /** The elicitation modes the client declared. */
  readonly modes: { readonly form: boolean; readonly url: boolean };
  /** Asks a form question (only when `modes.form`). */
  form(q: FormQuestion, signal: AbortSignal): Promise<Answer>;
  /** Asks the human to open a URL (only when `modes.url`). */
  url(q: UrlQuestion, signal: AbortSignal): Promise<Answer>;
  /** Tells the client the interaction behind URL question `id` finished (best effort). */
  completed(id: string): Promise<void>;
  /**
   * 2026 era: a question ends the request's round (an input-required result) and the call waits, parked, for the
   * client's retry — between requests, so that time is no request's (the call budget does not count it).
   */
  readonly parks?: boolean;
}
