/**
 * What secret redaction costs end to end: the same calls against two
 * servers on one tmux, `--redact off` (the baseline) and `--redact on`:
 * search-buffer over a 32 MiB buffer, literal and regex (40 matches,
 * snippets redacted), and capture-pane of a 50-line screen and of 2,000
 * lines of history. Target: on ≤ 1.1 × off. Then the redactor alone, in
 * this process, in CPU time (steadier than wall time on a shared machine):
 * on the texts those calls return, and on 2,000 lines of output whose lines
 * make the rule preset run (hashes, paths, base64) — with `--before DIR`
 * (an earlier checkout, e.g. `git archive ecea101 | tar -x -C DIR`) beside
 * that version's redactor.
 *
 * The two servers take turns call by call, and each round starts with the
 * other one, so load changes on a shared machine hit both alike; figures are
 * p50 and min of the wall time over the rounds, and each server's own CPU
 * time per call (from /proc: what load on a shared machine changes least),
 * with the load average before and after.
 *
 * Run: `deno run --allow-all tests/bench/redact_bench.ts [--rounds 30] [--before DIR]`
 */
import { connect, startTmux } from "../helpers.ts";
import { makeLog } from "./search_data.ts";
import { newPane, waitUntil } from "../pane_helpers.ts";
import { p50 } from "./cold_start.ts";
import process from "node:process";
import { createRedactor, type Redactor } from "../../lib/text/redact.ts";
import { flag } from "./args.ts";

const ROUNDS = Number(flag("--rounds") ?? 30);
const BEFORE = flag("--before")?.replace(/\/$/, "");
const SIZE = 32 * 1024 * 1024;
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

