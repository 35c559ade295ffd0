/**
 * Log-like test content for the search benchmarks: ASCII or with 2-, 3- and
 * 4-byte characters on every line, and 40 planted "ERROR ... failed" lines
 * spread evenly, so a search for them scans the whole buffer.
 */
import type { SearchMode } from "../../lib/search/matcher.ts";

/** Just under `size` bytes of log lines with `needle` planted 40 times, evenly. */
export function makeLog(nonAscii: boolean, size: number): Uint8Array {
  const words = nonAscii
    ? ["día", "größe", "中文", "ログ", "🙂", "naïve", "connection", "timeout", "user", "GET"]
    : ["alpha", "beta", "gamma", "delta", "connection", "timeout", "user", "GET", "/api/v1/items", "latency"];
  const lines: string[] = [];
  let bytes = 0;
  const enc = new TextEncoder();
  for (let i = 0; bytes < size; i++) {
    const w = Array.from({ length: 9 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(" ");
    const line = `2024-05-01T12:${String(i % 60).padStart(2, "0")}:00Z INFO req=${i} ${w}\n`;
    lines.push(line);
    bytes += nonAscii ? enc.encode(line).length : line.length;
  }
  const every = Math.floor(lines.length / 40);
  for (let k = 0; k < 40; k++) {
    lines[k * every + (every >> 1)] = `2024-05-01T13:00:00Z ERROR code=E${k}42 needle-${k} failed\n`;
  }
  const all = enc.encode(lines.join(""));
  return all.subarray(0, all.lastIndexOf(10, size - 1) + 1); // whole lines: never cut a character
}

/** The benchmark searches; each finds exactly the 40 planted lines. */
export const QUERIES: Array<[label: string, query: string, mode: SearchMode, ignoreCase: boolean]> = [
  ["literal", "failed", "literal", false],
  ["literal, ignore_case", "FAILED", "literal", true],
  ["regex", "ERROR code=E\\d+ needle-\\d+", "regex", false],
  ["regex, ignore_case", "error code=e\\d+", "regex", true],
  // `\s` can match a newline: over non-ASCII content these could not be searched in windows of whole lines.
  ["regex across lines", "ERROR\\s+code=E\\d+", "regex", false],
  ["regex across lines, ignore_case", "error\\s+code=e\\d+", "regex", true],
];
