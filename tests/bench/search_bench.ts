/**
 * search-buffer on a 32 MiB buffer, end to end (MCP client → server → tmux
 * show-buffer → search → response), against the baseline: `tmux
 * show-buffer` of the same buffer to /dev/null. Targets: literal ≤ 2×, regex
 * ≤ 4× the baseline (regex searches run in the server's search worker). The
 * "engine only" group is the search on bytes already in memory (UTF-8 check,
 * byte string or decoding, scan, offsets, lines), without tmux; "engine in worker" is the same
 * through a search pool (lib/search/worker_pool.ts), including a copy of the
 * buffer per call: the engine takes over the bytes it is given (the pool
 * transfers them, a decoding search releases them), so each call gets a copy,
 * made outside the timed part for the inline engine.
 *
 * Each buffer holds 40 planted matches spread over its whole length, so every
 * search scans the whole buffer and converts offsets and counts lines to its
 * end. Peak memory is measured separately: tests/bench/search_memory.ts.
 */
import { connect, startTmux } from "../helpers.ts";
import { bytePattern } from "../../lib/search/byte_pattern.ts";
import { compileMatcher } from "../../lib/search/matcher.ts";
import { searchBuffers } from "../../lib/search/search.ts";
import { createSearchPool } from "../../lib/search/worker_pool.ts";
import { makeLog, QUERIES } from "./search_data.ts";

const SIZE = 32 * 1024 * 1024;

const tmux = await startTmux("bench");
const buffers = { ascii: makeLog(false, SIZE), mixed: makeLog(true, SIZE) };
for (const [name, bytes] of Object.entries(buffers)) await tmux.tmuxStdin(bytes, "load-buffer", "-b", name, "-");
const mcp = await connect({ socketName: tmux.socketName });
const pool = createSearchPool();
globalThis.addEventListener("unload", () => {
  pool.close();
  new Deno.Command("tmux", { args: ["-L", tmux.socketName, "kill-server"] }).outputSync();
});

for (const name of ["ascii", "mixed"] as const) {
  const group = `32 MiB ${name === "ascii" ? "ASCII" : "non-ASCII"} buffer, end to end`;
  Deno.bench(`tmux show-buffer > /dev/null (${name})`, { group, baseline: true }, async () => {
    const out = await new Deno.Command("tmux", {
      args: ["-L", tmux.socketName, "show-buffer", "-b", name],
      stdout: "null",
    }).output();
    if (!out.success) throw new Error("show-buffer failed");
  });
  for (const [label, query, mode, ignore_case] of QUERIES) {
    Deno.bench(`search-buffer ${label} (${name})`, { group }, async () => {
      const r = await mcp.ok<{ total_matches: number }>("search-buffer", {
        query,
        mode,
        ignore_case,
        buffers: [name],
        max_scan_bytes: SIZE,
      });
      if (r.total_matches !== 40) throw new Error(`expected 40 matches, got ${r.total_matches}`);
    });
  }
  // The engine inline, and in a worker (every query there, to compare; the server sends only regexes).
  // Both take over the array they are handed, so each call gets a copy; only the worker's copy is timed.
  const engines = [["engine only", searchBuffers, false], ["engine in worker", pool.search, true]] as const;
  for (const [engine, search, timeCopy] of engines) {
    for (const [label, query, mode, ignoreCase] of QUERIES) {
      Deno.bench(`${engine}: ${label} (${name})`, { group: `32 MiB ${name}, engine only` }, async (b) => {
        const copy = timeCopy ? undefined : buffers[name].slice();
        b.start();
        const r = await search([{ name }], () => Promise.resolve(copy ?? buffers[name].slice()), {
          // As the worker compiles it: a regex rewritten for the byte string where it can be.
          matcher: compileMatcher(query, mode, ignoreCase, { bytePattern }),
          maxMatches: 50,
          maxScanBytes: SIZE,
          contextBytes: 64,
          includeSimilarity: false,
        });
        b.end();
        if (r.matches.length !== 40) throw new Error(`expected 40 matches, got ${r.matches.length}`);
      });
    }
  }
}
