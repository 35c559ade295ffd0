/**
 * Today's performance table in one run (`deno task bench`): every figure is a
 * p50 from interleaved rounds, beside its floors and the peer, with the load
 * average before and after.
 *
 * Rows: `list` sessions and `capture-pane` (50 lines) back to back; run-command
 * `true` in bash, zsh and fish (tests/bench/run_command_bench.ts); search-buffer
 * literal and regex over 32 and 256 MiB of ASCII log lines (the whole buffer
 * scanned); cold start (spawn → the first tools/call answered).
 *
 * Columns: ours (the Deno SDK client over stdio, as tests/helpers.ts connects);
 * one spawned tmux client (`display-message`, or `show-buffer` of the same
 * buffer for the searches); the reference relay (tests/bench/relay_server.ts:
 * one stdio hop, one control-mode command); the bare round trip through the
 * pane for run-command; and nickgnd/tmux-mcp (`--peer DIR`, a built checkout
 * run with node; left out without it): `list-sessions`, `capture-pane`,
 * `execute-command` + `get-command-result` polls, its cold start.
 *
 *   deno task bench [--n 40] [--cold 7] [--peer DIR] [--sizes 32,256]
 */
import { connect, type McpFixture, ROOT, socketPathOf, startTmux } from "../helpers.ts";
import { coldStart, p50, rawSpawn, serverArgv } from "./cold_start.ts";
import { fillPane } from "./pane_text.ts";
import { prepareRelay, RELAY_CALLS } from "./relay.ts";
import { measureRunCommand } from "./run_command_bench.ts";
import { makeLog } from "./search_data.ts";
import { flag } from "./args.ts";

const N = Number(flag("--n") ?? 40);
const COLD = Number(flag("--cold") ?? 7);
const PEER = flag("--peer")?.replace(/\/$/, "");
const SIZES = (flag("--sizes") ?? "32,256").split(",").map(Number);
const SEARCH_RUNS = 3;
const MiB = 1024 * 1024;

const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const ms = (x: number | undefined) => x === undefined ? "—" : `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`;
const ratio = (a: number, b: number | undefined) => b === undefined ? "—" : `${(a / b).toFixed(2)}×`;
const timed = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

interface Row {
  what: string;
  ours: number;
  floor?: number;
  floorName: string;
  relay?: number;
  peer?: number;
}
const rows: Row[] = [];
const before = load();

