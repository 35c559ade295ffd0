/**
 * Logging for a stdio MCP server: stdout carries JSON-RPC only, so every
 * diagnostic goes to stderr.
 *
 * @example
 * ```ts
 * log("warn", "oversized message discarded", { bytes: 1234 });
 * ```
 */
const encoder = new TextEncoder();

export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * Writes one line to stderr. Never throws: a closed stderr must not take the server down. Control characters in
 * `message` are escaped as JSON escapes them: a message can quote a file name or an error that a model or a program
 * chose, and a line break there would start a line of its own beside the audit lines, which share stderr.
 */
export function log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
  const extra = fields ? " " + JSON.stringify(fields) : "";
  writeStderr(`tmux-mcp ${level}: ${oneLine(message)}${extra}\n`);
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/g;

function oneLine(text: string): string {
  return text.replace(CONTROL, (c) => {
    const json = JSON.stringify(c).slice(1, -1);
    return json.length > 1 ? json : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** Writes raw text to stderr synchronously, swallowing errors. */
export function writeStderr(text: string): void {
  try {
    const bytes = encoder.encode(text);
    let off = 0;
    while (off < bytes.length) off += Deno.stderr.writeSync(bytes.subarray(off));
  } catch {
    // stderr gone: nothing sensible left to do.
  }
}
