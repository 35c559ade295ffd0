import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, removeSocket, ROOT, startTmux, uniqueSocketName, withServer } from "./helpers.ts";
import { allowsTier, parseConfig, servesToolset } from "../lib/config.ts";
import { instructions } from "../lib/server/instructions.ts";
import { findOnPath } from "../lib/host/binaries.ts";

Deno.test("tools/list carries titles, annotations, schemas and bounds", async () => {
  await withServer(async (mcp) => {
    const { tools } = await mcp.client.listTools();
    const show = tools.find((t) => t.name === "show-buffer")!;
    assertEquals(show.annotations?.readOnlyHint, true);
    assert(show.title && show.description && show.outputSchema);
    const props = show.inputSchema.properties as Record<string, { maximum?: number; maxLength?: number }>;
    assertEquals(props.max_bytes.maximum, 1048576);
    // String lengths are checked, not advertised (lib/budget/schema.ts): the error names the limit.
    assertEquals(props.name.maxLength, undefined);
    assertMatch(await mcp.err("set-buffer", { name: "x".repeat(257), content: "x" }), /longer than 256 characters/);
    for (const t of tools) assertMatch(t.name, /^[a-z]+(-[a-z]+)*$/);
  });
});

Deno.test("--safety readonly hides and refuses mutating tools, and audits the refusal", async () => {
  await withServer(async (mcp) => {
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    assert(names.includes("list-buffers") && names.includes("show-buffer"));
    assert(!names.includes("set-buffer") && !names.includes("delete-buffer"));
    assertMatch(
      await mcp.err("set-buffer", { name: "x", content: "y" }),
      /set-buffer is mutating; this server runs with --safety readonly.*--safety mutating/,
    );
    await mcp.waitForStderr(/"tool":"set-buffer","outcome":"refused"/);
  }, { args: ["--safety", "readonly"] });
});

Deno.test("--toolsets serves only the named toolsets", async () => {
  await withServer(async (mcp) => {
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    assert(!names.some((n) => n.endsWith("-buffer") || n === "list-buffers"), names.join(","));
    assertMatch(await mcp.err("list-buffers"), /"buffers" toolset.*--toolsets/);
  }, { args: ["--toolsets", "pty"] });
});

Deno.test("tmux missing: the server starts and every tmux tool says how to install it", async () => {
  const mcp = await connect({ args: ["--tmux-bin", "/nonexistent/tmux"] });
  try {
    assertMatch(await mcp.err("list-buffers"), /tmux is not installed.*apt-get install tmux.*--tmux-bin/);
    assertMatch(await mcp.err("set-buffer", { name: "a", content: "b" }), /tmux is not installed/);
  } finally {
    await mcp.close();
  }
});

Deno.test("no tmux server on the socket: the error says so and names the socket", async () => {
  const socket = uniqueSocketName("none");
  const mcp = await connect({ socketName: socket });
  try {
    const msg = await mcp.err("list-buffers");
    assertMatch(msg, new RegExp(`no tmux server is running on socket name "${socket}"`));
    assertMatch(msg, /new-session -d/);
  } finally {
    await mcp.close();
  }
});

