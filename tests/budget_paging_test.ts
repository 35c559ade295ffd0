/**
 * Natively paged tools under the response budget, through the MCP client:
 * show-buffer and search-buffer return the part that fits plus the exact
 * place to continue in the original buffer, never a copy in a result buffer.
 */
import assert from "node:assert/strict";
import { connect, startTmux, withServer } from "./helpers.ts";
import { pageThrough } from "./budget_helpers.ts";
import { resultTokens } from "../lib/server/budget.ts";
import type { CallToolResult } from "../lib/sdk.ts";

const enc = new TextEncoder();
const MiB = 1024 * 1024;

/** About 3 MiB of log lines mixing 2-, 3- and 4-byte characters, with an ERROR every 7th line. */
function bigLog(): Uint8Array {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 3 * MiB; i++) {
    const line = `${String(i).padStart(6, "0")} ${i % 7 === 0 ? "ERROR" : "info"} é日本語🙂 ${"ü".repeat(i % 11)}` +
      `${"x".repeat(i % 23)}\n`;
    lines.push(line);
    bytes += enc.encode(line).length;
  }
  return enc.encode(lines.join(""));
}

/** Byte offsets of every (non-overlapping) occurrence of an ASCII needle. */
function offsetsOf(bytes: Uint8Array, needle: string): number[] {
  const n = enc.encode(needle);
  const out: number[] = [];
  outer: for (let i = 0; i + n.length <= bytes.length; i++) {
    for (let j = 0; j < n.length; j++) if (bytes[i + j] !== n[j]) continue outer;
    out.push(i);
    i += n.length - 1;
  }
  return out;
}

async function bufferNames(tmux: { tmux(...args: string[]): Promise<string> }): Promise<string[]> {
  return (await tmux.tmux("list-buffers", "-F", "#{buffer_name}")).split("\n").filter(Boolean).sort();
}

function fits(r: CallToolResult, budget = 25_000): boolean {
  return (resultTokens(r, budget) ?? 0) <= budget;
}

Deno.test("show-buffer with max_bytes 1 MiB walks a 3 MiB buffer in pages that fit the budget, no buffer created", async () => {
  const log = bigLog();
  await withServer(async (mcp, tmux) => {
    await tmux.tmuxStdin(log, "load-buffer", "-b", "big", "-");
    const before = await bufferNames(tmux);
    // Each page is checked against the budget, and none is a buffered response (pageThrough asserts that).
    let pages = 0;
    const origCall = mcp.call;
    const checked = {
      ...mcp,
      ok: async <T>(name: string, args: Record<string, unknown> = {}) => {
        const r = await origCall(name, args);
        assert.ok(!r.isError, JSON.stringify(r.content));
        assert.ok(fits(r), `page ${pages} fits the 25,000-token budget`);
        const s = r.structuredContent as { truncated_by_budget?: true; next_offset_bytes: number | null };
        if (s.next_offset_bytes !== null) assert.equal(s.truncated_by_budget, true, "cut by the budget, not max_bytes");
        pages++;
        return s as T;
      },
    };
    const paged = await pageThrough(checked, "big", MiB);
    assert.deepEqual(paged, log, "the pages concatenate to the buffer, byte-exact");
    assert.ok(pages > 3, `more pages than 1 MiB slices (${pages})`);
    assert.deepEqual(await bufferNames(tmux), before, "no buffer was created");
  });
});

Deno.test("show-buffer: a max_bytes smaller than the character at the offset returns that character whole", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmuxStdin(enc.encode("🙂é"), "load-buffer", "-b", "emoji", "-");
    const first = await mcp.ok("show-buffer", { name: "emoji", max_bytes: 1 });
    assert.deepEqual(
      { text: first.text, returned_bytes: first.returned_bytes, next_offset_bytes: first.next_offset_bytes },
      { text: "🙂", returned_bytes: 4, next_offset_bytes: 4 },
    );
    const second = await mcp.ok("show-buffer", { name: "emoji", offset_bytes: 4, max_bytes: 1 });
    assert.deepEqual([second.text, second.next_offset_bytes], ["é", null]);
  });
});

