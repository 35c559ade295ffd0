/**
 * Regex searches run in a worker with a deadline (lib/search/worker_pool.ts):
 * through the MCP client, a runaway regex ends with a clear error while the
 * server keeps answering; in-process, the pool gives exactly what the inline
 * engine gives, reads lazily, transfers bytes and keeps error messages.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { type McpFixture, withServer } from "./helpers.ts";
import { UserError } from "../lib/errors.ts";
import { compileMatcher, type SearchMode } from "../lib/search/matcher.ts";
import { searchBuffers, type SearchOptions, type SearchTarget } from "../lib/search/search.ts";
import { backtrackCause, createSearchPool, regexTooLong } from "../lib/search/worker_pool.ts";
import type { SearchOutput } from "../lib/tools/search_schemas.ts";

const enc = new TextEncoder();
/** A simulated slow reader (tmux answering slowly), not synchronisation. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `(a+)+$` backtracks 2^40 times on this before failing: minutes of CPU without a deadline. */
const RUNAWAY = { query: "(a+)+$", mode: "regex", buffers: ["evil"] };
const EVIL = "a".repeat(40) + "b";

Deno.test("a runaway regex ends at its deadline with a clear error while other calls are answered", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "evil", content: EVIL });
    await mcp.ok("set-buffer", { name: "log", content: "x1 y22\nz333\n" });
    let settled = false;
    const runaway = mcp.err("search-buffer", RUNAWAY).finally(() => settled = true);
    for (let i = 0; i < 2; i++) {
      const list = await mcp.ok<{ buffers: unknown[] }>("list-buffers");
      assertEquals(list.buffers.length, 2);
    }
    assert(!settled, "list-buffers was answered while the runaway search was still running");
    const e = await runaway;
    assertMatch(e, /^regex "\(a\+\)\+\$" took too long and was stopped after 3000 ms of matching .*mode "literal"$/);
    assert(!e.includes("\n"), "one line");

    // A new worker serves the next regex search.
    const r = await mcp.ok<SearchOutput>("search-buffer", { query: "\\d+", mode: "regex", buffers: ["log"] });
    assertEquals(r.matches.map((m) => [m.offset_bytes, m.match_len, m.line]), [[1, 1, 1], [4, 2, 1], [8, 3, 2]]);
  });
});

Deno.test("cancelling a runaway regex search ends it before its deadline", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "evil", content: EVIL });
    await mcp.ok("set-buffer", { name: "first", content: "fine" });
    // Cancelled once the first buffer is done (its progress notification): the worker is matching "evil" then.
    const ac = new AbortController();
    const call = mcp.client.callTool(
      { name: "search-buffer", arguments: { ...RUNAWAY, buffers: ["first", "evil"] } },
      undefined,
      { signal: ac.signal, onprogress: () => ac.abort() },
    );
    await call.catch(() => {});
    const stderr = await mcp.waitForStderr(/"tool":"search-buffer".*search cancelled by the client/);
    const line = stderr.split("\n").find((l) => l.includes("search cancelled by the client"))!;
    const audit = JSON.parse(line.slice(line.indexOf("{"))) as { outcome: string; error: string };
    assertEquals(audit.outcome, "error");
    assert(!line.includes("took too long"), "ended by the cancellation, not the deadline");
    const r = await mcp.ok<SearchOutput>("search-buffer", { query: "a+b", mode: "regex", buffers: ["evil"] });
    assertEquals(r.total_matches, 1);
  });
});

Deno.test("a regex that runs away while the matches beyond the page are counted still answers the page", async () => {
  await withServer(async (mcp) => {
    // The page (one match, and the next one found) is quick; counting the rest meets the run of a's.
    await mcp.ok("set-buffer", { name: "late", content: "ab\nab\nab\n" + EVIL.slice(0, -1) });
    const r = await mcp.ok<SearchOutput>("search-buffer", { query: "(a+)+b", mode: "regex", max_matches: 1 });
    assertEquals(r.matches.map((m) => m.offset_bytes), [0]);
    assertEquals([r.total_matches, r.total_is_partial, r.resume_from_offset], [1, true, { late: 3 }]);
  });
});

/** The error of a call in literal mode and in regex mode (`literal` is a literal query, `regex` the same as a regex). */
async function bothModes(mcp: McpFixture, tool: string, args: Record<string, unknown>, regex: string) {
  const literal = await mcp.err(tool, { ...args, mode: "literal" });
  const viaWorker = await mcp.err(tool, { ...args, query: regex, mode: "regex" });
  return [literal, viaWorker];
}

