import fc from "fast-check";
import { assert, assertEquals } from "./assert.ts";
import { startTmux } from "./helpers.ts";
import { tempDir, waitUntil } from "./pane_helpers.ts";
import { expandedShellCommand, formatLiteral, pipeToFileCommand, shQuote } from "../lib/tmux/quote.ts";
import { chunkText, packCommands } from "../lib/tmux/batch.ts";
import { COMMAND_SEPARATOR, escapeArg } from "../lib/tmux/executor.ts";

const enc = new TextEncoder();

/** Well-formed strings (no lone surrogates) without NUL, rich in quote and format characters. */
const hostile = fc.oneof(
  fc.string({
    unit: fc.constantFrom("#", "%", "{", "}", "(", ")", "'", '"', "\\", "$", "`", ";", " ", "\n", "-", "a"),
  }),
  fc.string({ unit: "grapheme" }),
).filter((s) => !s.includes("\0"));

Deno.test("shQuote: sh reads every quoted word back byte-exact", async () => {
  await fc.assert(
    fc.asyncProperty(hostile, async (s) => {
      const out = await new Deno.Command("sh", { args: ["-c", `printf %s ${shQuote(s)}`], stdout: "piped" }).output();
      assertEquals(new TextDecoder().decode(out.stdout), s);
    }),
    { numRuns: 150 },
  );
  let threw = false;
  try {
    shQuote("a\0b");
  } catch {
    threw = true;
  }
  assert(threw, "NUL is refused");
});

Deno.test("expandedShellCommand and formatLiteral survive tmux's expansion byte-exact", async () => {
  const tmux = await startTmux("quote");
  try {
    const dir = await tempDir();
    const pane = (await tmux.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostile, async (s) => {
        // pipe-pane runs its command at once (format + strftime expansion, then sh -c).
        const out = `${dir}/out-${n++}`;
        await tmux.tmux(
          "pipe-pane",
          "-t",
          pane,
          "--",
          escapeArg(expandedShellCommand(["sh", "-c", 'printf %s "$1" > "$2.tmp" && mv "$2.tmp" "$2"', "sh", s, out])),
        );
        const got = await waitUntil(out, () => Deno.readTextFile(out).then((t) => ({ t }), () => undefined));
        assertEquals(got.t, s);
        await tmux.tmux("pipe-pane", "-t", pane);
      }),
      { numRuns: 40 },
    );
    // Names are format-expanded (not strftime-expanded) and then made printable by tmux, which
    // escapes '\\', some '$' and characters it cannot display: use characters it keeps.
    const printable = fc.string({
      unit: fc.constantFrom("#", "%", "{", "}", "(", ")", "'", '"', "`", ";", " ", "-", "a", "é", "中", "🙂"),
      minLength: 1,
    });
    await fc.assert(
      fc.asyncProperty(printable, async (s) => {
        // escapeArg: the fixture runs tmux raw, the server's executor escapes a trailing ';' like this.
        await tmux.tmux("rename-window", "-t", "main:0", "--", escapeArg(formatLiteral(s)));
        assertEquals((await tmux.tmux("display-message", "-p", "-t", "main:0", "#{window_name}")).slice(0, -1), s);
      }),
      { numRuns: 60 },
    );
  } finally {
    await tmux.kill();
  }
});

Deno.test("pipeToFileCommand escapes # and % for tmux and quotes for sh", () => {
  assertEquals(pipeToFileCommand("/tmp/100%#(x)'y"), "exec cat >> '/tmp/100%%##(x)'\\''y'");
  // With the identity of the file checked: opened once, stat's %d:%i escaped for tmux's strftime too.
  assertEquals(
    pipeToFileCommand("/tmp/a%b", true, { dev: 2049, ino: 77 }),
    "exec 3>> '/tmp/a%%b' || exit 1; __id=$(stat -L -c %%d:%%i /dev/fd/3 2>/dev/null || " +
      'stat -L -f %%d:%%i /dev/fd/3 2>/dev/null); [ -z "$__id" ] || [ "$__id" = 2049:77 ] || exit 1; ' +
      "exec cat >&3 3>&-",
  );
});

Deno.test("chunkText never splits a code point and keeps every chunk within the byte budget", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: 4, max: 64 }), (s, max) => {
      const chunks = chunkText(s, max);
      assertEquals(chunks.join(""), s);
      for (const c of chunks) {
        assert(enc.encode(c).length <= max, `chunk of ${enc.encode(c).length} bytes > ${max}`);
        assert(c.length > 0 && c.isWellFormed(), "no empty or split chunk");
      }
    }),
  );
});

Deno.test("packCommands keeps order and separates commands, within the budget", () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 4 }), { maxLength: 30 }),
      (cmds) => {
        const packed = packCommands(cmds, 100);
        const back: string[][] = [];
        for (const inv of packed) {
          let cur: string[] = [];
          for (const a of inv) {
            if (a === COMMAND_SEPARATOR) {
              back.push(cur);
              cur = [];
            } else cur.push(a);
          }
          back.push(cur);
          const size = inv.reduce((n, a) => n + (a === COMMAND_SEPARATOR ? 2 : enc.encode(a).length + 1), 0);
          assert(size <= 100 || !inv.includes(COMMAND_SEPARATOR), "over budget only when alone");
        }
        assertEquals(back, cmds);
      },
    ),
  );
});
