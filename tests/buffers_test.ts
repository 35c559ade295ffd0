import { assert, assertEquals, assertMatch } from "./assert.ts";
import { withServer } from "./helpers.ts";
import { canMount, smallDisk, unmount } from "./pane_helpers.ts";

interface Slice {
  size_bytes: number;
  offset_bytes: number;
  returned_bytes: number;
  next_offset_bytes: number | null;
  text: string;
}

const enc = new TextEncoder();

Deno.test("buffer tools round-trip names with spaces, |, tab, leading -, #{...}, ;, non-ASCII", async () => {
  await withServer(async (mcp, tmux) => {
    const names = [
      "sp ace",
      "p|ipe",
      "a\tb",
      "-lead",
      "#{pane_id}",
      "#(touch /tmp/tmcp-pwned)",
      "x;",
      "é中🙂",
      "q'\"x",
    ];
    for (const [i, name] of names.entries()) await mcp.ok("set-buffer", { name, content: `content ${i}` });
    const { buffers } = await mcp.ok<{ buffers: { name: string; size_bytes: number; order_index: number }[] }>(
      "list-buffers",
    );
    assertEquals(buffers.map((b) => b.name).sort(), [...names].sort());
    // order_index 0 is the most recently added.
    assertEquals(buffers[0], { name: names.at(-1)!, size_bytes: 9, order_index: 0 });
    for (const [i, name] of names.entries()) {
      assertEquals((await mcp.ok<Slice>("show-buffer", { name })).text, `content ${i}`);
    }
    // tmux itself sees the literal names (no format expansion, no command split).
    const raw = await tmux.tmux("show-buffer", "-b", "#{pane_id}");
    assertEquals(raw, "content 4");
    let pwned = true;
    await Deno.stat("/tmp/tmcp-pwned").catch(() => pwned = false);
    assertEquals(pwned, false);
  });
});

Deno.test("list-buffers parses a name containing a newline made outside the server", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmuxStdin(enc.encode("abc"), "load-buffer", "-b", "line1\n12 3 x", "-");
    await tmux.tmuxStdin(enc.encode("de"), "load-buffer", "-b", "plain", "-");
    const { buffers } = await mcp.ok<{ buffers: { name: string; size_bytes: number }[] }>("list-buffers");
    assertEquals(buffers.map((b) => [b.name, b.size_bytes]), [["plain", 2], ["line1\n12 3 x", 3]]);
  });
});

Deno.test("a buffer named outside the server with a newline, a control character or 300 characters is reachable", async () => {
  await withServer(async (mcp, tmux) => {
    const names = ["line1\nline2", "esc\x1b[31m", "L".repeat(300)];
    for (const name of names) await tmux.tmux("set-buffer", "-b", name, "hit hit");
    // A search of all pages through them: its resume_from_offset is taken back as it was given.
    const first = await mcp.ok<{ resume_from_offset: Record<string, number> }>("search-buffer", {
      query: "hit",
      max_matches: 1,
    });
    assertEquals(Object.keys(first.resume_from_offset).sort(), [...names].sort());
    const rest = await mcp.ok<{ matches: unknown[] }>("search-buffer", {
      query: "hit",
      resume_from_offset: first.resume_from_offset,
    });
    assertEquals(rest.matches.length, 5);
    for (const name of names) {
      assertEquals((await mcp.ok<Slice>("show-buffer", { name })).text, "hit hit");
      const near = await mcp.ok<{ matches: unknown[] }>("search-buffer", {
        query: "hit",
        near: { buffer: name, offset_bytes: 4, match_len: 3 },
      });
      assertEquals(near.matches.length, 2);
      assertEquals(await mcp.ok("delete-buffer", { name }), { name, deleted: true });
    }
    assertEquals((await mcp.ok<{ buffers: unknown[] }>("list-buffers")).buffers, []);
    // A name this server writes still may not hold them.
    assertMatch(await mcp.err("set-buffer", { name: "a\x1bb", content: "x" }), /control characters/);
  });
});