const tmux = await startTmux("bench");
const servers: Awaited<ReturnType<typeof connect>>[] = [];
try {
  await tmux.tmuxStdin(makeLog(false, SIZE), "load-buffer", "-b", "log", "-");
  await tmux.tmux("set-option", "-g", "history-limit", "5000");
  const pane = await newPane(
    tmux,
    `awk 'BEGIN { for (i = 1; i <= 3000; i++) print "line " i ": GET /api/v1/items?id=" i " 200 12ms user=alice" }'; ` +
      "exec sleep 3600",
  );
  await tmux.tmux("resize-window", "-t", pane, "-x", "120", "-y", "50");
  await waitUntil(
    "the bench pane to show its last line",
    async () => /line 3000:/.test(await tmux.tmux("capture-pane", "-p", "-t", pane)),
  );
  const off = await connect({ socketName: tmux.socketName, args: ["--redact", "off"] });
  servers.push(off);
  const on = await connect({ socketName: tmux.socketName, args: ["--redact", "on"] });
  servers.push(on);

  const calls: [string, string, Record<string, unknown>][] = [
    ["search-buffer 32 MiB literal", "search-buffer", { query: "failed", buffers: ["log"], max_scan_bytes: SIZE }],
    ["search-buffer 32 MiB regex", "search-buffer", {
      query: "ERROR code=E\\d+ needle-\\d+",
      mode: "regex",
      buffers: ["log"],
      max_scan_bytes: SIZE,
    }],
    ["capture-pane 50 lines", "capture-pane", { target: pane, max_lines: 50 }],
    ["capture-pane 2000 lines", "capture-pane", { target: pane, start: -2000, max_lines: 2000 }],
  ];
  // Warm-up: both servers load their modules (and the rule preset) and run each call's code hot before anything
  // is timed (a first call costs either server several times a later one).
  for (let w = 0; w < 5; w++) for (const [, tool, args] of calls) for (const s of [off, on]) await s.ok(tool, args);

  const times = calls.map(() => ({ off: [] as number[], on: [] as number[] }));
  const cpu = calls.map(() => ({ off: 0, on: 0 }));
  const tick = 1000 / 100; // ms per clock tick (USER_HZ)
  const cpuOf = (pid: number) => {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * tick; // utime + stime
  };
  const loadBefore = load();
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
    for (const [i, [, tool, args]] of calls.entries()) {
      for (const mode of order) {
        const server = mode === "off" ? off : on;
        const c0 = cpuOf(server.pid);
        const t0 = performance.now();
        await server.ok(tool, args);
        times[i][mode].push(performance.now() - t0);
        cpu[i][mode] += cpuOf(server.pid) - c0;
      }
    }
  }
  const loadAfter = load();
  console.log(`${ROUNDS} interleaved rounds; load average before ${loadBefore}, after ${loadAfter}\n`);
  console.log(
    "| call | off p50 ms | on p50 ms | on/off p50 | off min ms | on min ms | on/off min | server CPU ms/call off | on | on/off |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  const f = (n: number) => n.toFixed(n < 10 ? 2 : 1);
  for (const [i, [label]] of calls.entries()) {
    const t = times[i];
    const [a, b] = [p50(t.off), p50(t.on)];
    const [c, d] = [Math.min(...t.off), Math.min(...t.on)];
    const [x, y] = [cpu[i].off / ROUNDS, cpu[i].on / ROUNDS];
    console.log(
      `| ${label} | ${f(a)} | ${f(b)} | ${(b / a).toFixed(3)} | ${f(c)} | ${f(d)} | ${(d / c).toFixed(3)} | ` +
        `${f(x)} | ${f(y)} | ${(y / x).toFixed(3)} |`,
    );
  }

  // The redactor alone: CPU time per call, the minimum and the median of batches taken in turns.
  const preset = await import("@secretlint/secretlint-rule-preset-recommend");
  const rules = (preset as unknown as { rules: Parameters<typeof createRedactor>[0] }).rules;
  const redactors: [string, Redactor][] = [["now", createRedactor(rules)]];
  if (BEFORE) {
    const old = await import(`${BEFORE}/lib/text/redact.ts`);
    redactors.unshift(["before", old.createRedactor(rules)]);
  }
  const hex = (n: number) => Array.from({ length: n }, (_, i) => "0123456789abcdef"[(i * 7 + n) % 16]).join("");
  const texts: [string, string][] = [];
  for (const [label, tool, args] of calls) texts.push([label, JSON.stringify(await off.ok(tool, args))]);
  const lines = (f: (i: number) => string) => Array.from({ length: 2000 }, (_, i) => f(i)).join("\n");
  texts.push(
    ["2000 lines: sha256sum", lines((i) => `${hex(64 + (i % 7))}  ./dist/chunk-${i}.js`)],
    ["2000 lines: git log --oneline", lines((i) => `${hex(40 + (i % 5)).slice(0, 40)} Fix parser case ${i}`)],
    ["2000 lines: compiler paths", lines((i) => `/home/user/project/src/lib/module_${i}.ts:34:5 - error TS2345`)],
    ["2000 lines: base64", lines((i) => btoa(`${hex(57)}${i}`))],
  );
  const cpuMs = (f: () => void, n: number) => {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) f();
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000 / n;
  };
  console.log(`\nredact() alone, CPU ms per call (min / median of 12 batches of 5); load average ${load()}\n`);
  console.log(`| text | chars | ${redactors.map(([n]) => n).join(" | ")} |`);
  console.log(`|---|---|${redactors.map(() => "---").join("|")}|`);
  for (const [label, text] of texts) {
    const per = redactors.map(() => [] as number[]);
    for (const [, r] of redactors) r.redact(text + " ");
    for (let b = 0; b < 12; b++) {
      for (let k = 0; k < redactors.length; k++) {
        const j = (b + k) % redactors.length;
        per[j].push(cpuMs(() => redactors[j][1].redact(text + " " + b), 5));
      }
    }
    const cells = per.map((xs) => {
      xs.sort((x, y) => x - y);
      return `${f(xs[0])} / ${f(xs[6])}`;
    });
    console.log(`| ${label} | ${text.length} | ${cells.join(" | ")} |`);
  }
} finally {
  for (const s of servers) await s.close();
  await tmux.kill();
}
