/**
 * One case of the hostile-input corpus (tests/hostile_corpus_test.ts runs
 * every module listed there). A case is a tool call a misbehaving model might
 * make, and what the server must do with it.
 *
 * Placeholders the runner substitutes in any string of `args` (keys too):
 * - `{{CANARY}}`: an absolute path, unique per case, that must never be
 *   created (the runner checks after the call and again at the end);
 * - `{{FIXTURES}}`: a directory holding `fifo` (a FIFO nobody opens), `dir/`,
 *   `file.txt` (a regular file, "hello\n"), `out/` (writable) and symlinks
 *   `link-environ`, `link-zero`, `link-urandom`, `link-stdout`, `link-stdin`,
 *   `link-fifo`, `link-dir`, `link-file`, `link-dangling`, `proc` (→ /proc/self);
 * - `{{PANE}}`, `{{WINDOW}}`, `{{SESSION}}`: ids of a scratch session running
 *   `cat > /dev/null` (text typed there goes nowhere);
 * - `{{PTY}}`: a pty-* session running `cat > /dev/null` on servers that can
 *   launch one (mutating and destructive), else an id that does not exist;
 * - `{{CURSOR_PID}}`: the pid in a capture-since cursor of `{{PANE}}`, for forged cursors;
 *   a string `tmc1.B64:<json>` is encoded as a cursor (`tmc1.` + base64url) after substitution.
 *
 * @example
 * ```ts
 * const c: HostileCase = {
 *   name: "load-buffer from a FIFO with no writer",
 *   tool: "load-buffer",
 *   args: { name: "x", path: "{{FIXTURES}}/fifo" },
 *   expect: "refused",
 *   match: /FIFO/,
 * };
 * ```
 */
export interface HostileCase {
  /** Unique and readable. */
  name: string;
  tool: string;
  /** May contain the placeholders above. */
  args: Record<string, unknown>;
  /** Server tier for this case (default mutating). */
  safety?: "readonly" | "mutating" | "destructive";
  /** refused/error: an isError result; ok: succeeds harmlessly. */
  expect: "refused" | "error" | "ok";
  /** The error text must match. */
  match?: RegExp;
}
