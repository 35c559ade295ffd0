/**
 * search-buffer (with and without near) through the MCP client over stdio,
 * against a private tmux server.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { type McpFixture, withServer } from "./helpers.ts";
import type { SearchOutput } from "../lib/tools/search_schemas.ts";

/** The response as the tools' output schema types it. */
type Result = SearchOutput;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Byte offset of UTF-16 index `i` of `text`, computed independently of the server. */
const byteAt = (text: string, i: number) => enc.encode(text.slice(0, i)).length;

/** Every match of `re` in `text` as [byte offset, byte length, line]. */
function expected(text: string, re: RegExp): Array<[number, number, number]> {
  return [...text.matchAll(re)].map((m) => [
    byteAt(text, m.index),
    enc.encode(m[0]).length,
    text.slice(0, m.index).split("\n").length,
  ]);
}

const triples = (r: Result) => r.matches.map((m) => [m.offset_bytes, m.match_len, m.line]);

/** Follows resume_from_offset until the search is complete; returns every page. */
async function allPages(mcp: McpFixture, tool: string, args: Record<string, unknown>): Promise<Result[]> {
  const pages: Result[] = [];
  let resume: Record<string, number> | undefined;
  for (;;) {
    const page = await mcp.ok<Result>(tool, resume ? { ...args, resume_from_offset: resume } : args);
    pages.push(page);
    if (page.truncated_buffers.length === 0) return pages;
    assert(pages.length < 500, "pagination does not end");
    resume = page.resume_from_offset;
  }
}

Deno.test("search-buffer finds literals and regexes with byte offsets, lines and snippets", async () => {
  await withServer(async (mcp) => {
    const text = "first line\nan error here\nno Error there\nerror: again\n";
    await mcp.ok("set-buffer", { name: "log", content: text });

    const lit = await mcp.ok<Result>("search-buffer", { query: "error", buffers: ["log"], context_bytes: 3 });
    assertEquals(triples(lit), expected(text, /error/g));
    assertEquals(lit.matches[0], {
      buffer: "log",
      offset_bytes: 14,
      match_len: 5,
      line: 2,
      context_start: 11,
      context_end: 22,
      snippet: "an error he",
    });
    assertEquals([lit.total_matches, lit.buffers_scanned, lit.bytes_scanned_total], [2, 1, enc.encode(text).length]);
    assertEquals([lit.truncated_buffers, lit.resume_from_offset], [[], {}]);
    // Inputs are echoed with their defaults.
    assertEquals(
      [lit.query, lit.mode, lit.ignore_case, lit.max_matches, lit.max_scan_bytes, lit.include_similarity, lit.buffers],
      ["error", "literal", false, 50, 16 * 1024 * 1024, false, ["log"]],
    );

    const ic = await mcp.ok<Result>("search-buffer", { query: "ERROR", ignore_case: true, buffers: ["log"] });
    assertEquals(triples(ic), expected(text, /error/gi));

    const re = await mcp.ok<Result>("search-buffer", { query: "^\\w+(?=:)|e\\w+r", mode: "regex", buffers: ["log"] });
    assertEquals(triples(re), expected(text, /^\w+(?=:)|e\w+r/gu));
    // ^ is the buffer start; (?m:^) is a line start.
    const lines = await mcp.ok<Result>("search-buffer", { query: "(?m:^)\\w+", mode: "regex", buffers: ["log"] });
    assertEquals(lines.matches.map((m) => m.line), [1, 2, 3, 4]);
  });
});

