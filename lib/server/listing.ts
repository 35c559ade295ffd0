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
import { allowsTier, type Config, servesToolset } from "../config.ts";
import { advertisedAnnotations, type AnyTool, neverBuffered } from "../tools/tool.ts";
import { advertisedInputSchema, advertisedOutputSchema } from "../budget/schema.ts";

/** One tool in the listing file: what decides whether it is served, and its listing. */
export interface ListingEntry {
  toolset: string;
  tier: string;
  tool: Tool;
}

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

/** The tools a server with this configuration serves, as tools/list shows them, read from the listing file. */
export async function listedTools(config: Pick<Config, "toolsets" | "safety">): Promise<Tool[]> {
  const file = await import("../tools/listing.json", { with: { type: "json" } });
  return servedListing(file.default as unknown as ListingEntry[], config);
}

/**
 * The served entries of a listing. A tool of every toolset (batch) runs the served tools only, so it is
 * announced as careful as the least careful of them: read-only when all are (a --safety readonly server),
 * not as destructive as anything a server might serve.
 */
export function servedListing(entries: readonly ListingEntry[], config: Pick<Config, "toolsets" | "safety">): Tool[] {
  const served = entries.filter((e) => servesToolset(config, e.toolset) && allowsTier(config, e.tier));
  const members = served.filter((e) => e.toolset !== "any").map((e) => e.tool.annotations ?? {});
  const annotations = members.every((a) => a.readOnlyHint) ? { readOnlyHint: true } : {
    destructiveHint: members.some((a) => !a.readOnlyHint && a.destructiveHint !== false),
    ...(members.every((a) => a.readOnlyHint || a.idempotentHint) ? { idempotentHint: true } : {}),
  };
  return served.map((e) => e.toolset === "any" ? { ...e.tool, annotations } : e.tool);
}
