/**
 * The pure half of the self-kill guard: given where this tmux-mcp process
 * runs (lib/tmux/self.ts finds that on the server), whether killing an
 * object or typing into a pane would end the process itself. No tmux call.
 *
 * @example
 * ```ts
 * const loc: SelfLocation = {
 *   inServer: true,
 *   pane_ids: ["%3"],
 *   window_ids: ["@2"],
 *   session_ids: ["$1"],
 *   evidence: ["TMUX_PANE"],
 * };
 * selfKillRefusal(loc, "window", { window_id: "@2" }); // "refusing to kill window @2: the tmux-mcp server itself runs inside it …"
 * selfKillRefusal(loc, "window", { window_id: "@5" }); // undefined
 * ```
 */

/** Where this process runs on the configured tmux server. */
export interface SelfLocation {
  /** The configured server's socket path (undefined when it has no panes to report it). */
  socket_path?: string;
  /** This process runs inside the configured server (in a pane, or as one of its jobs). */
  inServer: boolean;
  /** Our pane(s): usually one; two if environment and process tree disagree (both are protected). */
  pane_ids: string[];
  window_ids: string[];
  /** Every session our window is linked into. */
  session_ids: string[];
  /** How it was found, for messages: "TMUX_PANE", "process tree". */
  evidence: string[];
}

/** The kinds of object the kill tools end. */
export type SelfKillKind = "pane" | "window" | "session" | "server";

/** The resolved ids of the object to kill: pane_id for "pane", window_id for "window", session_id for "session". */
export interface SelfKillIds {
  session_id?: string;
  window_id?: string;
  pane_id?: string;
}

/**
 * Why killing this object would kill the tmux-mcp process itself (the
 * message of the refusal), or undefined when it would not. `action` names
 * the deed in the message ("kill" unless given).
 */
export function selfKillRefusal(
  loc: SelfLocation,
  kind: SelfKillKind,
  ids: SelfKillIds,
  action = "kill",
): string | undefined {
  const hit = kind === "server"
    ? loc.inServer
    : kind === "pane"
    ? loc.pane_ids.includes(ids.pane_id ?? "")
    : kind === "window"
    ? loc.window_ids.includes(ids.window_id ?? "")
    : loc.session_ids.includes(ids.session_id ?? "");
  if (!hit) return undefined;
  const what = kind === "server"
    ? `the tmux server at ${loc.socket_path ?? "this socket"}`
    : `${kind} ${kind === "pane" ? ids.pane_id : kind === "window" ? ids.window_id : ids.session_id}`;
  const where = loc.pane_ids.length ? ` (pane ${loc.pane_ids.join(", ")})` : "";
  return (
    `refusing to ${action} ${what}: the tmux-mcp server itself runs inside it${where}, so this ` +
    `would end the MCP connection and likely the agent (found by ${loc.evidence.join(" and ")}); choose another ${
      kind === "server" ? "socket" : kind
    }, ` +
    `or ask the user to do it by hand`
  );
}

/** What a typing tool is about to send into a pane. */
export interface TypedInput {
  /** Literal text (send-keys text, paste-text, run-command's command line). */
  text?: string;
  /** tmux key names, in order. */
  keys?: readonly string[];
  /** Enter is pressed after everything. */
  enter?: boolean;
}

// Bytes a terminal turns into a signal or end of input for the foreground process: ^C SIGINT, ^\ SIGQUIT,
// ^Z SIGTSTP, ^D end of file.
const SIGNAL_BYTES: Readonly<Record<string, string>> = {
  "\x03": "C-c (SIGINT)",
  "\x1c": "C-\\ (SIGQUIT)",
  "\x1a": "C-z (SIGTSTP)",
  "\x04": "C-d (end of input)",
};
// Words that end or signal a process when typed into a shell and submitted.
const ENDING_WORDS =
  /(?:^|[^\w-])(exit|logout|kill|pkill|killall|exec|tmux|shutdown|reboot|halt|poweroff|suspend)(?![\w-])/;

/**
 * Why typing `input` into a pane could signal or end the process that runs
 * there (a key or byte that the terminal turns into a signal, or an ending
 * command submitted with Enter), or undefined. `keyBytes` reads a key name
 * as tmux sends it (`keySequence` of lib/tmux/keys.ts; undefined: not a key).
 *
 * @example
 * ```ts
 * const keyBytes = (k: string) => ({ "C-c": "\x03", Enter: "\r" } as Record<string, string>)[k];
 * endingInput({ keys: ["C-c"] }, keyBytes); // "the key C-c is C-c (SIGINT)"
 * endingInput({ text: "exit", enter: true }, keyBytes); // "the command word exit, submitted with Enter"
 * endingInput({ text: "ls -l", enter: true }, keyBytes); // undefined
 * ```
 */
export function endingInput(input: TypedInput, keyBytes: (name: string) => string | undefined): string | undefined {
  const keySeqs = (input.keys ?? []).map((k) => [k, keyBytes(k) ?? ""] as const);
  for (const [name, seq] of keySeqs) {
    for (const [byte, what] of Object.entries(SIGNAL_BYTES)) {
      if (seq.includes(byte)) return `the key ${name} is ${what}`;
    }
  }
  const text = input.text ?? "";
  for (const [byte, what] of Object.entries(SIGNAL_BYTES)) {
    if (text.includes(byte)) return `the text holds the byte of ${what}`;
  }
  // Single-character keys type text too ("e","x","i","t","Enter").
  const typed = text + keySeqs.map(([, seq]) => (seq.length === 1 && seq >= " " ? seq : "\n")).join("");
  const submitted = input.enter || /[\r\n]/.test(typed) || keySeqs.some(([, seq]) => seq === "\r" || seq === "\n");
  const word = ENDING_WORDS.exec(typed);
  if (submitted && word) return `the command word ${word[1]}, submitted with Enter`;
  return undefined;
}