Deno.test("offsets count UTF-8 bytes with multi-byte text before and inside matches", async () => {
  await withServer(async (mcp, tmux) => {
    const text = "日本語のログ 🙂\nérror: ça a échoué — 中文错误 🙂🙂 naïve\nfin é";
    await mcp.ok("set-buffer", { name: "mb", content: text });
    for (
      const [query, mode, re] of [
        ["🙂", "literal", /🙂/gu],
        ["échoué", "literal", /échoué/gu],
        ["错误 🙂", "literal", /错误 🙂/gu],
        ["ÉRROR", "literal", /érror/giu],
        ["\\p{Script=Han}+", "regex", /\p{Script=Han}+/gu],
        ["[^\\x20-\\x7e\\n]", "regex", /[^\x20-\x7e\n]/gu],
        // Regexes searched on the buffer's bytes (rewritten in the search worker), across lines and with case folding.
        ["ÉCHOUÉ\\s+—", "regex", /ÉCHOUÉ\s+—/giu],
        ["🙂\\s+\\S", "regex", /🙂\s+\S/gu],
        ["^日.|é$", "regex", /^日.|é$/gu],
        ["(?<=ç)A\\b", "regex", /(?<=ç)A\b/giu],
        ["\\S*?(?=🙂)", "regex", /\S*?(?=🙂)/gu],
        ["[^]{3}", "regex", /[^]{3}/gu],
        ["NAÏVE|\\bÇ", "regex", /NAÏVE|\bÇ/giu],
      ] as const
    ) {
      const r = await mcp.ok<Result>("search-buffer", {
        query,
        mode,
        ignore_case: re.flags.includes("i"),
        buffers: ["mb"],
        max_matches: 1000,
        context_bytes: 5,
      });
      assertEquals(triples(r), expected(text, re), `${mode} ${query}`);
    }
    // The offsets address the buffer tmux holds: slicing its raw bytes gives the match back.
    const raw = enc.encode(await tmux.tmux("show-buffer", "-b", "mb"));
    const r = await mcp.ok<Result>("search-buffer", { query: "中文错误", buffers: ["mb"], context_bytes: 7 });
    const m = r.matches[0];
    assertEquals(dec.decode(raw.subarray(m.offset_bytes, m.offset_bytes + m.match_len)), "中文错误");
    // Snippets stop at character boundaries even when context_bytes lands inside one.
    assertEquals(m.snippet, dec.decode(raw.subarray(m.context_start, m.context_end)));
    assert(!m.snippet.includes("\uFFFD"), m.snippet);
    assert(m.offset_bytes - m.context_start <= 7 && m.context_end - (m.offset_bytes + m.match_len) <= 7);
  });
});

Deno.test("a buffer that is not valid UTF-8 is an error naming the buffer and the first invalid byte; a search of all leaves it out", async () => {
  await withServer(async (mcp, tmux) => {
    const bytes = new Uint8Array([...enc.encode("ok é line\n"), 0xe2, 0x82, 0x41, ...enc.encode(" more")]);
    await tmux.tmuxStdin(bytes, "load-buffer", "-b", "bin", "-");
    const e = await mcp.err("search-buffer", { query: "more", buffers: ["bin"] });
    // Only the broken sequence's bytes, not the text after it (which no redaction sees in hex).
    assertMatch(e, /^buffer "bin" is not valid UTF-8: the first invalid byte is at offset 11 \(bytes e2 82\)/);
    assertMatch(e, /or search-buffer near a match before that offset$/);
    // Invalid from its first byte: no text before it to search near a match in, and the error does not say so.
    await tmux.tmuxStdin(new Uint8Array([0xff, ...enc.encode(" more")]), "load-buffer", "-b", "head", "-");
    assertMatch(
      await mcp.err("search-buffer", { query: "more", buffers: ["head"] }),
      /^buffer "head" is not valid UTF-8: the first invalid byte is at offset 0 \(bytes ff\): only text can be searched; leave it out of buffers or look at it with show-buffer$/,
    );
    await mcp.ok("delete-buffer", { name: "head" });
    // A page that ends before it answers, its total partial; the page that reaches it fails.
    await mcp.ok("set-buffer", { name: "text", content: "more\nmore\n" });
    for (const mode of ["literal", "regex"]) {
      const page = await mcp.ok<Result>("search-buffer", {
        query: "more",
        mode,
        buffers: ["text", "bin"],
        max_matches: 1,
      });
      assertEquals([page.matches.length, page.total_matches, page.total_is_partial], [1, 2, true], mode);
    }
    // A window that stays before the bad byte is text and can be searched.
    const w = await mcp.ok<Result>("search-buffer", {
      near: { buffer: "bin", offset_bytes: 3, match_len: 2 },
      context_bytes: 3,
      query: "é",
    });
    assertEquals(triples(w), [[3, 2, 1]]);

    // Searching every buffer, the one that is not text is left out and named; the others' matches are all found.
    for (const mode of ["literal", "regex"]) {
      const all = await mcp.ok<Result>("search-buffer", { query: "more", mode });
      assertEquals(all.matches.map((m) => m.buffer), ["text", "text"], mode);
      assertEquals([all.total_matches, all.total_is_partial], [2, false], mode);
      assertEquals(all.skipped_buffers, ["bin"], mode);
      // The pages of a search of all go on past it too.
      const paged = await allPages(mcp, "search-buffer", { query: "more", mode, max_matches: 1 });
      assertEquals(paged.flatMap((p) => p.matches.map((m) => m.buffer)), ["text", "text"], mode);
    }
  });
});