Deno.test("show-buffer slices never cut a multi-byte character and page back byte-exact", async () => {
  await withServer(async (mcp) => {
    const text = "aé中🙂".repeat(12) + "end";
    await mcp.ok("set-buffer", { name: "mb", content: text });
    const size = enc.encode(text).length;
    for (const max of [1, 2, 3, 5, 7, 64]) {
      let offset = 0;
      let out = "";
      let pages = 0;
      while (true) {
        const s = await mcp.ok<Slice>("show-buffer", { name: "mb", offset_bytes: offset, max_bytes: max });
        assertEquals(s.size_bytes, size);
        assert(s.returned_bytes >= 1, "every page moves forward");
        assert(s.returned_bytes <= Math.max(max, 4));
        assert(!s.text.includes("\uFFFD"), `max ${max}: no replacement character`);
        out += s.text;
        pages++;
        if (s.next_offset_bytes === null) break;
        offset = s.next_offset_bytes;
      }
      assertEquals(out, text, `max_bytes ${max} reassembles exactly (${pages} pages)`);
    }
    // A slice too small for the character at its start returns that character whole.
    const tiny = await mcp.ok<Slice>("show-buffer", { name: "mb", offset_bytes: 1, max_bytes: 1 });
    assertEquals([tiny.text, tiny.returned_bytes, tiny.next_offset_bytes], ["é", 2, 3]);
  });
});

Deno.test("show-buffer refuses an offset inside a character, not inside malformed bytes", async () => {
  await withServer(async (mcp, tmux) => {
    // An offset no page gave (counted in characters, say) falls inside "é".
    await mcp.ok("set-buffer", { name: "ch", content: "é".repeat(4) });
    assertMatch(
      await mcp.err("show-buffer", { name: "ch", offset_bytes: 3 }),
      /^offset_bytes 3 is inside a UTF-8 character of buffer "ch" \(it starts at byte 2\): .*next_offset_bytes/,
    );
    assertEquals((await mcp.ok<Slice>("show-buffer", { name: "ch", offset_bytes: 2 })).text, "ééé");
    // Malformed bytes page one at a time, whatever they look like: e4 b8 is a character cut short.
    await tmux.tmuxStdin(new Uint8Array([0x61, 0xe4, 0xb8, 0x63, 0x80]), "load-buffer", "-b", "bin", "-");
    for (const offset of [2, 4]) {
      const s = await mcp.ok<Slice>("show-buffer", { name: "bin", offset_bytes: offset, max_bytes: 1 });
      assertEquals(s.returned_bytes, 1);
    }
  });
});

Deno.test("show-buffer keeps a U+FEFF at the start of a page: a byte-order mark, or one a page boundary reaches", async () => {
  for (const redact of ["on", "off"]) {
    await withServer(async (mcp, tmux) => {
      const text = "\uFEFFab\uFEFFcd";
      await tmux.tmuxStdin(enc.encode(text), "load-buffer", "-b", "bom", "-");
      assertEquals((await mcp.ok<Slice>("show-buffer", { name: "bom" })).text, text, redact);
      const first = await mcp.ok<Slice>("show-buffer", { name: "bom", max_bytes: 5 });
      const second = await mcp.ok<Slice>("show-buffer", { name: "bom", offset_bytes: first.next_offset_bytes! });
      assertEquals([first.text, second.text], ["\uFEFFab", "\uFEFFcd"], redact);
    }, { args: ["--redact", redact] });
  }
});

Deno.test("show-buffer keeps paging facts out of the slice text", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "p", content: "0123456789" });
    const r = await mcp.call("show-buffer", { name: "p", offset_bytes: 4, max_bytes: 3 });
    assertEquals(r.content[0], { type: "text", text: "456" });
    const facts = JSON.parse((r.content[1] as { text: string }).text);
    assertEquals(facts, { name: "p", size_bytes: 10, offset_bytes: 4, returned_bytes: 3, next_offset_bytes: 7 });
  });
});

