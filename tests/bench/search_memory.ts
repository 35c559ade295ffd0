/**
 * Peak memory of one search-buffer call on a 32 MiB buffer (`--size 256` for 256 MiB), measured as the
 * server process sees it: its peak resident set (VmHWM, reset through
 * /proc/PID/clear_refs just before the call) minus its resident set before
 * the call. Each case runs in a fresh server, after a warm-up search on a
 * small buffer, so earlier calls' garbage does not count. Linux only.
 *
 *   deno run -A tests/bench/search_memory.ts
 */
import { connect, startTmux } from "../helpers.ts";
import { makeLog, QUERIES } from "./search_data.ts";

const MiB = 1024 * 1024;
const SIZE = Number(Deno.args[Deno.args.indexOf("--size") + 1] || 32) * MiB;

function kib(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = Deno.readTextFileSync(`/proc/${pid}/status`).match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  if (!m) throw new Error(`no ${field} for ${pid}`);
  return Number(m[1]) * 1024;
}

const tmux = await startTmux("mem");
try {
  const buffers = { ascii: makeLog(false, SIZE), mixed: makeLog(true, SIZE) };
  for (const [name, bytes] of Object.entries(buffers)) await tmux.tmuxStdin(bytes, "load-buffer", "-b", name, "-");
  await tmux.tmuxStdin(makeLog(false, 64 * 1024), "load-buffer", "-b", "small", "-");
  console.log("| buffer | search | peak RSS − RSS before | × buffer size | peak RSS | × buffer size |");
  console.log("| ------ | ------ | --------------------: | ------------: | -------: | ------------: |");
  for (const name of ["ascii", "mixed"] as const) {
    for (const [label, query, mode, ignore_case] of QUERIES) {
      const mcp = await connect({ socketName: tmux.socketName });
      try {
        const pid = (mcp.client.transport as unknown as { pid: number }).pid;
        const args = { query, mode, ignore_case, max_scan_bytes: SIZE };
        await mcp.ok("search-buffer", { ...args, buffers: ["small"] });
        const before = kib(pid, "VmRSS");
        Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5"); // resets VmHWM to the current RSS
        const r = await mcp.ok<{ total_matches: number }>("search-buffer", { ...args, buffers: [name] });
        if (r.total_matches !== 40) throw new Error(`expected 40 matches, got ${r.total_matches}`);
        const peak = kib(pid, "VmHWM") - before;
        const size = buffers[name].length;
        const total = kib(pid, "VmHWM");
        console.log(
          `| ${name} | ${label} | ${(peak / MiB).toFixed(1)} MiB | ${(peak / size).toFixed(2)} | ` +
            `${(total / MiB).toFixed(1)} MiB | ${(total / size).toFixed(2)} |`,
        );
      } finally {
        await mcp.close();
      }
    }
  }
} finally {
  await tmux.kill();
}