Deno.test("regex searches report engine and read errors with the same messages as literal ones", async () => {
  await withServer(async (mcp, tmux) => {
    const bytes = new Uint8Array([...enc.encode("ok é line\n"), 0xe2, 0x82, 0x41, ...enc.encode(" more")]);
    await tmux.tmuxStdin(bytes, "load-buffer", "-b", "bin", "-");
    await mcp.ok("set-buffer", { name: "b", content: "aé" });
    const cases: Array<[tool: string, args: Record<string, unknown>, pattern: RegExp]> = [
      ["search-buffer", { query: "more", buffers: ["bin"] }, /^buffer "bin" is not valid UTF-8: .* offset 11 /],
      ["search-buffer", { query: "more", buffers: ["b", "nope"] }, /^no buffer named "nope"/],
      ["search-buffer", { query: "more", buffers: ["b"], resume_from_offset: { b: 2 } }, /inside a UTF-8 character/],
      ["search-buffer", { query: "more", buffers: ["b"], resume_from_offset: { b: 9 } }, /is outside the buffer/],
      [
        "search-buffer",
        { near: { buffer: "b", offset_bytes: 2, match_len: 5 }, query: "more" },
        /past the end of buffer/,
      ],
      ["search-buffer", { near: { buffer: "nope", offset_bytes: 0 }, query: "more" }, /^no buffer named "nope"/],
    ];
    for (const [tool, args, pattern] of cases) {
      const [literal, viaWorker] = await bothModes(mcp, tool, args, "mo+re");
      assertMatch(viaWorker, pattern);
      assertEquals(viaWorker, literal);
    }
    // An invalid regex is still reported at once, before any buffer is read.
    assertMatch(await mcp.err("search-buffer", { query: "a(", mode: "regex", buffers: ["nope"] }), /^invalid regex/);
  });
});

Deno.test("regex searches report progress per buffer from the worker", async () => {
  await withServer(async (mcp) => {
    for (const name of ["p1", "p2", "p3"]) await mcp.ok("set-buffer", { name, content: `${name}: 42\n` });
    const progress: number[][] = [];
    const r = await mcp.client.callTool(
      { name: "search-buffer", arguments: { query: "\\d+", mode: "regex", buffers: ["p1", "p2", "p3"] } },
      undefined,
      { onprogress: (p) => void progress.push([p.progress, p.total ?? -1]) },
    );
    assertEquals((r.structuredContent as SearchOutput).total_matches, 6);
    // One per buffer, in order. The SDK client dispatches notifications a microtask late and drops those still
    // queued when the response arrives in the same read (seen on a loaded machine), so the last may be missing.
    assert(progress.length >= 1, "progress was reported");
    assertEquals(progress, [[1, 3], [2, 3], [3, 3]].slice(0, progress.length));
  });
});

// In-process: the pool itself.

const store = new Map<string, Uint8Array>([
  ["ascii", enc.encode("alpha beta\ngamma ALPHA\nalphabet\n".repeat(20))],
  ["mixed", enc.encode("día größe 中文 🙂 naïve\nDÍA día\n".repeat(20))],
  ["short", enc.encode("a1b22c333")],
]);

/** Reads a fresh copy: the pool transfers what it is given. */
const readCopy = (name: string) => Promise.resolve(store.get(name)!.slice());

function options(query: string, mode: SearchMode, ignoreCase: boolean, extra: Partial<SearchOptions> = {}) {
  return {
    matcher: compileMatcher(query, mode, ignoreCase),
    maxMatches: 7,
    maxScanBytes: 300,
    contextBytes: 8,
    includeSimilarity: true,
    ...extra,
  };
}

Deno.test("the worker pool returns exactly what the inline engine returns, page after page", async () => {
  const pool = createSearchPool();
  try {
    const queries: Array<[string, boolean]> = [["alpha\\w*", false], ["día|a", true], ["$", false], ["\\d+", false]];
    for (const [query, ignoreCase] of queries) {
      // Several whole buffers, or one window (as search-buffer near a match searches).
      const around = { offset: 40, length: 3, context: 30 };
      for (const start of [[{ name: "ascii" }, { name: "mixed" }, { name: "short" }], [{ name: "mixed", around }]]) {
        let targets: SearchTarget[] = start;
        for (let page = 0; page < 50 && targets.length; page++) {
          const o = options(query, "regex", ignoreCase);
          const inline = await searchBuffers(targets, readCopy, o);
          assertEquals(await pool.search(targets, readCopy, o), inline, `${query} page ${page}`);
          targets = inline.truncated.map(([name, from]) => ({ ...start.find((t) => t.name === name)!, from }));
        }
        assertEquals(targets, [], `${query}: pagination ends`);
      }
    }
  } finally {
    pool.close();
  }
});