Deno.test("a search of all buffers counts the matches past its page beyond a buffer that is not text", async () => {
  await withServer(async (mcp, tmux) => {
    // Listed newest first: a, bin, c. The page ends in "a"; the count goes on past "bin", which it leaves out.
    await tmux.tmux("set-buffer", "-b", "c", "hit c");
    await tmux.tmuxStdin(Uint8Array.of(0x68, 0xff), "load-buffer", "-b", "bin", "-");
    await tmux.tmux("set-buffer", "-b", "a", "hit hit a");
    for (const mode of ["literal", "regex"]) {
      const r = await mcp.ok<Result>("search-buffer", { query: "hit", max_matches: 1, mode });
      assertEquals(r.matches.map((m) => [m.buffer, m.offset_bytes]), [["a", 0]], mode);
      assertEquals([r.total_matches, r.total_is_partial], [3, false], mode);
    }
  });
});

Deno.test("a resumed search refuses a buffer replaced since the page that gave its offset, in both modes", async () => {
  await withServer(async (mcp, tmux) => {
    const first = Array.from({ length: 40 }, (_, i) => `line ${i}: needle ${i}`).join("\n");
    for (const mode of ["literal", "regex"]) {
      await tmux.tmux("set-buffer", "-b", "log", first);
      const args = { query: "needle", mode, buffers: ["log"], max_matches: 5 };
      const p1 = await mcp.ok<Result>("search-buffer", args);
      const resume = p1.resume_from_offset;
      assert(resume.log > 0, JSON.stringify(p1));
      // Appended to: the buffer is the one searched, and the search goes on where it left off.
      await tmux.tmux("set-buffer", "-a", "-b", "log", "\nappended needle");
      const p2 = await mcp.ok<Result>("search-buffer", { ...args, resume_from_offset: resume });
      assertEquals(p2.matches[0].snippet.includes("needle 5"), true, mode);
      // Replaced by another text under the same name: resuming would report its matches as the rest of the old one.
      await tmux.tmux("set-buffer", "-b", "log", first.replaceAll("line", "LINE"));
      assertMatch(
        await mcp.err("search-buffer", { ...args, resume_from_offset: p2.resume_from_offset }),
        /^buffer "log" changed since the search that gave resume_from_offset \d+ for it .*search again without resume_from_offset$/,
      );
      // A new search of it, and its own pages, are fine.
      const fresh = await mcp.ok<Result>("search-buffer", args);
      assertEquals(fresh.matches[0].snippet.includes("LINE 0"), true, mode);
    }
  });
});