Deno.test("no tmux server: the command the error gives starts one with that --tmux-bin, paths quoted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp none " });
  const bin = `${dir}/my bin/tmux`;
  const socket = `${dir}/s k`;
  await Deno.mkdir(`${dir}/my bin`);
  await Deno.symlink(findOnPath("tmux", Deno.env.get("PATH") ?? "")!, bin);
  const mcp = await connect({ args: ["--tmux-bin", bin, "--socket-path", socket] });
  try {
    const msg = await mcp.err("list-buffers");
    assertEquals(/start one, e\.g\. `([^`]+)`/.exec(msg)?.[1], `'${bin}' -S '${socket}' new-session -d`, msg);
  } finally {
    await mcp.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tmux installed under another name (--tmux-bin .../tmux-next) serves in control mode", async () => {
  const tmux = await startTmux("next");
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-next-" });
  // tmux -V prints the name it was started by: "tmux-next 3.3a", which is tmux all the same.
  await Deno.symlink(findOnPath("tmux", Deno.env.get("PATH") ?? "")!, `${dir}/tmux-next`);
  const mcp = await connect({ socketName: tmux.socketName, args: ["--tmux-bin", `${dir}/tmux-next`] });
  try {
    const listed = await mcp.ok<{ sessions: { session_name: string }[] }>("list", { what: "sessions" });
    assertEquals(listed.sessions.map((s) => s.session_name), ["main"]);
  } finally {
    await mcp.close();
    await tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a call with no tmux server starts none, even when tmux.conf would create a session", async () => {
  // Many users' tmux.conf holds `new-session` so that a plain `tmux attach` always works. Our control
  // client's attach-session would start a server (and so run that file) unless told not to (-N).
  const config = await Deno.makeTempDir();
  await Deno.mkdir(`${config}/tmux`);
  await Deno.writeTextFile(`${config}/tmux/tmux.conf`, "new-session -d -s surprise\n");
  const socket = uniqueSocketName("noserver");
  const mcp = await connect({ socketName: socket, env: { XDG_CONFIG_HOME: config } });
  try {
    for (let i = 0; i < 3; i++) assertMatch(await mcp.err("list-buffers"), /no tmux server is running/);
    const probe = await new Deno.Command("tmux", { args: ["-L", socket, "has-session"], stderr: "null" }).output();
    assertEquals(probe.code, 1, "a tmux server runs on the socket: ours started it");
  } finally {
    await mcp.close();
    await new Deno.Command("tmux", { args: ["-L", socket, "kill-server"], stderr: "null" }).output();
    removeSocket(socket);
    await Deno.remove(config, { recursive: true });
  }
});

Deno.test("never more than --max-concurrency tmux processes run at once", async () => {
  const state = await Deno.makeTempDir();
  const wrapper = `${state}/tmux-wrapper`;
  await Deno.writeTextFile(
    wrapper,
    `#!/usr/bin/env bash