Deno.test("the worker pool reads buffers one at a time, only as far as the search goes, and transfers them", async () => {
  const pool = createSearchPool();
  try {
    const read: string[] = [];
    const handed: Uint8Array[] = [];
    const r = await pool.search(
      [{ name: "short" }, { name: "ascii" }, { name: "mixed" }],
      (name) => {
        read.push(name);
        handed.push(store.get(name)!.slice());
        return Promise.resolve(handed.at(-1)!);
      },
      options("\\d+", "regex", false, { maxMatches: 2 }),
    );
    assertEquals(r.matches.map((m) => m.snippet.length > 0 && m.offset_bytes), [1, 3]);
    assertEquals(read, ["short"]);
    assertEquals(handed[0].byteLength, 0, "the bytes were transferred (detached here), not copied");
  } finally {
    pool.close();
  }
});

Deno.test("the worker pool's deadline counts matching time only, and a new worker follows a stopped one", async () => {
  const pool = createSearchPool({ baseMs: 300, perMiBMs: 0 });
  try {
    store.set("evil", enc.encode(EVIL));
    const slowRead = async (name: string) => (await sleep(600), readCopy(name));
    const ok = await pool.search([{ name: "short" }, { name: "ascii" }], slowRead, options("\\d+", "regex", false));
    assertEquals(ok.matches.length, 3, "1.2 s of reads do not count against a 300 ms deadline");
    let error: unknown;
    await pool.search([{ name: "evil" }], readCopy, options("(a+)+$", "regex", false)).catch((e) => error = e);
    assert(error instanceof UserError, String(error));
    assertMatch(error.message, /^regex "\(a\+\)\+\$" took too long and was stopped after 300 ms/);
    const again = await pool.search([{ name: "short" }], readCopy, options("\\d+", "regex", false));
    assertEquals(again.matches.length, 3);
  } finally {
    store.delete("evil");
    pool.close();
  }
});

Deno.test("the worker pool ends a cancelled search and keeps the engine's and the reader's errors", async () => {
  const pool = createSearchPool({ baseMs: 60_000, perMiBMs: 0 });
  try {
    store.set("evil", enc.encode(EVIL));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const o = options("(a+)+$", "regex", false, { signal: ac.signal });
    const why = async (p: Promise<unknown>) => await p.then(() => undefined, (e: Error) => e);
    const cancelled = await why(pool.search([{ name: "evil" }], readCopy, o));
    assert(cancelled instanceof UserError);
    assertEquals(cancelled.message, "search cancelled by the client");
    assertEquals((await why(pool.search([{ name: "evil" }], readCopy, o)))?.message, cancelled.message);

    const bad = new Uint8Array([0x61, 0xff]);
    const inline = await why(searchBuffers([{ name: "x" }], () => Promise.resolve(bad), options("a", "regex", false)));
    const pooled = await why(
      pool.search([{ name: "x" }], () => Promise.resolve(bad.slice()), options("a", "regex", false)),
    );
    assert(pooled instanceof UserError && inline instanceof UserError);
    assertEquals(pooled.message, inline.message);

    const missing = new UserError("no buffer named x");
    const failed = await why(pool.search([{ name: "x" }], () => Promise.reject(missing), options("a", "regex", false)));
    assert(failed === missing, "a failed read fails the search with the read's own error");
  } finally {
    store.delete("evil");
    pool.close();
  }
});

Deno.test("the deadline clock starts when the worker is loaded: a cold pool's first search is not cut short", async () => {
  // Loading the worker module takes about a second on a busy machine; matching "\\d+" here takes far less (but a
  // starved thread can wait a while for a core: the deadline cannot be tiny).
  const pool = createSearchPool({ baseMs: 500, perMiBMs: 0 });
  const cold = createSearchPool({ baseMs: 500, perMiBMs: 0 });
  try {
    const r = await pool.search([{ name: "short" }], readCopy, options("\\d+", "regex", false));
    assertEquals(r.matches.length, 3);
    const [[hits]] = await cold.lines([/\d+/], [["a", "b22"]]);
    assertEquals(hits, [{ line: 1, index: 1 }]);
  } finally {
    pool.close();
    cold.close();
  }
});

