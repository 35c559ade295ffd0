/**
 * pty_request_input's hand-off: tell the human how to reach the session, then
 * wait (with progress notifications) until they are done. Done means one of:
 * the program was reading a line without echo (a password prompt) and no
 * longer is (it read the secret; polling the terminal mode, not the screen,
 * so a shell's line editor switching to raw mode right after counts too), a
 * human attached and then every client detached, or the program exited.
 * Nothing the human typed is ever read or returned.
 *
 * @example
 * ```ts
 * declare const backend: Parameters<typeof handOff>[0];
 * declare const { signal, progress }: Parameters<typeof handOff>[3]; // the call's
 * const r = await handOff(backend, "s1", "Enter the sudo password", { timeoutMs: 120_000, signal, progress });
 * r.outcome; // "input_received" | "detached" | "exited" | "timeout" | "cancelled" | "unavailable"
 * ```
 */
import type { TerminalBackend } from "./backend.ts";

export type HandOffOutcome = "input_received" | "detached" | "exited" | "timeout" | "cancelled" | "unavailable";

export interface HandOffResult {
  outcome: HandOffOutcome;
  /** For the model: what happened and what to do next. */
  message: string;
  /** The command the human was given (tmux backend). */
  attach_command?: string;
  waited_ms: number;
}

export interface HandOffOptions {
  timeoutMs: number;
  signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** How often the session is looked at. */
  pollMs?: number;
}

const PROGRESS_EVERY_MS = 1000;

const NEXT: Record<Exclude<HandOffOutcome, "unavailable" | "timeout">, string> = {
  input_received: "the program read the hidden input (its terminal left the no-echo line mode of the " +
    "prompt); continue with pty_get_screen",
  detached: "the human attached and detached again; continue with pty_get_screen",
  exited: "the program exited; pty_list_sessions shows its exit code, pty_get_screen its last screen",
  cancelled: "the hand-off was cancelled",
};

/** Runs the hand-off for one session. */
export async function handOff(
  backend: TerminalBackend,
  id: string,
  prompt: string,
  opts: HandOffOptions,
): Promise<HandOffResult> {
  const route = await backend.handOffRoute(id, prompt);
  if ("unavailable" in route) return { outcome: "unavailable", message: route.unavailable, waited_ms: 0 };
  const attach = route.attachCommand;
  const started = Date.now();
  const totalSeconds = Math.ceil(opts.timeoutMs / 1000);
  const instruction = `${prompt} — run \`${attach}\` in a terminal, do what is asked, then detach ` +
    "(tmux prefix then d, usually Ctrl-b d)";
  const done = (outcome: HandOffOutcome, message: string): HandOffResult => ({
    outcome,
    message,
    attach_command: attach,
    waited_ms: Date.now() - started,
  });

  const first = await backend.inputState(id);
  if (first.exited) return done("exited", NEXT.exited);
  const passwordPrompt = first.hiddenInput === true;
  let sawClient = first.clients > 0;
  let clients = first.clients;
  if (sawClient) await backend.notifyAttached(id, prompt);
  await opts.progress(0, totalSeconds, instruction);
  let lastProgress = Date.now();

  while (!opts.signal.aborted) {
    const left = opts.timeoutMs - (Date.now() - started);
    if (left <= 0) {
      return done(
        "timeout",
        `nobody finished within ${totalSeconds} s; the human was told: ${instruction}. ` +
          "Ask the user in the chat, or call pty_request_input again",
      );
    }
    await sleep(Math.min(opts.pollMs ?? 250, left), opts.signal);
    if (opts.signal.aborted) break;
    const state = await backend.inputState(id);
    if (state.exited) return done("exited", NEXT.exited);
    if (state.clients > clients) await backend.notifyAttached(id, prompt);
    clients = state.clients;
    if (clients > 0) sawClient = true;
    else if (sawClient) return done("detached", NEXT.detached);
    if (passwordPrompt && state.hiddenInput === false) return done("input_received", NEXT.input_received);
    if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = Date.now();
      const status = clients > 0 ? "the human is attached" : "waiting for the human to attach";
      await opts.progress(Math.floor((Date.now() - started) / 1000), totalSeconds, `${status}: ${instruction}`);
    }
  }
  return done("cancelled", NEXT.cancelled);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(finish, ms);
    signal.addEventListener("abort", finish, { once: true });
    function finish() {
      clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      resolve();
    }
  });
}
