/**
 * Size of the tool list per toolset and tier: what clients hand the model
 * (name + description + inputSchema, as JSON) and the whole tools/list entry.
 * Sizes are deterministic (no timing), so this runs as a plain script:
 *
 *   deno run --allow-all tests/bench/tool_list_size.ts
 */
import { TOOLS } from "../../lib/tools/mod.ts";
import { listing } from "../../lib/server/server.ts";
import { TIERS, TOOLSETS } from "../../lib/config.ts";
import type { AnyTool } from "../../lib/tools/tool.ts";

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;
const visible = (t: AnyTool) => {
  const l = listing(t);
  return bytes({ name: l.name, description: l.description, inputSchema: l.inputSchema });
};
const whole = (t: AnyTool) => bytes(listing(t));
const kb = (n: number) => (n / 1024).toFixed(1);

const served = (sets: readonly string[], tier: number) =>
  TOOLS.filter((t) => (t.toolset === "any" || sets.includes(t.toolset)) && TIERS.indexOf(t.tier) <= tier);

console.log("| toolsets | tier | tools | model-visible KB | whole KB |");
console.log("|---|---|---|---|---|");
for (const sets of [...TOOLSETS.map((s) => [s]), [...TOOLSETS]]) {
  for (const [i, tier] of TIERS.entries()) {
    const ts = served(sets, i);
    const v = ts.reduce((n, t) => n + visible(t), 0);
    const w = ts.reduce((n, t) => n + whole(t), 0);
    console.log(`| ${sets.length > 1 ? "all" : sets[0]} | ${tier} | ${ts.length} | ${kb(v)} | ${kb(w)} |`);
  }
}
console.log("\nBiggest tools (model-visible bytes / whole bytes):");
for (const t of [...TOOLS].sort((a, b) => visible(b) - visible(a)).slice(0, 10)) {
  console.log(`${t.name}: ${visible(t)} / ${whole(t)}`);
}
