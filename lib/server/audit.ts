/**
 * One JSON line per tool call: what was called, how it ended, how long it
 * took, which tmux objects it resolved to, and its arguments with secrets
 * replaced by a length and a short hash. Results are never logged.
 *
 * @example
 * ```ts
 * const audit = createAuditSink(undefined); // stderr
 * audit({ tool: "set-buffer", outcome: "ok", duration_ms: 1.2, args: { name: "a", content: "x" } });
 * ```
 */
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
}

export type AuditSink = (record: AuditRecord) => void;

/** Argument names whose values are secrets or content: logged as {len, sha256_12}. */
export const REDACTED_KEYS: ReadonlySet<string> = new Set([
  "keys",
  "text",
  "command",
  "content",
  "value",
  "env",
  "prompt",
]);

/** A short, stable fingerprint: equal values can be matched across lines without revealing them. */
async function fingerprint(value: unknown): Promise<{ len: number; sha256_12: string }> {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  const hex = Array.from(digest.subarray(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
  return { len: text.length, sha256_12: hex };
}

/**
 * Replaces secret-bearing values. `env` maps keep their variable names but
 * hide each value; other secret keys are replaced whole.
 */
export async function redact(args: unknown): Promise<unknown> {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return args;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (!REDACTED_KEYS.has(k)) {
      out[k] = v;
    } else if (k === "env" && v !== null && typeof v === "object" && !Array.isArray(v)) {
      const env: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(v as Record<string, unknown>)) env[name] = await fingerprint(value);
      out[k] = env;
    } else {
      out[k] = await fingerprint(v);
    }
  }
  return out;
}

/** An audit sink writing to `path` (appending), or to stderr when path is undefined. */
export function createAuditSink(path: string | undefined): AuditSink {
  const encoder = new TextEncoder();
  let file: Deno.FsFile | undefined;
  if (path) file = Deno.openSync(path, { append: true, create: true, write: true });
  let chain = Promise.resolve();
  return (record) => {
    // Hashing is async; keep lines in call-completion order.
    chain = chain.then(async () => {
      const line = JSON.stringify({ time: new Date().toISOString(), ...record, args: await redact(record.args) }) +
        "\n";
      if (file) {
        const bytes = encoder.encode(line);
        let off = 0;
        while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
      } else {
        writeStderr("audit " + line);
      }
    }).catch(() => {});
  };
}
