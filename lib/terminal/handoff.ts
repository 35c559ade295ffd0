/**
 * request-input's hand-off, for a pty session or a workspace pane (each a
 * {@linkcode HandOffSubject}). When the client can be asked (elicitation,
 * {@linkcode Asker}) and the program waits at a password or yes/no prompt,
 * the human is asked through the client: a yes/no by a form, whose answer is
 * typed; a secret by URL mode, a one-shot page on 127.0.0.1
 * (./secret_page.ts) whose answer goes straight to the program. Form mode is
 * never used for a secret (the specification forbids it: the answer would
 * pass through the client), so a client without URL mode gets the attach
 * route for one. Decline, cancel and timeout type nothing.
 *
 * Otherwise the human is told how to reach the session (an attach command),
 * and the hand-off waits (with progress notifications) until they are done.
 * Done means one of: the program was reading a line without echo (a
 * password prompt) and no longer is (it read the secret; polling the
 * terminal mode, not the screen, so a shell's line editor switching to raw
 * mode right after counts too), a human attached and then every client
 * detached, or the program exited. Nothing the human typed is ever read or
 * returned.
 *
 * @example
 * ```ts
 * declare const backend: Parameters<typeof ptySubject>[0];
 * declare const { signal, progress, ask }: Parameters<typeof handOff>[2]; // the call's
 * const r = await handOff(ptySubject(backend, "s1"), "Enter the sudo password", { timeoutMs: 120_000, signal, progress, ask });
 * r.outcome; // "input_received" | "declined" | "detached" | "exited" | "timeout" | "cancelled" | "unavailable"
 * ```
 */
import type { Answer, Asker } from "../ask.ts";
import { UserError } from "../errors.ts";
import { confirmWords, readsKeyByKey, type ScreenFacts, screenPrompt } from "../text/prompt_kind.ts";
import { durationText } from "../text/duration.ts";
import { openSecretPage } from "./secret_page.ts";
import type { Redactor } from "../text/redact.ts";
import { redactedExcerpt } from "../text/redact_page.ts";
import type { HandOffRoute, InputState, TerminalBackend } from "./backend.ts";

/**
 * What a hand-off works on: a pty session ({@linkcode ptySubject}) or a
 * workspace pane (lib/exec/pane_handoff.ts). Nothing here ever reads what
 * the human typed.
 */
export interface HandOffSubject {
  /** Names it in messages: `pty session "s1"`, `pane %3`. */
  readonly label: string;
  /** The call that shows its screen now, for the model's next step. */
  readonly look: string;
  /** What to call after its program exited. */
  readonly afterExit: string;
  /** The visible screen's lines, and what is known of its terminal (for a pane). */
  screen(): Promise<{ lines: string[] } & ScreenFacts>;
  /** Writes bytes to its program's terminal input, exactly as given. */
  send(bytes: Uint8Array): Promise<void>;
  inputState(): Promise<InputState>;
  route(prompt: string): Promise<HandOffRoute>;
  /** Shows `message` to humans attached, if any. */
  notifyAttached(message: string): Promise<void>;
  /** Throws a UserError when what the server would type could not reach this subject alone (before asking). */
  refuseTyping?(): Promise<void>;
}

/** A pty session as a {@linkcode HandOffSubject}. */
export function ptySubject(backend: TerminalBackend, id: string): HandOffSubject {
  return {
    label: `pty session "${id}"`,
    look: "pty-get-screen",
    afterExit: "pty-list-sessions shows its exit code, pty-get-screen its last screen",
    async screen() {
      return { lines: (await backend.screen(id, false)).lines };
    },
    send: (bytes) => backend.send(id, bytes, { secret: true }),
    inputState: () => backend.inputState(id),
    route: (prompt) => backend.handOffRoute(id, prompt),
    notifyAttached: (message) => backend.notifyAttached(id, message),
  };
}

export type HandOffOutcome =
  | "input_received"
  | "declined"
  | "detached"
  | "exited"
  | "timeout"
  | "cancelled"
  | "unavailable";

