import { assert, assertEquals, assertMatch } from "./assert.ts";
import { startTmux, type TmuxFixture, withServer } from "./helpers.ts";
import { newPane, tempDir, tmuxFormat, waitForPane, waitUntil } from "./pane_helpers.ts";
import { createSpawnExecutor } from "../lib/tmux/executor.ts";
import { pasteBytes } from "../lib/buffers/paste.ts";
import { keyBytes } from "../lib/tmux/keys.ts";

/** A pane whose program reads `n` raw bytes and prints them as hex. */
async function hexReader(tmux: TmuxFixture, n: number, before = ""): Promise<string> {
  const pane = await newPane(
    tmux,
    `${before}stty raw -echo; echo READY; head -c ${n} | od -An -v -tx1 | tr -s ' \\n' '  '; echo; echo END; sleep 100`,
  );
  await waitForPane(tmux, pane, /READY/);
  return pane;
}

async function hexOf(tmux: TmuxFixture, pane: string): Promise<string> {
  const text = await waitForPane(tmux, pane, /END/);
  return text.slice(text.indexOf("READY") + 5, text.indexOf("END")).replace(/\s+/g, " ").trim();
}

const hex = (bytes: Iterable<number>) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");

Deno.test("send-keys: C-c interrupts sleep 100", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await newPane(tmux, "sh");
    const r = await mcp.ok<{ pane_id: string; keys: number; text_bytes: number }>("send-keys", {
      target: pane,
      text: "sleep 100",
      enter: true,
    });
    assertEquals([r.pane_id, r.keys, r.text_bytes], [pane, 1, 9]);
    await waitUntil("sleep to run", async () => await tmuxFormat(tmux, pane, "#{pane_current_command}") === "sleep");
    await mcp.ok("send-keys", { target: pane, keys: ["C-c"] });
    await waitUntil("sleep to end", async () => await tmuxFormat(tmux, pane, "#{pane_current_command}") === "sh");
  });
});

Deno.test("send-keys types text, then keys, then Enter, byte-exact; '-' and ';' stay literal", async () => {
  await withServer(async (mcp, tmux) => {
    const keys = ["C-c", "Tab", "-", ";", "Up", "M-x", "BSpace", "Escape"];
    const text = "-n x;";
    const expected = [
      ...new TextEncoder().encode(text),
      ...keys.flatMap((k) => [...keyBytes(k)!]),
      0x0d,
    ];
    const pane = await hexReader(tmux, expected.length);
    await mcp.ok("send-keys", { target: pane, text, keys, enter: true });
    assertEquals(await hexOf(tmux, pane), hex(expected));
  });
});

Deno.test("send-keys sends shifted characters, Shift-Tab and Ctrl+digits as their bytes, not as their names", async () => {
  await withServer(async (mcp, tmux) => {
    // tmux 3.3a types "S-a" and "S-Tab" as those characters and sends nothing for C-3 or C-8.
    const keys = ["S-a", "C-S-b", "M-S-c", "S-1", "S-Tab", "M-S-Tab", "C-3", "C-4", "C-5", "C-7", "C-8", "^3"];
    const expected = [...keys.flatMap((k) => [...keyBytes(k)!]), 0x0d];
    const pane = await hexReader(tmux, expected.length);
    await mcp.ok("send-keys", { target: pane, keys, enter: true });
    assertEquals(await hexOf(tmux, pane), hex(expected));
  });
});

Deno.test("send-keys delivers long multi-byte text in chunks, byte-exact", async () => {
  await withServer(async (mcp, tmux) => {
    const text = "aé中🙂;".repeat(3000) + "-end;";
    const bytes = new TextEncoder().encode(text);
    const dir = await tempDir();
    const pane = await newPane(
      tmux,
      `stty raw -echo; echo READY; head -c ${bytes.length} > ${dir}/out; echo END; sleep 100`,
    );
    await waitForPane(tmux, pane, /READY/);
    const r = await mcp.ok<{ text_bytes: number }>("send-keys", { target: pane, text });
    assertEquals(r.text_bytes, bytes.length);
    await waitForPane(tmux, pane, /END/);
    assertEquals(await Deno.readTextFile(`${dir}/out`), text);
  });
});