# Counts how many copies of this wrapper run at once, then runs real tmux.
touch "${state}/run.$$"
ls "${state}" | grep -c '^run\\.' >> "${state}/peaks"
sleep 0.05
tmux "$@"
rc=$?
rm -f "${state}/run.$$"
exit $rc
`,
  );
  await Deno.chmod(wrapper, 0o755);
  const tmux = await startTmux();
  // Control mode off: every command is a tmux process, so the bound shows as processes.
  const mcp = await connect({
    socketName: tmux.socketName,
    args: ["--tmux-bin", wrapper, "--max-concurrency", "3", "--control-mode", "off"],
  });
  try {
    const calls = Array.from({ length: 24 }, (_, i) => mcp.ok("set-buffer", { name: `b${i}`, content: `${i}` }));
    await Promise.all(calls);
    const peaks = (await Deno.readTextFile(`${state}/peaks`)).trim().split("\n").map(Number);
    // 24 set-buffer, plus the list-buffers of the start's sweep of leftovers (lib/server/sweep.ts).
    assert([24, 25].includes(peaks.length), `${peaks.length} tmux processes`);
    const peak = Math.max(...peaks);
    assert(peak <= 3, `peak concurrency ${peak} exceeds 3`);
    assert(peak >= 2, `calls ran concurrently (peak ${peak}), so the bound was exercised`);
    assertEquals((await mcp.ok<{ buffers: unknown[] }>("list-buffers")).buffers.length, 24);
  } finally {
    await mcp.close();
    await tmux.kill();
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("server instructions describe the flow of the served toolsets only", async () => {
  const all = await connect({ socketName: uniqueSocketName("instr") });
  const buffersOnly = await connect({ socketName: uniqueSocketName("instr"), args: ["--toolsets", "buffers"] });
  try {
    const full = all.client.getInstructions() ?? "";
    assertMatch(full, /run-command.*capture-since; wait instead of polling/);
    assertMatch(full, /buffered_response/);
    const narrow = buffersOnly.client.getInstructions() ?? "";
    assertMatch(narrow, /search-buffer continues with/);
    assert(!narrow.includes("run-command") && !narrow.includes("snapshot-pane"), narrow);
    // The search parameters are said once for every search; search-panes only where it is served.
    assertMatch(narrow, /mode literal \(default\) or regex/);
    assert(!narrow.includes("search-panes"), narrow);
    // At readonly, nothing about tools that are not served.
    const readonly = await connect({ socketName: uniqueSocketName("instr"), args: ["--safety", "readonly"] });
    try {
      const text = readonly.client.getInstructions() ?? "";
      for (const absent of ["run-command", "kill", "respawn", "pty-launch", "set-buffer"]) {
        assert(!text.includes(absent), `${absent} in readonly instructions: ${text}`);
      }
      assertMatch(text, /capture-since/);
    } finally {
      await readonly.close();
    }
    assert(full.includes("respawn-pane takes only ids") && full.includes("pty-launch"), full);
    // Each sentence is said once.
    const sentences = full.split(/(?<=\.) /);
    assertEquals(sentences.length, new Set(sentences).size, full);
  } finally {
    await all.close();
    await buffersOnly.close();
  }
});

Deno.test("server instructions name no tool the server does not serve, for each toolset and tier", async () => {
  const listing: { toolset: string; tier: string; tool: { name: string } }[] = JSON.parse(
    await Deno.readTextFile(`${ROOT}lib/tools/listing.json`),
  );
  const every = listing.map((e) => e.tool.name);
  for (const toolsets of ["buffers,workspace,exec,pty", "buffers", "workspace", "exec", "pty"]) {
    for (const safety of ["readonly", "mutating", "destructive"]) {
      const mcp = await connect({
        socketName: uniqueSocketName("instr"),
        args: ["--toolsets", toolsets, "--safety", safety],
      });
      try {
        const served = new Set((await mcp.client.listTools()).tools.map((t) => t.name));
        const text = mcp.client.getInstructions() ?? "";
        const named = every.filter((n) => new RegExp(`(^|[^\\w-])${n}([^\\w-]|$)`).test(text));
        assertEquals(named.filter((n) => !served.has(n)), [], `--toolsets ${toolsets} --safety ${safety}: ${text}`);
      } finally {
        await mcp.close();
      }
      // With several hosts (the text alone: the hosts need not be reachable), what is said of addressing them.
      const config = parseConfig(["--toolsets", toolsets, "--safety", safety, "--ssh", "local", "--ssh", "b=me@h"], {});
      const text = instructions(config);
      const served = listing.filter((e) => servesToolset(config, e.toolset) && allowsTier(config, e.tier));
      const named = every.filter((n) => new RegExp(`(^|[^\\w-])${n}([^\\w-]|$)`).test(text));
      assertEquals(named.filter((n) => !served.some((e) => e.tool.name === n)), [], `${toolsets} ${safety}: ${text}`);
      if (toolsets === "exec") assertMatch(text, /Hosts local, b: HOST::TARGET \(local::%3\) acts on that host/);
    }
  }
});

Deno.test("the client command from the README (deno task --quiet --config … start) serves MCP", async () => {
  const tmux = await startTmux("readme");
  const mcp = await connect({
    spawn: [
      Deno.execPath(),
      "task",
      "--quiet",
      "--config",
      ROOT + "deno.json",
      "start",
      "--socket-name",
      tmux.socketName,
    ],
  });
  try {
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    assert(names.includes("run-command") && names.includes("pty-launch") && names.includes("set-buffer"));
    await mcp.ok("set-buffer", { name: "readme", content: "works" });
    assertEquals(await tmux.tmux("show-buffer", "-b", "readme"), "works");
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});