Deno.test("search-buffer with max_matches 1000 walks every match of a 3 MiB buffer via resume_from_offset, no buffer created", async () => {
  const log = bigLog();
  const expected = offsetsOf(log, "ERROR");
  assert.ok(expected.length > 1000);
  await withServer(async (mcp, tmux) => {
    await tmux.tmuxStdin(log, "load-buffer", "-b", "big", "-");
    const before = await bufferNames(tmux);
    const found: number[] = [];
    let resume: Record<string, number> | undefined;
    let calls = 0;
    let cut = 0;
    do {
      const r = await mcp.call("search-buffer", {
        buffers: ["big"],
        query: "ERROR",
        max_matches: 1000,
        context_bytes: 256,
        ...(resume ? { resume_from_offset: resume } : {}),
      });
      assert.ok(!r.isError, JSON.stringify(r.content));
      assert.ok(fits(r), `response ${calls} fits the budget`);
      const s = r.structuredContent as {
        type?: string;
        matches: { offset_bytes: number }[];
        truncated_buffers: string[];
        resume_from_offset: Record<string, number>;
        truncated_by_budget?: true;
      };
      assert.equal(s.type, undefined, "not a buffered response");
      assert.ok(s.matches.length > 0 && s.matches.length <= 1000);
      if (s.truncated_by_budget) cut++;
      found.push(...s.matches.map((m) => m.offset_bytes));
      resume = s.truncated_buffers.length ? s.resume_from_offset : undefined;
      assert.ok(++calls < 1000, "the search ends");
    } while (resume);
    assert.ok(cut > 0, "the budget cut some responses (context_bytes 256 makes 1000 matches too large)");
    assert.deepEqual(found, expected, "every match exactly once, in order");
    assert.deepEqual(await bufferNames(tmux), before, "no buffer was created");
  });
});

