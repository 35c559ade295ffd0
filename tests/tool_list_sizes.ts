/**
 * Size of the tool list per toolset and tier: what clients hand the model
 * (the server instructions, plus name + description + inputSchema per tool,
 * as JSON) and the whole tools/list entry (with title, outputSchema and
 * annotations). Sizes are deterministic, so
 * both the bench table and the size test use this.
 *
 * @example
 * ```ts
 * for (const row of toolListSizes()) console.log(row.toolsets, row.tier, row.visible, row.whole);
 * ```
 */
import { TOOLS } from "../lib/tools/mod.ts";
import { listing } from "../lib/server/listing.ts";
import { parseConfig, type Tier, TIERS, type Toolset, TOOLSETS } from "../lib/config.ts";
import { instructions } from "../lib/server/instructions.ts";
import type { AnyTool } from "../lib/tools/tool.ts";

export interface SizeRow {
  /** One toolset, or "all". */
  toolsets: Toolset | "all";
  tier: Tier;
  tools: number;
  /** Bytes of the server instructions (as a JSON string) such a server sends with initialize. */
  instructions: number;
  /** Model-visible bytes: the instructions plus name + description + inputSchema of every served tool. */
  visible: number;
  /** Bytes of the whole tools/list entries. */
  whole: number;
}

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;

/** Model-visible bytes of one tool. */
export function visibleBytes(t: AnyTool): number {
  const l = listing(t);
  return bytes({ name: l.name, description: l.description, inputSchema: l.inputSchema });
}

/** Bytes of one tool's whole tools/list entry. */
export function wholeBytes(t: AnyTool): number {
  return bytes(listing(t));
}

/** One row per toolset (and all of them) and tier, as a server with those flags would list its tools. */
export function toolListSizes(): SizeRow[] {
  const rows: SizeRow[] = [];
  for (const sets of [...TOOLSETS.map((s) => [s]), [...TOOLSETS]]) {
    for (const [i, tier] of TIERS.entries()) {
      const ts = TOOLS.filter((t) => (t.toolset === "any" || sets.includes(t.toolset)) && TIERS.indexOf(t.tier) <= i);
      const told = bytes(instructions(parseConfig(["--toolsets", sets.join(","), "--safety", tier], {})));
      rows.push({
        toolsets: sets.length > 1 ? "all" : sets[0],
        tier,
        tools: ts.length,
        instructions: told,
        visible: told + ts.reduce((n, t) => n + visibleBytes(t), 0),
        whole: ts.reduce((n, t) => n + wholeBytes(t), 0),
      });
    }
  }
  return rows;
}
