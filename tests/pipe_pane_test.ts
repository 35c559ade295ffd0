import { assert, assertEquals, assertMatch } from "./assert.ts";
import { withServer } from "./helpers.ts";
import { filesWithData, newPane, swapDirectoryForSymlink, tempDir, tmuxFormat, waitUntil } from "./pane_helpers.ts";

/** Every file and directory below `dir`, as paths relative to it. */
async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir + prefix)) {
    const rel = `${prefix}/${e.name}`;
    out.push(rel);
    if (e.isDirectory) out.push(...await tree(dir, rel));
  }
  return out.sort();
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("pipe-pane writes to paths with shell and tmux format characters byte-exact, and nothing else", async () => {
  await withServer(async (mcp, tmux) => {
    const dir = await tempDir("tmcp-pipe-");
    const marker = `/tmp/tmcp-pwned-${Deno.pid}-${Date.now()}`;
    const names = [
      `#(touch ${marker})`,
      "#(touch pwned)",
      "#{pane_id}",
      "##{x}#",
      "100%done",
      "%H%M%S%%",
      `a'b"c`,
      "sp ace",
      "$(touch pwned2)",
      "`touch pwned3`",
      "$HOME",
      "back\\slash",
      "x;",
      "-lead",
      "line\nbreak",
      "é中🙂",
      "semi;colon & amp | pipe > gt",
    ];
    // Names with '/' need their parent directories (the '#(touch /tmp/…)' one).
    const expected = new Set<string>();
    for (const n of names) {
      const parts = n.split("/");
      for (let i = 1; i < parts.length; i++) {
        expected.add("/" + parts.slice(0, i).join("/"));
        await Deno.mkdir(`${dir}/${parts.slice(0, i).join("/")}`, { recursive: true });
      }
      expected.add("/" + n);
    }
    const pane = await newPane(tmux, "sh");
    for (const [i, n] of names.entries()) {
      const path = `${dir}/${n}`;
      const r = await mcp.ok<{ piping: boolean; path: string; pane_id: string }>("pipe-pane", { target: pane, path });
      assertEquals([r.piping, r.path, r.pane_id], [true, path, pane]);
      await tmux.tmux("send-keys", "-t", pane, `echo MARK-${i}-$((40+2))`, "Enter");
      await waitUntil(`output in ${JSON.stringify(path)}`, async () => {
        return (await Deno.readTextFile(path).catch(() => "")).includes(`MARK-${i}-42`);
      });
      assertEquals((await mcp.ok<{ piping: boolean }>("pipe-pane", { target: pane })).piping, false);
    }
    assertEquals(await tree(dir), [...expected].sort());
    assert(!await exists(marker), "#( in a path never ran");
    assert(!await exists("pwned") && !await exists(`${Deno.cwd()}/pwned2`));
  });
});

Deno.test("pipe-pane appends by default, truncates with append false, and explains a missing directory", async () => {
  await withServer(async (mcp, tmux) => {
    const dir = await tempDir();
    const path = `${dir}/log`;
    await Deno.writeTextFile(path, "old\n");
    const pane = await newPane(tmux, "sh");
    await mcp.ok("pipe-pane", { target: pane, path });
    await tmux.tmux("send-keys", "-t", pane, "echo one-$((1))", "Enter");
    await waitUntil("appended output", async () => (await Deno.readTextFile(path)).includes("one-1"));
    assert((await Deno.readTextFile(path)).startsWith("old\n"));
    // Emptying a file the server did not create loses its data: refused below --safety destructive, untouched.
    assertMatch(
      await mcp.err("pipe-pane", { target: pane, path, append: false }),
      /^".*\/log" exists and holds \d+ bytes, which replacing it would lose: .*--safety destructive/,
    );
    assert((await Deno.readTextFile(path)).startsWith("old\n"));
    // One it created (piped to, then stopped) it may empty.
    const own = `${dir}/own.log`;
    await mcp.ok("pipe-pane", { target: pane, path: own });
    await tmux.tmux("send-keys", "-t", pane, "echo one-$((1))", "Enter");
    await waitUntil("output in its own file", async () => (await Deno.readTextFile(own)).includes("one-1"));
    await mcp.ok("pipe-pane", { target: pane, path: own, append: false });
    await tmux.tmux("send-keys", "-t", pane, "echo two-$((2))", "Enter");
    await waitUntil("new output", async () => (await Deno.readTextFile(own)).includes("two-2"));
    const text = await Deno.readTextFile(own);
    assert(!text.includes("one-1"), text);
    assertMatch(await mcp.err("pipe-pane", { target: pane, path: `${dir}/missing/log` }), /does not exist: create it/);
    assertMatch(await mcp.err("pipe-pane", { target: pane, path: "log" }), /absolute/);
  });
});