Deno.test("send-keys: enter in any case submits the line, so the warning is about what waits next", async () => {
  await withServer(async (mcp, tmux) => {
    // The question is answered by the keys; what waits after it is a second read without echo.
    const pane = await newPane(tmux, "read -s -p 'Continue? [y/N] ' a; echo; read -s b; sleep 100");
    await waitForPane(tmux, pane, /Continue\? \[y\/N\]/);
    const r = await mcp.ok<{ warnings?: { kind: string; message: string }[] }>("send-keys", {
      target: pane,
      text: "y",
      keys: ["enter"],
    });
    // Taken for unsubmitted, the answered question on the screen was reported as still waiting.
    assertEquals(r.warnings?.length, 1, JSON.stringify(r.warnings));
    assertMatch(r.warnings![0].message, /reads input without echo/);
  });
});

Deno.test("send-keys and paste-text type no text into a password prompt; keys and a question's answer pass", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await newPane(tmux, "read -s -p 'Password: ' pw; echo; echo got-[$pw]; sleep 100");
    await waitForPane(tmux, pane, /Password:/);
    // A command meant for the shell, typed while a password prompt waits: it would be sent as the password.
    for (const [tool, args] of [["send-keys", { text: "make test", enter: true }], ["paste-text", { text: "ls\n" }]]) {
      const msg = await mcp.err(tool as string, { target: pane, ...args as Record<string, unknown> });
      assertMatch(msg, /reads input without echo \(a password prompt\), so the text was not typed.*request-input/);
    }
    // Enter alone (an empty answer) is a key, not text: it passes, and the refused text never reached the read.
    await mcp.ok("send-keys", { target: pane, keys: ["Enter"] });
    await waitForPane(tmux, pane, /got-\[\]/);
  });
});

Deno.test("send-keys refuses unknown key names instead of typing them", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await newPane(tmux, "cat");
    const msg = await mcp.err("send-keys", { target: pane, text: "hello", keys: ["Enter", "Bogus", "C-;"] });
    assertMatch(msg, /unknown key name "Bogus".*C-c.*put literal text in "text"/);
    assertMatch(msg, /unknown key name "C-;"/);
    assertMatch(await mcp.err("send-keys", { target: pane }), /nothing to send/);
    assertMatch(await mcp.err("send-keys", { target: pane, text: "a\0b" }), /NUL/);
    // Typed after the refused calls: anything they had typed would show before it.
    await tmux.tmux("send-keys", "-t", pane, "-l", "after-refusals");
    const screen = await waitForPane(tmux, pane, /after-refusals/);
    assert(!screen.includes("hello") && !screen.includes("Bogus"), `nothing typed: ${screen}`);
  });
});

Deno.test("send-keys and paste-text refuse a dead pane (remain-on-exit): tmux 3.3a's paste into one crashed the server", async () => {
  await withServer(async (mcp, tmux) => {
    await tmux.tmux("set-option", "-g", "remain-on-exit", "on");
    const pane = await newPane(tmux, "true");
    await waitUntil("the pane to die", async () => await tmuxFormat(tmux, pane, "#{pane_dead}") === "1");
    const dead = new RegExp(`pane ${pane} is dead .*nothing was typed; restart it with respawn-pane`);
    assertMatch(await mcp.err("paste-text", { target: pane, text: "echo hi\n" }), dead);
    assertMatch(await mcp.err("send-keys", { target: pane, text: "hi" }), dead);
    assertMatch(await mcp.err("send-keys", { target: pane, keys: ["C-c"], enter: true }), dead);
    // The server lives on with every session.
    assertEquals((await tmux.tmux("list-sessions", "-F", "#{session_name}")).trim(), "main");
  });
});

Deno.test("send-keys into a pane in copy mode leaves the mode, then types to the program, and says so", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = await newPane(tmux, "cat");
    await tmux.tmux("copy-mode", "-t", pane);
    // Space and C-c are bound in copy mode: tmux refused their commands for the read-only control client.
    const r = await mcp.ok<{ warnings?: { kind: string; message: string }[] }>("send-keys", {
      target: pane,
      text: "a b",
      enter: true,
    });
    assertEquals(r.warnings?.[0], { kind: "left_mode", message: `pane ${pane} was in copy-mode: left it, then typed` });
    assertEquals(await tmuxFormat(tmux, pane, "#{pane_in_mode}"), "0");
    await waitForPane(tmux, pane, /a b\na b/);
    await tmux.tmux("copy-mode", "-t", pane);
    await mcp.ok("send-keys", { target: pane, keys: ["C-c"] });
    await waitUntil("cat to end", async () => await tmuxFormat(tmux, pane, "#{pane_current_command}") !== "cat");
  });
});

