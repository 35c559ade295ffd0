/**
 * The "5-minute build under a 60 s client cap" scenario, measured by hand (too
 * long for the suite): a build that prints a numbered line every 0.5 s for
 * --seconds (default 300) is run with run-command under --call-budget-ms
 * (default 50000, the server's default) and followed through its continue
 * tokens. Prints the number of calls, the longest call, and whether every
 * line came exactly once with the right exit code.
 *
 *   deno run -A tests/bench/long_build.ts [--seconds 300] [--budget 50000]
 */
import { parseArgs } from "node:util";
import { connect, endTmux, removeSocket, runTmux, uniqueSocketName } from "../helpers.ts";
import { settle } from "../exec_fixtures.ts";

const { values } = parseArgs({ options: { seconds: { type: "string" }, budget: { type: "string" } } });
const seconds = Number(values.seconds ?? 300);
const budget = Number(values.budget ?? 50_000);
const count = seconds * 2;

const socket = uniqueSocketName("build");
const home = Deno.makeTempDirSync({ prefix: "tmcp-bench-" });
const script = `${home}/build.sh`;
Deno.writeTextFileSync(script, `for i in $(seq 1 ${count}); do echo "step $i"; sleep 0.5; done; exit 7\n`);
await runTmux(socket, [
  ...["-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "40"],
  `env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=${home} bash --norc --noprofile`,
]);
const pane = (await runTmux(socket, ["display-message", "-p", "-t", "main", "#{pane_id}"])).trim();
await settle(socket, pane);
const mcp = await connect({ socketName: socket, args: ["--call-budget-ms", String(budget)] });
try {
  type Run = { exit_code: number | null; output: string; continue?: string };
  const lines: string[] = [];
  let calls = 0;
  let longest = 0;
  const t0 = performance.now();
  let args: Record<string, unknown> = { target: pane, command: `bash ${script}`, timeout_ms: (seconds + 120) * 1000 };
  let r: Run;
  do {
    const c0 = performance.now();
    r = await mcp.ok<Run>("run-command", args);
    longest = Math.max(longest, performance.now() - c0);
    calls++;
    if (r.output !== "") lines.push(...r.output.split("\n"));
    args = { continue: r.continue };
  } while (r.continue !== undefined);
  const expected = Array.from({ length: count }, (_, i) => `step ${i + 1}`);
  const exact = lines.length === expected.length && lines.every((l, i) => l === expected[i]);
  console.log(
    `build of ${seconds} s under --call-budget-ms ${budget}: ${calls} calls, longest call ` +
      `${(longest / 1000).toFixed(1)} s, total ${((performance.now() - t0) / 1000).toFixed(1)} s, ` +
      `${lines.length}/${count} lines, every line once: ${exact}, exit code ${r.exit_code}`,
  );
} finally {
  await mcp.close();
  await endTmux((...a) => runTmux(socket, a));
  removeSocket(socket);
}