Deno.test("a search of all buffers goes on when one is deleted after they were listed; a named one still fails", async () => {
  await withServer(async (mcp, tmux) => {
    const big = enc.encode(("x".repeat(1023) + "\n").repeat(20 * 1024));
    for (const mode of ["literal", "regex"]) {
      // Listed newest first: "first", the big ones (each read and scanned takes a while), then "victim".
      await tmux.tmux("set-buffer", "-b", "victim", "needle in the victim");
      for (const n of ["big1", "big2", "big3", "big4", "big5", "big6"]) {
        await tmux.tmuxStdin(big, "load-buffer", "-b", n, "-");
      }
      await tmux.tmux("set-buffer", "-b", "first", "needle first");
      // Deleted once the first buffer is searched (its progress notification): the list is taken by then.
      let deleted: Promise<unknown> | undefined;
      const r = await mcp.client.callTool(
        { name: "search-buffer", arguments: { query: "needle", mode, max_scan_bytes: 256 * 1024 * 1024 } },
        undefined,
        { timeout: 120_000, onprogress: () => void (deleted ??= tmux.tmux("delete-buffer", "-b", "victim")) },
      );
      await deleted;
      assert(!r.isError, `${mode}: ${JSON.stringify(r.content)}`);
      const out = r.structuredContent as Result;
      assertEquals(out.matches.map((m) => [m.buffer, m.snippet]), [["first", "needle first"]], mode);
      assertEquals([out.total_matches, out.total_is_partial], [1, false], mode);
    }
    assertMatch(
      await mcp.err("search-buffer", { query: "needle", buffers: ["first", "gone"] }),
      /^no buffer named "gone": call list-buffers to see the buffers$/,
    );
  });
});

Deno.test("a resumed search of all buffers goes on when a buffer of the last page was deleted since", async () => {
  await withServer(async (mcp) => {
    for (const n of ["c", "b", "a"]) await mcp.ok("set-buffer", { name: n, content: `hit ${n} hit ${n}` });
    // Listed newest first: a, b, c. The first page stops inside "b".
    const first = await mcp.ok<Result>("search-buffer", { query: "hit", max_matches: 3 });
    assertEquals(first.resume_from_offset, { b: 6, c: 0 });
    for (const gone of ["b", "c"]) {
      await mcp.ok("delete-buffer", { name: gone });
      const next = await mcp.ok<Result>("search-buffer", {
        query: "hit",
        resume_from_offset: first.resume_from_offset,
      });
      const left = gone === "b" ? [["c", 0], ["c", 6]] : [];
      assertEquals(next.matches.map((m) => [m.buffer, m.offset_bytes]), left, gone);
      assertEquals(next.truncated_buffers, [], gone);
    }
    // Naming the buffers, a missing one is still an error.
    assertMatch(
      await mcp.err("search-buffer", { query: "hit", buffers: ["a", "b"], resume_from_offset: { b: 6 } }),
      /^no buffer named "b"/,
    );
  });
});

