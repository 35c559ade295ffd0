/**
 * The tool list is paid for by every agent in every conversation. The
 * limits for the default server (all toolsets, --safety mutating): at most
 * 16 KB model-visible (the server instructions plus name + description +
 * inputSchema per tool), 40 KB whole and
 * 40 tools (some clients cap the tools across all servers at 40). Below
 * that, each toolset and tier may not grow past its ceiling below, so the
 * list can only shrink from here: lower the ceilings as it does (KB = 1024
 * bytes of JSON). Sizes are deterministic: this is no timing test.
 */
import { assert } from "./assert.ts";
import { toolListSizes } from "./tool_list_sizes.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { TIERS } from "../lib/config.ts";

/** The limits for the default server. */
const DEFAULT_LIMIT = { visibleKB: 16, wholeKB: 40, tools: 40 };

/** [model-visible KB, whole KB] per toolset, for its largest tier; "all" per tier (their sizes when set, rounded up). */
const CEILINGS: Record<string, readonly [number, number]> = {
  buffers: [4, 8.5],
  workspace: [8.5, 21],
  exec: [3.5, 7],
  pty: [3, 6.5],
  "all/readonly": [7.5, 21.5],
  "all/mutating": [15.5, 38],
  "all/destructive": [16, 39],
};

const kb = (n: number) => (n / 1024).toFixed(1);

Deno.test("the default server's tool list is within its limits", () => {
  const row = toolListSizes().find((r) => r.toolsets === "all" && r.tier === "mutating")!;
  assert(row.visible <= DEFAULT_LIMIT.visibleKB * 1024, `model-visible ${kb(row.visible)} KB > 16 KB`);
  assert(row.whole <= DEFAULT_LIMIT.wholeKB * 1024, `whole ${kb(row.whole)} KB > 40 KB`);
  assert(row.tools <= DEFAULT_LIMIT.tools, `${row.tools} tools > 40`);
});

Deno.test("the tool list stays under its size ceilings per toolset and tier", () => {
  const over: string[] = [];
  for (const r of toolListSizes()) {
    const [visible, whole] = CEILINGS[r.toolsets === "all" ? `all/${r.tier}` : r.toolsets];
    if (r.visible > visible * 1024) over.push(`${r.toolsets}/${r.tier}: ${kb(r.visible)} KB visible > ${visible}`);
    if (r.whole > whole * 1024) over.push(`${r.toolsets}/${r.tier}: ${kb(r.whole)} KB whole > ${whole}`);
  }
  assert(over.length === 0, `tool list over its ceiling (run tests/bench/tool_list_size.ts):\n${over.join("\n")}`);
});

Deno.test("at most 40 tools at the default tier, and fewer than 20 under readonly", () => {
  const served = (tier: number) => TOOLS.filter((t) => TIERS.indexOf(t.tier) <= tier).length;
  assert(served(TIERS.indexOf("mutating")) <= DEFAULT_LIMIT.tools, `default tools: ${served(1)}`);
  assert(served(TIERS.indexOf("readonly")) < 20, `readonly tools: ${served(0)}`);
});

Deno.test("docs/tools.md's size table and the README's default figures are today's sizes", async () => {
  const rows = toolListSizes();
  const now = (sets: string, tier: string) => {
    const r = rows.find((r) => r.toolsets === sets && r.tier === tier);
    return r && `${r.tools} / ${kb(r.visible)} / ${kb(r.whole)}`;
  };
  const doc = await Deno.readTextFile(new URL("../docs/tools.md", import.meta.url));
  const table = [...doc.matchAll(/^\| (\w+) +\| (\w+) +\| ([\d.]+ \/ [\d.]+ \/ [\d.]+) +\|$/gm)];
  assert(table.length >= 4, `docs/tools.md's "Sizes now" table: ${table.length} rows found`);
  const stale = table.filter(([, sets, tier, size]) => now(sets, tier) !== size)
    .map(([, sets, tier, size]) => `${sets}/${tier}: ${size} written, ${now(sets, tier)} now`);
  assert(
    stale.length === 0,
    `docs/tools.md's size table is stale (tests/bench/tool_list_size.ts):\n${stale.join("\n")}`,
  );
  const all = rows.find((r) => r.toolsets === "all" && r.tier === "mutating")!;
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const said = `is ${all.tools} tools and ${kb(all.visible)} KB model-visible`;
  assert(readme.replace(/\s+/g, " ").includes(said), `README.md should say the default list ${said}`);
});
