/**
 * lib/tools/listing.json, from which a starting server answers tools/list
 * before it loads the tool modules, is the tool table's listing: a tool
 * changed without `deno task listing` fails here, and a server lists exactly
 * the file's entries its toolsets and tier serve.
 */
import { assert, assertEquals } from "./assert.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { TOOL_MODULES } from "../lib/tools/modules.ts";
import { listedTools, listingEntries } from "../lib/server/listing.ts";
import { modulesSource } from "../lib/server/write_listing.ts";
import { connect, startTmux } from "./helpers.ts";

Deno.test("lib/tools/listing.json is the tool table's listing (after changing a tool, run deno task listing)", async () => {
  const file = JSON.parse(await Deno.readTextFile(new URL("../lib/tools/listing.json", import.meta.url)));
  const table = JSON.parse(JSON.stringify(listingEntries(TOOLS)));
  assertEquals(
    file.map((e: { tool: { name: string } }) => e.tool.name),
    table.map((e: { tool: { name: string } }) => e.tool.name),
    "lib/tools/listing.json is stale: run `deno task listing`",
  );
  assertEquals(file, table, "lib/tools/listing.json is stale: run `deno task listing`");
});

Deno.test("lib/tools/modules.ts is generated from the table (after adding a tool, run deno task listing)", async () => {
  const table = await Deno.readTextFile(new URL("../lib/tools/mod.ts", import.meta.url));
  const file = await Deno.readTextFile(new URL("../lib/tools/modules.ts", import.meta.url));
  assertEquals(file, modulesSource(table, TOOLS), "lib/tools/modules.ts is stale: run `deno task listing`");
});

Deno.test("lib/tools/modules.ts imports each tool of the table by its name, in the table's order", async () => {
  assertEquals(Object.keys(TOOL_MODULES), TOOLS.map((t) => t.name));
  for (const [name, load] of Object.entries(TOOL_MODULES)) {
    assert((await load()).default === TOOLS.find((t) => t.name === name), `${name}: another module than the table's`);
  }
});

Deno.test("a server lists the file's entries its toolsets and safety tier serve", async () => {
  const readonly = await listedTools({ toolsets: ["workspace", "exec"], safety: "readonly" });
  const expected = TOOLS.filter((t) =>
    (t.toolset === "any" || t.toolset === "workspace" || t.toolset === "exec") && t.tier === "readonly"
  ).map((t) => t.name);
  assertEquals(readonly.map((t) => t.name), expected);
  assert(expected.length > 0 && !expected.includes("kill"), "readonly serves no destructive tool");
  // Through a real server: the same names, before any tools/call loaded the tool modules.
  const tmux = await startTmux("listing");
  const mcp = await connect({
    socketName: tmux.socketName,
    args: ["--safety", "readonly", "--toolsets", "workspace,exec"],
  });
  try {
    assertEquals((await mcp.client.listTools()).tools.map((t) => t.name), expected);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});