Deno.test("invalid regex, empty query, lone surrogate and unknown buffers are clear errors", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "b", content: "abc" });
    assertMatch(
      await mcp.err("search-buffer", { query: "a(b", mode: "regex" }),
      /^invalid regex "a\(b": .*mode "literal"/,
    );
    // Another engine's inline flags: what to pass instead, in the same words from every tool that takes a regex.
    const inline =
      'invalid regex "(?i)abc": Invalid group (JavaScript syntax, u flag); JavaScript has no inline flags ' +
      "like (?i): drop it and pass ignore_case: true; fix it or pass ";
    assertEquals(
      await mcp.err("search-buffer", { query: "(?i)abc", mode: "regex" }),
      inline + 'mode "literal" for literal text',
    );
    assertEquals(
      await mcp.err("search-panes", { query: "(?i)abc", mode: "regex" }),
      inline + 'mode "literal" for literal text',
    );
    assertEquals(
      await mcp.err("wait", { what: "text", patterns: ["(?i)abc"], regex: true, timeout_ms: 0 }),
      inline + "regex: false for literal text",
    );
    assertMatch(await mcp.err("search-buffer", { query: "" }), /query: query must not be empty/);
    assertMatch(await mcp.err("search-buffer", { query: "x".repeat(1025) }), /longer than 1024/);
    assertMatch(await mcp.err("search-buffer", { query: "\uD83D" }), /lone surrogate/);
    assertMatch(
      await mcp.err("search-buffer", { query: "a", buffers: ["nope"] }),
      /^no buffer named "nope": call list-buffers/,
    );
    assertMatch(
      await mcp.err("search-buffer", { near: { buffer: "nope", offset_bytes: 0 }, query: "a" }),
      /^no buffer named "nope"/,
    );
    assertMatch(await mcp.err("search-buffer", { query: "a", buffers: ["b", "b"] }), /lists "b" twice/);
    assertMatch(
      await mcp.err("search-buffer", { query: "a", buffers: ["b"], resume_from_offset: { other: 0 } }),
      /names "other", which is not in buffers/,
    );
    assertMatch(
      await mcp.err("search-buffer", { query: "a", buffers: ["b"], resume_from_offset: { b: 99 } }),
      /resume_from_offset 99 for "b" is outside the buffer/,
    );
    assertMatch(await mcp.err("search-buffer", { query: "a", max_matches: 1001 }), /max_matches/);
    assertMatch(
      await mcp.err("search-buffer", { near: { buffer: "b", offset_bytes: 2, match_len: 5 }, query: "a" }),
      /past the end of buffer "b" \(size 3 bytes\)/,
    );
  });
});

Deno.test("a regex that matches the empty string still makes progress and pages exactly", async () => {
  await withServer(async (mcp) => {
    const text = "ab\n🙂\n\nc";
    await mcp.ok("set-buffer", { name: "e", content: text });
    for (const query of ["x*", "(?m:^)", "$", "\\b", "(?=🙂)|c"]) {
      const want = expected(text, new RegExp(query, "gu"));
      const one = await mcp.ok<Result>("search-buffer", { query, mode: "regex", buffers: ["e"], max_matches: 1000 });
      assertEquals(triples(one), want, query);
      for (const page of [{ max_matches: 1 }, { max_scan_bytes: 1 }, { max_matches: 2, max_scan_bytes: 3 }]) {
        const pages = await allPages(mcp, "search-buffer", { query, mode: "regex", buffers: ["e"], ...page });
        assertEquals(pages.flatMap(triples), want, `${query} ${JSON.stringify(page)}`);
      }
    }
  });
});

