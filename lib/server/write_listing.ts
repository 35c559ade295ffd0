/**
 * Writes `lib/tools/listing.json`: what tools/list shows of every tool
 * (listing.ts). Run `deno task listing` after changing a tool;
 * tests/tool_listing_test.ts fails while the file is stale.
 */
import { TOOLS } from "../tools/mod.ts";
import { listingEntries } from "./listing.ts";

if (import.meta.main) {
  const path = new URL("../tools/listing.json", import.meta.url);
  Deno.writeTextFileSync(path, JSON.stringify(listingEntries(TOOLS), null, 2) + "\n");
  console.log(`wrote ${path.pathname} (${TOOLS.length} tools)`);
}
