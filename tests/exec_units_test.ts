import fc from "fast-check";
import { assert, assertEquals } from "./assert.ts";
import { LineAssembler, MarkerScanner } from "../lib/exec/stream.ts";
import { quoteFish, runScript, shellFlavor, typedLine } from "../lib/exec/shell.ts";
import { shQuote } from "../lib/tmux/quote.ts";
import { decodeCursor, encodeCursor } from "../lib/exec/cursor.ts";
import { columns, dropColumns, takeColumns } from "../lib/text/columns.ts";
import { notAtPrompt, paneWarnings, type WarningFacts } from "../lib/exec/warnings.ts";
import { decodeOutput } from "../lib/tmux/control.ts";
import { compileMatcher } from "../lib/exec/match.ts";
import { LogPool, RunLog } from "../lib/exec/runlog.ts";
import { ParkingLot } from "../lib/exec/parked.ts";
import { createSearchPool } from "../lib/search/worker_pool.ts";
import { UserError } from "../lib/errors.ts";
import { fileScripts } from "../lib/exec/runtime.ts";
import type { RunFiles } from "../lib/exec/handshake.ts";
import { isBlankLine, joinedSpans, keepNewest, lastLineOf, rowsText, wrappedFlags } from "../lib/tmux/capture.ts";

const enc = new TextEncoder();

Deno.test("marker scanner finds markers split anywhere across chunks, and nothing else", () => {
  fc.assert(fc.property(
    fc.array(fc.string({ maxLength: 30 }), { maxLength: 6 }),
    fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
    (noise, cuts) => {
      const prefix = "\x1b]5379;abcd;";
      const stream = noise.map((n, i) => `${n}${prefix}e;${i}\x07`).join("") + "\x1b]5379;abce;e;9\x07tail";
      const bytes = enc.encode(stream);
      const scan = new MarkerScanner(prefix);
      const placed = new MarkerScanner(prefix);
      const found: string[] = [];
      const where: { payload: string; from: number; to: number }[] = [];
      let at = 0;
      for (let i = 0; at < bytes.length; i++) {
        const next = Math.min(bytes.length, at + cuts[i % cuts.length]);
        found.push(...scan.push(bytes.subarray(at, next)));
        where.push(...placed.scan(bytes.subarray(at, next)));
        at = next;
      }
      assertEquals(found, noise.map((_, i) => `e;${i}`));
      // Each marker's place in the whole stream: exactly its bytes, prefix to terminator.
      assertEquals(where.map((m) => m.payload), found);
      for (const m of where) {
        assertEquals(new TextDecoder().decode(bytes.subarray(m.from, m.to)), `${prefix}${m.payload}\x07`);
      }
    },
  ));
});

Deno.test("line assembler turns terminal bytes into the lines a terminal shows", () => {
  const seen: [string, boolean][] = [];
  const asm = new LineAssembler((t, complete) => seen.push([t, complete]));
  asm.push(enc.encode("\x1b[1;32mgreen\x1b[0m text\r\n50%\r100%\r\nab\bX\x1b]0;title\x07\r\n"));
  asm.push(enc.encode("Password: "));
  const complete = seen.filter(([, c]) => c).map(([t]) => t);
  assertEquals(complete, ["green text", "100%", "aX"]);
  assert(seen.some(([t]) => t === "50%"), "a line about to be overwritten is offered first");
  assertEquals(seen.at(-1), ["Password: ", false]);
  // UTF-8 split inside a character.
  const asm2 = new LineAssembler((t, c) => c && seen.push([t, c]));
  const bytes = enc.encode("héllo\n");
  asm2.push(bytes.subarray(0, 2));
  asm2.push(bytes.subarray(2));
  assertEquals(seen.at(-1), ["héllo", true]);
});

Deno.test("control-mode output values decode octal escapes to raw bytes", () => {
  const line = enc.encode("%output %3 a\\033[0m\\134\\015\\012é");
  const out = decodeOutput(line, "%output %3 ".length);
  assertEquals(Array.from(out), [0x61, 0x1b, 0x5b, 0x30, 0x6d, 0x5c, 0x0d, 0x0a, 0xc3, 0xa9]);
});