Deno.test("show-buffer at the end returns an empty slice; past the end is an error", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "e", content: "abc" });
    const end = await mcp.ok<Slice>("show-buffer", { name: "e", offset_bytes: 3 });
    assertEquals([end.text, end.returned_bytes, end.next_offset_bytes], ["", 0, null]);
    assertMatch(await mcp.err("show-buffer", { name: "e", offset_bytes: 4 }), /past the end.*size 3.*from 0 to 3/);
  });
});

Deno.test("show-buffer refuses to read on into a buffer replaced since the page that gave the offset", async () => {
  await withServer(async (mcp, tmux) => {
    const first = Array.from({ length: 80 }, (_, i) => `old line ${i}`).join("\n");
    await mcp.ok("set-buffer", { name: "log", content: first });
    const p1 = await mcp.ok<Slice>("show-buffer", { name: "log", max_bytes: 300 });
    assertEquals(p1.next_offset_bytes, 300);
    // Appended to: the text before the offset is the same, and paging goes on.
    await mcp.ok("append-buffer", { name: "log", content: "\nappended" });
    const p2 = await mcp.ok<Slice>("show-buffer", { name: "log", offset_bytes: 300, max_bytes: 300 });
    assertEquals(p2.text, (first + "\nappended").slice(300, 600));
    // Replaced by another client (a newer log under the same name): reading on would mix the two texts.
    await tmux.tmux("set-buffer", "-b", "log", Array.from({ length: 80 }, (_, i) => `new entry ${i}`).join("\n"));
    assertMatch(
      await mcp.err("show-buffer", { name: "log", offset_bytes: 600, max_bytes: 300 }),
      /buffer "log" changed since the page that gave offset_bytes 600: it was replaced.*from offset_bytes 0/,
    );
    // Replaced by a shorter text: the same cause, not "past the end".
    await mcp.ok("set-buffer", { name: "log", content: first });
    const p3 = await mcp.ok<Slice>("show-buffer", { name: "log", offset_bytes: 0, max_bytes: 500 });
    await mcp.ok("set-buffer", { name: "log", content: "short" });
    assertMatch(
      await mcp.err("show-buffer", { name: "log", offset_bytes: p3.next_offset_bytes! }),
      /changed since the page that gave offset_bytes 500/,
    );
    // An offset no page gave is read as asked.
    await mcp.ok("set-buffer", { name: "log", content: first });
    assertEquals(
      (await mcp.ok<Slice>("show-buffer", { name: "log", offset_bytes: 4, max_bytes: 4 })).text,
      first.slice(4, 8),
    );
  });
});

Deno.test("show-buffer reads a replaced buffer at any offset once it was read again from the start", async () => {
  await withServer(async (mcp, tmux) => {
    await mcp.ok("set-buffer", {
      name: "log",
      content: Array.from({ length: 80 }, (_, i) => `old line ${i}`).join("\n"),
    });
    assertEquals((await mcp.ok<Slice>("show-buffer", { name: "log", max_bytes: 300 })).next_offset_bytes, 300);
    const fresh = Array.from({ length: 80 }, (_, i) => `new entry ${i}`).join("\n");
    await tmux.tmux("set-buffer", "-b", "log", fresh);
    assertMatch(await mcp.err("show-buffer", { name: "log", offset_bytes: 300 }), /read it again from offset_bytes 0/);
    // Done as the refusal says: the new text is read whole, and an offset into it (a search's context_start, the
    // old page's end by chance) is read as asked.
    assertEquals((await mcp.ok<Slice>("show-buffer", { name: "log" })).text, fresh);
    assertEquals(
      (await mcp.ok<Slice>("show-buffer", { name: "log", offset_bytes: 300, max_bytes: 20 })).text,
      fresh.slice(300, 320),
    );
  });
});

Deno.test("show-buffer replaces invalid UTF-8 instead of failing", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmuxStdin(new Uint8Array([0x61, 0xff, 0x62]), "load-buffer", "-b", "bin", "-");
    const s = await mcp.ok<Slice>("show-buffer", { name: "bin" });
    assertEquals([s.text, s.size_bytes], ["a\uFFFDb", 3]);
  });
});

