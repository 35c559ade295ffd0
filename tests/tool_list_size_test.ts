/**
 * The tool list is paid for by every agent in every conversation: its size
 * per toolset and tier may not grow past these ceilings (KB = 1024 bytes of
 * JSON). Issue 13's goal for the default (all toolsets, --safety mutating)
 * is 16 KB model-visible and 40 KB whole; these ceilings are where phase 2
 * got to, so the list can only shrink from here. Lower them as it does.
 * Sizes are deterministic: this is no timing test.
 */
import { assert } from "./assert.ts";
import { toolListSizes } from "./tool_list_sizes.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { TIERS } from "../lib/config.ts";

/** [model-visible KB, whole KB] per toolset, for its largest tier; "all" per tier. */
const CEILINGS: Record<string, readonly [number, number]> = {
  buffers: [6.5, 15.5],
  workspace: [11, 28],
  exec: [3.5, 7.5],
  pty: [5, 11],
  "all/readonly": [11, 30],
  "all/mutating": [23, 54.5],
  "all/destructive": [23.5, 56],
};

Deno.test("the tool list stays under its size ceilings per toolset and tier", () => {
  const over: string[] = [];
  for (const r of toolListSizes()) {
    const [visible, whole] = CEILINGS[r.toolsets === "all" ? `all/${r.tier}` : r.toolsets];
    const kb = (n: number) => (n / 1024).toFixed(1);
    if (r.visible > visible * 1024) over.push(`${r.toolsets}/${r.tier}: ${kb(r.visible)} KB visible > ${visible}`);
    if (r.whole > whole * 1024) over.push(`${r.toolsets}/${r.tier}: ${kb(r.whole)} KB whole > ${whole}`);
  }
  assert(over.length === 0, `tool list over its ceiling (run tests/bench/tool_list_size.ts):\n${over.join("\n")}`);
});

Deno.test("the default server lists at most 43 tools, and fewer than 40 under readonly", () => {
  const served = (tier: number) => TOOLS.filter((t) => TIERS.indexOf(t.tier) <= tier).length;
  assert(served(TIERS.indexOf("mutating")) <= 43, `default tools: ${served(1)}`);
  assert(served(TIERS.indexOf("readonly")) < 40, `readonly tools: ${served(0)}`);
});
