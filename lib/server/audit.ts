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
import { setImmediate } from "node:timers";
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

/** A short, stable fingerprint: equal values can be matched across lines without revealing them. */
async function fingerprint(value: unknown): Promise<{ len: number; sha256_12: string }> {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  const hex = Array.from(digest.subarray(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
  return { len: text.length, sha256_12: hex };
}

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
 * await redact({ name: "a", content: "pw" }, ["content"], ["name", "content"]);
 * // { args: { name: "a", content: { len: 2, sha256_12: "…" } }, hidden: ["pw"] }
 * ```
 */
export async function redact(
  args: unknown,
  secrets: readonly string[] = [],
  known?: readonly string[],
): Promise<Redaction> {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    const hidden: string[] = [];
    stringsIn(args, hidden);
    return { args: args === undefined ? undefined : await fingerprint(args), hidden };
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
      out[k] = await fingerprint(v);
      stringsIn(v, hidden);
    } else {
      out[k] = v;
    }
  }
  if (Object.keys(unknown).length > 0) out.unknown_parameters = await fingerprint(unknown);
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

/** An audit sink writing to `path` (appending), or to stderr when path is undefined. */
export function createAuditSink(path: string | undefined): AuditSink {
  const encoder = new TextEncoder();
  let file: Deno.FsFile | undefined;
  if (path) file = Deno.openSync(path, { append: true, create: true, write: true });
  const queue: AuditRecord[] = [];
  let chain = Promise.resolve();
  const drain = () => {
    // Hashing is async; keep lines in call-completion order.
    chain = chain.then(async () => {
      for (let record = queue.shift(); record; record = queue.shift()) await writeLine(record);
    }).catch(() => {});
  };
  async function writeLine(record: AuditRecord): Promise<void> {
    const { secrets, known, ...fields } = record;
    const r = await redact(record.args, secrets, known);
    const tool = known === undefined ? `unknown tool ${JSON.stringify(await fingerprint(record.tool))}` : record.tool;
    const message = fields.message === undefined ? undefined : redactMessage(fields.message, [
      ...r.hidden,
      ...(known === undefined ? [record.tool] : []),
    ]);
    const line = JSON.stringify({ time: new Date().toISOString(), ...fields, tool, args: r.args, message }) + "\n";
    if (file) {
      const bytes = encoder.encode(line);
      let off = 0;
      while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    } else {
      writeStderr("audit " + line);
    }
  }
  const sink = (record: AuditRecord) => {
    // Written once the current task is done, so the call's answer (sent from the same task) goes out
    // first and the client is not woken for the audit line before it.
    if (queue.push(record) === 1) setImmediate(drain);
  };
  // An exiting server writes what is queued now: the last calls' lines must not be lost with the process.
  return Object.assign(sink, {
    flush: () => {
      drain();
      return chain;
    },
  });
}
