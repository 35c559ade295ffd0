/**
 * Size of the tool list per toolset and tier (see tests/tool_list_sizes.ts).
 * Sizes are deterministic (no timing), so this runs as a plain script:
 *
 *   deno run --allow-all tests/bench/tool_list_size.ts
 */
import { TOOLS } from "../../lib/tools/mod.ts";
import { toolListSizes, visibleBytes, wholeBytes } from "../tool_list_sizes.ts";

const kb = (n: number) => (n / 1024).toFixed(1);
console.log("| toolsets | tier | tools | instructions KB | model-visible KB (with instructions) | whole KB |");
console.log("|---|---|---|---|---|---|");
for (const r of toolListSizes()) {
  console.log(
    `| ${r.toolsets} | ${r.tier} | ${r.tools} | ${kb(r.instructions)} | ${kb(r.visible)} | ${kb(r.whole)} |`,
  );
}
console.log("\nBiggest tools (model-visible bytes / whole bytes):");
for (const t of [...TOOLS].sort((a, b) => visibleBytes(b) - visibleBytes(a)).slice(0, 10)) {
  console.log(`${t.name}: ${visibleBytes(t)} / ${wholeBytes(t)}`);
}