export interface HandOffResult {
  outcome: HandOffOutcome;
  /** For the model: what happened and what to do next. */
  message: string;
  /** The command the human was given (tmux backend, when not asked through the client). */
  attach_command?: string;
  /** How the human was reached (absent when nobody was). */
  via?: "form" | "url" | "attach";
  waited_ms: number;
}

export interface HandOffOptions {
  timeoutMs: number;
  signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** How often the session is looked at. */
  pollMs?: number;
  /** The client, when it can ask the human (elicitation). */
  ask?: Asker;
  /** The call's redactor (undefined: --redact off), for the program's prompt line quoted in a message. */
  redactor?: Redactor;
}

/**
 * The end of a screen line (at most `max` characters, trimmed) for a message: an error or a question to the
 * client, which may log it or show it to the model. Redacted as the line it is (a token at its start, or one the
 * cut splits, is judged whole), before the message puts it mid-line, where a redaction of the message would no
 * longer see the line's edges.
 */
function lineEnd(line: string, max: number, redactor: Redactor | undefined): Promise<string> {
  const trimmed = line.trim();
  // With its line break: a screen's line, whose edges the rules for cut tokens look at, not a one-word value.
  return redactedExcerpt(redactor, trimmed + "\n", Math.max(0, trimmed.length - max), trimmed.length);
}

const PROGRESS_EVERY_MS = 1000;

/** What happened and what to call next, per outcome. */
function next(s: HandOffSubject, outcome: Exclude<HandOffOutcome, "unavailable" | "timeout" | "declined">): string {
  switch (outcome) {
    case "input_received":
      return "the program read the hidden input (its terminal left the no-echo line mode of the prompt); " +
        `continue with ${s.look}`;
    case "detached":
      return `the human attached and detached again; continue with ${s.look}`;
    case "exited":
      return `the program exited; ${s.afterExit}`;
    case "cancelled":
      return "the hand-off was cancelled";
  }
}

/** Runs the hand-off for one session or pane. */
export async function handOff(
  subject: HandOffSubject,
  prompt: string,
  opts: HandOffOptions,
): Promise<HandOffResult> {
  if (opts.ask) {
    const asked = await askThroughClient(subject, prompt, opts, opts.ask);
    if (asked) return asked;
  }
  const route = await subject.route(prompt);
  if ("unavailable" in route) {
    // A program that has ended takes input from nobody: that, not how a human would reach it, is the answer.
    if ((await subject.inputState()).exited) {
      return { outcome: "exited", message: next(subject, "exited"), waited_ms: 0 };
    }
    return { outcome: "unavailable", message: route.unavailable, via: "attach", waited_ms: 0 };
  }
  const attach = route.attachCommand;
  const started = Date.now();
  const totalSeconds = Math.ceil(opts.timeoutMs / 1000);
  const instruction = `${prompt} — run \`${attach}\` in a terminal, do what is asked, then detach ` +
    "(tmux prefix then d, usually Ctrl-b d)";
  const done = (outcome: HandOffOutcome, message: string): HandOffResult => ({
    outcome,
    message,
    attach_command: attach,
    via: "attach",
    waited_ms: Date.now() - started,
  });

  const first = await subject.inputState();
  if (first.exited) return done("exited", next(subject, "exited"));
  const passwordPrompt = first.hiddenInput === true;
  let sawClient = first.clients > 0;
  let clients = first.clients;
  if (sawClient) await subject.notifyAttached(prompt);
  await opts.progress(0, totalSeconds, instruction);
  let lastProgress = Date.now();

  while (!opts.signal.aborted) {
    const left = opts.timeoutMs - (Date.now() - started);
    if (left <= 0) {
      return done(
        "timeout",
        `nobody finished within ${durationText(opts.timeoutMs)}; the human was told: ${instruction}. ` +
          "Ask the user in the chat, or call request-input again",
      );
    }
    await sleep(Math.min(opts.pollMs ?? 250, left), opts.signal);
    if (opts.signal.aborted) break;
    const state = await subject.inputState();
    if (state.exited) return done("exited", next(subject, "exited"));
    if (state.clients > clients) await subject.notifyAttached(prompt);
    clients = state.clients;
    if (clients > 0) sawClient = true;
    else if (sawClient) return done("detached", next(subject, "detached"));
    if (passwordPrompt && state.hiddenInput === false) return done("input_received", next(subject, "input_received"));
    if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = Date.now();
      const status = clients > 0 ? "the human is attached" : "waiting for the human to attach";
      await opts.progress(Math.floor((Date.now() - started) / 1000), totalSeconds, `${status}: ${instruction}`);
    }
  }
  return done("cancelled", next(subject, "cancelled"));
}

