/**
 * Two MCP servers (two agents) on one tmux server appending to one buffer:
 * the append lock is held across processes (lib/host/locks.ts), so no
 * append is lost, whether it goes to tmux as one `set-buffer -a` (small) or
 * as a read-modify-write (large).
 */
import { assertEquals } from "./assert.ts";
import { connect, startTmux } from "./helpers.ts";
import { waitUntil } from "./pane_helpers.ts";

Deno.test("two servers × 50 appends to one buffer: all 100 are there, each once", async () => {
  const tmux = await startTmux("append2");
  const a = await connect({ socketName: tmux.socketName });
  const b = await connect({ socketName: tmux.socketName });
  try {
    const pad = "p".repeat(12 * 1024); // over the set-buffer -a size: the read-modify-write route
    const piece = (who: string, i: number) => `<${who}${i}>${i % 10 === 0 ? pad : ""}\n`;
    const run = async (mcp: typeof a, who: string) => {
      for (let i = 0; i < 50; i++) await mcp.ok("append-buffer", { name: "shared", content: piece(who, i) });
    };
    await Promise.all([run(a, "A"), run(b, "B")]);
    const text = await tmux.tmux("show-buffer", "-b", "shared");
    for (const who of ["A", "B"]) {
      for (let i = 0; i < 50; i++) {
        assertEquals(text.split(`<${who}${i}>`).length - 1, 1, `append ${who}${i} is present once`);
      }
    }
    const expected = ["A", "B"].reduce((n, w) =>
      n + Array.from({ length: 50 }, (_, i) => piece(w, i).length)
        .reduce((x, y) => x + y, 0), 0);
    assertEquals(new TextEncoder().encode(text).length, expected, "no byte lost or doubled");
  } finally {
    await a.close();
    await b.close();
    await tmux.kill();
  }
});

Deno.test("append-buffer is byte-exact for text tmux could misread, on both routes", async () => {
  const tmux = await startTmux("append2");
  const mcp = await connect({ socketName: tmux.socketName });
  try {
    const pieces = [
      "a;",
      "\\;",
      "-a",
      "--",
      "#{pane_id}",
      "$(touch x)",
      "{ x }",
      "\t\r\x1b[1m",
      "é€𝄞",
      "~",
      " ;",
      "x".repeat(9000),
    ];
    let expected = "";
    for (const p of pieces) {
      await mcp.ok("append-buffer", { name: "exact", content: p });
      expected += p;
    }
    const r = await mcp.ok<{ size_bytes: number; created: boolean }>("append-buffer", { name: "exact", content: "!" });
    expected += "!";
    assertEquals(r, { ...r, created: false, size_bytes: new TextEncoder().encode(expected).length });
    assertEquals(await tmux.tmux("show-buffer", "-b", "exact"), expected);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("a buffer set or renamed by one server while another appends a large piece is not lost", async () => {
  const tmux = await startTmux("append2");
  const a = await connect({ socketName: tmux.socketName });
  const b = await connect({ socketName: tmux.socketName });
  try {
    let appended = 0;
    let done = false;
    const piece = "p".repeat(12 * 1024) + "\n"; // over the set-buffer -a size: the read-modify-write route
    const appending = (async () => {
      while (!done) {
        await a.ok("append-buffer", { name: "log", content: piece });
        appended++;
      }
    })();
    /** After B's change, two appends of A's that began after it: the one in flight when it was made is over. */
    const settled = async () => {
      const from = appended;
      await waitUntil("two more appends of the other server", () => Promise.resolve(appended >= from + 2), 60_000);
    };
    try {
      for (let k = 0; k < 12; k++) {
        await b.ok("set-buffer", { name: "log", content: `S${k}\n` });
        await settled();
        assertEquals((await tmux.tmux("show-buffer", "-b", "log")).slice(0, `S${k}\n`.length), `S${k}\n`);
        await b.ok("set-buffer", { name: "moved", content: `R${k}\n` });
        await b.ok("rename-buffer", { from: "moved", to: "log", overwrite: true });
        await settled();
        assertEquals((await tmux.tmux("show-buffer", "-b", "log")).slice(0, `R${k}\n`.length), `R${k}\n`);
      }
    } finally {
      done = true;
      await appending;
    }
  } finally {
    await a.close();
    await b.close();
    await tmux.kill();
  }
});
