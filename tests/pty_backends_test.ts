/**
 * Across backends: the same program gives the same screens, colours, cursor
 * and scrollback on the internal PTY and on tmux; and how a backend is chosen.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { connect, ROOT, START_PERMISSIONS, startTmux } from "./helpers.ts";
import { BASH, pty } from "./pty_suite.ts";
import { PLATFORMS } from "../lib/terminal/pty/ffi.ts";
import { createEmulator, loadEmulator } from "../lib/terminal/emulator.ts";

Deno.test("the same program shows the same screens on both backends", async () => {
  const tmux = await startTmux("cmp");
  const servers = await Promise.all(
    (["pty", "tmux"] as const).map((b) => connect({ socketName: tmux.socketName, args: ["--terminal-backend", b] })),
  );
  try {
    const [internal, viaTmux] = servers.map(pty);
    const both = [internal, viaTmux];
    const id = "cmp";
    await Promise.all(both.map((p) => p.launch({ command: BASH, rows: 12, cols: 60, pty_id: id })));
    await Promise.all(both.map((p) => p.idle(id)));
    const steps: { keys: string; after: string; resize?: [number, number] }[] = [
      { keys: "echo hello\n", after: "hello" },
      {
        keys: "printf '\\e[1;32mgreen\\e[0m \\e[44mbg \\e[0m \\e[38;5;208morange\\e[0m " +
          "\\e[38;2;1;2;3mrgb\\e[0m \\e[7minv\\e[0m \\e[4;3mul\\e[0m\\n'\n",
        after: "green bg  orange rgb inv ul",
      },
      // tmux 3.3a's capture-pane -e writes overline (53) as "5:3", which reads as blink.
      { keys: "printf '\\e[53mover\\e[0m \\e[4:3mcurly\\e[0m line\\n'\n", after: "over curly line" },
      { keys: "printf 'tab\\there\\n'; echo 日本語 wide\n", after: "日本語 wide" },
      { keys: "seq 1 40\n", after: "40" },
      {
        keys: "printf 'wrap%.0s' $(seq 1 20); echo\n",
        after: "wrapwrapwrapwrapwrapwrapwrapwrapwrapwrapwrapwrapwrapwrapwrap",
      },
      { keys: "stty size\n", after: "15 70", resize: [15, 70] },
      { keys: "printf 'abcdef\\e[3Dxy\\e[K \\e[1;31mA\\e[22mB\\e[0m\\n'\n", after: "abcxy AB" },
      // Text decoded twice holds C1 controls as characters (U+0080 U+009C, U+0080 U+009D for the quotes "..."), and
      // U+009B: tmux leaves them out; they are no controls (xterm took U+009D for a string hiding all later output,
      // and the U+009B in it for CSI, whose 2J cleared the screen).
      {
        keys: "printf 'say \\303\\242\\302\\200\\302\\234hi\\303\\242\\302\\200\\302\\235 and \\302\\2332J done\\n'\n",
        after: "say âhiâ and 2J done",
      },
      // A full-screen program's alternate screen: the scrollback is still the main screen's history, then the screen.
      { keys: "printf '\\e[?1049h\\e[HALT-SCREEN\\n'\n", after: "ALT-SCREEN" },
      { keys: "printf '\\e[?1049lMAIN-AGAIN\\n'\n", after: "MAIN-AGAIN" },
    ];
    for (const step of steps) {
      if (step.resize) {
        const [rows, cols] = step.resize;
        await Promise.all(servers.map((m) => m.ok("pty-resize", { pty_id: id, rows, cols })));
      }
      await Promise.all(both.map((p) => p.send(id, step.keys)));
      await Promise.all(both.map((p) => p.waitScreen(id, step.after, (s) => s.includes(step.after))));
      await Promise.all(both.map((p) => p.idle(id)));
      const views = await Promise.all(servers.map(async (m, i) => ({
        screen: (await both[i].screen(id)).screen,
        colors: (await both[i].screen(id, true)).screen,
        cursor: (await m.ok<{ cursor: unknown }>("pty-get-screen", { pty_id: id })).cursor,
        scrollback: (await m.ok<{ text: string }>("pty-get-scrollback", { pty_id: id, lines: 100 })).text,
      })));
      assertEquals(views[0], views[1], `after ${JSON.stringify(step.keys)}`);
    }
    const lists = await Promise.all(both.map((p) => p.list()));
    const strip = (s: Record<string, unknown>) => ({ ...s, created_at: "", backend: "" });
    assertEquals(lists[0].map(strip), lists[1].map(strip));
  } finally {
    await Promise.all(servers.map((m) => m.close()));
    await tmux.kill();
  }
});

Deno.test("the internal backend's emulator leaves out C1 characters, also when a read splits one", async () => {
  await loadEmulator();
  const em = createEmulator(3, 40);
  const enc = new TextEncoder();
  // Reads end anywhere: C2 | 9D, C2 | 9B in two writes each; U+00A0 (C2 A0) is text and stays.
  for (const chunk of ["x", [0xc2], [0x9d], "shown ", [0xc2, 0xa0], "nbsp ", [0xc2], [0x9b], "2Jkept \u0085z"]) {
    em.write(typeof chunk === "string" ? enc.encode(chunk) : Uint8Array.from(chunk));
  }
  await em.flushed();
  assertEquals(em.screenLines(), ["xshown \u00a0nbsp 2Jkept z", "", ""]);
  em.dispose();
});

Deno.test("the internal backend's emulator counts rows past a full history, a cleared one and a reset", async () => {
  await loadEmulator();
  const em = createEmulator(10, 40);
  const enc = new TextEncoder();
  const write = async (text: string) => {
    em.write(enc.encode(text));
    await em.flushed();
  };
  const lines = (from: number, to: number, prefix = "") =>
    Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}\r\n`).join("");
  await write(lines(1, 100));
  const early = em.linesFrom(Infinity, 0).cursor;
  // Three times the history: the rows after `early` are dropped before they are read, and said to be.
  await write(lines(101, 30_100));
  const behind = em.linesFrom(early.row, 0);
  assert(behind.first > early.row, `first ${behind.first}, from ${early.row}`);
  assertEquals(behind.lines.filter((l) => l !== "").at(-1), "30100");
  // Rows written since a mark are read whole, whether the history was full, cleared or reset meanwhile.
  for (const clear of ["", "\x1b[H\x1b[2J\x1b[3J", "\x1bc"]) {
    const from = em.linesFrom(Infinity, 0).cursor;
    await write(`${clear}${lines(1, 3, "n")}`);
    assertEquals(em.linesFrom(from.row, 0).lines.filter((l) => l !== ""), ["n1", "n2", "n3"], JSON.stringify(clear));
  }
  em.dispose();
});

Deno.test("choosing tmux when tmux is missing is a one-line startup error with exit code 2", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...START_PERMISSIONS,
      ROOT + "main.ts",
      "--terminal-backend",
      "tmux",
      "--tmux-bin",
      "/nonexistent/tmux",
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assertEquals(
    [out.code, dec.decode(out.stdout), dec.decode(out.stderr)],
    [2, "", "tmux-mcp: tmux not found. Install tmux or use --terminal-backend pty\n"],
  );
});

Deno.test("the internal backend (alias internal, from the environment) runs without tmux", async () => {
  const mcp = await connect({
    args: ["--tmux-bin", "/nonexistent/tmux"],
    env: { TMUX_MCP_TERMINAL_BACKEND: "internal" },
  });
  try {
    const p = pty(mcp);
    const id = await p.launch({ command: "echo no tmux needed; exec sleep 60" });
    await p.waitScreen(id, "the output", (s) => s.startsWith("no tmux needed"));
    assertEquals((await p.list()).map((s) => s.backend), ["pty"]);
  } finally {
    await mcp.close();
  }
});

Deno.test("start, doctor and compile share one permission set; its FFI is exactly the C libraries the pty backend loads", () => {
  const cfg = JSON.parse(Deno.readTextFileSync(ROOT + "deno.json"));
  const tasks = cfg.tasks as Record<string, string>;
  const set = "server";
  assertEquals(cfg.permissions[set].ffi, [...PLATFORMS.linux.libPaths, ...PLATFORMS.darwin.libPaths]);
  const commands = [tasks.start, tasks.doctor, ...tasks.compile.split(" && ")];
  assertEquals(commands.length, 6);
  for (const cmd of commands) {
    assert(cmd.includes(` --permission-set=${set} `), cmd);
    assert(!/ (--allow-|-A\b)/.test(cmd), `${cmd}: permissions beside the set`);
  }
});