Deno.test("send-keys refuses a pane whose keys tmux would type into other panes too (synchronize-panes)", async () => {
  await withServer(async (mcp, tmux) => {
    const dir = await tempDir();
    const a = await newPane(tmux, `cat > ${dir}/a`);
    const b = (await tmux.tmux("split-window", "-t", a, "-P", "-F", "#{pane_id}", `cat > ${dir}/b`)).trim();
    await tmux.tmux("set-option", "-w", "-t", a, "synchronize-panes", "on");
    // tmux typed "typed" and C-c into b as well (C-c ended b's cat), and the answer named a only.
    const refused = new RegExp(
      `^pane ${a} has synchronize-panes on: tmux would type the keys into ${b} too, so nothing was typed; set synchronize-panes off`,
    );
    assertMatch(await mcp.err("send-keys", { target: a, text: "typed", enter: true }), refused);
    assertMatch(await mcp.err("send-keys", { target: a, keys: ["C-c"] }), refused);
    // In a zoomed window only the zoomed (active) pane is visible, and keys typed into a hidden pane reach it.
    await tmux.tmux("resize-pane", "-Z", "-t", b);
    assertMatch(await mcp.err("send-keys", { target: a, keys: ["C-c"] }), refused);
    await tmux.tmux("resize-pane", "-Z", "-t", b);
    // A paste reaches the one pane.
    await mcp.ok("paste-text", { target: a, text: "pasted\n" });
    await waitUntil("the paste in a", async () => (await Deno.readTextFile(`${dir}/a`)) === "pasted\n");
    // b's input off: tmux types nothing into it, so a types alone; then b's input on and the option off for b.
    await tmux.tmux("select-pane", "-d", "-t", b);
    await mcp.ok("send-keys", { target: a, text: "off" });
    await mcp.ok("send-keys", { target: a, keys: ["C-u"] });
    await tmux.tmux("select-pane", "-e", "-t", b);
    await tmux.tmux("set-option", "-p", "-t", b, "synchronize-panes", "off");
    await mcp.ok("send-keys", { target: a, text: "typed", enter: true });
    await waitUntil("the keys in a", async () => (await Deno.readTextFile(`${dir}/a`)) === "pasted\ntyped\n");
    assertEquals(await Deno.readTextFile(`${dir}/b`), "");
    assertEquals(await tmuxFormat(tmux, b, "#{pane_dead}"), "0");
  });
});

Deno.test("send-keys and paste-text refuse a pane whose input is off (select-pane -d), where tmux drops input", async () => {
  await withServer(async (mcp, tmux) => {
    const dir = await tempDir();
    const pane = await newPane(tmux, `cat > ${dir}/out`);
    await tmux.tmux("select-pane", "-d", "-t", pane);
    // Both answered as if the text had arrived; cat got nothing.
    const off = new RegExp(
      `^pane ${pane} has its input off \\(tmux's select-pane -d\\): tmux drops what is typed or pasted into it, so ` +
        `nothing was typed; ask the user`,
    );
    assertMatch(await mcp.err("send-keys", { target: pane, text: "typed", enter: true }), off);
    assertMatch(await mcp.err("paste-text", { target: pane, text: "pasted\n" }), off);
    await tmux.tmux("select-pane", "-e", "-t", pane);
    await mcp.ok("paste-text", { target: pane, text: "pasted\n" });
    await waitUntil("the paste to arrive", async () => (await Deno.readTextFile(`${dir}/out`)) === "pasted\n");
  });
});