Deno.test("a budget cut across several buffers resumes each at its first left-out match", async () => {
  await withServer(async (mcp, tmux) => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} needle ${"y".repeat(i % 30)}`).join("\n");
    for (const name of ["a", "b", "c"]) await tmux.tmuxStdin(enc.encode(text), "load-buffer", "-b", name, "-");
    const expected = ["a", "b", "c"].flatMap((b) => offsetsOf(enc.encode(text), "needle").map((o) => `${b}:${o}`));
    const found: string[] = [];
    let resume: Record<string, number> | undefined;
    let cut = 0;
    do {
      const s = await mcp.ok<{
        matches: { buffer: string; offset_bytes: number }[];
        truncated_buffers: string[];
        resume_from_offset: Record<string, number>;
        truncated_by_budget?: true;
      }>("search-buffer", {
        buffers: ["a", "b", "c"],
        query: "needle",
        max_matches: 1000,
        ...(resume ? { resume_from_offset: resume } : {}),
      });
      if (s.truncated_by_budget) cut++;
      found.push(...s.matches.map((m) => `${m.buffer}:${m.offset_bytes}`));
      resume = s.truncated_buffers.length ? s.resume_from_offset : undefined;
    } while (resume);
    assert.ok(cut > 0, "the 2,000-token budget cut some responses");
    assert.deepEqual(found, expected);
  }, { args: ["--max-tokens", "2000"] });
});

Deno.test("search-buffer near a match, cut by the budget resumes inside its window and finds every match once", async () => {
  await withServer(async (mcp, tmux) => {
    const text = Array.from({ length: 2000 }, (_, i) => `${i} ab 日本 `).join("");
    const bytes = enc.encode(text);
    await tmux.tmuxStdin(bytes, "load-buffer", "-b", "w", "-");
    const around = {
      near: { buffer: "w", offset_bytes: 8000, match_len: 2 },
      context_bytes: 300,
      query: "ab",
      max_matches: 1000,
    };
    const lo = 8000 - 300, hi = 8002 + 300;
    const expected = offsetsOf(bytes, "ab").filter((o) => o >= lo && o + 2 <= hi);
    const found: number[] = [];
    let resume: Record<string, number> | undefined;
    let cut = 0;
    do {
      const s = await mcp.ok<{
        matches: { offset_bytes: number }[];
        truncated_buffers: string[];
        resume_from_offset: Record<string, number>;
        truncated_by_budget?: true;
        window: { start_bytes: number; end_bytes: number };
      }>("search-buffer", { ...around, ...(resume ? { resume_from_offset: resume } : {}) });
      if (s.truncated_by_budget) cut++;
      found.push(...s.matches.map((m) => m.offset_bytes));
      resume = s.truncated_buffers.length ? s.resume_from_offset : undefined;
    } while (resume);
    assert.ok(cut > 0, "the 1,000-token budget cut some responses");
    assert.deepEqual(found, expected);
  }, { args: ["--max-tokens", "1000"] });
});

Deno.test("search-buffer: a first match whose snippet alone is over the budget comes back with its snippet cut to fit", async () => {
  // Control characters are 6-character escapes in JSON: one match with 4096 bytes of them each side was ~33,000
  // tokens (over the default 25,000), returned whole (a natively paged tool is never buffered). Under a 2000-token
  // budget: the context is cut, and for a long match with no context the shown part of the match.
  await withServer(async (mcp) => {
    const body = "\x01".repeat(5000) + "find NEEDLE here" + "\x02".repeat(5000);
    await mcp.ok("set-buffer", { name: "bin", content: body });
    for (const args of [{ context_bytes: 4096 }, { mode: "regex", query: "NEEDLE[\\s\\S]*", context_bytes: 0 }]) {
      const r = await mcp.call("search-buffer", { buffers: ["bin"], query: "NEEDLE", ...args });
      assert.ok(fits(r, 2000), `the response fits: ${resultTokens(r, 0)} tokens`);
      const out = r.structuredContent as {
        matches: {
          offset_bytes: number;
          match_len: number;
          context_start: number;
          context_end: number;
          snippet: string;
        }[];
        truncated_by_budget?: true;
      };
      assert.equal(out.truncated_by_budget, true);
      assert.equal(out.matches.length, 1);
      const [m] = out.matches;
      assert.equal(m.offset_bytes, 5005);
      assert.ok(m.snippet.includes(args.context_bytes ? "find NEEDLE here" : "NEEDLE here"), m.snippet.slice(0, 80));
      assert.ok(m.context_start <= m.offset_bytes && m.context_end > m.offset_bytes);
      assert.equal(m.snippet, body.slice(m.context_start, m.context_end), "the snippet is its bytes (all 1-byte)");
      if (!args.context_bytes) assert.ok(m.context_end - m.offset_bytes < 4096, "the match's shown part is cut");
    }
  }, { args: ["--max-tokens", "2000"] });
});

Deno.test("search-buffer never cuts a long first snippet from the buffer's new content when it was replaced meanwhile", async () => {
  await withServer(async (mcp, tmux) => {
    // Listed newest first: "bin", then big buffers the search counts in after the page (each read takes a while).
    const big = enc.encode(("x".repeat(1023) + "\n").repeat(16 * 1024));
    for (const n of ["big1", "big2", "big3", "big4"]) await tmux.tmuxStdin(big, "load-buffer", "-b", n, "-");
    const body = "\x01".repeat(5000) + "find NEEDLE here" + "\x02".repeat(5000);
    await mcp.ok("set-buffer", { name: "bin", content: body });
    // Replaced by as many other bytes once "bin" is searched (its progress notification).
    let replaced: Promise<unknown> | undefined;
    const r = await mcp.client.callTool(
      { name: "search-buffer", arguments: { query: "NEEDLE", max_matches: 1, context_bytes: 4096 } },
      undefined,
      {
        timeout: 120_000,
        onprogress: () => void (replaced ??= tmux.tmux("set-buffer", "-b", "bin", "\x03".repeat(body.length))),
      },
    ) as CallToolResult;
    await replaced;
    assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
    const [m] = (r.structuredContent as { matches: { context_start: number; context_end: number; snippet: string }[] })
      .matches;
    assert.equal(m.snippet, body.slice(m.context_start, m.context_end), "the snippet is the searched buffer's text");
    assert.ok(fits(r, 2000), `the response fits: ${resultTokens(r, 0)} tokens`);
  }, { args: ["--max-tokens", "2000"] });
});

Deno.test("search-buffer over many long-named buffers fits the budget: the names searched are cut and it says so", async () => {
  await withServer(async (mcp, tmux) => {
    const args: string[] = [];
    const names: string[] = [];
    for (let i = 0; i < 400; i++) {
      const name = `b${String(i).padStart(3, "0")}-${"n".repeat(200)}`;
      names.push(name);
      if (args.length > 0) args.push(";");
      args.push("set-buffer", "-b", name, i === 399 ? "one needle here" : `value ${i}`);
      if (i % 40 === 39) await tmux.tmux(...args.splice(0));
    }
    for (const [query, found] of [["absent", 0], ["needle", 1]] as const) {
      const r = await mcp.call("search-buffer", { query });
      assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
      assert.ok(fits(r, 1000), `the result fits the 1000-token budget, got ${resultTokens(r, 0)}`);
      const out = r.structuredContent as { buffers: string[]; matches: unknown[]; truncated_by_budget?: true };
      assert.equal(out.matches.length, found, `query ${query}`);
      assert.equal(out.truncated_by_budget, true);
      assert.ok(out.buffers.length < names.length);
      assert.ok(out.buffers.every((b) => names.includes(b)));
      const text = (r.content as { type: string; text: string }[]).map((b) => b.text).join("\n");
      assert.match(
        text,
        new RegExp(
          `buffers lists the first ${out.buffers.length} of the 400 buffers searched.*list-buffers names them all`,
        ),
      );
    }
  }, { args: ["--max-tokens", "1000"] });
});

/** A name of `length` characters the tokenizer cannot pack: hex digits of a running hash. */
function unpackedName(i: number, length = 200): string {
  let h = 2166136261 ^ i, out = `b${i}-`;
  while (out.length < length) {
    h = Math.imul(h ^ out.length, 16777619) >>> 0;
    out += h.toString(16);
  }
  return out.slice(0, length);
}

Deno.test("search-buffer over many long-named buffers that are not text fits the budget: skipped_buffers is cut too", async () => {
  await withServer(async (mcp, tmux) => {
    const binary = Uint8Array.of(0x61, 0xff, 0x62);
    for (let i = 0; i < 120; i++) await tmux.tmuxStdin(binary, "load-buffer", "-b", unpackedName(i), "-");
    await tmux.tmux("set-buffer", "-b", "text", "one needle here");
    const r = await mcp.call("search-buffer", { query: "needle" });
    assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
    assert.ok(fits(r, 1000), `the result fits the 1000-token budget, got ${resultTokens(r, 0)}`);
    const out = r.structuredContent as { buffers: string[]; matches: unknown[]; skipped_buffers?: string[] };
    assert.equal(out.matches.length, 1);
    assert.ok(out.buffers.length < 121);
    assert.deepEqual(out.skipped_buffers ?? [], out.buffers.filter((b) => b !== "text"));
    const text = (r.content as { type: string; text: string }[]).map((b) => b.text).join("\n");
    assert.match(text, /buffers lists the first \d+ of the 121 buffers searched \(skipped_buffers: those of them\)/);
  }, { args: ["--max-tokens", "1000"] });
});

Deno.test("search-buffer that leaves more buffers to search than a page can name says to search fewer", async () => {
  await withServer(async (mcp, tmux) => {
    for (let i = 0; i < 120; i++) await tmux.tmux("set-buffer", "-b", unpackedName(i), `value ${i}`);
    const r = await mcp.call("search-buffer", { query: "value", max_matches: 1 });
    assert.ok(fits(r, 1000), `the result fits the 1000-token budget, got ${resultTokens(r, 0)}`);
    assert.ok(r.isError);
    assert.match(
      (r.content as { type: string; text: string }[])[0].text,
      /^this search leaves 119 buffers to search, whose names alone are over the response budget: search fewer/,
    );
    // Named a few at a time, the search pages as usual.
    const few = await mcp.ok<{ matches: unknown[] }>("search-buffer", {
      query: "value",
      buffers: [0, 1, 2].map((i) => unpackedName(i)),
      max_matches: 1,
    });
    assert.equal(few.matches.length, 1);
  }, { args: ["--max-tokens", "1000"] });
});

Deno.test("search-buffer at a budget below its page's fixed part still refuses names to resume that are alone over it", async () => {
  await withServer(async (mcp, tmux) => {
    for (let i = 0; i < 40; i++) await tmux.tmux("set-buffer", "-b", `b${i}-${"n".repeat(60)}`, "ERROR a\nERROR b\n");
    // At 100 tokens no page fits (its echoed fields alone are about 180): the 39 names were ~2,100 tokens on top.
    const r = await mcp.call("search-buffer", { query: "ERROR", max_matches: 1 });
    assert.ok(r.isError, JSON.stringify(r.structuredContent ?? r.content).slice(0, 200));
    assert.ok(fits(r, 150), `the error fits the 150-token budget, got ${resultTokens(r, 0)}`);
    assert.match((r.content as { text: string }[])[0].text, /^this search leaves 40 buffers to search/);
  }, { args: ["--max-tokens", "150"] });
});

Deno.test("search-buffer echoes a long query cut to fit the budget, and says so", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("set-buffer", "-b", "a", "hello \u0001 world");
    // A control character is a 6-character escape in JSON: 1,024 of them were ~4,250 tokens at a 500-token budget.
    for (const query of ["日".repeat(1024), "\u0001".repeat(1024), "x\u0001".repeat(512)]) {
      const r = await mcp.call("search-buffer", { query });
      assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
      assert.ok(fits(r, 500), `the result fits the 500-token budget, got ${resultTokens(r, 0)}`);
      const out = r.structuredContent as { query: string; matches: unknown[]; truncated_by_budget?: true };
      assert.equal(out.truncated_by_budget, true);
      assert.ok(query.startsWith(out.query) && out.query.length < query.length);
      const text = (r.content as { type: string; text: string }[]).map((b) => b.text).join("\n");
      assert.ok(
        text.includes(`query echoes the first ${out.query.length} of the 1024 characters of the query searched`),
        text.slice(-300),
      );
    }
  }, { args: ["--max-tokens", "500"] });
});

Deno.test("search-buffer under a budget below one match's page refuses in one line that names the budget", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("set-buffer", "-b", "log", "hello error line\n".repeat(200));
    // At 150 tokens the page was ~225, echoing the query as "" and the buffers searched as [].
    const r = await mcp.call("search-buffer", { buffers: ["log"], query: "error" });
    assert.ok(r.isError, JSON.stringify(r.structuredContent ?? r.content).slice(0, 300));
    assert.ok(fits(r, 150));
    assert.equal(
      (r.content as { text: string }[])[0].text,
      "a page with one match is over this server's 150-token budget for search-buffer: ask the user to raise " +
        "toolConfigs.search-buffer.maxTokens (or --max-tokens) to 300 or more",
    );
    // show-buffer pages it at that budget.
    assert.ok(!(await mcp.call("show-buffer", { name: "log" })).isError);
  }, { args: ["--max-tokens", "150"] });
});

Deno.test("search-buffer over several hosts whose buffer names together are over the budget says so within it", async () => {
  const alpha = await startTmux("pagea"), beta = await startTmux("pageb");
  const hosts = [`alpha=local,socket-name=${alpha.socketName}`, `beta=local,socket-name=${beta.socketName}`];
  const mcp = await connect({ args: ["--ssh", hosts[0], "--ssh", hosts[1], "--max-tokens", "1000"] });
  try {
    for (const tmux of [alpha, beta]) {
      const args = ["set-buffer", "-b", "log", "ERROR x\n".repeat(5)];
      for (let i = 0; i < 12; i++) args.push(";", "set-buffer", "-b", `b${i}-${"n".repeat(200)}`, "none here\n");
      await tmux.tmux(...args);
    }
    // Each host's page fit alone; merged, the 26 names searched made it ~1,350 tokens.
    const r = await mcp.call("search-buffer", { query: "ERROR" });
    assert.ok(fits(r, 1000), `the result fits the 1000-token budget, got ${resultTokens(r, 0)}`);
    assert.ok(r.isError, JSON.stringify(r.structuredContent ?? r.content).slice(0, 300));
    assert.match(
      (r.content as { text: string }[])[0].text,
      /^one page naming the 26 buffers searched on every host is over this tool's token budget: search one host's/,
    );
    const some = await mcp.call("search-buffer", {
      query: "ERROR",
      buffers: ["alpha::log", "alpha::b0-" + "n".repeat(200)],
    });
    assert.ok(!some.isError && fits(some, 1000), JSON.stringify(some.content).slice(0, 300));
    assert.equal((some.structuredContent as { total_matches: number }).total_matches, 5);
  } finally {
    await mcp.close();
    await alpha.kill();
    await beta.kill();
  }
});

Deno.test("show-buffer under a budget below a page of one character (a long name echoed) refuses in one line", async () => {
  await withServer(async (mcp, tmux) => {
    const name = "日".repeat(256);
    await tmux.tmux("set-buffer", "-b", name, "hello world\n".repeat(100));
    // The name alone is about 300 tokens: the page of one character was ~360 at a 100-token budget.
    const r = await mcp.call("show-buffer", { name });
    assert.ok(fits(r, 150), `the result fits the 150-token budget, got ${resultTokens(r, 0)}`);
    assert.ok(r.isError, JSON.stringify(r.content).slice(0, 200));
    assert.equal(
      (r.content as { text: string }[])[0].text,
      "a page with one character of this buffer (its name echoed) is over this server's 150-token budget for " +
        "show-buffer: rename-buffer it to a shorter name, or ask the user to raise toolConfigs.show-buffer.maxTokens " +
        "(or --max-tokens)",
    );
    await mcp.ok("rename-buffer", { from: name, to: "short" });
    assert.equal((await mcp.ok<{ offset_bytes: number }>("show-buffer", { name: "short" })).offset_bytes, 0);
  }, { args: ["--max-tokens", "150"] });
});
