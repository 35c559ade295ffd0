/**
 * Shared pieces of the response-budget tests: config files, buffered
 * responses and paging a result buffer through show-buffer.
 */
import assert from "node:assert/strict";
import { type McpFixture, type TmuxFixture, withServer } from "./helpers.ts";

export interface Buffered {
  type: "buffered_response";
  note: string;
  metadata: {
    total_tokens: number;
    total_bytes: number;
    item_count: number;
    max_depth: number;
    truncated_at_depth?: number;
    would_exceed_limit: boolean;
    limit_tokens: number;
  };
  buffer_id: string | null;
  suggested_refinements: string[];
  preview: Record<string, unknown>;
}

/** Writes a config file (JSON text as given) and returns its path; removed by the caller's cleanup. */
export async function configFile(text: string, suffix = ".jsonc"): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "tmux-mcp-budget-", suffix });
  await Deno.writeTextFile(path, text);
  return path;
}

/** Runs `fn` against a server started with `--config` pointing at a file holding `text` (and `args`). */
export async function withConfig(
  text: string,
  fn: (mcp: McpFixture, tmux: TmuxFixture) => Promise<void>,
  args: string[] = [],
): Promise<void> {
  const path = await configFile(text);
  try {
    await withServer(fn, { args: ["--config", path, ...args] });
  } finally {
    await Deno.remove(path);
  }
}

/** Asserts a structured result is a buffered response and returns it. */
export function asBuffered(structured: unknown): Buffered {
  const b = structured as Buffered;
  assert.equal(b?.type, "buffered_response", `expected a buffered_response, got ${JSON.stringify(structured)}`);
  return b;
}

/** Reads a whole buffer through the show-buffer tool, page by page; every page must come back unbuffered. */
export async function pageThrough(mcp: McpFixture, name: string, maxBytes: number): Promise<Uint8Array> {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  let offset: number | null = 0;
  let pages = 0;
  while (offset !== null) {
    const page: { text: string; returned_bytes: number; next_offset_bytes: number | null; type?: string } = await mcp
      .ok("show-buffer", { name, offset_bytes: offset, max_bytes: maxBytes });
    assert.ok(page.type === undefined, `page at ${offset} was itself buffered: lower max_bytes in the test`);
    const bytes = enc.encode(page.text);
    assert.equal(bytes.length, page.returned_bytes, "a page decodes to exactly its returned bytes");
    parts.push(bytes);
    offset = page.next_offset_bytes;
    assert.ok(++pages < 10_000, "paging does not end");
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Names of the result buffers on a tmux server. */
export async function resultBuffers(tmux: { tmux(...args: string[]): Promise<string> }): Promise<string[]> {
  const out = await tmux.tmux("list-buffers", "-F", "#{buffer_name}").catch(() => "");
  return out.split("\n").filter((n) => n.startsWith("mcp-result-"));
}

/** Opens a detached window running a shell command (history-limit raised first) and returns its pane id. */
export async function windowRunning(tmux: TmuxFixture, command: string): Promise<string> {
  await tmux.tmux("set-option", "-g", "history-limit", "50000");
  return (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", command)).trim();
}
