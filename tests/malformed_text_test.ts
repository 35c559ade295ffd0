/**
 * Text that is not well-formed Unicode — lone surrogates in a JSON string, or
 * bytes that are not UTF-8 on the wire — is refused by the pipeline with one
 * line naming the parameter, for every tool, instead of reaching tmux as
 * U+FFFD.
 */
import { assertEquals, assertMatch } from "./assert.ts";
import { startTmux, withServer } from "./helpers.ts";
import { envelope, rawServer } from "./raw_stdio.ts";

/** Calls that each carry one malformed string (marked X) in the parameter named by the second element. */
const CALLS: [string, string, Record<string, unknown>][] = [
  ["new", "name", { what: "session", name: "aXb" }],
  ["set", "value", { what: "option", scope: "session", target: "main", name: "@v", value: "aXb" }],
  ["set-buffer", "name", { name: "bufXname", content: "hello" }],
  ["set-buffer", "content", { name: "buf-ok", content: "heXllo" }],
  ["set", "value", { what: "environment", target: "main", name: "VAR", value: "Xb" }],
];

function withX(args: Record<string, unknown>, x: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? v.replace("X", x) : v]));
}

Deno.test("lone surrogates in a session name, an option value or a buffer name are refused, naming the parameter", async () => {
  await withServer(async (mcp, tmux) => {
    for (const x of ["\ud800", "\udfff", "\udc80"]) {
      for (const [tool, param, args] of CALLS) {
        const e = await mcp.err(tool, withX(args, x));
        assertMatch(e, new RegExp(`^invalid arguments for ${tool}: ${param}: holds a .*send text as valid UTF-8$`));
      }
    }
    // Keys are strings too (new session's env).
    assertMatch(
      await mcp.err("new", { what: "session", name: "e", env: { ["K\ud800"]: "v" } }),
      /^invalid arguments for new: env \(a parameter name\): holds a lone surrogate \\ud800/,
    );
    assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
    assertEquals((await tmux.tmux("list-buffers", "-F", "#{buffer_name}")).trim(), "");
    assertEquals((await tmux.tmux("show-options", "-t", "main", "@v").catch(() => "")).trim(), "");
    // A U+FFFD the client means, and a well-formed pair, still go through.
    await mcp.ok("set", {
      what: "option",
      scope: "session",
      target: "main",
      name: "@v",
      value: "a\ufffdb\ud83d\ude00",
    });
    assertEquals((await tmux.tmux("show-options", "-v", "-t", "main", "@v")).trim(), "a\ufffdb\u{1f600}");
  });
});

Deno.test("bytes that are not UTF-8 in a session name, an option value or a buffer name are refused, naming the parameter", async () => {
  const tmux = await startTmux("badutf8");
  const s = rawServer(tmux.socketName);
  try {
    await s.initialize();
    const enc = new TextEncoder();
    let id = 1;
    // Overlong, stray continuation, truncated sequence, an encoded surrogate, past U+10FFFF.
    for (const bad of [[0xc0, 0x80], [0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff]]) {
      for (const [tool, param, args] of CALLS) {
        const [head, tail] = JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method: "tools/call",
          params: { name: tool, arguments: args },
        }).split("X");
        await s.writer.write(new Uint8Array([...enc.encode(head), ...bad, ...enc.encode(tail + "\n")]));
        const reply = await s.next() as { id: number; result: { isError?: boolean; content: { text: string }[] } };
        assertEquals(reply.id, id);
        assertEquals(reply.result.isError, true, `${tool} ${bad}`);
        assertMatch(
          reply.result.content[0].text,
          new RegExp(`^invalid arguments for ${tool}: ${param}: holds a byte that is not UTF-8 .*at position \\d`),
        );
      }
    }
    // Well-formed multi-byte text and U+FFFD itself are accepted.
    await s.send({
      jsonrpc: "2.0",
      id: ++id,
      method: "tools/call",
      params: { name: "set-buffer", arguments: { name: "ok-é", content: "\ufffd€😀" } },
    });
    const ok = await s.next() as { result: { isError?: boolean } };
    assertEquals(ok.result.isError, undefined);
    assertEquals(await tmux.tmux("show-buffer", "-b", "ok-é"), "\ufffd€😀");
    assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
    assertEquals((await tmux.tmux("list-buffers", "-F", "#{buffer_name}")).trim(), "ok-é");
  } finally {
    await s.stop();
    await tmux.kill();
  }
});

Deno.test("arguments nested hundreds of thousands of levels deep are refused in one line, in both eras", async () => {
  const tmux = await startTmux("deep");
  try {
    for (const era of ["legacy", "modern"] as const) {
      const s = rawServer(tmux.socketName);
      try {
        if (era === "legacy") await s.initialize();
        else await s.modern(1, "tools/list");
        // Built as text: JSON.stringify of so deep a value would overflow the test's own stack.
        const depth = 200_000;
        const deep = "[".repeat(depth) + "]".repeat(depth);
        const meta = era === "modern" ? `,"_meta":${JSON.stringify(envelope())}` : "";
        await s.sendRaw(
          `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set-buffer",` +
            `"arguments":{"name":"b","content":${deep}}${meta}}}`,
        );
        const reply = await s.next() as { id: number; result: { isError?: boolean; content: { text: string }[] } };
        assertEquals([reply.id, reply.result.isError], [2, true]);
        assertEquals(
          reply.result.content[0].text,
          "invalid arguments for set-buffer: content: nested more than 64 levels deep, which no parameter is: send " +
            "its value as the tool's schema gives it",
        );
        assertEquals((await tmux.tmux("list-buffers", "-F", "#{buffer_name}")).trim(), "");
      } finally {
        await s.stop();
      }
    }
  } finally {
    await tmux.kill();
  }
});