Deno.test("show-buffer says when a page is not UTF-8 text, and where, not for a U+FFFD the buffer holds", async () => {
  await withServer(async (mcp, tmux) => {
    // 0xff at offset 5: it showed as U+FFFD, like the real U+FFFD before it, and nothing said which was which.
    await tmux.tmuxStdin(new Uint8Array([0x61, 0xef, 0xbf, 0xbd, 0x62, 0xff, 0x63]), "load-buffer", "-b", "bin", "-");
    const texts = async (args: Record<string, unknown>) =>
      (await mcp.call("show-buffer", { name: "bin", ...args })).content.map((c) => c.type === "text" ? c.text : "");
    const whole = await texts({});
    assertEquals(whole[0], "a\uFFFDb\uFFFDc");
    assertEquals(JSON.parse(whole[1]).returned_bytes, 7);
    assertEquals(
      whole[2],
      `warning: buffer "bin" is not UTF-8 text (the first invalid byte of this page is at offset 5): text shows ` +
        "each invalid byte as U+FFFD; for the exact bytes, save-buffer it to a file",
    );
    assertEquals(whole.length, 3);
    // A page of valid text, the buffer's own U+FFFD included, has no warning; the page with the bad byte has one.
    assertEquals((await texts({ max_bytes: 5 })).length, 2);
    assertMatch((await texts({ offset_bytes: 4, max_bytes: 2 }))[2], /of this page is at offset 5\)/);
  });
});

Deno.test("empty content is refused and leaves the buffer as it was", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "keep", content: "data" });
    assertMatch(await mcp.err("set-buffer", { name: "keep", content: "" }), /empty buffer.*unchanged.*delete-buffer/);
    assertEquals((await mcp.ok<Slice>("show-buffer", { name: "keep" })).text, "data");
    assertMatch(await mcp.err("append-buffer", { name: "keep", content: "" }), /content must not be empty/);
  });
});

Deno.test("a 10 MiB set, append and paged show round trip is byte-exact", async () => {
  await withServer(async (mcp) => {
    const line = "0123456789abcdefghijklmnopqrstuvwxyzé中🙂\n";
    const half = line.repeat(Math.ceil(5 * 1024 * 1024 / enc.encode(line).length));
    await mcp.ok("set-buffer", { name: "big", content: half });
    const appended = await mcp.ok("append-buffer", {
      name: "big",
      content: half,
    });
    const expected = half + half;
    const size = enc.encode(expected).length;
    assert(size > 10 * 1024 * 1024);
    assertEquals(appended, { name: "big", created: false, size_bytes: size, appended_bytes: size / 2 });
    const parts: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const s: Slice = await mcp.ok<Slice>("show-buffer", { name: "big", offset_bytes: offset, max_bytes: 1048576 });
      assert(typeof s.text === "string" && s.next_offset_bytes !== offset, "a real page that moves forward");
      parts.push(s.text);
      offset = s.next_offset_bytes;
    }
    assert(parts.join("") === expected, "reassembled content equals what was stored");
  }, { args: ["--max-tokens", "1000000"] }); // 1 MiB pages fit; budgets have their own tests
});

Deno.test("50 concurrent appends to one buffer lose nothing", async () => {
  await withServer(async (mcp) => {
    const results = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => mcp.ok<{ created: boolean }>("append-buffer", { name: "log", content: `<${i}>` }),
      ),
    );
    assertEquals(results.filter((r) => r.created).length, 1, "exactly one append created the buffer");
    const text = (await mcp.ok<Slice>("show-buffer", { name: "log" })).text;
    const seen = [...text.matchAll(/<(\d+)>/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    assertEquals(seen, Array.from({ length: 50 }, (_, i) => i));
  });
});

Deno.test("append-buffer creates a missing buffer and says so", async () => {
  await withServer(async (mcp) => {
    assertEquals(await mcp.ok("append-buffer", { name: "new", content: "x" }), {
      name: "new",
      size_bytes: 1,
      appended_bytes: 1,
      created: true,
    });
  });
});