async function shellEcho(shell: string[], words: string[], quote: (s: string) => string): Promise<string[]> {
  const script = `printf '%s\\n' ${words.map((w) => quote(w + "|")).join(" ")}`;
  const out = await new Deno.Command(shell[0], { args: [...shell.slice(1), script], stdout: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  return text.split("|\n").slice(0, -1);
}

Deno.test("shell quoting keeps any text byte-exact in sh, bash, zsh and fish", async () => {
  const words = fc.sample(fc.string({ unit: "grapheme", maxLength: 20 }).filter((s) => !s.includes("\0")), 60);
  words.push("it's", "a\\b", "\\'", "$HOME", "`id`", "$(id)", "*", "~", "a\nb", "-n", "'", "\\");
  for (const sh of [["sh", "-c"], ["bash", "-c"], ["zsh", "-f", "-c"]]) {
    assertEquals(await shellEcho(sh, words, shQuote), words, sh[0]);
  }
  assertEquals(await shellEcho(["fish", "--no-config", "-c"], words, quoteFish), words, "fish");
});

Deno.test("run scripts and typed lines per shell", () => {
  assertEquals(shellFlavor("bash"), "posix");
  assertEquals(shellFlavor("-zsh"), "posix");
  assertEquals(shellFlavor("fish"), "fish");
  assertEquals(shellFlavor("python3"), undefined);
  assertEquals(shellFlavor("toString"), undefined);
  assertEquals(typedLine("posix", "/tmp/a b/r-1"), " . '/tmp/a b/r-1'");
  assertEquals(typedLine("fish", "/tmp/it's/r-1"), " builtin source '/tmp/it\\'s/r-1'");
  const bash = { scriptPath: "/tmp/r-1", tmuxBin: "", socketPath: "", shell: "bash" };
  assertEquals(typedLine("posix", bash), " \\builtin . '/tmp/r-1'");
  const parts = {
    command: "echo 'x'",
    nonce: "00ff",
    runId: "1f",
    tmuxBin: "/usr/bin/tmux",
    socketPath: "/s",
    scriptPath: "/d/r-1",
    armedPath: "/d/a-1",
  };
  const posix = runScript("posix", parts);
  assert(posix.includes(`; eval 'echo '\\''x'\\'; `), posix);
  // The channels are named after the run, not its nonce (which another host's `ps` would show while the shell waits).
  assert(posix.includes("tmux-mcp-1f-s") && posix.includes("tmux-mcp-1f-e") && !posix.includes("tmux-mcp-00ff"));
  const fish = runScript("fish", parts);
  assert(fish.includes(`eval 'echo \\'x\\''`), fish);
});

Deno.test("a run's own lines start no process in a local POSIX shell after a command that succeeded", () => {
  // A command substitution or a subshell forks the shell: on a loaded machine a millisecond and more each,
  // before the command even starts. Only restoring a non-zero $? needs one (a subshell's exit).
  const parts = {
    command: "true",
    nonce: "00ff",
    runId: "1f",
    tmuxBin: "/usr/bin/tmux",
    socketPath: "/s",
    scriptPath: "/d/r-1",
    armedPath: "/d/a-1",
    fifoPath: "/d/f-1",
  };
  const lines = runScript("posix", parts).replace("eval 'true'", ":").split("\n");
  const restore = lines.filter((l) => l.includes("(exit "));
  assertEquals(restore.length, 1);
  // The subshell that restores $? runs only in the branch of a non-zero status.
  const always = lines.map((l) =>
    l.replace(/\*\) eval "unset __tmux_mcp_prev; \(exit \$__tmux_mcp_prev\)" && : ;;/, "")
  );
  const forking = always.filter((l) => l.includes("$(") || l.includes("`") || /(^|[;&|]\s*)\(/.test(l.trim()));
  assertEquals(forking, []);
  // fish: a command substitution is `(…)`; the non-zero status alone is restored by a process.
  const fish = runScript("fish", parts).replace("eval 'true'", "true").split("\n");
  assertEquals(fish.filter((l) => l.includes("(") || (l.includes("/bin/sh") && !l.includes("-ne 0"))), []);
  // Where the script is a tmux buffer (--ssh), its text cannot take the history line: it may fork there.
  assert(runScript("posix", { ...parts, inBuffers: true }).includes("$(HISTTIMEFORMAT= \\builtin history 1"));
});

Deno.test("cursors round-trip and damaged ones are refused", () => {
  const c = { pane: "%12", pid: 4242, pos: { row: 1234, x: 7, above: "abc", head: "z9", hs: 1200 } };
  const s = encodeCursor(c);
  assertEquals(decodeCursor(s), c);
  for (const bad of ["", "tmc1.", "tmc1.e30", s + "x", s.replace("tmc1.", "tmc2."), "tmc1." + btoa('{"p":"x"}')]) {
    let threw = false;
    try {
      decodeCursor(bad);
    } catch (e) {
      threw = e instanceof UserError;
    }
    assert(threw, `cursor ${JSON.stringify(bad)} must be refused`);
  }
});

Deno.test("column slicing counts wide characters as two columns", () => {
  assertEquals(columns("a日b"), 4);
  assertEquals(takeColumns("日本語", 4), "日本");
  assertEquals(dropColumns("$ ls", 2), "ls");
  assertEquals(dropColumns("ab", 5), "");
});

const facts = (over: Partial<WarningFacts> = {}): WarningFacts => ({
  pane_id: "%1",
  current_command: "bash",
  alternate_on: false,
  in_mode: false,
  mode: "",
  dead: false,
  ...over,
});

Deno.test("pane warnings say what is going on and what to do", () => {
  assertEquals(paneWarnings(facts(), ["$ ls", "a b", "$"]), []);
  const kinds = (f: WarningFacts, screen: string[]) => paneWarnings(f, screen).map((w) => w.kind);
  assertEquals(kinds(facts({ current_command: "less" }), ["text", ":"]), ["pager"]);
  assertEquals(kinds(facts({ current_command: "git" }), ["commit 1", "(END)"]), ["pager"]);
  assertEquals(kinds(facts({ current_command: "vim", alternate_on: true }), ["~"]), ["alternate_screen"]);
  assertEquals(kinds(facts({ in_mode: true, mode: "copy-mode" }), []), ["copy_mode"]);
  assertEquals(kinds(facts({ current_command: "sudo" }), ["[sudo] password for me: "]), [
    "input_prompt",
    "not_a_shell",
  ]);
  assertEquals(kinds(facts({ current_command: "apt" }), ["Do you want to continue? [Y/n] "]), [
    "input_prompt",
    "not_a_shell",
  ]);
  for (const w of paneWarnings(facts({ current_command: "less" }), [])) assert(/send q/.test(w.message));
  assertEquals(notAtPrompt(facts(), []), undefined);
  assert(/exit\(\)/.test(notAtPrompt(facts({ current_command: "python3" }), [">>> "]) ?? ""));
  assert(/ssh/.test(notAtPrompt(facts({ current_command: "ssh" }), []) ?? ""));
});

Deno.test("matcher: stop wins within a batch; literal and regex, case folding", async () => {
  const pool = createSearchPool();
  const lit = compileMatcher({ patterns: ["done"], stop: ["error"], regex: false, ignoreCase: true }, pool);
  assertEquals(await lit.check(["all DONE", "ERROR x"]), { kind: "stopped", pattern: "error", line: "ERROR x" });
  assertEquals(await lit.check(["nothing"]), undefined);
  lit.close();
  const re = compileMatcher({ patterns: ["^v(\\d+)\\.\\d+$"], stop: [], regex: true, ignoreCase: false }, pool);
  try {
    assertEquals(await re.check(["x v1.2", "v10.3"]), { kind: "matched", pattern: "^v(\\d+)\\.\\d+$", line: "v10.3" });
  } finally {
    re.close();
    pool.close();
  }
});

Deno.test("keepNewest: the rows of a capture, blank ones at the bottom dropped unless kept, the newest maxLines", () => {
  // The rule as an array of rows (how it read before it was found by index).
  const byRows = (out: string, maxLines: number, keepBlank: boolean) => {
    const rows = out.split("\n");
    if (rows.at(-1) === "") rows.pop();
    // deno-lint-ignore no-control-regex
    const blank = (l: string) => l.replace(/\x1b\[[0-9;]*m/g, "").trim() === "";
    if (!keepBlank) { while (rows.length > 0 && blank(rows[rows.length - 1])) rows.pop(); }
    const dropped = Math.max(0, rows.length - maxLines);
    const kept = rows.slice(dropped);
    return { text: kept.join("\n"), lines: kept.length, dropped_lines: dropped };
  };
  const piece = fc.constantFrom("\n", "\n", " ", "\t", "x", "\x1b[0m", "\x1b[1;31m", "\x1b", "\u00a0", "é");
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 40 }).map((p) => p.join("")),
      fc.integer({ min: 0, max: 12 }),
      fc.boolean(),
      (out, maxLines, keepBlank) => {
        assertEquals(keepNewest(out, maxLines, keepBlank), byRows(out, maxLines, keepBlank));
        const { text } = keepNewest(out, maxLines, keepBlank);
        assertEquals(lastLineOf(text), text.split("\n").at(-1));
        for (const row of out.split("\n")) {
          // deno-lint-ignore no-control-regex
          assertEquals(isBlankLine(row), row.replace(/\x1b\[[0-9;]*m/g, "").trim() === "");
        }
      },
    ),
    { numRuns: 2000 },
  );
  assertEquals(keepNewest("a\nb\n\n\n", 1), { text: "b", lines: 1, dropped_lines: 1 });
  assertEquals(keepNewest("\n", 5, true), { text: "", lines: 1, dropped_lines: 0 });
});

