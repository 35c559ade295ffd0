/**
 * One JSON line per tool call: what was called, how it ended, how long it
 * took, which tmux objects it resolved to, and its arguments with secrets
 * replaced by a length and a short hash. Results are never logged.
 *
 * Which arguments are secret is declared by each tool (`secrets` in its
 * entry, lib/tools/tool.ts), not guessed from parameter names; arguments the
 * tool does not know are hidden too, and so is every hidden value wherever
 * an error message quotes it. The model still gets the full message: only
 * the audit line is redacted.
 *
 * @example
 * ```ts
 * const audit = createAuditSink(undefined); // stderr
 * audit({ tool: "set-buffer", outcome: "ok", duration_ms: 1.2, args: { name: "a", content: "x" } });
 * ```
 */
import { fingerprint } from "../text/hash.ts";
import { writeStderr } from "../log.ts";

export type AuditOutcome = "ok" | "error" | "refused" | "invalid";

export interface AuditRecord {
  tool: string;
  outcome: AuditOutcome;
  duration_ms: number;
  args: unknown;
  /** Resolved ids (session_id, window_id, pane_id, …) when the tool reported them. */
  target?: Record<string, string>;
  message?: string;
  /**
   * What the tool's entry declares secret (its `secrets` field): these
   * arguments are logged as a fingerprint. Not written to the line.
   */
  secrets?: readonly string[];
  /**
   * The tool's parameter names; any other argument (refused by validation)
   * is logged only as a fingerprint, name included. Undefined for an unknown
   * tool: then every argument is unknown. Not written to the line.
   */
  known?: readonly string[];
}

/** Takes a record per call; `flush` resolves once every record taken so far is written (before exit). */
export type AuditSink = ((record: AuditRecord) => void) & { flush?(): Promise<void> };

/** Every string inside a value (object keys too), for redacting messages that quote it. */
function stringsIn(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) { for (const v of value) stringsIn(v, out); }
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      stringsIn(v, out);
    }
  }
}

/** What {@linkcode redact} hides: the redacted arguments and every string to remove from the message. */
export interface Redaction {
  args: unknown;
  /** Strings that must not appear in the line (the secret values, the unknown names and values). */
  hidden: string[];
}

/**
 * Replaces the arguments the tool declares secret, and every argument it
 * does not know (name and value: `unknown_parameters` holds one fingerprint
 * of them all), by a fingerprint. `known` undefined (an unknown tool): every
 * argument is unknown.
 *
 * @example
 * ```ts
 * redact({ name: "a", content: "pw" }, ["content"], ["name", "content"]);
 * // { args: { name: "a", content: { len: 2, sha256_12: "…" } }, hidden: ["pw"] }
 * ```
 */
export function redact(
  args: unknown,
  secrets: readonly string[] = [],
  known?: readonly string[],
): Redaction {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    const hidden: string[] = [];
    stringsIn(args, hidden);
    return { args: args === undefined ? undefined : fingerprint(args), hidden };
  }
  const out: Record<string, unknown> = {};
  const unknown: Record<string, unknown> = {};
  const hidden: string[] = [];
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (known === undefined || !known.includes(k)) {
      unknown[k] = v;
      hidden.push(k);
      stringsIn(v, hidden);
    } else if (secrets.includes(k)) {
      out[k] = fingerprint(v);
      stringsIn(v, hidden);
    } else {
      out[k] = v;
    }
  }
  if (Object.keys(unknown).length > 0) out.unknown_parameters = fingerprint(unknown);
  return { args: out, hidden };
}

/** The shortest hidden string removed wherever it appears; shorter ones only where quoted whole. */
const MIN_FREE_MATCH = 3;

/**
 * Removes hidden strings from a message built from a model's values
 * (`unknown key name "password=…"`), raw or JSON-escaped, longest first.
 */
export function redactMessage(message: string, hidden: readonly string[]): string {
  const forms = new Set<string>();
  for (const h of hidden) {
    if (h.length === 0) continue;
    forms.add(JSON.stringify(h)); // quoted whole, any length
    if (h.length >= MIN_FREE_MATCH) {
      forms.add(h);
      forms.add(JSON.stringify(h).slice(1, -1));
    }
  }
  let out = message;
  for (const f of [...forms].sort((a, b) => b.length - a.length)) {
    if (f.length > 0 && out.includes(f)) out = out.replaceAll(f, f.startsWith('"') ? '"[redacted]"' : "[redacted]");
  }
  return out;
}

/**
 * How long a line waits for the lines after it, to be written together. The
 * client reads our stderr: a line written as each call ends woke it (and
 * cost a write) between one call's answer and the next request, a share of
 * a short call worth saving; calls made back to back share one write. A server
 * killed with SIGKILL loses at most this much of its log; any other exit
 * writes what is queued (`flush`).
 */
const BATCH_MS = 10;

/** An audit sink writing to `path` (appending), or to stderr when path is undefined. */
export function createAuditSink(path: string | undefined): AuditSink {
  const encoder = new TextEncoder();
  let file: Deno.FsFile | undefined;
  if (path) file = Deno.openSync(path, { append: true, create: true, write: true });
  // Each record with the time it was taken: its line says when the call ended, not when it was written.
  let queue: [AuditRecord, number][] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const drain = () => {
    clearTimeout(timer);
    timer = undefined;
    if (queue.length === 0) return;
    const records = queue;
    queue = [];
    // Lines in call-completion order, all in one write.
    const text = records.map(([r, at]) => (file ? "" : "audit ") + line(r, at)).join("");
    if (!file) return writeStderr(text);
    try {
      const bytes = encoder.encode(text);
      let off = 0;
      while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    } catch {
      // The log file's disk is full or gone: the calls go on, as they do when stderr is gone.
    }
  };
  const sink = (record: AuditRecord) => {
    queue.push([record, Date.now()]);
    if (timer === undefined) {
      const t = setTimeout(drain, BATCH_MS);
      Deno.unrefTimer(t);
      timer = t;
    }
  };
  // An exiting server writes what is queued now: the last calls' lines must not be lost with the process.
  return Object.assign(sink, {
    flush: () => {
      drain();
      return Promise.resolve();
    },
  });
}

/**
 * The JSON line of a record taken at `at` (ms since the epoch), redacted. Arguments arrive as parsed JSON, so
 * they always serialise; should one not, the line says so instead of the timer's callback throwing.
 */
function line(record: AuditRecord, at: number): string {
  try {
    return redactedLine(record, at);
  } catch {
    const { outcome, duration_ms, known } = record;
    const tool = known === undefined ? "unknown tool" : record.tool; // an unknown name may hold a secret
    return JSON.stringify({ time: new Date(at).toISOString(), tool, outcome, duration_ms, args: "[unloggable]" }) +
      "\n";
  }
}

function redactedLine(record: AuditRecord, at: number): string {
  const { secrets, known, ...fields } = record;
  const r = redact(record.args, secrets, known);
  const tool = known === undefined ? `unknown tool ${JSON.stringify(fingerprint(record.tool))}` : record.tool;
  const message = fields.message === undefined ? undefined : redactMessage(fields.message, [
    ...r.hidden,
    ...(known === undefined ? [record.tool] : []),
  ]);
  return JSON.stringify({ time: new Date(at).toISOString(), ...fields, tool, args: r.args, message }) + "\n";
}