Deno.test("paste-text into a pane in a mode leaves the mode, then pastes to the program, and says so", async () => {
  await withServer(async (mcp, tmux) => {
    const dir = await tempDir();
    // tmux 3.3a's paste-buffer wrote to the program under copy mode while the pane kept showing the mode's view,
    // and the answer did not say so; now the mode is left first, in the same call, as send-keys does.
    for (const mode of [["copy-mode"], ["clock-mode"]]) {
      const out = `${dir}/${mode[0]}`;
      const pane = await newPane(tmux, `cat > ${out}`);
      await tmux.tmux(...mode, "-t", pane);
      const r = await mcp.call("paste-text", { target: pane, text: "a b\n" });
      assert(!r.isError, JSON.stringify(r));
      const texts = r.content.map((c) => c.type === "text" ? c.text : "");
      assertEquals(texts[0], `pane ${pane} was in ${mode[0]}: left it, then pasted`);
      assertEquals(JSON.parse(texts[1]), r.structuredContent);
      assertEquals(await tmuxFormat(tmux, pane, "#{pane_in_mode}"), "0");
      await waitUntil("cat to write the paste", async () => (await Deno.readTextFile(out)) === "a b\n");
    }
    // Out of a mode, the answer is the plain one.
    const pane = await newPane(tmux, "cat");
    const plain = await mcp.call("paste-text", { target: pane, text: "x" });
    assertEquals(plain.content.length, 1);
  });
});

Deno.test("paste-text refuses a bracketed paste holding the end marker, which would type the rest as keys", async () => {
  await withServer(async (mcp, tmux) => {
    const enc = new TextEncoder();
    // tmux 3.3a pasted the marker through: the program's paste ended after "a", and "b" and CR came as typed keys.
    const text = "a\x1b[201~b\n";
    const pane = await hexReader(tmux, 9, "printf '\\033[?2004h'; ");
    assertMatch(
      await mcp.err("paste-text", { target: pane, text }),
      /^text holds the bracketed-paste end marker \(ESC \[201~\): the paste would end there .*bracketed: false/,
    );
    // Unbracketed, as asked, the bytes go as they are (LF as CR, as a terminal paste sends it).
    await mcp.ok("paste-text", { target: pane, text, bracketed: false });
    assertEquals(await hexOf(tmux, pane), hex(enc.encode("a\x1b[201~b\r")));
  });
});

Deno.test("paste-text pastes multi-line text into cat and leaves no buffer behind", async () => {
  await withServer(async (mcp, tmux) => {
    const dir = await tempDir();
    const pane = await newPane(tmux, `cat > ${dir}/out`);
    const text = "line one\n  indented -x;\nüñí #{pane_id}\n";
    const r = await mcp.ok<{ bytes: number; pane_id: string }>("paste-text", { target: pane, text });
    assertEquals([r.bytes, r.pane_id], [new TextEncoder().encode(text).length, pane]);
    await mcp.ok("send-keys", { target: pane, keys: ["C-d"] });
    await waitUntil("cat to finish", async () => (await Deno.readTextFile(`${dir}/out`)) === text);
    assertEquals((await tmux.tmux("list-buffers", "-F", "#{buffer_name}")).trim(), "");
  });
});

Deno.test("paste-text brackets the paste only when asked and the program enabled it", async () => {
  await withServer(async (mcp, tmux) => {
    const enc = new TextEncoder();
    const body = "a\nb";
    // A program that turned bracketed paste mode on: ESC[200~ … ESC[201~ around the paste, \n sent as \r.
    const bracketed = [...enc.encode("\x1b[200~a\rb\x1b[201~")];
    let pane = await hexReader(tmux, bracketed.length, "printf '\\033[?2004h'; ");
    await mcp.ok("paste-text", { target: pane, text: body });
    assertEquals(await hexOf(tmux, pane), hex(bracketed));
    const plain = [...enc.encode("a\rb")];
    pane = await hexReader(tmux, plain.length, "printf '\\033[?2004h'; ");
    await mcp.ok("paste-text", { target: pane, text: body, bracketed: false });
    assertEquals(await hexOf(tmux, pane), hex(plain));
  });
});

Deno.test("pasteBytes leaves no buffer behind when the paste fails", async () => {
  const fx = await startTmux();
  try {
    const tmux = createSpawnExecutor({ bin: "tmux", socketName: fx.socketName, maxConcurrency: 4 });
    await fx.tmux("set-buffer", "-b", "mine", "keep");
    let failed = false;
    await pasteBytes(tmux, new TextEncoder().encode("secret"), "%999", { bracketed: true }).catch((e) => {
      failed = /can't find pane: %999/.test(String(e));
    });
    assert(failed, "the paste into a missing pane failed with tmux's reason");
    assertEquals((await fx.tmux("list-buffers", "-F", "#{buffer_name}")).trim(), "mine");
  } finally {
    await fx.kill();
  }
});
