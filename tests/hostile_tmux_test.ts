/**
 * Runs the tmux hostile cases (tests/hostile/tmux_cases.ts) through the SDK
 * client against real tmux: each case gets its own canary path that must
 * never appear, then the commands a hook or alias would fire on are run by
 * a plain tmux client, and both the tmux server and the MCP server must
 * still answer.
 */
import { assert, assertMatch } from "./assert.ts";
import { connect, type McpFixture, startTmux, textOf } from "./helpers.ts";
import { tempDir } from "./pane_helpers.ts";
import { CASES, setupTmuxCases } from "./hostile/tmux_cases.ts";

function fill(value: unknown, canary: string): unknown {
  if (typeof value === "string") return value.replaceAll("{{CANARY}}", canary);
  if (Array.isArray(value)) return value.map((v) => fill(v, canary));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, canary)]));
  }
  return value;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test(`tmux hostile corpus: ${CASES.length} cases refused or harmless`, async () => {
  const tmux = await startTmux("hostile");
  const dir = await tempDir("tmcp-hostile-");
  const servers = new Map<string, McpFixture>();
  try {
    const { env } = await setupTmuxCases(tmux);
    for (const safety of ["readonly", "mutating", "destructive"]) {
      servers.set(safety, await connect({ socketName: tmux.socketName, args: ["--safety", safety], env }));
    }
    const failures: string[] = [];
    for (const [i, c] of CASES.entries()) {
      const canary = `${dir}/canary-${i}`;
      const mcp = servers.get(c.safety ?? "mutating")!;
      const r = await mcp.call(c.tool, fill(c.args, canary) as Record<string, unknown>);
      const text = textOf(r);
      const wantError = c.expect !== "ok";
      if (Boolean(r.isError) !== wantError) failures.push(`${c.name}: isError ${r.isError}: ${text.slice(0, 300)}`);
      else if (c.match && !c.match.test(text)) failures.push(`${c.name}: ${JSON.stringify(text)} !~ ${c.match}`);
      else if (wantError && text.includes("\n")) failures.push(`${c.name}: error is not one line: ${text}`);
      // Fire whatever a hook or alias could have been set on, as the user's own client would.
      for (
        const argv of [["list-panes", "-a"], ["capture-pane", "-p", "-t", "main"], ["select-window", "-t", "main:0"]]
      ) {
        await tmux.tmux(...argv).catch(() => "");
      }
      if (await exists(canary)) failures.push(`${c.name}: the canary ${canary} was created`);
      assert(await tmux.tmux("list-sessions").then(() => true, () => false), `tmux server died after ${c.name}`);
      assertMatch(textOf(await mcp.call("server-info")), /version/, `MCP server stopped answering after ${c.name}`);
    }
    assert(failures.length === 0, `${failures.length} of ${CASES.length} cases failed:\n${failures.join("\n")}`);
  } finally {
    for (const mcp of servers.values()) await mcp.close();
    await tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