/** How long a call waits for the program to show its prompt (it may have been started a moment ago). */
const PROMPT_WAIT_MS = 10_000;
/** After typing a secret: how long to wait for the program to leave its no-echo read, for the message. */
const READ_WAIT_MS = 5_000;

const UNTOUCHED = "nothing was typed and the session is as it was";
const promptGone = (s: HandOffSubject) =>
  `the prompt went away before the answer came: nothing was typed; look with ${s.look}`;

/**
 * What the subject waits at now: a secret or yes/no prompt (with its line),
 * "exited", or no prompt. The terminal's mode decides where it is known: a
 * no-echo line read is a secret prompt whatever the screen says, and a shell
 * reading at its own prompt is no prompt however the line above reads (an
 * answer typed there would run as a command and stay in its history).
 */
async function promptNow(
  subject: HandOffSubject,
): Promise<
  { kind: "secret" | "confirm"; line: string } | "exited" | { kind: undefined; line: string; echoed?: true }
> {
  const state = await subject.inputState();
  if (state.exited) return "exited";
  const { lines, ...facts } = await subject.screen();
  const found = screenPrompt(lines, facts);
  // A pinentry on the alternate screen puts the terminal in raw mode while the shell that started gpg (a script,
  // without job control) is still the foreground group: that is not the shell reading at its prompt.
  if (state.atShellPrompt && !(found.pinentry && facts.alternate)) return { kind: undefined, line: found.line };
  if (state.hiddenInput) return { kind: "secret", line: found.line };
  // Words of a password prompt on a terminal that echoes: no program reads a secret there (a real prompt turns echo
  // off), and the terminal would show one typed there on the screen, where the model reads it.
  if (found.kind === "secret" && state.echo === true) return { kind: undefined, line: found.line, echoed: true };
  return { kind: found.kind, line: found.line };
}

/**
 * Whether the subject still waits at the prompt the human was asked about (its kind and line): checked again right
 * before typing, as the prompt may have gone meanwhile (it timed out, a second hand-off answered it) and an answer
 * typed at a shell prompt would run as a command and stay in its history, one typed at another question would
 * answer what the human was never asked.
 */
async function stillAt(subject: HandOffSubject, asked: { kind: "secret" | "confirm"; line: string }): Promise<boolean> {
  const now = await promptNow(subject);
  return now !== "exited" && now.kind === asked.kind && now.line.trim() === asked.line.trim();
}

/**
 * Waits (briefly) until the subject's program waits at a secret or yes/no
 * prompt; "exited" when it ended. Throws a UserError when no prompt comes.
 */
async function awaitPrompt(
  subject: HandOffSubject,
  opts: HandOffOptions,
): Promise<{ kind: "secret" | "confirm"; line: string } | "exited"> {
  const until = Date.now() + Math.min(opts.timeoutMs, PROMPT_WAIT_MS);
  for (;;) {
    const now = await promptNow(subject);
    if (now === "exited") return now;
    const { kind, line } = now;
    if (kind) return { kind, line };
    if (Date.now() >= until || opts.signal.aborted) {
      if ("echoed" in now) {
        throw new UserError(
          `${subject.label} shows a password prompt (last line: ${
            JSON.stringify(await lineEnd(line, 80, opts.redactor))
          }) but its ` +
            "terminal echoes what is typed, so a secret typed there would show on the screen: nothing was asked; " +
            `look with ${subject.look}, and call request-input once the program reads without echo`,
        );
      }
      throw new UserError(
        `${subject.label} is not waiting at a password or yes/no prompt (last line: ` +
          `${
            JSON.stringify(await lineEnd(line, 80, opts.redactor))
          }): nothing was asked; call request-input once the ` +
          `program shows its prompt (${subject.look})`,
      );
    }
    await sleep(opts.pollMs ?? 100, opts.signal);
  }
}

