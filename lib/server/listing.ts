/**
 * What tools/list shows of each tool, and the file that holds it for the
 * whole tool table (`lib/tools/listing.json`), so a starting server answers
 * tools/list without loading the tool modules: every entry is static per tool
 * (name, title, description, schemas, annotations), and which tools a server
 * serves follows from each entry's toolset and tier.
 *
 * `deno task listing` writes the file (lib/server/write_listing.ts);
 * tests/tool_listing_test.ts fails when it differs from the table.
 *
 * @example
 * ```ts
 * const tools = await listedTools({ toolsets: ["buffers"], safety: "readonly" }); // the served entries, from the file
 * ```
 */
import type { Tool } from "../sdk.ts";
import { advertisedAnnotations, type AnyTool, neverBuffered } from "../tools/tool.ts";
import { advertisedInputSchema, advertisedOutputSchema } from "../budget/schema.ts";
import type { ListingEntry } from "./listing_file.ts";

export { listedTools, type ListingEntry, servedListing } from "./listing_file.ts";

/**
 * A tool as tools/list shows it; its output schema also admits a buffered
 * response (lib/budget), unless the tool is never buffered ({@linkcode neverBuffered}).
 */
export function listing(tool: AnyTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: advertisedInputSchema(tool.input) as Tool["inputSchema"],
    outputSchema: advertisedOutputSchema(tool.output, { buffered: !neverBuffered(tool) }) as Tool["outputSchema"],
    // title is already top-level; execution defaults to no task support. Every byte here is paid by every agent.
    annotations: advertisedAnnotations(tool),
  };
}

/** The listing file's entries for a tool table, in its order. */
export function listingEntries(tools: readonly AnyTool[]): ListingEntry[] {
  return tools.map((t) => ({ toolset: t.toolset, tier: t.tier, tool: listing(t) }));
}
