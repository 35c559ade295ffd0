/**
 * The listing file (`lib/tools/listing.json`, lib/server/listing.ts) read
 * without the tool modules or zod: what a starting server lists, and answers
 * tools/list with, before it loads them.
 *
 * @example
 * ```ts
 * const tools = await listedTools({ toolsets: ["buffers"], safety: "readonly" }); // the served entries, from the file
 * ```
 */
import type { Tool } from "../sdk.ts";
import { allowsTier, type Config, servesToolset } from "../config.ts";

/** One tool in the listing file: what decides whether it is served, and its listing. */
export interface ListingEntry {
  toolset: string;
  tier: string;
  tool: Tool;
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
