/**
 * What a starting server loads before it can answer `initialize` or
 * `server/discover` (its cold start): the modules `main.ts` reaches through
 * static imports. The heavy ones must stay behind a dynamic import, loaded when first needed:
 * the MCP SDK, zod, the tool table with its schemas, the response budgets, the pipeline, the
 * doctor, the search code, the terminal emulator, and Deno's Node modules, each of which slows a start
 * (`node:net`, `node:crypto` and `node:vm` most, `node:util` too). Read from the module graph
 * `deno info` reports, not from timings.
 */
import { assert, assertEquals } from "./assert.ts";
import { local, moduleGraph } from "./module_graph.ts";

/** Every module reached from `root` along static imports only. */
function staticallyReached(edges: Map<string, { static: string[] }>, root: string): Set<string> {
  const seen = new Set<string>();
  const todo = [root];
  for (let s = todo.pop(); s !== undefined; s = todo.pop()) {
    if (seen.has(s)) continue;
    seen.add(s);
    todo.push(...edges.get(s)?.static ?? []);
  }
  return seen;
}

/** Heavy modules, each with where it is imported dynamically (so the check below checks something). */
const LAZY: { module: string; importedBy: string }[] = [
  { module: local("lib/server/server.ts"), importedBy: local("main.ts") },
  { module: local("lib/tools/mod.ts"), importedBy: local("lib/server/core.ts") },
  { module: local("lib/tools/workspace/list_family.ts"), importedBy: local("lib/tools/modules.ts") },
  { module: local("lib/server/budget.ts"), importedBy: local("lib/server/core.ts") },
  { module: local("lib/server/pipeline.ts"), importedBy: local("lib/server/core.ts") },
  { module: local("lib/budget/settings.ts"), importedBy: local("lib/server/core.ts") },
  { module: "node:net", importedBy: local("lib/server/stdio.ts") },
  { module: "node:vm", importedBy: local("lib/host/gc.ts") },
  { module: local("lib/doctor/mod.ts"), importedBy: local("main.ts") },
  { module: "npm:/@xterm/headless@6.0.0", importedBy: local("lib/terminal/emulator.ts") },
];

/** Modules only the tools need (reached from the tool table), which would mean the tools load at start. */
const TOOLS_ONLY = ["lib/search/search.ts", "lib/tools/schemas.ts", "lib/tools/search_schemas.ts", "lib/tmux/target.ts"]
  .map(local);

Deno.test("answering initialize or server/discover loads no tool, budget, pipeline, doctor, search code or terminal emulator", async () => {
  const edges = await moduleGraph("main.ts");
  const eager = staticallyReached(edges, local("main.ts"));
  for (const { module, importedBy } of LAZY) {
    assert(edges.get(importedBy)?.dynamic.includes(module), `${importedBy} no longer imports ${module} dynamically`);
    assert(!eager.has(module), `${module} is loaded at start: main.ts reaches it through static imports`);
  }
  const npm = [...eager].filter((m) => m.startsWith("npm:"));
  assertEquals(npm, [], "npm packages (the SDK, zod) are loaded at start");
  assertEquals([...eager].filter((m) => m.startsWith("node:")), [], "Node modules at start");
  for (const module of TOOLS_ONLY) {
    assert(edges.has(module), `${module} is not in the graph any more: update this test`);
    assert(!eager.has(module), `${module} is loaded at start: main.ts reaches it through static imports`);
  }
});

Deno.test("the server runs on SDK v2 only: the v1 SDK (kept for the tests' 2025 client) is nowhere in its graph", async () => {
  const edges = await moduleGraph("main.ts");
  const v1 = [...edges.keys()].filter((m) => m.includes("@modelcontextprotocol/sdk@"));
  assertEquals(v1, []);
  assert([...edges.keys()].some((m) => m.includes("@modelcontextprotocol/server@2.")), "SDK v2 is in the graph");
});

Deno.test("a first call to another tool loads neither the search code nor the redaction rule preset", async () => {
  // What the first call of a starting server loads beside its tool's module (lib/server/core.ts): the pipeline and
  // the response budgets. The preset loads only for text that may hold a secret (lib/text/redact.ts).
  const reached = new Set<string>();
  for (const root of ["lib/server/pipeline.ts", "lib/server/budget.ts", "lib/tools/workspace/list_family.ts"]) {
    const edges = await moduleGraph(root);
    for (const m of staticallyReached(edges, local(root))) reached.add(m);
  }
  for (const module of ["lib/search/search.ts", "lib/search/scan.ts", "lib/tools/search_schemas.ts"].map(local)) {
    assert(!reached.has(module), `${module} is loaded by the first call of any tool`);
  }
  assertEquals([...reached].filter((m) => m.includes("secretlint")), [], "the rule preset loads with the pipeline");
});