Deno.test("pipe-pane on a dead pane says so and leaves the file alone; stopping says how the pipe ends", async () => {
  await withServer(async (mcp, tmux) => {
    const dir = await tempDir();
    await tmux.tmux("set-option", "-g", "remain-on-exit", "on");
    // A pipe started while the program lived stays after it died: tmux cannot stop it then.
    const pane = await newPane(tmux, "read -r _; echo bye");
    const live = `${dir}/live.log`;
    await mcp.ok("pipe-pane", { target: pane, path: live });
    await tmux.tmux("send-keys", "-t", pane, "Enter");
    await waitUntil("the pane to die", async () => await tmuxFormat(tmux, pane, "#{pane_dead}") === "1");
    // tmux answered "target pane has exited", after the file was truncated.
    const kept = `${dir}/kept.log`;
    await Deno.writeTextFile(kept, "precious\n");
    assertMatch(
      await mcp.err("pipe-pane", { target: pane, path: kept, append: false }),
      new RegExp(`^pane ${pane} is dead .*: it prints nothing more to log, and the file was not touched; respawn-pane`),
    );
    assertEquals(await Deno.readTextFile(kept), "precious\n");
    assertMatch(
      await mcp.err("pipe-pane", { target: pane }),
      new RegExp(
        `^pane ${pane} is dead .*: tmux cannot stop its pipe now; respawn-pane it, then stop the pipe, or kill`,
      ),
    );
    assertEquals(await tmuxFormat(tmux, pane, "#{pane_pipe}"), "1");
    await waitUntil("the pipe to log the last line", async () => (await Deno.readTextFile(live)).includes("bye"));
  });
});

Deno.test("pipe-pane: a directory swapped for a symlink out of --files-root before the pipe's shell opens the file gets no output", async () => {
  // The policy checks and creates the file, then tmux's shell opens it by its path: a program in a pane that keeps
  // replacing root/real with a symlink to a directory outside the root could have the pipe write there.
  const root = await tempDir("tmcp-pipe-root-");
  const outside = await tempDir("tmcp-pipe-out-");
  await Deno.mkdir(`${root}/real`);
  await withServer(async (mcp, tmux) => {
    const pane = await newPane(tmux, "sh -c 'while :; do echo tick-tick-tick; done'");
    const swapper = await swapDirectoryForSymlink(root, outside);
    const written: string[] = [];
    try {
      for (let i = 0; i < 60 && written.length === 0; i++) {
        const started = await mcp.call("pipe-pane", { target: pane, path: `${root}/real/log-${i}` });
        if (started.isError) continue;
        // The pipe's shell has opened its file (wherever it is) once output reached it, or it has given up.
        await waitUntil("the pipe to run or end", async () => {
          const piping = (await tmuxFormat(tmux, pane, "#{pane_pipe}")).trim() === "1";
          const sizes = await Promise.all(
            [root + "/real.d", root + "/real", outside].map((d) =>
              Deno.stat(`${d}/log-${i}`).then((s) => s.size, () => 0)
            ),
          );
          return !piping || sizes.some((n) => n > 0) || undefined;
        }, 30_000).catch(() => {});
        await mcp.call("pipe-pane", { target: pane });
        written.push(...await filesWithData(outside));
      }
    } finally {
      await swapper.stop();
    }
    assertEquals(written, [], "pane output written outside --files-root");
    // With the directory in place again, a pipe to it gets the pane's output.
    await mcp.ok("pipe-pane", { target: pane, path: `${root}/real/final` });
    await waitUntil("output in the pipe's file", async () => (await Deno.stat(`${root}/real/final`)).size > 0, 30_000);
    await mcp.ok("pipe-pane", { target: pane });
  }, { args: ["--files-root", root] });
});