Deno.test("joined lines pair with the rows they span; rows rejoin into the same text", () => {
  fc.assert(fc.property(
    fc.array(fc.array(fc.string({ unit: "grapheme", maxLength: 6 }), { minLength: 1, maxLength: 4 }), { maxLength: 8 }),
    (lines) => {
      // Rows of a wrapped line are not empty (tmux wraps once a character goes past the edge, onto the next row).
      const cut = lines.map((rows) => rows.length > 1 ? rows.map((r) => r === "" ? "x" : r) : rows);
      const rows = cut.flat();
      const joined = cut.map((r) => r.join(""));
      const spans = joinedSpans(rows, joined);
      assertEquals(spans, cut.map((r) => r.length));
      assertEquals(rowsText(rows, wrappedFlags(spans!), 0, rows.length), joined.join("\n"));
    },
  ));
  assertEquals(joinedSpans(["abc", "de", "x"], ["abcde", "x"]), [2, 1]);
  assertEquals(joinedSpans(["abc", "de"], ["abcdX"]), undefined, "rows that do not make the line");
  assertEquals(joinedSpans(["abc", "de"], ["abc"]), undefined, "rows left over");
});

Deno.test("run files: made ahead after a run; after an idle spell, what a temp cleaner removed is made anew", async () => {
  const parent = await Deno.makeTempDir({ prefix: "tmcp-runfiles-" });
  // Every run checks as if it came after the idle spell. (Not through TMPDIR: the test modules run side by side
  // in one process, whose environment they share.)
  const scripts = fileScripts({ idleCheckMs: 0, parent });
  const dirOf = (f: RunFiles) => f.script.slice(0, f.script.lastIndexOf("/"));
  const use = async () => {
    const f = await scripts.files(crypto.randomUUID());
    await scripts.arm(f);
    scripts.write(f, "echo hi\n");
    assertEquals(Deno.readTextFileSync(f.script), "echo hi\n");
    assert(Deno.statSync(f.armed).isFile && Deno.statSync(f.fifo!).isFifo, "armed flag and FIFO are there");
    for (const name of [f.script, f.armed, f.fifo!]) await scripts.remove(name);
    await scripts.prepare!();
    return f;
  };
  try {
    const first = await use();
    const dir = dirOf(first);
    const spare = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assertEquals(spare.map((n) => n[0]).join(""), "afr", "the next run's armed flag, FIFO and script");
    // The files made ahead are the next run's.
    const second = await use();
    assertEquals(second.script, `${dir}/${spare[2]}`);
    // A cleaner removed the spare's script: the next run makes its own, in the same directory.
    const made = [...Deno.readDirSync(dir)].map((e) => e.name);
    Deno.removeSync(`${dir}/${made.find((n) => n.startsWith("r-"))}`);
    const third = await use();
    assertEquals(dirOf(third), dir);
    assert(!made.includes(third.script.slice(dir.length + 1)), "not the removed spare's name");
    // A cleaner removed the whole directory: the next run gets a new one, and the old name stays unused.
    Deno.removeSync(dir, { recursive: true });
    const fourth = await use();
    const left = [...Deno.readDirSync(parent)].map((e) => `${parent}/${e.name}`);
    assertEquals(left, [dirOf(fourth)], "a new directory, the old one not made again");
  } finally {
    await scripts.close();
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("a run's wait-for channels are named after its files, as the sweep finds them in a killed server's", async () => {
  // Where a shell waits on a channel (no FIFO) and the server is killed, the next server's sweep signals the channels
  // named after each armed file it finds (lib/server/sweep.ts): they must be the ones the script waits on.
  const scripts = fileScripts();
  try {
    const files = await scripts.files("0a1b2c");
    const waitsOn = runScript("posix", {
      command: "true",
      nonce: "ffee",
      runId: files.id,
      tmuxBin: "/usr/bin/tmux",
      socketPath: "/s",
      scriptPath: files.script,
      armedPath: files.armed,
    }).match(/wait-for '([^']+)'/g)?.map((w) => w.slice("wait-for '".length, -1));
    const armedId = files.armed.split("/").pop()!.replace(/^a-/, "");
    assertEquals(waitsOn, [`tmux-mcp-${armedId}-s`, `tmux-mcp-${armedId}-e`]);
  } finally {
    await scripts.close();
  }
});

Deno.test("the output logs of all runs together stay within their pool: the log being written drops its oldest lines", () => {
  const pool = new LogPool(1000);
  const [a, b] = [new RunLog(pool), new RunLog(pool)];
  const lines = (tag: string, n: number) => new TextEncoder().encode(`${tag}${"x".repeat(98)}\n`.repeat(n));
  a.active = b.active = true;
  a.push(lines("a", 6)); // 600 bytes: all kept
  b.push(lines("b", 6)); // 600 more: past the pool, b drops its oldest
  assert(pool.bytes <= 1000, `${pool.bytes}`);
  assertEquals([a.peekAll().lines.length, a.peekAll().lost], [6, 0]);
  assertEquals([b.peekAll().lines.length, b.peekAll().lost], [4, 2]);
  // A run whose answer went out frees its share; its counts stay for the answer's note.
  a.release();
  assertEquals([pool.bytes, a.peekAll().lines.length, a.peekAll().lost], [400, 0, 0]);
  b.push(lines("b", 6));
  assertEquals([pool.bytes, b.peekAll().lines.length, b.peekAll().lost], [1000, 10, 2]);
});

Deno.test("a parked work's dispose runs once its result is returned, and when an uncollected one is dropped", async () => {
  const lot = new ParkingLot();
  const call = { signal: new AbortController().signal, progress: () => Promise.resolve() };
  const disposed: string[] = [];
  const quick = lot.start("wait (what: text)", () => Promise.resolve("q"), {}, {
    dispose: () => disposed.push("quick"),
  });
  assertEquals(await lot.follow(quick, call, 60_000), { kind: "done", value: "q" });
  assertEquals(disposed, ["quick"]);
  const never = Promise.withResolvers<string>();
  const slow = lot.start("run-command", () => never.promise, {}, { dispose: () => disposed.push("slow") });
  assertEquals((await lot.follow(slow, call, 0)).kind, "running");
  assertEquals([disposed, lot.size], [["quick"], 1]);
  lot.close();
  assertEquals([disposed, lot.size], [["quick", "slow"], 0]);
});
