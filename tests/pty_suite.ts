/**
 * The pty-* test suite, shared by both terminal backends: every behaviour is
 * checked through the MCP client against a real server started with
 * `--terminal-backend <backend>`. `pty_internal_test.ts` and
 * `pty_tmux_test.ts` run it, so `--parallel` runs the two backends at once.
 */
import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { connect, type McpFixture, ROOT, START_PERMISSIONS, startTmux, textOf, type TmuxFixture } from "./helpers.ts";
import { waitUntil } from "./pane_helpers.ts";
import { canPickPid, processGone, signalledOrGone, spawnWithPid } from "./process_helpers.ts";

export type Backend = "pty" | "tmux";

/** bash without rc files or a history file, so the screen is the same everywhere. */
export const BASH = "HISTFILE=/dev/null bash --norc";
/** bash --norc's prompt line, after trailing spaces are trimmed. */
export const PROMPT = /^bash-[\d.]+[$#]$/;

export interface Screen {
  pty_id: string;
  rows: number;
  cols: number;
  screen: string;
}

/** Polls (with the one polling helper, waitUntil) until `ok(value)` holds; fails with the last value. */
export async function until<T>(
  what: string,
  get: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  let last: T | undefined;
  try {
    return (await waitUntil(what, async () => {
      last = await get();
      return ok(last) ? { value: last } : undefined;
    }, timeoutMs)).value;
  } catch (e) {
    throw new Error(`${(e as Error).message}; last value: ${JSON.stringify(last)}`);
  }
}

/** The non-empty lines of a screen, bottom last. */
export function filled(screen: string): string[] {
  return screen.split("\n").filter((l) => l !== "");
}

/** Tool calls shared by the suites. */
export function pty(mcp: McpFixture) {
  const screen = (pty_id: string, include_colors = false) =>
    mcp.ok<Screen>("pty-get-screen", { pty_id, include_colors });
  /** Waits until a bash session shows its prompt on the last line, after a line equal to `after` if given. */
  const waitIdle = async (pty_id: string, after?: string) =>
    (await until(
      `the bash prompt${after === undefined ? "" : ` after "${after}"`}`,
      () => screen(pty_id),
      (s) => {
        const lines = filled(s.screen);
        return PROMPT.test(lines.at(-1) ?? "") && (after === undefined || lines.includes(after));
      },
    )).screen;
  return {
    screen,
    launch: async (args: Record<string, unknown>) => (await mcp.ok<{ pty_id: string }>("pty-launch", args)).pty_id,
    send: (pty_id: string, keys: string, key_names?: string[]) =>
      mcp.ok("pty-send-keys", { pty_id, keys, ...(key_names ? { key_names } : {}) }),
    /** Waits until the screen satisfies `ok`. */
    waitScreen: async (pty_id: string, what: string, ok: (screen: string) => boolean, timeoutMs?: number) =>
      (await until(what, () => screen(pty_id), (s) => ok(s.screen), timeoutMs)).screen,
    idle: waitIdle,
    /** Launches bash --norc and waits for its first prompt. */
    bash: async (args: Record<string, unknown> = {}) => {
      const id = (await mcp.ok<{ pty_id: string }>("pty-launch", { command: BASH, ...args })).pty_id;
      await waitIdle(id);
      return id;
    },
    list: async () => (await mcp.ok<{ sessions: Record<string, unknown>[] }>("pty-list-sessions")).sessions,
    kill: (pty_id: string) => mcp.ok("pty-kill-session", { pty_id }),
  };
}

/** A server on the given backend with its own tmux socket, torn down after `fn`. */
export async function withPty(
  backend: Backend,
  fn: (mcp: McpFixture, tmux: TmuxFixture) => Promise<void>,
  extraArgs: string[] = [],
): Promise<void> {
  const tmux = await startTmux("pty");
  const mcp = await connect({ socketName: tmux.socketName, args: ["--terminal-backend", backend, ...extraArgs] });
  try {
    await fn(mcp, tmux);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
}

/** Registers the suite for one backend. */
export function ptySuite(backend: Backend): void {
  Deno.test(`pty tools behave the same on the ${backend} backend`, async (t) => {
    await withPty(backend, async (mcp, tmux) => {
      const p = pty(mcp);

      await t.step("a program holds no descriptor of the server but its terminal", async () => {
        // What started the server may leave it descriptors that are not close-on-exec (here fd 7): a program kept
        // them (the internal backend), could read or write them, and held a pipe open after the server was gone.
        const server = [Deno.execPath(), "run", ...START_PERMISSIONS, ROOT + "main.ts"];
        const args = ["--socket-name", tmux.socketName, "--terminal-backend", backend];
        const inherits = await connect({
          spawn: ["/bin/sh", "-c", 'exec 7</dev/null; exec "$@"', "sh", ...server, ...args],
        });
        try {
          const id = await pty(inherits).launch({ command: "echo PID=$$; exec sleep 60" });
          const screen = await pty(inherits).waitScreen(id, "the pid", (s) => /PID=\d+/.test(s));
          const pid = /PID=(\d+)/.exec(screen)![1];
          const fds = [...Deno.readDirSync(`/proc/${pid}/fd`)].map((e) => Number(e.name)).sort((a, b) => a - b);
          assertEquals(fds, [0, 1, 2]);
        } finally {
          await inherits.close();
        }
      });

      await t.step(
        "a program sees its own terminal, not the size or name of the one that started the server",
        async () => {
          // Exported by the terminal or shell that started the server (or the tmux server): Python, and every program
          // asking shutil or $COLUMNS, took COLUMNS and LINES over the terminal's size, and kept them after a resize;
          // a program told it runs in iTerm2 or kitty writes that terminal's own escapes (inline images, graphics).
          const outer: Record<string, string> = {
            COLUMNS: "33",
            LINES: "7",
            TERM_PROGRAM: "iTerm.app",
            TERM_PROGRAM_VERSION: "3.5.0",
            LC_TERMINAL: "iTerm2",
            KITTY_WINDOW_ID: "1",
          };
          for (const [name, value] of Object.entries(outer)) await tmux.tmux("set-environment", "-g", name, value);
          const started = await connect({
            socketName: tmux.socketName,
            args: ["--terminal-backend", backend],
            env: outer,
          });
          try {
            const show = Object.keys(outer).map((name) => `${name}=\${${name}-unset}`).join(" ");
            const id = await pty(started).launch({ command: `echo "${show}"; exec sleep 60`, rows: 20, cols: 200 });
            const screen = await pty(started).waitScreen(id, "the variables", (s) => s.startsWith("COLUMNS="));
            // tmux names itself; the internal backend's terminal is nobody's.
            const program = backend === "tmux" ? "tmux" : "unset";
            const version = backend === "tmux" ? /\S+/ : /unset/;
            const [line] = filled(screen);
            assertMatch(
              line,
              new RegExp(
                `^COLUMNS=unset LINES=unset TERM_PROGRAM=${program} TERM_PROGRAM_VERSION=${version.source} ` +
                  "LC_TERMINAL=unset KITTY_WINDOW_ID=unset$",
              ),
            );
            assert(!line.includes("3.5.0"), line);
          } finally {
            await started.close();
            for (const name of Object.keys(outer)) await tmux.tmux("set-environment", "-g", "-u", name);
          }
        },
      );

      await t.step("echo hello appears on the screen", async () => {
        const id = await p.bash();
        await p.send(id, "echo hello\n");
        const screen = await p.idle(id, "hello");
        const lines = filled(screen);
        assertMatch(lines[0], /^bash-[\d.]+[$#] echo hello$/);
        assertEquals(lines[1], "hello");
        const s = await p.screen(id);
        assertEquals([s.rows, s.cols, s.screen.split("\n").length], [24, 80, 24]);
        await p.kill(id);
      });

      await t.step("a wait does not take the echo of the typed command for its output", async () => {
        const id = await p.bash();
        await p.send(id, "sleep 0.5; echo PTY-TYPED-DONE\n");
        const done = await mcp.ok<{ outcome: string; matched_line: string }>("wait", {
          what: "text",
          pty_id: id,
          patterns: ["PTY-TYPED-DONE"],
          timeout_ms: 60_000,
        });
        assertEquals([done.outcome, done.matched_line], ["matched", "PTY-TYPED-DONE"]);
        await p.kill(id);
      });

      await t.step("a wait finds a prompt that ends in a space, as typed text or as new output", async () => {
        const id = await p.bash();
        type Out = { outcome: string; matched_line: string };
        // The echo of the typed line says Name-$P, so only the program's own prompt holds "Name-here: ".
        await p.send(id, 'P=here; read -p "Name-$P: " x\n');
        const seen = await mcp.ok<Out>("wait", {
          what: "text",
          pty_id: id,
          patterns: ["Name-here: "],
          timeout_ms: 60_000,
        });
        assertEquals([seen.outcome, seen.matched_line], ["matched", "Name-here: "]);
        // A prompt printed after the wait began (new_only): each key (not echoed) draws a new one, on a row of its own.
        await p.send(id, "\n");
        await p.idle(id);
        await p.send(id, "while :; do read -s -n1 k; printf '\\nAgain-%s: ' $P; done\n");
        const fresh = mcp.ok<Out>("wait", {
          what: "text",
          pty_id: id,
          patterns: ["Again-here: "],
          new_only: true,
          timeout_ms: 60_000,
        });
        let answer: Out | undefined;
        void fresh.then((r) => answer = r);
        await waitUntil("the new prompt's wait", async () => {
          if (answer) return { value: answer };
          await p.send(id, "k");
        }, 60_000);
        assertEquals([answer!.outcome, answer!.matched_line], ["matched", "Again-here: "]);
        await p.kill(id);
      });

      await t.step("pty-send-keys sends no text into a password prompt; keys alone pass", async () => {
        const id = await p.bash();
        await p.send(id, "read -s -p 'Pass: ' pw; echo; echo got-[$pw]\n");
        await p.waitScreen(id, "the password prompt", (s) => filled(s).at(-1) === "Pass:");
        const refused = await mcp.call("pty-send-keys", { pty_id: id, keys: "make test\n" });
        assert(refused.isError, JSON.stringify(refused));
        assertMatch(textOf(refused), /reads input without echo .*so the text was not typed.*request-input/);
        // Enter alone is no text: it answers (empty), and the refused text never reached the read.
        await p.send(id, "\r");
        await p.idle(id, "got-[]");
        await p.kill(id);
      });

      await t.step("Ctrl-C interrupts sleep 100", async () => {
        const id = await p.bash();
        // The echo of the typed line comes before the job is in the foreground; "started" comes after.
        await p.send(id, "sh -c 'echo started; exec sleep 100'\n");
        await p.waitScreen(id, "sleep to start", (s) => filled(s).at(-1) === "started");
        await p.send(id, "", ["C-c"]);
        await p.idle(id, "^C");
        await p.send(id, "echo status-$?\n");
        await p.waitScreen(id, "the exit status", (s) => s.includes("\nstatus-130\n"));
        await p.kill(id);
      });

      await t.step("Up arrow recalls the previous command", async () => {
        const id = await p.bash();
        await p.send(id, "echo recall-me\n");
        await p.idle(id, "recall-me");
        await p.send(id, "", ["Up"]);
        await p.waitScreen(id, "the recalled command", (s) => /[$#] echo recall-me$/.test(filled(s).at(-1)!));
        await p.send(id, "", ["Enter"]);
        await p.waitScreen(id, "the second run", (s) => filled(s).filter((l) => l === "recall-me").length === 2);
        // The raw escape sequence works as well.
        await p.send(id, "\u001b[A\n");
        await p.waitScreen(id, "the third run", (s) => filled(s).filter((l) => l === "recall-me").length === 3);
        await p.kill(id);
      });

      await t.step("keys and key_names arrive as exact bytes; arrows follow application cursor mode", async () => {
        // od's output comes as it exits; it is not the pane's first process, whose exit tmux before 3.7 may act on
        // before it read the last output (docs/design.md), so its screen stays complete.
        const od = "od -An -tx1 -w8; exec sleep 60";
        const id = await p.launch({ command: `echo ready; ${od}`, cols: 60 });
        await p.waitScreen(id, "od to start", (s) => s.startsWith("ready"));
        await p.send(id, "é€\t\u0001", ["C-d", "C-d"]);
        await p.waitScreen(id, "the bytes", (s) => s.includes("c3 a9 e2 82 ac 09 01"));
        const app = await p.launch({ command: `printf '\\033[?1hready\\n'; ${od}`, cols: 60 });
        await p.waitScreen(app, "the program to switch modes", (s) => s.startsWith("ready"));
        await p.send(app, "\u001b[A", ["Up", "C-Up", "Enter", "C-d"]);
        await p.waitScreen(app, "the bytes", (s) => s.includes("1b 5b 41 1b 4f 41 1b 5b"));
        const screen = await p.waitScreen(app, "the rest", (s) => s.includes("1b 4f 41 1b 5b\n 31 3b 35 41"));
        assertMatch(screen, /\n 31 3b 35 41 0a\n/, "C-Up keeps its CSI form, Enter arrives as a newline");
        await p.kill(id);
        await p.kill(app);
      });

      await t.step("a curses program reads Home, End and their modified forms as those keys", async () => {
        // The internal backend's programs run on an xterm: tmux's ESC [ 1 ~ for Home was four keys there.
        const names = ["Home", "End", "C-Home", "S-End", "Up", "Delete"];
        const curses = "import curses\n" +
          "def main(s):\n" +
          "  s.keypad(True); curses.noecho(); s.addstr(0, 0, 'ready'); s.refresh(); keys = []\n" +
          "  while len(keys) < 3 or keys[-3:] != ['q', 'u', 'i']: keys.append(curses.keyname(s.getch()).decode())\n" +
          "  return keys[:-3]\n" +
          "print(' '.join(curses.wrapper(main)))\n";
        const id = await p.launch({ command: `python3 -c "${curses}"; exec sleep 60` });
        await p.waitScreen(id, "curses to start", (s) => s.includes("ready"));
        await mcp.ok("pty-send-keys", { pty_id: id, keys: "", key_names: [...names, "q", "u", "i"] });
        const screen = await p.waitScreen(id, "the keys read", (s) => s.includes("KEY_"));
        assertEquals(filled(screen), ["KEY_HOME KEY_END kHOM5 KEY_SEND KEY_UP KEY_DC"]);
        await p.kill(id);
      });

      await t.step("two sends at once arrive each whole, one after the other", async () => {
        // Each send is longer than one write (tmux takes 2 KiB per send-keys): the parts of two must not mix.
        const dir = await Deno.makeTempDir({ prefix: "pty-sends-" });
        try {
          const id = await p.launch({ command: `stty -echo; echo ready; cat > '${dir}/in'` });
          await p.waitScreen(id, "cat to start", (s) => s.startsWith("ready"));
          const [a, b] = ["a", "b"].map((c) => `${c.repeat(99)}\n`.repeat(50));
          await Promise.all([p.send(id, a), p.send(id, b)]);
          const got = await until("both sends", () => Deno.readTextFile(`${dir}/in`), (t) => t.length >= 10_000);
          assert(got === a + b || got === b + a, `the sends mixed: ${got.split("\n").map((l) => l[0]).join("")}`);
          await p.kill(id);
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      });

      await t.step("a command as long as pty-launch takes runs, and is listed whole", async () => {
        const head = "echo long-ok; exec sleep 60 #";
        const command = head + "x".repeat(8192 - head.length);
        const id = await p.launch({ command });
        await p.waitScreen(id, "the output", (s) => s.startsWith("long-ok"));
        assertEquals((await p.list()).find((s) => s.pty_id === id)?.command, command);
        await p.kill(id);
      });

      await t.step("printf red shows plain text, or SGR with include_colors", async () => {
        // A bar of coloured spaces, and a row whose inverse part ends in spaces: the colour is what they show.
        const bars = "\\033[42m   \\033[41m  \\033[0m\\nsel\\033[7m item  \\033[0m  \\n";
        const id = await p.launch({ command: `printf 'x\\033[31mred\\033[0m plain\\n${bars}'; exec sleep 60` });
        await p.waitScreen(id, "the output", (s) => s.startsWith("xred plain"));
        const plain = await p.screen(id);
        assertEquals(filled(plain.screen), ["xred plain", "sel item"]);
        const colored = await p.screen(id, true);
        assertEquals(filled(colored.screen), [
          "x\x1b[31mred\x1b[0m plain",
          "\x1b[42m   \x1b[0;41m  \x1b[0m",
          "sel\x1b[7m item  \x1b[0m",
        ]);
        await p.kill(id);
      });

      await t.step("a screen too large to draw as an image is refused at once, with what to do", async () => {
        // Drawing 500×1000 cells held the server (every call) for minutes.
        const id = await p.launch({ command: "seq 1 400; exec sleep 60", rows: 500, cols: 1000 });
        await p.waitScreen(id, "the output", (s) => s.includes("\n400\n"));
        assertMatch(
          await mcp.err("pty-get-screen", { pty_id: id, format: "png" }),
          /^a screen of 500×1000 cells is too large to draw as an image \(at most \d+ cells\): read it as text/,
        );
        await mcp.ok("pty-resize", { pty_id: id, rows: 24, cols: 80 });
        assertEquals((await mcp.call("pty-get-screen", { pty_id: id, format: "png" })).content?.[0]?.type, "image");
        await p.kill(id);
      });

      await t.step("the cursor position follows known output", async () => {
        const id = await p.launch({ command: "printf 'abc\\ndefgh'; exec sleep 60", rows: 10, cols: 40 });
        await p.waitScreen(id, "the output", (s) => s.startsWith("abc\ndefgh"));
        assertEquals((await mcp.ok<{ cursor: unknown }>("pty-get-screen", { pty_id: id })).cursor, { row: 1, col: 5 });
        await p.kill(id);
        // Without autowrap (DECAWM off) a long line's last characters overwrite the last column, where the cursor
        // stays: the internal backend put it one column right of the screen.
        const nowrap = await p.launch({
          command: "printf '\\033[?7l%s' $(seq 1 30); exec sleep 60",
          rows: 5,
          cols: 20,
        });
        await p.waitScreen(nowrap, "the output", (s) => s.startsWith("12345678910111213140"));
        assertEquals((await mcp.ok<{ cursor: unknown }>("pty-get-screen", { pty_id: nowrap })).cursor, {
          row: 0,
          col: 19,
        });
        await p.kill(nowrap);
      });

      await t.step("emoji take two columns, as the program and tmux count them", async () => {
        // The internal backend counted by Unicode 6, where these took one column each: the cursor, and all that a
        // program drew after them, stood left of where the program put it.
        const id = await p.launch({ command: "printf '😀🙂☕👩‍💻中x'; exec sleep 60", rows: 4, cols: 30 });
        await p.waitScreen(id, "the output", (s) => s.includes("x"));
        const s = await mcp.ok<Screen & { cursor: { row: number; col: number } }>("pty-get-screen", { pty_id: id });
        assertEquals([filled(s.screen), s.cursor], [["😀🙂☕👩‍💻中x"], { row: 0, col: 11 }]);
        await p.kill(id);
      });

      await t.step("a resize is seen by stty size", async () => {
        const id = await p.bash({ rows: 24, cols: 80 });
        await p.send(id, "stty size\n");
        await p.waitScreen(id, "the first size", (s) => s.includes("\n24 80\n"));
        assertEquals(await mcp.ok("pty-resize", { pty_id: id, rows: 30, cols: 100 }), {
          pty_id: id,
          rows: 30,
          cols: 100,
          runs_on: "local",
        });
        await p.send(id, "stty size\n");
        await p.waitScreen(id, "the new size", (s) => s.includes("\n30 100\n"));
        const listed = (await p.list()).find((s) => s.pty_id === id)!;
        assertEquals([listed.rows, listed.cols], [30, 100]);
        assertEquals((await p.screen(id)).screen.split("\n").length, 30);
        await p.kill(id);
      });

      await t.step("a resize rejoins the line the cursor is on, and the program writes on after it", async () => {
        // The internal backend cut that line at a narrower width (the text past it was lost), and after a wider
        // one left the cursor's column where it was, so the next character overwrote the line.
        const id = await p.launch({
          command: "stty -echo; seq 1 10; printf 1234567890ABCDEFGHIJK; read x; printf Z; exec sleep 60",
          rows: 6,
          cols: 12,
        });
        await p.waitScreen(id, "the line", (s) => s.includes("CDEFGHIJK"));
        await mcp.ok("pty-resize", { pty_id: id, rows: 5, cols: 10 });
        await mcp.ok("pty-resize", { pty_id: id, rows: 6, cols: 20 });
        await p.send(id, "\n");
        const screen = await p.waitScreen(id, "the Z", (s) => s.includes("Z"));
        assertEquals(screen.split("\n"), ["7", "8", "9", "10", "1234567890ABCDEFGHIJ", "KZ"]);
        await p.kill(id);
      });

      await t.step("after 500 lines the scrollback still has the first ones", async () => {
        const id = await p.bash();
        await p.send(id, "seq 1 500\n");
        await p.idle(id, "500");
        const all = await mcp.ok<{ text: string; line_count: number }>("pty-get-scrollback", {
          pty_id: id,
          lines: 10_000,
        });
        const lines = all.text.split("\n");
        assertEquals(all.line_count, lines.length);
        assertMatch(lines[0], /[$#] seq 1 500$/);
        assertEquals(lines.slice(1, 501), Array.from({ length: 500 }, (_, i) => String(i + 1)));
        assertMatch(lines.at(-1)!, PROMPT);
        const tail = await mcp.ok<{ text: string }>("pty-get-scrollback", { pty_id: id, lines: 3 });
        assertEquals(tail.text.split("\n").slice(0, 2), ["499", "500"]);
        await p.kill(id);
      });

      await t.step("the capture file holds exactly what the program printed, at a hostile path", async () => {
        const dir = await Deno.makeTempDir({ prefix: "pty-capture-" });
        const script = "IFS= read -r x; printf 'got:%s\\n' \"$x\"; printf '\\033[1mbold\\033[0m\\tend\\n'; " +
          "IFS= read -r y";
        const id = await p.launch({ command: script, working_dir: dir });
        await p.waitScreen(id, "the shell to start", () => true);
        const names = ["a'b;touch x", "c #{pane_id} %Y $(touch y) `touch z`"];
        const stray = ["x", "y", "z"];
        try {
          await mcp.ok("pty-capture", { pty_id: id, output_file: `${dir}/${names[0]}` });
          assertMatch(
            await mcp.err("pty-capture", { pty_id: id, output_file: `${dir}/other` }),
            /already capturing to .*pty-capture without output_file/,
          );
          await p.send(id, "hi\n");
          await p.waitScreen(id, "the output", (s) => s.includes("bold\tend") || s.includes("bold    end"));
          assertEquals(await mcp.ok("pty-capture", { pty_id: id }), {
            pty_id: id,
            output_file: `${dir}/${names[0]}`,
            capturing: false,
            file_host: "local",
            runs_on: "local",
          });
          await mcp.ok("pty-capture", { pty_id: id, output_file: `${dir}/${names[1]}` });
          await p.send(id, "bye\n");
          await until("the program to exit", p.list, (l) => l.find((s) => s.pty_id === id)?.status === "exited");
          await mcp.ok("pty-capture", { pty_id: id });
          const expected = ["hi\r\ngot:hi\r\n\x1b[1mbold\x1b[0m\tend\r\n", "bye\r\n"];
          for (const [i, name] of names.entries()) {
            await until(`capture ${i}`, () => Deno.readTextFile(`${dir}/${name}`), (c) => c === expected[i], 5000);
          }
          const entries = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
          assertEquals(entries, [...names].sort());
          for (const f of stray) assert(!existsSync(f), `a stray file ${f} appeared in the server's directory`);
        } finally {
          await Deno.remove(dir, { recursive: true });
          await mcp.call("pty-kill-session", { pty_id: id });
        }
      });

      await t.step("two captures started at once: one records, the other is refused and makes no file", async () => {
        // On tmux both answered success, the second pipe replacing the first: the stop named a file that got
        // nothing. On the internal backend the refused call left an empty file behind.
        const dir = await Deno.makeTempDir({ prefix: "pty-capture-race-" });
        try {
          for (const format of ["raw", "asciicast"]) {
            const id = await p.launch({ command: "stty -echo; echo ready; exec cat" });
            await p.waitScreen(id, "cat to start", (s) => s.startsWith("ready"));
            const files = ["a", "b"].map((n) => `${dir}/${format}-${n}`);
            const answers = await Promise.all(
              files.map((f) => mcp.call("pty-capture", { pty_id: id, output_file: f, format })),
            );
            const ok = answers.flatMap((r, i) => r.isError ? [] : [files[i]]);
            const refused = answers.filter((r) => r.isError).map(textOf);
            assertEquals(ok.length, 1, `${format}: ${JSON.stringify(refused)}`);
            assertMatch(refused[0], /is already capturing to .*: call pty-capture without output_file first$/);
            await p.send(id, "recorded\n");
            await p.waitScreen(id, "the output", (s) => s.includes("recorded"));
            assertEquals((await mcp.ok<{ output_file: string }>("pty-capture", { pty_id: id })).output_file, ok[0]);
            await until(`the ${format} capture`, () => Deno.readTextFile(ok[0]), (c) => c.includes("recorded"));
            assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.startsWith(format)), [
              ok[0].slice(dir.length + 1),
            ]);
            await p.kill(id);
          }
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      });

      await t.step("format asciicast writes a v2 cast: header, rising times, the exact text", async () => {
        const dir = await Deno.makeTempDir({ prefix: "pty-cast-" });
        // 中 is split across two writes half a second apart: it must arrive whole, in the later event.
        const script = "printf 'start\\n'; IFS= read -r x; printf 'A\\344\\270'; sleep 0.5; printf '\\255B é\\n'; " +
          "IFS= read -r y";
        const id = await p.launch({ command: script });
        const file = `${dir}/a'b $(touch x).cast`;
        try {
          await p.waitScreen(id, "the program to start", (s) => s.startsWith("start"));
          await Deno.writeTextFile(file, "old content\n");
          // A file holding data that this server did not create is not emptied below --safety destructive.
          assertMatch(
            await mcp.err("pty-capture", { pty_id: id, output_file: file, format: "asciicast" }),
            /exists and holds 12 bytes, which replacing it would lose/,
          );
          assertEquals(await Deno.readTextFile(file), "old content\n");
          await Deno.writeTextFile(file, "");
          const before = Math.floor(Date.now() / 1000);
          await mcp.ok("pty-capture", { pty_id: id, output_file: file, format: "asciicast" });
          await p.send(id, "go\n");
          await p.waitScreen(id, "the output", (s) => s.includes("A中B é"));
          await mcp.ok("pty-resize", { pty_id: id, rows: 30, cols: 100 });
          await until("the cast to hold the output", () => Deno.readTextFile(file), (c) => c.includes('"r","100x30"'));
          await mcp.ok("pty-capture", { pty_id: id });
          const [head, ...events] = (await Deno.readTextFile(file)).trimEnd().split("\n").map((l) => JSON.parse(l));
          assertEquals([head.version, head.width, head.height, head.env.TERM], [2, 80, 24, "xterm-256color"]);
          assert(head.timestamp >= before && head.timestamp <= Date.now() / 1000 + 1, `timestamp ${head.timestamp}`);
          const times = events.map((e) => e[0] as number);
          assert(times.every((t, i) => typeof t === "number" && t >= 0 && (i === 0 || t > times[i - 1])), `${times}`);
          const out = events.filter((e) => e[1] === "o");
          assertEquals(out.map((e) => e[2]).join(""), "go\r\nA中B é\r\n");
          assert(out.every((e) => e.length === 3 && typeof e[2] === "string" && !e[2].includes("\ufffd")));
          assert(out.at(-1)[0] - out[0][0] >= 0.4, `the pause is kept: ${JSON.stringify(out)}`);
          assertEquals(events.filter((e) => e[1] === "r").map((e) => e[2]), ["100x30"]);
          assert(!existsSync("x"), "a stray file appeared in the server's directory");
          assertMatch(
            await mcp.err("pty-capture", { pty_id: id, output_file: `${dir}/b.cast`, format: "gif" }),
            /^invalid arguments.*format[^\n]*$/,
          );
          assertMatch(
            await mcp.err("pty-capture", { pty_id: id, output_file: "b.cast", format: "asciicast" }),
            /^invalid arguments.*absolute[^\n]*$/,
          );
          assertMatch(
            await mcp.err("pty-capture", { pty_id: id, output_file: "/nonexistent-dir/b.cast", format: "asciicast" }),
            /^directory "\/nonexistent-dir" does not exist[^\n]*$/,
          );
          assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), [file.slice(dir.length + 1)]);
        } finally {
          await Deno.remove(dir, { recursive: true });
          await mcp.call("pty-kill-session", { pty_id: id });
        }
      });

      await t.step("an asciicast capture stops at once after its program exited, its output recorded", async () => {
        // tmux refuses pipe-pane on a dead pane, so the pipe stays open: the stop waited for its end and hung
        // until the call budget ran out.
        const dir = await Deno.makeTempDir({ prefix: "pty-cast-exit-" });
        const file = `${dir}/exit.cast`;
        try {
          const id = await p.launch({ command: "IFS= read -r x; echo bye; exit 2" });
          await mcp.ok("pty-capture", { pty_id: id, output_file: file, format: "asciicast" });
          await p.send(id, "hi\n");
          await until("the exit", p.list, (l) => l.some((x) => x.pty_id === id && x.status === "exited"));
          const started = Date.now();
          const stopped = await mcp.ok<{ capturing: boolean }>("pty-capture", { pty_id: id });
          assert(Date.now() - started < 20_000, `the stop took ${Date.now() - started} ms`);
          assertEquals(stopped.capturing, false);
          await p.kill(id);
          const text = (c: string) =>
            c.trimEnd().split("\n").slice(1).map((l) => JSON.parse(l)).filter((e) => e[1] === "o").map((e) => e[2])
              .join("");
          await until("the cast to hold the output", () => Deno.readTextFile(file), (c) => text(c) === "hi\r\nbye\r\n");
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      });

      await t.step("a working directory with quotes, # and $ is used exactly as given", async () => {
        const base = await Deno.makeTempDir({ prefix: "pty-cwd-" });
        const dir = `${base}/d'q #{pane_id} #(touch w) $(touch v) %Y`;
        await Deno.mkdir(dir);
        try {
          const id = await p.launch({ command: "pwd; exec sleep 60", working_dir: dir });
          await p.waitScreen(id, "pwd", (s) => s.startsWith("/"));
          assertEquals(filled((await p.screen(id)).screen), [dir]);
          assertEquals([...Deno.readDirSync(base)].map((e) => e.name), [dir.slice(base.length + 1)]);
          for (const f of ["w", "v"]) assert(!existsSync(f), `a stray file ${f} appeared in the server's directory`);
          await p.kill(id);
        } finally {
          await Deno.remove(base, { recursive: true });
        }
      });

      await t.step("a program that closes its terminal is hung up, with the same exit code on both", async () => {
        // tmux hangs up a pane whose terminal was closed, as a terminal window does; the internal backend listed
        // the session as running (for as long as the program lived) while a send said it had exited.
        const id = await p.launch({ command: "echo closing; exec </dev/null >/dev/null 2>&1; sleep 60; exit 4" });
        const ended = await until("the end", p.list, (l) => l.some((x) => x.pty_id === id && x.status === "exited"));
        const s = ended.find((x) => x.pty_id === id)!;
        assertEquals([s.exit_code, filled((await p.screen(id)).screen)], [129, ["closing"]]);
        await p.kill(id);
      });

      await t.step("a process exit is reported with its exit code", async () => {
        // Each exits once its last output is on the screen: tmux before 3.7 may close a pane's terminal on the exit
        // of its first process before it read what that printed just before (docs/design.md).
        const quick = await p.launch({ command: "echo bye; read x; exit 7" });
        const id = await p.bash();
        await p.send(id, "echo last words\n");
        const before = filled(await p.idle(id, "last words"));
        assertEquals((await mcp.ok("pty-get-screen", { pty_id: id })).warnings, undefined);
        await p.waitScreen(quick, "bye", (s) => filled(s).includes("bye"));
        await p.send(quick, "\n");
        // readline echoes what it reads: the typed line is on the screen before Enter.
        await p.send(id, "exit 3");
        await p.waitScreen(id, "the typed exit", (s) => /[$#] exit 3$/.test(filled(s).at(-1)!));
        await p.send(id, "", ["Enter"]);
        const sessions = await until(
          "both to exit",
          p.list,
          (l) => l.filter((s) => [quick, id].includes(s.pty_id as string) && s.status === "exited").length === 2,
        );
        const byId = new Map(sessions.map((s) => [s.pty_id, s]));
        assertEquals([byId.get(quick)!.exit_code, byId.get(id)!.exit_code], [7, 3]);
        assertEquals(byId.get(id)!.backend, backend);
        assertEquals(byId.get(id)!.command, BASH);
        // The last screen stays readable, and is unchanged by the exit; it says the program has ended (the screen
        // alone looks like a program waiting), while a running one's says nothing of the kind.
        const left = await mcp.ok<{ screen: string; warnings?: { kind: string; message: string }[] }>(
          "pty-get-screen",
          { pty_id: quick },
        );
        assertEquals(filled(left.screen), ["bye"]);
        assertEquals(left.warnings?.map((w) => w.kind), ["exited"]);
        assertMatch(left.warnings![0].message, /program has exited \(exit code 7\): .*pty-kill-session removes/);
        // bash's own "exit" line comes as it exits: what was there before stays, the typed line included.
        const after = filled((await p.screen(id)).screen);
        assertEquals(after.slice(0, before.length - 1), before.slice(0, -1));
        assertMatch(after[before.length - 1], /[$#] exit 3$/);
        assertMatch(await mcp.err("pty-send-keys", { pty_id: id, keys: "x" }), /has exited with exit code 3/);
        // Nobody can answer it any more: request-input says so on both backends (the internal one said to restart the
        // server with tmux for a hand-off).
        const asked = await mcp.ok<{ outcome: string; message: string }>("request-input", {
          pty_id: quick,
          prompt: "anything",
          timeout_ms: 1000,
        });
        assertEquals(asked.outcome, "exited");
        assertMatch(asked.message, /^the program exited; pty-list-sessions shows its exit code/);
        // Nothing more can be recorded: both backends say so, in one line, and leave no file behind (tmux
        // answered with its own "target pane has exited", after creating the file; the internal backend
        // reported a capture that could record nothing).
        const dir = await Deno.makeTempDir({ prefix: "pty-capture-exited-" });
        try {
          for (const format of ["raw", "asciicast"]) {
            const output_file = `${dir}/after-exit.${format}`;
            assertMatch(
              await mcp.err("pty-capture", { pty_id: quick, output_file, format }),
              /^pty session "[^"]+" has exited with exit code 7: [^\n]*pty-kill-session removes it$/,
            );
            assertEquals(await Deno.stat(output_file).then(() => "created", () => "absent"), "absent");
          }
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
        await p.kill(quick);
        await p.kill(id);
      });

      await t.step("killing a session ends its children", async () => {
        const id = await p.bash();
        await p.send(id, "sleep 1000 & echo PID=$!\nsleep 1001\n");
        const screen = await p.waitScreen(id, "the pid", (s) => /PID=\d+/.test(s) && s.includes("sleep 1001"));
        const bg = Number(/PID=(\d+)/.exec(screen)![1]);
        assert(!processGone(bg), "the background sleep should be running");
        assertEquals(await p.kill(id), { pty_id: id, killed: true, runs_on: "local" });
        await until("the background job to end", () => Promise.resolve(processGone(bg)), (gone) => gone, 5000);
        assertEquals((await p.list()).filter((s) => s.pty_id === id), []);
        assertMatch(await mcp.err("pty-kill-session", { pty_id: id }), /no pty session "s\d+"/);
      });

      await t.step("two kills of one session at once: one kills it, the other finds no session", async () => {
        const id = await p.launch({ command: "exec sleep 60" });
        const answers = await Promise.all([1, 2].map(() => mcp.call("pty-kill-session", { pty_id: id })));
        const [ok, err] = answers[0].isError ? [answers[1], answers[0]] : [answers[0], answers[1]];
        assertEquals(ok.structuredContent, { pty_id: id, killed: true, runs_on: "local" });
        assert(err.isError, "only one kill can end the session");
        assertMatch(textOf(err), new RegExp(`^no pty session "${id}": call pty-list-sessions`));
      });

      await t.step({
        name: "killing an exited session signals no process that got its first process's pid since",
        // Only where this user may pick the next pid (root: /proc/sys/kernel/ns_last_pid).
        ignore: !canPickPid(),
        fn: async () => {
          const id = await p.launch({ command: "echo LEADER=$$" });
          const screen = await p.waitScreen(id, "the leader's pid", (s) => /LEADER=\d+/.test(s));
          const leader = Number(/LEADER=(\d+)/.exec(screen)![1]);
          await until("the session to exit", p.list, (l) => l.some((s) => s.pty_id === id && s.status === "exited"));
          // The pid comes round again: a session of another program now has it (processes of other tests may take
          // it first, so it is tried until it lands).
          const other = await spawnWithPid(leader, ["setsid", "sleep", "300"]);
          try {
            assertEquals(await p.kill(id), { pty_id: id, killed: true, runs_on: "local" });
            assert(!signalledOrGone(other.pid), "the process that has the old pid now is left alone");
          } finally {
            other.kill("SIGKILL");
            await other.status;
          }
        },
      });

      await t.step("20 sessions run at once", async () => {
        const ids = await Promise.all(
          Array.from({ length: 20 }, (_, i) => p.launch({ command: `echo ready-${i}; exec sleep 60`, rows: 5 })),
        );
        assertEquals(new Set(ids).size, 20);
        await Promise.all(ids.map((id, i) => p.waitScreen(id, `session ${i}`, (s) => s.startsWith(`ready-${i}\n`))));
        const listed = (await p.list()).filter((s) => ids.includes(s.pty_id as string));
        assertEquals(listed.length, 20);
        assert(listed.every((s) => s.status === "running" && s.rows === 5 && s.backend === backend));
        await Promise.all(ids.map((id) => p.kill(id)));
        assertEquals((await p.list()).filter((s) => ids.includes(s.pty_id as string)), []);
      });

      await t.step("bad session ids and bad input get clear errors", async () => {
        for (const tool of ["pty-get-screen", "pty-kill-session", "pty-capture"]) {
          assertMatch(
            await mcp.err(tool, { pty_id: "nope" }),
            /^no pty session "nope": call pty-list-sessions/,
          );
        }
        assertMatch(await mcp.err("pty-send-keys", { pty_id: "nope", keys: "x" }), /no pty session "nope"/);
        assertMatch(await mcp.err("pty-resize", { pty_id: "nope", rows: 5, cols: 20 }), /no pty session/);
        assertMatch(await mcp.err("pty-get-scrollback", { pty_id: "nope" }), /no pty session/);
        for (const bad of ["", "-x", "../x", "a:b", "a.b", "x".repeat(65), "a b"]) {
          assertMatch(await mcp.err("pty-get-screen", { pty_id: bad }), /invalid arguments.*pty_id/);
        }
        const id = await p.launch({ command: "exec sleep 60", pty_id: "mine" });
        assertEquals(id, "mine");
        assertMatch(
          await mcp.err("pty-launch", { command: "true", pty_id: "mine" }),
          /session id "mine" is taken/,
        );
        assertMatch(await mcp.err("pty-send-keys", { pty_id: id, key_names: ["Hyper-q"] }), /unknown key name/);
        assertMatch(await mcp.err("pty-send-keys", { pty_id: id }), /nothing to send/);
        assertMatch(await mcp.err("pty-capture", { pty_id: id }), /is not capturing/);
        assertMatch(
          await mcp.err("pty-capture", { pty_id: id, output_file: "/nonexistent-dir/x" }),
          /directory "\/nonexistent-dir" does not exist/,
        );
        assertMatch(
          await mcp.err("pty-launch", { command: "true", working_dir: "/nonexistent-dir" }),
          /does not exist/,
        );
        assertMatch(await mcp.err("pty-launch", { command: "true", rows: 1 }), /invalid arguments.*rows/);
        await p.kill(id);
      });

      await t.step("request_input hands the session over or says it cannot", async () => {
        const id = await p.launch({ command: "cat" });
        const r = await mcp.ok<Record<string, unknown>>("request-input", {
          pty_id: id,
          prompt: "type anything",
          timeout_ms: 300,
        });
        if (backend === "pty") {
          assertEquals(r.outcome, "unavailable");
          assertMatch(r.message as string, /cannot be attached.*--terminal-backend tmux/);
        } else {
          assertEquals(r.outcome, "timeout");
          assertMatch(r.attach_command as string, /^tmux -S \S+ attach-session -t '=mcp-pty-\d+-s\d+'$/);
          assert((r.waited_ms as number) >= 300);
        }
        await p.kill(id);
      });
    });
  });
}

function existsSync(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers "the screen and its cursor are one snapshot" for one backend: a program that keeps appending lines of
 * changing length (the cursor at the end of the last one) is read many times; each answer's cursor must sit right
 * after its own screen's last line, whatever the program wrote meanwhile.
 */
export function cursorSnapshotTest(backend: Backend): void {
  Deno.test(`${backend} backend: pty-get-screen's cursor belongs to the screen it returns`, async () => {
    await withPty(backend, async (mcp) => {
      const p = pty(mcp);
      // Lines of 1 to 40 x's, no newline after the last: the cursor's column is its line's length.
      const id = await p.launch({
        command: `s=; while :; do s="\${s}x"; [ \${#s} -gt 40 ] && s=x; printf '\\n%s' "$s"; done`,
        rows: 10,
        cols: 60,
      });
      await p.waitScreen(id, "the lines", (s) => filled(s).length >= 5);
      const wrong: string[] = [];
      for (let i = 0; i < 40; i++) {
        const s = await mcp.ok<Screen & { cursor: { row: number; col: number } }>("pty-get-screen", { pty_id: id });
        const lines = s.screen.split("\n");
        const at = lines[s.cursor.row] ?? "";
        const below = lines.slice(s.cursor.row + 1).some((l) => l !== "");
        // The terminal writes each newline as CR, then LF (onlcr), and a read may come between the two: the
        // cursor at column 0 of a full line is a screen of its own, not a cursor of another.
        const betweenCrLf = s.cursor.col === 0 && at !== "";
        if ((at.length !== s.cursor.col && !betweenCrLf) || below) {
          wrong.push(`cursor ${JSON.stringify(s.cursor)} on ${JSON.stringify(at)}`);
        }
      }
      await p.kill(id);
      assertEquals(wrong, []);
    });
  });
}

/** Registers "sessions end with the server" for one backend. */
export function exitCleanupTest(backend: Backend): void {
  Deno.test(`${backend} backend: sessions and their children end when the server exits`, async () => {
    await withPty(backend, async (_mcp, tmux) => {
      const mcp = await connect({ socketName: tmux.socketName, args: ["--terminal-backend", backend] });
      const p = pty(mcp);
      const id = await p.launch({ command: "sleep 1000 & echo PID=$!; wait" });
      // A job that ignores SIGHUP (nohup, trap) ends too: the SIGKILL a second later, as pty-kill-session sends.
      const deaf = await p.launch({ command: "trap '' HUP; sleep 1000 & echo PID=$!; wait" });
      const pids: number[] = [];
      for (const session of [id, deaf]) {
        const screen = await p.waitScreen(session, "the pid", (s) => /PID=\d+/.test(s));
        pids.push(Number(/PID=(\d+)/.exec(screen)![1]));
      }
      assert(pids.every((pid) => !processGone(pid)));
      // A session whose program ended while an asciicast capture ran: tmux cannot close a dead pane's pipe, and the
      // exit waited for its end (the tmux session was left behind).
      const dir = await Deno.makeTempDir({ prefix: "pty-exit-cast-" });
      const ended = await p.launch({ command: "IFS= read -r x; exit 3" });
      await mcp.ok("pty-capture", { pty_id: ended, output_file: `${dir}/a.cast`, format: "asciicast" });
      await p.send(ended, "\n");
      await until("the exit", p.list, (l) => l.some((x) => x.pty_id === ended && x.status === "exited"));
      await mcp.close();
      await until("the children to end", () => Promise.resolve(pids.filter((pid) => !processGone(pid))), (left) => {
        return left.length === 0;
      }, 5000).finally(() => pids.forEach((pid) => processGone(pid) || Deno.kill(pid, "SIGKILL")));
      await Deno.remove(dir, { recursive: true });
      if (backend === "tmux") {
        const names = await tmux.tmux("list-sessions", "-F", "#{session_name}");
        assert(!names.includes("mcp-pty-"), `left behind: ${names}`);
      }
    });
  });
}

/** Registers the `wait {what: "text", pty_id}` cases for one backend. */
export function ptyWaitTest(backend: Backend): void {
  Deno.test(`${backend} backend: wait for text reads every line written, not a window of the last ones`, async (t) => {
    await withPty(backend, async (mcp, tmux) => {
      const p = pty(mcp);
      type TextWait = { outcome: string; matched_line: string | null; warnings: unknown[] };
      const id = await p.bash();

      await t.step("a line 3000 lines above the screen is found", async () => {
        await p.send(id, "echo MAG''IC; seq 1 3000\n");
        await p.idle(id, "3000");
        const r = await mcp.ok<TextWait>("wait", { what: "text", pty_id: id, patterns: ["MAGIC"], timeout_ms: 30_000 });
        assertEquals([r.outcome, r.matched_line, r.warnings], ["matched", "MAGIC", []]);
      });

      await t.step("new_only finds a line again after the old one scrolled far away", async () => {
        await p.send(id, "echo OLD-$((1+1))\n");
        await p.idle(id, "OLD-2");
        let sent: Promise<unknown> | undefined;
        // The first progress notification comes once the wait took its starting point: the output follows it.
        const call = mcp.client.callTool(
          {
            name: "wait",
            arguments: { what: "text", pty_id: id, patterns: ["OLD-2"], new_only: true, timeout_ms: 30_000 },
          },
          undefined,
          { timeout: 60_000, onprogress: () => void (sent ??= p.send(id, "seq 1 600; echo OLD-$((1+1))\n")) },
        );
        const r = (await call).structuredContent as TextWait;
        await sent;
        assertEquals([r.outcome, r.matched_line], ["matched", "OLD-2"]);
      });

      await t.step(
        "new_only reads a line written in parts, or rewritten after a carriage return, as it is now",
        async () => {
          await p.send(id, "echo OLD''MARK\n");
          await p.idle(id, "OLDMARK");
          for (
            const [keys, found] of [
              ["printf 'AB-'; sleep 1; echo CD\n", "AB-CD"],
              ["for i in 1 2 3; do printf '\\r%s0%%' $i; sleep 0.3; done; echo\n", "30%"],
            ]
          ) {
            let sent: Promise<unknown> | undefined;
            const call = mcp.client.callTool(
              {
                name: "wait",
                arguments: {
                  what: "text",
                  pty_id: id,
                  patterns: ["OLDMARK", found],
                  new_only: true,
                  timeout_ms: 30_000,
                },
              },
              undefined,
              { timeout: 60_000, onprogress: () => void (sent ??= p.send(id, keys)) },
            );
            const r = (await call).structuredContent as TextWait;
            await sent;
            // A read that went on from the cursor's column saw "CD" and "0%"; on tmux a rewritten row was taken for
            // lost, so the whole history, OLDMARK with it, counted as new.
            assertEquals([r.outcome, r.matched_line, r.warnings], ["matched", found, []]);
            await p.idle(id);
          }
        },
      );

      await t.step("new_only finds a line written after the history was cleared or the terminal reset", async () => {
        // The internal backend numbered the rows after a reset (`ESC c`) from where the wait had read: never reached.
        for (const [clear, word] of [["'\\033[H\\033[2J\\033[3J'", "CLEARED"], ["'\\033c'", "RESET"]]) {
          let sent: Promise<unknown> | undefined;
          const call = mcp.client.callTool(
            {
              name: "wait",
              arguments: { what: "text", pty_id: id, patterns: [`${word}-2`], new_only: true, timeout_ms: 30_000 },
            },
            undefined,
            {
              timeout: 60_000,
              onprogress: () => void (sent ??= p.send(id, `printf ${clear}; echo ${word}-$((1+1))\n`)),
            },
          );
          const r = (await call).structuredContent as TextWait;
          await sent;
          assertEquals([r.outcome, r.matched_line], ["matched", `${word}-2`]);
          await p.idle(id, `${word}-2`);
        }
      });

      await t.step("a pattern with a line break is refused up front", async () => {
        assertMatch(
          await mcp.err("wait", { what: "text", pty_id: id, patterns: ["a\nb"] }),
          /^pattern "a\\nb" contains a line break, but patterns match within one line/,
        );
      });

      // Lines can only be dropped unread while the server does not read: on the tmux backend tmux keeps taking the
      // program's output while the server is stopped. (On the internal backend the server is the pty's reader, so a
      // stopped server holds the program back and nothing is dropped.)
      if (backend === "tmux") {
        await t.step("lines dropped from the history before the wait read them are said (lines_missed)", async () => {
          const session = (await tmux.tmux("list-sessions", "-F", "#{session_name}")).split("\n")
            .find((s) => s.endsWith(`-${id}`));
          assert(session, `no tmux session for pty ${id}`);
          let stopped: Promise<void> | undefined;
          // Once the wait took its starting point (its first progress notification), the server is stopped, and
          // 30 000 lines (three times the history) go by before it reads again.
          const burst = async () => {
            Deno.kill(mcp.pid, "SIGSTOP");
            try {
              await tmux.tmux("send-keys", "-t", `=${session}:`, "-l", "seq 1 30000; echo BURST-$((6*7))");
              await tmux.tmux("send-keys", "-t", `=${session}:`, "Enter");
              await waitUntil(
                "the burst to end on the pty's screen",
                async () => (await tmux.tmux("capture-pane", "-p", "-t", `=${session}:`)).includes("BURST-42"),
                60_000,
              );
            } finally {
              Deno.kill(mcp.pid, "SIGCONT");
            }
          };
          const call = mcp.client.callTool(
            {
              name: "wait",
              arguments: { what: "text", pty_id: id, patterns: ["BURST-42"], new_only: true, timeout_ms: 60_000 },
            },
            undefined,
            { timeout: 120_000, onprogress: () => void (stopped ??= burst()) },
          );
          const r = (await call).structuredContent as Omit<TextWait, "warnings"> & { warnings: { kind: string }[] };
          await stopped;
          assertEquals([r.outcome, r.matched_line], ["matched", "BURST-42"]);
          assertEquals(r.warnings.map((w) => w.kind), ["lines_missed"]);
          await p.idle(id, "BURST-42");
        });
      }
      await p.kill(id);
    }, ["--toolsets", "pty,exec"]);
  });
}
