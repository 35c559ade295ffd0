/**
 * run-command `true`, p50 per shell (bash, zsh, fish, each started without
 * its rc files), interleaved with its two yardsticks:
 *
 * - "bare round trip": the floor of any run-through-a-pane design. On a raw
 *   `tmux -C` client attached to the same tmux server: `send-keys` of one
 *   line (`printf 'M%sK\n' N`, then Enter) to the same pane, until the
 *   `%output` that carries the command's own output (`MNK`) arrives;
 * - "peer": nickgnd/tmux-mcp (`--peer DIR`, a built checkout: `DIR/build/
 *   index.js`, run with node, as its users do) over the same SDK client:
 *   `execute-command`, then `get-command-result` back to back until the first
 *   poll that is no longer pending (what an agent waits for at best). It
 *   reaches our tmux server through `$TMUX`.
 *
 * Targets (issue #28): ours ≤ 0.5× the peer and ≤ 3× the bare round trip.
 *
 * With `--before DIR` (a checkout of an earlier version, e.g. a `git archive` of main), a fourth column runs
 * the same calls on that version, interleaved with the others, for before/after figures.
 *
 *   deno run -A tests/bench/run_command_bench.ts [--n 40] [--peer DIR] [--before DIR] [--shells bash,zsh,fish]
 *
 * Rounds alternate the columns (ours, bare, peer) so load changes hit all alike, each call 40 ms after the
 * previous one (an agent's calls are a model turn apart: the last prompt is drawn). Prints a Markdown table
 * with the load average before and after.
 */
import { connect, type McpFixture, socketPathOf, startTmux, textOf } from "../helpers.ts";
import { newPane, waitUntil } from "../pane_helpers.ts";
import { serverArgv } from "./cold_start.ts";
import { rawControlClient } from "./raw_control.ts";
import { flag } from "./args.ts";

/** Pause before each measured call (outside the measurement). */
const SETTLE_MS = 40;

