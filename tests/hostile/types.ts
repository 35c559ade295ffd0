/**
 * One hostile input for the corpus runners: a tool call a misbehaving model
 * might make, and what the server must do with it.
 *
 * @example
 * ```ts
 * const c: HostileCase = { name: "hook kill-server", tool: "set-option", args: {...}, expect: "refused", match: /destructive/ };
 * ```
 */
export interface HostileCase {
  /** Unique, readable. */
  name: string;
  tool: string;
  /** May contain the placeholder "{{CANARY}}": an absolute file path that must never be created. */
  args: Record<string, unknown>;
  /** Server tier for this case (default mutating). */
  safety?: "readonly" | "mutating" | "destructive";
  /** refused/error = an isError result; ok = succeeds harmlessly. */
  expect: "refused" | "error" | "ok";
  /** The error text must match. */
  match?: RegExp;
}