const fx = await startTmux("table");
try {
  await fillPane(fx);
  // The relay and nickgnd/tmux-mcp speak the 2025 protocol only: every column uses the same (2025) client.
  const ours = await connect({ socketName: fx.socketName, era: "legacy" });
  const relay = await prepareRelay(fx.socketName);
  const relayClient = await connect({ spawn: relay.argv, era: "legacy" });
  const peerEnv = { TMUX: `${socketPathOf(fx.socketName)},0,0` };
  const peer: McpFixture | undefined = PEER
    ? await connect({ spawn: ["node", `${PEER}/build/index.js`], env: peerEnv, era: "legacy" })
    : undefined;
  try {
    const paneId = (await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}")).trim();
    const ok = (mcp: McpFixture, name: string, args: Record<string, unknown>) => async () => {
      const r = await mcp.client.callTool({ name, arguments: args });
      if (r.isError) throw new Error(`${name} failed`);
    };
    const kinds = {
      list: {
        ours: ok(ours, RELAY_CALLS.list.name, RELAY_CALLS.list.arguments),
        relay: ok(relayClient, RELAY_CALLS.list.name, RELAY_CALLS.list.arguments),
        peer: peer && ok(peer, "list-sessions", {}),
      },
      capture: {
        ours: ok(ours, RELAY_CALLS.capture.name, RELAY_CALLS.capture.arguments),
        relay: ok(relayClient, RELAY_CALLS.capture.name, RELAY_CALLS.capture.arguments),
        peer: peer && ok(peer, "capture-pane", { paneId, lines: "50" }),
      },
    };
    const t = { spawn: [] as number[], list: [[], [], []] as number[][], capture: [[], [], []] as number[][] };
    for (let i = -3; i < N; i++) { // three warm-up rounds
      const spawn = await rawSpawn(fx.socketName);
      if (i >= 0) t.spawn.push(spawn);
      for (const kind of ["list", "capture"] as const) {
        const cols = [kinds[kind].ours, kinds[kind].relay, kinds[kind].peer];
        for (let k = 0; k < 3; k++) {
          const c = (i + k + 3) % 3, f = cols[c];
          if (!f) continue;
          const x = await timed(f);
          if (i >= 0) t[kind][c].push(x);
        }
      }
    }
    const spawn = p50(t.spawn);
    for (const [kind, what] of [["list", "`list` sessions"], ["capture", "`capture-pane`, 50 lines"]] as const) {
      const [o, r, p] = t[kind];
      rows.push({
        what,
        ours: p50(o),
        floor: spawn,
        floorName: "spawn",
        relay: p50(r),
        peer: p.length ? p50(p) : undefined,
      });
    }

    // Searches: one buffer per size, the whole of it scanned; the floor is one spawned show-buffer of it.
    for (const size of SIZES) {
      const name = `log${size}`;
      const path = await Deno.makeTempFile();
      try {
        await Deno.writeFile(path, makeLog(false, size * MiB));
        await fx.tmux("load-buffer", "-b", name, path);
      } finally {
        await Deno.remove(path);
      }
      const show = () =>
        new Deno.Command("tmux", { args: ["-L", fx.socketName, "show-buffer", "-b", name], stdout: "null" }).output();
      const queries = [["literal", "failed"], ["regex", "ERROR code=E\\d+ needle-\\d+"]] as const;
      const times = { show: [] as number[], literal: [] as number[], regex: [] as number[] };
      for (let i = -1; i < SEARCH_RUNS; i++) {
        const s = await timed(show);
        if (i >= 0) times.show.push(s);
        for (const [mode, query] of queries) {
          const x = await timed(async () => {
            const r = await ours.ok<{ total_matches: number }>("search-buffer", {
              query,
              mode,
              buffers: [name],
              max_scan_bytes: size * MiB,
            });
            if (r.total_matches !== 40) throw new Error(`${mode}: ${r.total_matches} matches`);
          });
          if (i >= 0) times[mode].push(x);
        }
      }
      for (const [mode] of queries) {
        rows.push({
          what: `search ${mode}, ${size} MiB`,
          ours: p50(times[mode]),
          floor: p50(times.show),
          floorName: "show-buffer",
        });
      }
      await fx.tmux("delete-buffer", "-b", name);
    }
  } finally {
    await ours.close();
    await relayClient.close();
    await relay.close();
    await peer?.close();
  }

  // run-command `true`: its own tmux server and shells (tests/bench/run_command_bench.ts).
  for (const r of await measureRunCommand(Math.max(10, Math.floor(N / 2)), ["bash", "zsh", "fish"], PEER)) {
    rows.push({
      what: `run-command \`true\`, ${r.shell}`,
      ours: r.ours,
      floor: r.bare,
      floorName: "bare",
      peer: r.peer,
    });
  }

  // Cold start: spawn → the first tools/call answered, alternating ours and the peer.
  const cold = { ours: [] as number[], peer: [] as number[] };
  for (let i = 0; i < COLD; i++) {
    cold.ours.push((await coldStart(serverArgv(ROOT, fx.socketName), { PATH: Deno.env.get("PATH") ?? "" })).toolsCall);
    if (PEER) {
      const env = { PATH: Deno.env.get("PATH") ?? "", ...peerEnv };
      cold.peer.push(
        (await coldStart(["node", `${PEER}/build/index.js`], env, "legacy", { name: "list-sessions", arguments: {} }))
          .toolsCall,
      );
    }
  }
  rows.push({
    what: "cold start → first call answered",
    ours: p50(cold.ours),
    floorName: "",
    peer: cold.peer.length ? p50(cold.peer) : undefined,
  });
} finally {
  await fx.kill();
}

console.log(`Performance table, p50 (${N} rounds per call, ${SEARCH_RUNS} per search, ${COLD} cold starts)`);
console.log(`load average ${before} → ${load()}; ${Deno.version.deno}, ${
  new TextDecoder().decode(
    (await new Deno.Command("tmux", { args: ["-V"] }).output()).stdout,
  ).trim()
}\n`);
console.log(
  "| what | ours | floor: spawned tmux client / show-buffer / bare round trip | ours ÷ floor | relay floor | ours ÷ relay | nickgnd/tmux-mcp | ours ÷ it |",
);
console.log("| ---- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  const floor = r.floor === undefined ? "—" : `${ms(r.floor)} (${r.floorName})`;
  console.log(
    `| ${r.what} | ${ms(r.ours)} | ${floor} | ${ratio(r.ours, r.floor)} | ${ms(r.relay)} | ${
      ratio(r.ours, r.relay)
    } | ` +
      `${ms(r.peer)} | ${ratio(r.ours, r.peer)} |`,
  );
}