Deno.test("pages by max_matches and by max_scan_bytes return every match exactly once, across buffers", async () => {
  await withServer(async (mcp) => {
    const texts: Record<string, string> = {
      one: "error é error\nerrorerror ünïcödé error 🙂error\n",
      two: "nothing here",
      three: "x".repeat(40) + "error" + "中".repeat(10) + "error",
    };
    for (const [name, content] of Object.entries(texts)) await mcp.ok("set-buffer", { name, content });
    const buffers = ["one", "two", "three"];
    const want = buffers.flatMap((b) => expected(texts[b], /error/g).map(([o, l, n]) => [b, o, l, n]));
    const flat = (pages: Result[]) =>
      pages.flatMap((p) => p.matches.map((m) => [m.buffer, m.offset_bytes, m.match_len, m.line]));

    const whole = await mcp.ok<Result>("search-buffer", { query: "error", buffers });
    assertEquals(flat([whole]), want);
    assertEquals([whole.total_matches, whole.total_is_partial], [want.length, false]);

    for (const page of [{ max_matches: 1 }, { max_matches: 2 }, { max_scan_bytes: 3 }, { max_scan_bytes: 7 }]) {
      for (const [query, mode] of [["error", "literal"], ["e[a-z]+r", "regex"]]) {
        const pages = await allPages(mcp, "search-buffer", { query, mode, buffers, ...page });
        const base = mode === "literal"
          ? want
          : flat([await mcp.ok<Result>("search-buffer", { query, mode, buffers })]);
        assertEquals(flat(pages), base, `${query} ${JSON.stringify(page)}`);
        for (const [i, p] of pages.entries()) {
          assert(p.matches.length <= (page.max_matches ?? 50));
          // Paged by max_matches, every page counts the whole buffers (the first page has them all), except a
          // resumed page whose earlier buffers are done; paged by max_scan_bytes, the count is cut with the page.
          const whole = base.length;
          if (page.max_matches && i === 0) assertEquals([p.total_matches, p.total_is_partial], [whole, false]);
          if (p.total_is_partial) assert(p.total_matches <= whole && p.total_matches >= p.matches.length);
          else assertEquals(p.total_matches, whole, `${query} ${JSON.stringify(page)} page ${i}`);
          if (page.max_scan_bytes && p.truncated_buffers.length > 0) assert(p.total_is_partial);
          // Over the budget only by a match that starts inside it (≤ 10 bytes here) and a character (≤ 3).
          if (page.max_scan_bytes) assert(p.bytes_scanned_total <= page.max_scan_bytes + 12, "budget overrun");
          assertEquals(Object.keys(p.resume_from_offset), p.truncated_buffers);
        }
      }
    }

    // A budget that ends inside a match: the match comes whole in the first page, and only there.
    const split = await mcp.ok<Result>("search-buffer", { query: "errorerror", buffers: ["one"], max_scan_bytes: 18 });
    assertEquals(triples(split), [[15, 10, 2]]);
    assertEquals(split.resume_from_offset, { one: 25 });
    const rest = await mcp.ok<Result>("search-buffer", {
      query: "errorerror",
      buffers: ["one"],
      resume_from_offset: split.resume_from_offset,
    });
    assertEquals([rest.matches.length, rest.total_matches, rest.truncated_buffers], [0, 1, []]);

    // Omitting buffers searches every buffer in list-buffers order (most recent first).
    const all = await mcp.ok<Result>("search-buffer", { query: "error", max_matches: 1 });
    assertEquals(all.buffers, ["three", "two", "one"]);
    assertEquals(all.truncated_buffers, ["three", "two", "one"]);
    const next = await mcp.ok<Result>("search-buffer", {
      query: "error",
      max_matches: 1000,
      resume_from_offset: all.resume_from_offset,
    });
    assertEquals(all.matches.length + next.matches.length, want.length);
    assertEquals([all.total_matches, all.total_is_partial], [want.length, false]);
  });
});

Deno.test("search-buffer counts every match of the buffer beyond the page, and says when the count is cut", async () => {
  await withServer(async (mcp) => {
    // 20000 matches, 5 a page: the total is the buffer's, counted without building the other 19995.
    const lines = Array.from({ length: 20000 }, (_, i) => `line ${i} error ${i % 7 === 0 ? "error" : ""}`);
    const text = lines.join("\n") + "\n";
    await mcp.ok("set-buffer", { name: "big", content: text });
    const want = [...text.matchAll(/error/g)].length;
    for (const [query, mode] of [["error", "literal"], ["err[o]r", "regex"], ["ERROR", "literal"]]) {
      const first = await mcp.ok<Result>("search-buffer", {
        query,
        mode,
        ignore_case: query === "ERROR",
        buffers: ["big"],
        max_matches: 5,
      });
      assertEquals([first.matches.length, first.total_matches, first.total_is_partial], [5, want, false], query);
      // A resumed page counts what lies before its offset too.
      const second = await mcp.ok<Result>("search-buffer", {
        query,
        mode,
        ignore_case: query === "ERROR",
        buffers: ["big"],
        max_matches: 5,
        resume_from_offset: first.resume_from_offset,
      });
      assertEquals([second.total_matches, second.total_is_partial], [want, false], query);
      assertEquals(second.matches[0].offset_bytes, first.resume_from_offset.big);
    }
    // A count cut by max_scan_bytes is a lower bound and says so.
    const cut = await mcp.ok<Result>("search-buffer", {
      query: "error",
      buffers: ["big"],
      max_matches: 5,
      max_scan_bytes: 100_000,
    });
    assertEquals(cut.total_is_partial, true);
    assert(cut.total_matches > 5 && cut.total_matches < want, `${cut.total_matches}`);
    // Buffers the page never reached are counted too.
    await mcp.ok("set-buffer", { name: "small", content: "error\n".repeat(30) });
    const two = await mcp.ok<Result>("search-buffer", { query: "error", buffers: ["small", "big"], max_matches: 10 });
    assertEquals([two.matches.length, two.total_matches, two.total_is_partial], [10, want + 30, false]);
    assertEquals(two.truncated_buffers, ["small", "big"]);
  });
});

