/**
 * Faults of the environment — a tmux that does not answer, a client tmux drops, a system call that fails — get
 * their own one-line wording with a next step, through the MCP server and an SDK client; "internal error" is kept
 * for our own bugs. (The ssh faults: tests/ssh_server_test.ts.)
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, fakeTmux, startTmux } from "./helpers.ts";
import { createPipeline } from "../lib/server/pipeline.ts";
import { z } from "zod";
import type { AnyTool, Services } from "../lib/tools/tool.ts";

/**
 * A tmux that is real for everything but the client that follows pane output (the waits' client:
 * `attach-session -f read-only,ignore-size`), which runs `hub` instead.
 */
function hubFault(hub: string): Promise<{ path: string; dir: string }> {
  return fakeTmux(`case " $* " in *" read-only,ignore-size "*) ${hub} ;; esac\nexec tmux "$@"`);
}

for (
  const [label, hub, want] of [
    [
      "does not answer",
      "exec sleep 60",
      /^tmux did not accept the client that follows pane output within 2 s: the machine is slow or tmux is stuck; raise --connect-timeout-ms \(now 2000\)/,
    ],
    [
      "ends before it attached",
      "exit 1",
      /^the client that follows pane output ended before tmux accepted it \(the tmux server exited or the connection to it dropped\): check with list/,
    ],
  ] as const
) {
  Deno.test(`wait: a pane-output client that ${label} is an environment fault, not an internal error`, async () => {
    const fx = await startTmux();
    const fake = await hubFault(hub);
    const mcp = await connect({
      socketName: fx.socketName,
      args: ["--tmux-bin", fake.path, "--connect-timeout-ms", "2000"],
    });
    try {
      const pane = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
      const msg = await mcp.err("wait", { what: "text", target: pane, patterns: ["never"], timeout_ms: 20_000 });
      assertMatch(msg, want);
      assert(!/internal error/.test(msg) && !msg.includes("\n"), msg);
    } finally {
      await mcp.close();
      await fx.kill();
      await Deno.remove(fake.dir, { recursive: true });
    }
  });
}

Deno.test("pipeline: a failed system operation is the machine's fault; any other exception an internal error", async () => {
  const thrown: Error[] = [
    new Deno.errors.BrokenPipe("Broken pipe (os error 32)"),
    new TypeError("x is undefined"),
  ];
  const tool = {
    name: "boom",
    title: "boom",
    description: "throws",
    toolset: "buffers",
    tier: "readonly",
    input: z.object({}),
    output: z.object({}),
    secrets: [],
    handler: () => Promise.reject(thrown.shift()),
  } as unknown as AnyTool;
  // A real call budget: without one the cut is due at NaN ms, which fires at once and races the handler.
  const services = {
    config: { toolsets: ["buffers"], safety: "readonly", callBudgetMs: 50_000 },
  } as unknown as Services;
  const pipeline = createPipeline({ tools: [tool], services });
  const extra = { signal: new AbortController().signal, sendNotification: () => Promise.resolve() };
  const text = async () => {
    const r = await pipeline.call("boom", {}, extra);
    assertEquals(r.isError, true);
    return (r.content as { text: string }[])[0].text;
  };
  assertMatch(
    await text(),
    /^boom failed: the system reported BrokenPipe \(Broken pipe \(os error 32\)\): check the machine .*then retry$/,
  );
  assertMatch(await text(), /^internal error in boom: x is undefined$/);
});