Deno.test("line matching shares the deadline and its one message; the service keeps answering", async () => {
  const pool = createSearchPool({ baseMs: 2000, perMiBMs: 0 });
  try {
    const groups = [["alpha", "beta 12", EVIL], [], ["x1"]];
    assertEquals(await pool.lines([/\d+/, /a$/], groups), [
      [[{ line: 1, index: 5 }], [], [{ line: 0, index: 1 }]],
      [[{ line: 0, index: 4 }], [], []],
    ]);
    const error = await pool.lines([/^(a+)+$/], groups).then(() => undefined, (e) => e);
    assert(error instanceof UserError, String(error));
    assertMatch(
      error.message,
      /^regex "\^\(a\+\)\+\$" took too long and was stopped after 2000 ms of matching .*regex: false$/,
    );
    assertEquals((await pool.lines([/x\d/], groups))[0][2], [{ line: 0, index: 0 }]);
  } finally {
    pool.close();
  }
});

/** `lines` lines of mixed-script log text, `needle` on every `every`-th line: about 60 bytes a line. */
function bigLog(lines: number, every: number, needle: string): Uint8Array {
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) {
    parts.push(i % every === every - 1 ? `${i} ${needle}\n` : `${i} día größe 中文 🙂 connection timeout user GET\n`);
  }
  return enc.encode(parts.join(""));
}

Deno.test("a linear regex over a large buffer is not stopped for its size: its room scales with the conversion", async () => {
  // No room per MiB and 100 ms of base: what lets this through is the room the worker's own conversion of the 64 MiB
  // earns (50 times it), on however busy a machine, and the clock stopped while the worker converts.
  const pool = createSearchPool({ baseMs: 100, perMiBMs: 0 });
  try {
    const big = bigLog(1_200_000, 100_000, "NEEDLE-ABC failure");
    assert(big.length > 64 * 1024 * 1024, `${big.length} bytes`);
    const r = await pool.search([{ name: "big" }], () => Promise.resolve(big), {
      ...options("NEEDLE-[A-Z]+ failure", "regex", false),
      maxScanBytes: Infinity,
    });
    assertEquals(r.matches.length, 7);
    assertEquals(r.matches[0].line, 100_000);
    let error: unknown;
    await pool.search([{ name: "evil" }], () => Promise.resolve(enc.encode(EVIL)), options("(a+)+$", "regex", false))
      .catch((e) => error = e);
    assert(error instanceof UserError, String(error));
    assertMatch(error.message, /stopped after 100 ms of matching \(the repeated group \(a\+\)\+ holds a quantifier/);
  } finally {
    pool.close();
  }
});

Deno.test("the deadline's message names what backtracks, and how much input it was matching", () => {
  const cases: Array<[string, RegExp]> = [
    ["(a+)+$", /^the repeated group \(a\+\)\+ holds a quantifier of its own: nested quantifiers/],
    ["^(\\w+\\s?)*$", /^the repeated group \(\\w\+\\s\?\)\* holds a quantifier/],
    ["((ab)*c)+x", /^the repeated group \(\(ab\)\*c\)\+ holds a quantifier/],
    ["(x|xy){2,}z", /^the repeated group \(x\|xy\)\{2,\} has alternatives that can match the same text/],
    ["a*a*a*a*b", /^quantifiers that can match the same characters/],
    ["[(]a+[)]+", /^quantifiers that can match the same characters/],
    ["\\(a+\\)+", /^quantifiers that can match the same characters/],
  ];
  for (const [source, cause] of cases) assertMatch(backtrackCause(source), cause, source);
  const e = regexTooLong(["a*a*a*b"], 4000.4, 'mode "literal"', 300 * 1024 * 1024);
  assertEquals(
    e.message,
    'regex "a*a*a*b" took too long and was stopped after 4000 ms of matching over 300 MiB (quantifiers that can ' +
      "match the same characters, such as \\w+\\w+ or (a|ab)*, retry every way of splitting a long run of them): " +
      'rewrite that part, or use mode "literal"',
  );
});

Deno.test("a regex search over a 64 MiB non-ASCII buffer succeeds through the server", async () => {
  await withServer(async (mcp, tmux) => {
    const big = bigLog(1_200_000, 250_000, "NEEDLE-XYZ failure");
    const path = await Deno.makeTempFile();
    try {
      await Deno.writeFile(path, big);
      await tmux.tmux("load-buffer", "-b", "big", path);
    } finally {
      await Deno.remove(path);
    }
    for (const query of ["NEEDLE-[A-Z]+ failure", "NEEDLE-\\S+ failure"]) {
      const r = await mcp.ok<SearchOutput>("search-buffer", {
        query,
        mode: "regex",
        buffers: ["big"],
        max_scan_bytes: 256 * 1024 * 1024,
      });
      assertEquals([r.total_matches, r.bytes_scanned_total, r.truncated_buffers], [4, big.length, []], query);
      assertEquals(r.matches.map((m) => m.line), [250_000, 500_000, 750_000, 1_000_000]);
    }
  });
});