Deno.test("search-buffer near a match searches a window clamped at the buffer's start and end, with absolute offsets", async () => {
  await withServer(async (mcp) => {
    const text = "id=1 start é id=2\n" + "-".repeat(100) + "\nid=3 end id=4 🙂";
    await mcp.ok("set-buffer", { name: "w", content: text });
    const size = enc.encode(text).length;
    const ids = expected(text, /id=\d/g);

    // At the start: the window [0 - 20 → 0, 5 + 4 + 20] holds id=1 and id=2.
    const head = await mcp.ok<Result>("search-buffer", {
      near: { buffer: "w", offset_bytes: 5, match_len: 5 },
      context_bytes: 20,
      query: "id=\\d",
      mode: "regex",
    });
    assertEquals(head.window, { buffer: "w", start_bytes: 0, end_bytes: 30 });
    assertEquals(head.max_scan_bytes, 30);
    assertEquals(triples(head), ids.slice(0, 2));
    assert(head.matches.every((m) => m.context_start >= 0 && m.context_end <= 30));

    // At the end: the window is cut at the buffer's end.
    const endAt = byteAt(text, text.indexOf("end"));
    const tail = await mcp.ok<Result>("search-buffer", {
      near: { buffer: "w", offset_bytes: endAt, match_len: 3 },
      context_bytes: 4096,
      query: "id=\\d|🙂$",
      mode: "regex",
    });
    assertEquals(tail.window, { buffer: "w", start_bytes: 0, end_bytes: size });
    assertEquals(triples(tail), expected(text, /id=\d|🙂$/gu));

    // The window is the whole text: ^ and $ match its edges; a character cut by an edge is left out.
    const edges = (offset_bytes: number, context_bytes: number) =>
      mcp.ok<Result>("search-buffer", {
        near: { buffer: "w", offset_bytes, match_len: 4 },
        context_bytes,
        query: "^.|.$",
        mode: "regex",
      });
    // [129 - 3, 129 + 4 + 3) ends inside "🙂" (134..137): the window stops before it.
    const endCut = await edges(129, 3);
    assertEquals(endCut.window, { buffer: "w", start_bytes: 126, end_bytes: 134 });
    assertEquals(triples(endCut), [[126, 1, 3], [133, 1, 3]]);
    // [14 - 2, ...) starts inside "é" (11..12): the window starts after it.
    const startCut = await edges(14, 2);
    assertEquals(startCut.window, { buffer: "w", start_bytes: 13, end_bytes: 20 });
    assertEquals(triples(startCut), [[13, 1, 1], [19, 1, 2]]);

    // truncated only when the window holds more matches than returned, not because the buffer goes on.
    const narrow = await mcp.ok<Result>("search-buffer", {
      near: { buffer: "w", offset_bytes: 0, match_len: 4 },
      context_bytes: 10,
      query: "id=",
    });
    assertEquals([triples(narrow), narrow.truncated_buffers, narrow.window?.end_bytes], [[[0, 3, 1]], [], 14]);
    const pages = await allPages(mcp, "search-buffer", {
      near: { buffer: "w", offset_bytes: 0, match_len: size },
      context_bytes: 0,
      query: "id=\\d",
      mode: "regex",
      max_matches: 1,
    });
    assertEquals(pages.flatMap(triples), ids);
    assertEquals(pages.map((p) => p.truncated_buffers.length), [1, 1, 1, 0]);
    assertMatch(
      await mcp.err("search-buffer", {
        near: { buffer: "w", offset_bytes: 0 },
        query: "x",
        resume_from_offset: { v: 1 },
      }),
      /but this search is near a match in "w"/,
    );
  });
});