Deno.test("rename-buffer refuses to overwrite without overwrite and changes nothing", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "a", content: "AAA" });
    await mcp.ok("set-buffer", { name: "b", content: "BBB" });
    assertMatch(
      await mcp.err("rename-buffer", { from: "a", to: "b" }),
      /already exists.*nothing was changed.*overwrite/,
    );
    assertEquals((await mcp.ok<Slice>("show-buffer", { name: "a" })).text, "AAA");
    assertEquals((await mcp.ok<Slice>("show-buffer", { name: "b" })).text, "BBB");
    assertEquals(await mcp.ok("rename-buffer", { from: "a", to: "b", overwrite: true }), {
      from: "a",
      to: "b",
      replaced: true,
    });
    assertEquals((await mcp.ok<Slice>("show-buffer", { name: "b" })).text, "AAA");
    assertMatch(await mcp.err("show-buffer", { name: "a" }), /no buffer named "a".*list-buffers/);
    assertEquals(await mcp.ok("rename-buffer", { from: "b", to: "c;" }), { from: "b", to: "c;", replaced: false });
    assertEquals((await mcp.ok<Slice>("show-buffer", { name: "c;" })).text, "AAA");
    assertMatch(await mcp.err("rename-buffer", { from: "nope", to: "z" }), /no buffer named "nope"/);
  });
});

Deno.test("delete-buffer removes a buffer; deleting it again is a clear error", async () => {
  await withServer(async (mcp) => {
    await mcp.ok("set-buffer", { name: "d", content: "x" });
    assertEquals(await mcp.ok("delete-buffer", { name: "d" }), { name: "d", deleted: true });
    assertMatch(await mcp.err("delete-buffer", { name: "d" }), /no buffer named "d": call list-buffers/);
  });
});