/**
 * The hand-off through the client, or undefined when the client cannot
 * carry this prompt (a secret without URL mode, a yes/no without form mode,
 * no local page possible): then the attach route runs.
 */
async function askThroughClient(
  subject: HandOffSubject,
  prompt: string,
  opts: HandOffOptions,
  ask: Asker,
): Promise<HandOffResult | undefined> {
  if (!ask.modes.form && !ask.modes.url) return undefined;
  const started = Date.now();
  const found = await awaitPrompt(subject, opts);
  const done = (outcome: HandOffOutcome, message: string, via?: "form" | "url"): HandOffResult => ({
    outcome,
    message,
    ...(via ? { via } : {}),
    waited_ms: Date.now() - started,
  });
  if (found === "exited") return done("exited", next(subject, "exited"));
  const via = found.kind === "secret" ? "url" : "form";
  if (!ask.modes[via]) return undefined;
  // The server types the answer: refused here, before the human is asked, where it would not reach the program.
  await subject.refuseTyping?.();
  // The program's own question, as the client is shown it.
  const asks = await lineEnd(found.line, via === "url" ? 200 : Infinity, opts.redactor);

  // One signal for the whole exchange: the call's cancellation, or the deadline.
  const totalSeconds = Math.ceil(opts.timeoutMs / 1000);
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort("timeout"), Math.max(0, opts.timeoutMs - (Date.now() - started)));
  const follow = () => ctl.abort("cancelled");
  opts.signal.addEventListener("abort", follow, { once: true });
  if (opts.signal.aborted) follow();
  const status = `asked the human through the client (${via === "url" ? "a local page for the secret" : "a form"})`;
  await opts.progress(0, totalSeconds, status);
  const beat = setInterval(
    () => void opts.progress(Math.floor((Date.now() - started) / 1000), totalSeconds, status).catch(() => {}),
    PROGRESS_EVERY_MS,
  );
  const ended = new Promise<"ended">((resolve) => {
    if (ctl.signal.aborted) resolve("ended");
    else ctl.signal.addEventListener("abort", () => resolve("ended"), { once: true });
  });
  const stopped = () =>
    ctl.signal.reason === "timeout"
      ? done(
        "timeout",
        `nobody answered within ${durationText(opts.timeoutMs)}: ${UNTOUCHED}; ask the user in the chat, or call ` +
          "request-input again",
        via,
      )
      : done("cancelled", `${next(subject, "cancelled")}: ${UNTOUCHED}`, via);
  const refused = (a: Answer) =>
    a.action === "decline"
      ? done("declined", `the human declined: ${UNTOUCHED} (the program still waits at its prompt)`, via)
      : a.action === "timeout"
      ? stopped()
      : done("cancelled", `the human dismissed the request: ${UNTOUCHED}`, via);
  try {
    if (found.kind === "confirm") {
      const words = confirmWords(found.line);
      const asked = ask.form({
        message: `${prompt}\nThe program asks: ${asks}`,
        field: "yes",
        type: "boolean",
        title: "Yes",
      }, ctl.signal);
      asked.catch(() => {}); // settled after the race is decided: not unhandled
      const a = await Promise.race([asked, ended]);
      if (a === "ended") return stopped();
      if (a.action !== "accept") return refused(a);
      if (!(await stillAt(subject, found))) return done("cancelled", promptGone(subject), via);
      // A program that reads key by key (`read -n1`) takes the key alone: an Enter after it would land in whatever
      // reads next. A line editor (readline, Node's) waits for the Enter.
      const enter = readsKeyByKey(await subject.inputState()) ? "" : "\r";
      await subject.send(encoder.encode((a.value === true ? words.yes : words.no) + enter));
      return done("input_received", `the human answered and the answer was typed; continue with ${subject.look}`, via);
    }
    return await secretThroughPage(subject, prompt, { ...found, asks }, ask, ctl.signal, ended, {
      done,
      refused,
      stopped,
    });
  } finally {
    clearTimeout(timer);
    clearInterval(beat);
    opts.signal.removeEventListener("abort", follow);
    ctl.abort("done"); // withdraws a question still open
  }
}