Deno.test("similarity ranks an exact word above a hit inside a word above a case-only match", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "s", content: "ERROR then errors then error" });
    for (const [query, mode] of [["error", "literal"], ["error", "regex"]]) {
      const r = await mcp.ok<Result>("search-buffer", {
        query,
        mode,
        ignore_case: true,
        include_similarity: true,
        buffers: ["s"],
      });
      const [caseOnly, inside, exact] = r.matches.map((m) => m.similarity!);
      assertEquals(exact, 1);
      assert(exact > inside && inside > caseOnly, `${mode}: ${exact} > ${inside} > ${caseOnly}`);
      assertEquals(r.max_similarity, 1);
      assertEquals(r.avg_similarity, Math.round(((caseOnly + inside + exact) / 3) * 1e4) / 1e4);
    }
    const none = await mcp.ok<Result>("search-buffer", { query: "zzz", include_similarity: true, buffers: ["s"] });
    assertEquals([none.max_similarity, none.avg_similarity], [null, null]);
    const plain = await mcp.ok<Result>("search-buffer", { query: "error", buffers: ["s"] });
    assert(!("similarity" in plain.matches[0]) && !("max_similarity" in plain));
  });
});

Deno.test("search tools are listed read-only with bounded inputs and an output schema", async () => {
  await withServer(async (mcp) => {
    const { tools } = await mcp.client.listTools();
    const t = tools.find((x) => x.name === "search-buffer")!;
    assert(t);
    assertEquals(t.annotations?.readOnlyHint, true);
    assert(t.outputSchema);
    const props = t.inputSchema.properties as Record<string, { maxLength?: number; maximum?: number }>;
    assertMatch(await mcp.err("search-buffer", { query: "q".repeat(1025) }), /query is longer than 1024 characters/);
    assertEquals(props.max_matches.maximum, 1000);
    assertEquals(props.context_bytes.maximum, 4096);
    assert(!tools.some((x) => x.name === "subsearch-buffer"), "subsearch-buffer is a former name, not listed");
  }, { args: ["--safety", "readonly"] });
});

Deno.test("subsearch-buffer, the former name, says how to call search-buffer with near; near's defaults", async () => {
  await withServer(async (mcp) => {
    const text = "x".repeat(1000) + "hit" + "y".repeat(1000);
    await mcp.ok("set-buffer", { name: "n", content: text });
    assertEquals(
      await mcp.err("subsearch-buffer", { buffer: "n", offset_bytes: 1000, query: "hit" }),
      'unknown tool "subsearch-buffer": it is now search-buffer with near: {buffer, offset_bytes, match_len} ' +
        "(context_bytes: bytes each side). call tools/list to see the tools this server offers",
    );
    // With near, context_bytes defaults to 256 around the match; without, snippets get 64 bytes each side.
    const near = await mcp.ok<Result>("search-buffer", {
      near: { buffer: "n", offset_bytes: 1000, match_len: 3 },
      query: "hit",
    });
    assertEquals(near.window, { buffer: "n", start_bytes: 744, end_bytes: 1259 });
    assertEquals([near.context_bytes, near.max_scan_bytes, near.buffers], [256, 515, ["n"]]);
    const whole = await mcp.ok<Result>("search-buffer", { query: "hit", buffers: ["n"] });
    assertEquals([whole.context_bytes, "window" in whole, triples(whole)], [64, false, triples(near)]);
    assertMatch(
      await mcp.err("search-buffer", { near: { buffer: "n", offset_bytes: 0 }, buffers: ["n"], query: "hit" }),
      /near names its buffer: leave buffers out/,
    );
  });
});