/** How each shell starts with no rc files and a short prompt. */
const SHELL_ARGV: Record<string, string> = {
  bash: "bash --norc --noprofile",
  zsh: "zsh -f",
  fish: "fish --no-config",
};

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function load(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

/** A raw control-mode client: writes command lines, and waits for a `%output` of a pane holding a text. */
function controlClient(socketName: string) {
  const c = rawControlClient(socketName, ["-t", "main", "-f", "ignore-size"]);
  return {
    async roundTrip(pane: string, n: number): Promise<number> {
      const want = `M${n}K`;
      const t0 = performance.now();
      await c.write(`send-keys -t ${pane} -l "printf 'M%sK\\\\n' ${n}" ; send-keys -t ${pane} Enter\n`);
      for (;;) {
        const line = await c.line();
        if (line.startsWith(`%output ${pane} `) && line.includes(want)) return performance.now() - t0;
      }
    },
    close: c.close,
  };
}

/** run-command `true` p50 per shell beside its yardsticks (see the module doc). */
export interface RunCommandRow {
  shell: string;
  ours: number;
  bare: number;
  /** Undefined without a peer checkout. */
  peer?: number;
  /** The `before` checkout's run-command; undefined without one. */
  before?: number;
}

/**
 * Measures the rows: `n` rounds per shell; `peer` is a built nickgnd/tmux-mcp checkout, `before` a checkout of
 * an earlier version of this server.
 */
export async function measureRunCommand(
  n: number,
  shells: string[],
  peer?: string,
  before?: string,
): Promise<RunCommandRow[]> {
  const tmux = await startTmux("runbench");
  const home = await Deno.makeTempDir({ prefix: "tmcp-runbench-" });
  const panes: Record<string, string> = {};
  for (const sh of shells) {
    const pane = await newPane(tmux, `env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=${home} ${SHELL_ARGV[sh]}`);
    panes[sh] = pane;
    await waitUntil(`${sh} to start`, async () => {
      const cmd = (await tmux.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}")).trim();
      return cmd === sh && (await tmux.tmux("capture-pane", "-p", "-t", pane)).trim().length > 0;
    }, 30_000);
  }

  // nickgnd/tmux-mcp speaks the 2025 protocol only: every column uses the same (2025) client.
  const ours = await connect({ socketName: tmux.socketName, era: "legacy" });
  const earlier = before
    ? await connect({ spawn: serverArgv(before.replace(/\/?$/, "/"), tmux.socketName), era: "legacy" })
    : undefined;
  const control = controlClient(tmux.socketName);
  const peers = new Map<string, McpFixture>();
  if (peer) {
    for (const sh of shells) {
      peers.set(
        sh,
        await connect({
          spawn: ["node", `${peer.replace(/\/$/, "")}/build/index.js`, "--shell-type", sh],
          env: { TMUX: `${socketPathOf(tmux.socketName)},0,0` },
          era: "legacy",
        }),
      );
    }
  }

  async function peerRun(mcp: McpFixture, pane: string): Promise<number> {
    const t0 = performance.now();
    const started = await mcp.client.callTool({
      name: "execute-command",
      arguments: { paneId: pane, command: "true" },
    });
    const id = textOf(started as Parameters<typeof textOf>[0]).match(/tmux:\/\/command\/([^/]+)\/result/)?.[1];
    if (!id) throw new Error(`peer: no command id in ${JSON.stringify(started)}`);
    for (;;) {
      const r = await mcp.client.callTool({ name: "get-command-result", arguments: { commandId: id } });
      const text = textOf(r as Parameters<typeof textOf>[0]);
      // Pending: "Command still executing...", or "Status: pending" while its markers are not on screen yet.
      if (/^Status: completed/.test(text)) return performance.now() - t0;
      if (/^Status: error/.test(text)) throw new Error(`peer: ${text}`);
    }
  }

  async function oursRun(pane: string, server = ours): Promise<number> {
    const t0 = performance.now();
    const r = await server.ok<{ exit_code: number }>("run-command", { target: pane, command: "true" });
    if (r.exit_code !== 0) throw new Error(`exit ${r.exit_code}`);
    return performance.now() - t0;
  }

  const rows: RunCommandRow[] = [];
  try {
    let typed = 0;
    for (const sh of shells) {
      const pane = panes[sh];
      const times = { ours: [] as number[], bare: [] as number[], peer: [] as number[], before: [] as number[] };
      // Warm-up: the first run of each column pays JIT, worker and shell start-up costs.
      await oursRun(pane);
      await control.roundTrip(pane, typed++);
      if (peers.has(sh)) await peerRun(peers.get(sh)!, pane);
      if (earlier) await oursRun(pane, earlier);
      for (let i = 0; i < n; i++) {
        const order = [
          async () => times.ours.push(await oursRun(pane)),
          async () => times.bare.push(await control.roundTrip(pane, typed++)),
          async () => peers.has(sh) && times.peer.push(await peerRun(peers.get(sh)!, pane)),
          async () => earlier && times.before.push(await oursRun(pane, earlier)),
        ];
        for (let k = 0; k < order.length; k++) {
          // Each call starts at a quiet prompt (the previous column's prompt drawn), as an agent's call a model
          // turn after the last one does; not timed.
          await new Promise((r) => setTimeout(r, SETTLE_MS));
          await order[(i + k) % order.length]();
        }
      }
      rows.push({
        shell: sh,
        ours: p50(times.ours),
        bare: p50(times.bare),
        peer: times.peer.length ? p50(times.peer) : undefined,
        before: times.before.length ? p50(times.before) : undefined,
      });
    }
  } finally {
    await ours.close();
    await earlier?.close();
    for (const p of peers.values()) await p.close();
    await control.close();
    await tmux.kill();
    // fish may still be writing its history there as it exits.
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
  return rows;
}

if (import.meta.main) {
  const before = load();
  const rows = await measureRunCommand(
    Number(flag("--n") ?? 40),
    (flag("--shells") ?? "bash,zsh,fish").split(","),
    flag("--peer"),
    flag("--before"),
  );
  const N = Number(flag("--n") ?? 40);
  console.log(`run-command \`true\`, p50 of ${N}; load ${before} → ${load()}\n`);
  console.log(
    "| shell | ours | bare round trip (ours ÷ it; target ≤ 3) | peer execute + first done poll (ours ÷ it; ≤ 0.5) |",
  );
  console.log(
    "| ----- | ---- | ---------------------------------------- | ------------------------------------------------- |",
  );
  for (const r of rows) {
    const x = (a: number, b: number) => `${b.toFixed(1)} ms (${(a / b).toFixed(2)}×)`;
    console.log(
      `| ${r.shell} | ${r.ours.toFixed(1)} ms | ${x(r.ours, r.bare)} | ${r.peer ? x(r.ours, r.peer) + " |" : "— |"}`,
    );
  }
  if (rows.some((r) => r.before !== undefined)) {
    console.log("\n| shell | before | ours ÷ before |\n| ----- | ------ | ------------- |");
    for (const r of rows) {
      if (r.before !== undefined) {
        console.log(`| ${r.shell} | ${r.before.toFixed(1)} ms | ${(r.ours / r.before).toFixed(2)}× |`);
      }
    }
  }
}