const encoder = new TextEncoder();

/** The secret route: a one-shot local page, offered to the human by a URL-mode question. */
async function secretThroughPage(
  subject: HandOffSubject,
  prompt: string,
  found: { kind: "secret" | "confirm"; line: string; asks: string },
  ask: Asker,
  signal: AbortSignal,
  ended: Promise<"ended">,
  end: {
    done(outcome: HandOffOutcome, message: string, via?: "form" | "url"): HandOffResult;
    refused(a: Answer): HandOffResult;
    stopped(): HandOffResult;
  },
): Promise<HandOffResult | undefined> {
  const gone = Promise.withResolvers<"gone">();
  const expired = { ok: false, text: "This request has expired; nothing was typed." };
  /** The secret on its way to the program, once it is. */
  let typing: Promise<void> | undefined;
  let page;
  try {
    page = await openSecretPage({
      message: prompt,
      // What the program itself asks, as the form of a yes/no shows it: the human judges the model's words by it.
      asks: found.line.trim().slice(-200),
      async deliver(secret) {
        if (signal.aborted) return expired;
        if (!(await stillAt(subject, found))) {
          gone.resolve("gone");
          return { ok: false, text: "The program no longer waits at its password prompt; nothing was typed." };
        }
        // The hand-off may have ended (its deadline, a cancel) while the prompt was looked at, saying nothing was typed.
        if (signal.aborted) return expired;
        const line = new Uint8Array(secret.length + 1);
        line.set(secret);
        line[secret.length] = 0x0d;
        typing = subject.send(line).finally(() => line.fill(0));
        await typing;
        return { ok: true, text: "Sent to the terminal." };
      },
    });
  } catch {
    return undefined; // no local page here (no net permission): the attach route
  }
  try {
    const elicitation = crypto.randomUUID();
    const answer = ask.url({
      message: `${prompt}\nThe program asks: ${found.asks}\n(a page on this computer: what you ` +
        "type there goes to the terminal, never to the assistant)",
      url: page.url,
      id: elicitation,
    }, signal);
    answer.catch(() => {}); // settled after the race is decided: not unhandled
    // The page closes before the hand-off ends only once it delivered.
    const sent = page.delivered.then(() => "sent" as const);
    // A secret already on its way when the hand-off ended reached the program: the answer says so.
    const typed = async () => typing !== undefined && await typing.then(() => true, () => false);
    const first = await Promise.race([answer, sent, gone.promise, ended]);
    if (first === "gone") return end.done("cancelled", promptGone(subject), "url");
    if (first === "ended" && !(await typed())) return end.stopped();
    if (first !== "sent" && first !== "ended") {
      if (first.action !== "accept") return end.refused(first);
      // Accepted: they opened the page (or are about to).
      const then = await Promise.race([sent, gone.promise, ended]);
      if (then === "gone") return end.done("cancelled", promptGone(subject), "url");
      if (then === "ended" && !(await typed())) return end.stopped();
    }
    await ask.completed(elicitation).catch(() => {});
    // The program reads the line: wait (briefly) for its terminal to leave the no-echo read, to say so.
    const until = Date.now() + READ_WAIT_MS;
    let state = await subject.inputState();
    while (!signal.aborted && !state.exited && state.hiddenInput === true && Date.now() < until) {
      await sleep(50, signal);
      state = await subject.inputState();
    }
    return end.done(
      "input_received",
      "the human typed the secret on the local page and it went to the program (you never see it); continue " +
        `with ${subject.look}`,
      "url",
    );
  } finally {
    await page.close();
  }
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
