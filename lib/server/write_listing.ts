/**
 * Writes what is generated from the tool table (lib/tools/mod.ts): `lib/tools/listing.json`, what tools/list
 * shows of every tool (listing.ts), and `lib/tools/modules.ts`, each tool's module by its name (for a starting
 * server that imports one tool). Run `deno task listing` after adding or changing a tool;
 * tests/tool_listing_test.ts fails while either file is stale.
 */
import type { AnyTool } from "../tools/tool.ts";
import { TOOLS } from "../tools/mod.ts";
import { listingEntries } from "./listing.ts";

/** What heads the generated lib/tools/modules.ts. */
const MODULES_HEADER = `/**
 * Each tool's module by the tool's name, in the table's order (lib/tools/mod.ts): a starting server imports only
 * the module of the tool its first call names, before the whole table has loaded (most of the server's modules
 * are the tools'). Generated from the table by \`deno task listing\` (lib/server/write_listing.ts): do not edit;
 * tests/tool_listing_test.ts checks it is up to date.
 */
import type { AnyTool } from "./tool.ts";

/** Imports one tool's module; its default export is the tool. */
export type ToolModule = () => Promise<{ default: AnyTool }>;

/** Each tool's module by the tool's name. */
export const TOOL_MODULES: Readonly<Record<string, ToolModule>> = {
`;

/**
 * The source of lib/tools/modules.ts for the table's source `table` (lib/tools/mod.ts: a default import per tool,
 * then the TOOLS array of those names, with comment lines between groups) and its loaded `tools`, in its order.
 */
export function modulesSource(table: string, tools: readonly AnyTool[]): string {
  const paths = new Map([...table.matchAll(/^import (\w+) from "(\.\/[^"]+)";$/gm)].map((m) => [m[1], m[2]]));
  const body = /^export const TOOLS: readonly AnyTool\[\] = \[\n([\s\S]*?)^\];$/m.exec(table);
  if (!body) throw new Error("lib/tools/mod.ts has no TOOLS array of the expected form");
  const lines: string[] = [];
  let i = 0;
  for (const raw of body[1].split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (line.startsWith("//")) {
      lines.push(`  ${line}`);
      continue;
    }
    const ident = /^(\w+),?$/.exec(line)?.[1];
    const path = ident && paths.get(ident);
    if (!path) throw new Error(`lib/tools/mod.ts: TOOLS entry "${line}" is not a tool imported by name`);
    const tool = tools[i++];
    if (!tool) throw new Error("lib/tools/mod.ts: more TOOLS entries than tools");
    lines.push(`  ${JSON.stringify(tool.name)}: () => import(${JSON.stringify(path)}),`);
  }
  if (i !== tools.length) throw new Error("lib/tools/mod.ts: fewer TOOLS entries than tools");
  return MODULES_HEADER + lines.join("\n") + "\n};\n";
}

if (import.meta.main) {
  const path = new URL("../tools/listing.json", import.meta.url);
  Deno.writeTextFileSync(path, JSON.stringify(listingEntries(TOOLS), null, 2) + "\n");
  console.log(`wrote ${path.pathname} (${TOOLS.length} tools)`);
  const modules = new URL("../tools/modules.ts", import.meta.url);
  Deno.writeTextFileSync(
    modules,
    modulesSource(Deno.readTextFileSync(new URL("../tools/mod.ts", import.meta.url)), TOOLS),
  );
  console.log(`wrote ${modules.pathname}`);
}