Deno.test("save-buffer and load-buffer move exact bytes and explain missing paths", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await withServer(async (mcp) => {
      const path = `${dir}/#{pane_id} 100%.txt`;
      await mcp.ok("set-buffer", { name: "s", content: "line1\nline2é" });
      assertEquals(await mcp.ok("save-buffer", { name: "s", path }), {
        name: "s",
        path,
        bytes_written: 13,
        appended: false,
        file_host: "local",
      });
      await mcp.ok("save-buffer", { name: "s", path, append: true });
      assertEquals(await Deno.readTextFile(path), "line1\nline2éline1\nline2é");
      assertEquals(await mcp.ok("load-buffer", { name: "l", path }), {
        name: "l",
        path,
        size_bytes: 26,
        file_host: "local",
      });
      assertEquals((await mcp.ok<Slice>("show-buffer", { name: "l" })).text, "line1\nline2éline1\nline2é");
      assertMatch(
        await mcp.err("save-buffer", { name: "s", path: `${dir}/no/such/f` }),
        /directory ".*no\/such" does not exist/,
      );
      assertMatch(
        await mcp.err("load-buffer", { name: "l", path: `${dir}/missing` }),
        /file ".*missing" does not exist/,
      );
      assertMatch(await mcp.err("load-buffer", { name: "l", path: dir }), /is a directory/);
      await Deno.writeFile(`${dir}/empty`, new Uint8Array());
      assertMatch(
        await mcp.err("load-buffer", { name: "l", path: `${dir}/empty` }),
        /^file ".*\/empty" is empty and tmux holds no empty buffer: "l" was left unchanged/,
      );
      assertMatch(await mcp.err("save-buffer", { name: "s", path: "relative.txt" }), /path must be absolute/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("invalid arguments get one clear line and the server keeps serving", async () => {
  await withServer(async (mcp) => {
    assertMatch(await mcp.err("show-buffer", {}), /invalid arguments for show-buffer: name:/);
    assertMatch(await mcp.err("show-buffer", { name: "x", max_bytes: 2 * 1024 * 1024 }), /max_bytes/);
    assertMatch(await mcp.err("set-buffer", { name: "a\nb", content: "x" }), /newlines/);
    assertMatch(await mcp.err("set-buffer", { name: "", content: "x" }), /must not be empty/);
    assertMatch(await mcp.err("set-buffer", { name: "x".repeat(300), content: "x" }), /longer than 256/);
    assertMatch(await mcp.err("set-buffer", { name: "x", content: "y", extra: 1 }), /unknown parameter\(s\) extra/);
    assertMatch(await mcp.err("no-such-tool", {}), /unknown tool "no-such-tool".*tools\/list/);
    assertEquals((await mcp.ok<{ buffers: unknown[] }>("list-buffers")).buffers, []);
  });
});

/** Makes a buffer named `bad\xffname` through tmux's argv (a JSON string cannot carry the 0xff byte). */
async function nonUtf8Named(socketName: string, content: string): Promise<void> {
  const p = await new Deno.Command("sh", {
    args: [
      "-c",
      `printf %s "$2" | tmux -L "$1" load-buffer -b "$(printf 'bad\\377name')" -`,
      "sh",
      socketName,
      content,
    ],
  }).output();
  assert(p.success, new TextDecoder().decode(p.stderr));
}

Deno.test("rename-buffer onto an existing buffer from one tmux cannot find by its listed name keeps that buffer", async () => {
  await withServer(async (mcp, tmux) => {
    await nonUtf8Named(tmux.socketName, "data");
    await tmux.tmux("set-buffer", "-b", "keep", "kept");
    const { buffers } = await mcp.ok<{ buffers: { name: string }[] }>("list-buffers");
    const from = buffers.find((b) => b.name.startsWith("bad"))!.name;
    await mcp.err("rename-buffer", { from, to: "keep", overwrite: true });
    assertEquals(await tmux.tmux("show-buffer", "-b", "keep"), "kept");
  });
});

Deno.test("a buffer another client named with bytes that are not UTF-8 is refused as unnamable, and skipped by a search of all", async () => {
  await withServer(async (mcp, tmux) => {
    await nonUtf8Named(tmux.socketName, "data");
    const { buffers } = await mcp.ok<{ buffers: { name: string }[] }>("list-buffers");
    const name = buffers.find((b) => b.name.startsWith("bad"))!.name;
    assertEquals(name, "bad\ufffdname");
    for (
      const [tool, args] of [
        ["show-buffer", { name }],
        ["delete-buffer", { name }],
        ["rename-buffer", {
          from: name,
          to: "x",
        }],
        ["append-buffer", { name, content: "more" }],
        ["append-buffer", { name, content: "\0" }],
      ] as const
    ) {
      assertMatch(await mcp.err(tool, args), /has a name that is not UTF-8 .*no call can name it/);
    }
    // An append made no second buffer under the name the list shows.
    assertEquals((await mcp.ok<{ buffers: unknown[] }>("list-buffers")).buffers.length, 1);
    // A search of all does not report it searched and empty: it is left out and named.
    const all = await mcp.ok<{ skipped_buffers?: string[]; bytes_scanned_total: number }>("search-buffer", {
      query: "data",
    });
    assertEquals(all.skipped_buffers, [name]);
  });
});

Deno.test({
  name: "set-buffer over 8 MiB with a full temporary folder says so and leaves the buffer as it was",
  ignore: !await canMount(),
  async fn() {
    const tmp = await smallDisk();
    try {
      await Deno.writeFile(`${tmp}/fill`, new Uint8Array(64 * 1024)).catch(() => {}); // full
      await withServer(async (mcp, tmux) => {
        await tmux.tmux("set-buffer", "-b", "big", "kept");
        const full = /^buffer "big" was left unchanged: the temporary folder has no room .*\(ENOSPC\): .*TMPDIR/;
        assertMatch(await mcp.err("set-buffer", { name: "big", content: "x".repeat(9 * 1024 * 1024) }), full);
        assertEquals(await tmux.tmux("show-buffer", "-b", "big"), "kept");
      }, { env: { TMPDIR: tmp } });
    } finally {
      await unmount(tmp);
    }
  },
});
