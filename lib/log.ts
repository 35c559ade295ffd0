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

/** Writes one line to stderr. Never throws: a closed stderr must not take the server down. */
export function log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
  const extra = fields ? " " + JSON.stringify(fields) : "";
  writeStderr(`tmux-mcp ${level}: ${message}${extra}\n`);
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
