/**
 * Cold start of the MCP server as a client sees it: from the
 * spawn of `deno run <start permissions> main.ts` to the `initialize` answer
 * (2025 era; `server/discover` in the 2026 era, `--era modern`), then to the
 * first `tools/list` answer (sent at once after it, as users' clients do) and
 * the first `tools/call` answer (`list {what: "sessions"}`), each measured
 * from the spawn. Raw JSON-RPC on
 * the pipes, no SDK client. With `--before DIR` (a checkout of an earlier
 * version, e.g. `git archive main | tar -x -C DIR`) the same starts on that
 * version, interleaved start by start so load changes hit both alike; a raw
 * `tmux display-message` spawn is measured in the same rounds, and with `--peer DIR` (a built
 * nickgnd/tmux-mcp checkout, run with node) the peer's cold start to its first `list-sessions` answer, with the
 * ratio of ours to it.
 *
 * `--client eliciting` starts as the clients people use (Claude Code, VS Code, Codex, Cursor) do: they declare
 * elicitation (form and URL) and roots, and send a progress token with each call (Claude Code its tool-use id
 * too, `claudecode/toolUseId`); `--client plain` (the default)
 * declares nothing; `both` runs each.
 *
 * Run: `deno run -A tests/bench/cold_start.ts [--cold 15] [--before DIR] [--era legacy|modern|both]
 * [--client plain|eliciting|both] [--mode on|off|both] [--peer DIR]` (`--before` starts are 2025-era
 * only when the earlier version has no 2026 era). Each version starts with its own `start` task's flags (since
 * 2026-11-28 they hold `--unstable-lazy-dynamic-imports`, without which `deno run` builds the module graph of every
 * dynamic import written as a literal at start, the SDK's and every tool's among them).
 *
 * @example
 * ```ts
 * declare const socketName: string; // a test server's (`startTmux`)
 * const t = await coldStart(serverArgv("./", socketName), { TMUX_MCP_CONTROL_MODE: "on" });
 * console.log(t.initialize, t.toolsList, t.toolsCall);
 * ```
 */
import { ROOT, socketPathOf, startFlags, startTmux } from "../helpers.ts";

const enc = new TextEncoder();

/** Milliseconds from the spawn to each answer. */
export interface ColdStart {
  initialize: number;
  toolsList: number;
  toolsCall: number;
}

/** The server's argv for a checkout (`root` ends with "/"), with its `start` task's flags; `denoFlags`: more. */
export const serverArgv = (root: string, socketName: string, denoFlags: string[] = []): string[] => [
  Deno.execPath(),
  "run",
  ...startFlags(root),
  ...denoFlags,
  root + "main.ts",
  "--socket-name",
  socketName,
];

/** What a client declares: nothing (`plain`), or elicitation and roots with a progress token on calls (`eliciting`). */
export type ClientKind = "plain" | "eliciting";

/** The capabilities a client of `kind` declares. */
const capabilitiesOf = (kind: ClientKind): Record<string, unknown> =>
  kind === "plain" ? {} : { roots: { listChanged: true }, elicitation: { form: {}, url: {} } };

/** The `_meta` envelope of a 2026-07-28 request. */
const envelopeOf = (kind: ClientKind) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": capabilitiesOf(kind),
});

/**
 * Spawns the server, then times initialize (`server/discover` in the modern era), tools/list and one tools/call
 * from the spawn.
 */
export async function coldStart(
  argv: string[],
  env: Record<string, string>,
  era: "legacy" | "modern" = "legacy",
  call: { name: string; arguments: Record<string, unknown> } = { name: "list", arguments: { what: "sessions" } },
  client: ClientKind = "plain",
): Promise<ColdStart> {
  const t = performance.now();
  const [command, ...args] = argv;
  const child = new Deno.Command(command, { args, env, stdin: "piped", stdout: "piped", stderr: "null" }).spawn();
  const w = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const send = (m: unknown) => w.write(enc.encode(JSON.stringify(m) + "\n"));
  const answer = async (id: number): Promise<number> => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const m = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (m.id !== id) continue;
        if (m.error || m.result?.isError) throw new Error(`request ${id} failed: ${JSON.stringify(m).slice(0, 300)}`);
        return performance.now() - t;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the server ended before answering");
      buf += value;
    }
  };
  const envelope = envelopeOf(client);
  const params = (p: Record<string, unknown> = {}) => era === "modern" ? { ...p, _meta: envelope } : p;
  if (era === "modern") {
    await send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: params() });
  } else {
    await send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: capabilitiesOf(client),
        clientInfo: { name: "bench", version: "0" },
      },
    });
  }
  const initialize = await answer(1);
  if (era === "legacy") await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: params() });
  const toolsList = await answer(2);
  const callParams = params(call);
  if (client === "eliciting") {
    // Claude Code's call: a progress token and its tool-use id.
    callParams._meta = {
      ...(callParams._meta as Record<string, unknown> | undefined),
      progressToken: 3,
      "claudecode/toolUseId": "toolu_01",
    };
  }
  await send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: callParams });
  const toolsCall = await answer(3);
  await w.close();
  await reader.cancel();
  await child.status;
  return { initialize, toolsList, toolsCall };
}

/** One raw `tmux display-message` spawn from Deno, in ms. */
export async function rawSpawn(socketName: string): Promise<number> {
  const t = performance.now();
  const out = await new Deno.Command("tmux", {
    args: ["-L", socketName, "display-message", "-p", "x"],
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!out.success) throw new Error("raw tmux failed");
  return performance.now() - t;
}

/** One start of an empty Deno program, spawn → exit, in ms: the floor under any Deno server's cold start. */
export async function emptyDeno(): Promise<number> {
  const t = performance.now();
  const out = await new Deno.Command(Deno.execPath(), { args: ["eval", ""], stdout: "null", stderr: "null" }).output();
  if (!out.success) throw new Error("deno eval failed");
  return performance.now() - t;
}

/** The median of `xs`. */
export const p50 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

if (import.meta.main) {
  const argv = Deno.args;
  const i = argv.indexOf("--cold");
  const COLD = i >= 0 ? Number(argv[i + 1]) : 15;
  const b = argv.indexOf("--before");
  const BEFORE = b >= 0 ? argv[b + 1].replace(/\/?$/, "/") : undefined;
  const e = argv.indexOf("--era");
  const ERA = e >= 0 ? argv[e + 1] : "legacy";
  const eras = (ERA === "both" ? ["legacy", "modern"] : [ERA]) as ("legacy" | "modern")[];
  const c = argv.indexOf("--client");
  const CLIENT = c >= 0 ? argv[c + 1] : "plain";
  const clients = (CLIENT === "both" ? ["plain", "eliciting"] : [CLIENT]) as ClientKind[];
  const m = argv.indexOf("--mode");
  const modes = (m >= 0 && argv[m + 1] !== "both" ? [argv[m + 1]] : ["on", "off"]) as ("on" | "off")[];
  const pi = argv.indexOf("--peer");
  const PEER = pi >= 0 ? argv[pi + 1].replace(/\/$/, "") : undefined;
  const fx = await startTmux();
  type Run = {
    label: string;
    root: string;
    mode: "on" | "off";
    era: "legacy" | "modern";
    client: ClientKind;
    xs: ColdStart[];
  };
  const runs: Run[] = [];
  const add = (root: string, before: boolean, era: "legacy" | "modern") => {
    for (const client of clients) {
      for (const mode of modes) {
        const label = `${before ? "before, " : ""}${era}, ${client} client, control mode ${mode}`;
        runs.push({ label, root, mode, era, client, xs: [] });
      }
    }
  };
  for (const era of eras) add(ROOT, false, era);
  if (BEFORE) {
    // An earlier version with the 2026 era (the SDK v2) starts in each era asked for; an older one in 2025's.
    const modern = (() => {
      try {
        return Deno.readTextFileSync(BEFORE + "lib/server/server.ts").includes("MODERN_VERSIONS");
      } catch {
        return false;
      }
    })();
    for (const era of modern ? eras : ["legacy" as const]) add(BEFORE, true, era);
  }
  const raw: number[] = [];
  const empty: number[] = [];
  const load0 = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
  const start = (r: Run) =>
    coldStart(
      serverArgv(r.root, fx.socketName),
      { TMUX_MCP_CONTROL_MODE: r.mode },
      r.era,
      undefined,
      r.client,
    );
  const peer: ColdStart[] = [];
  const startPeer = () =>
    coldStart(
      ["node", `${PEER}/build/index.js`],
      { PATH: Deno.env.get("PATH") ?? "", TMUX: `${socketPathOf(fx.socketName)},0,0` },
      "legacy",
      { name: "list-sessions", arguments: {} },
      clients[0],
    );
  for (const r of runs) await start(r); // warm
  if (PEER) await startPeer();
  for (let k = 0; k < COLD; k++) {
    raw.push(await rawSpawn(fx.socketName));
    empty.push(await emptyDeno());
    for (const r of runs) {
      r.xs.push(await start(r));
    }
    if (PEER) peer.push(await startPeer());
  }
  await fx.kill();
  const load1 = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
  const f = (x: number) => x.toFixed(1);
  console.log(`cold start, p50 of ${COLD} (ms from the spawn); load average ${load0} before, ${load1} after`);
  console.log("| | initialize (discover) answered | tools/list answered | first tools/call answered |");
  console.log("|---|---|---|---|");
  for (const r of runs) {
    console.log(
      `| ${r.label} | ${f(p50(r.xs.map((x) => x.initialize)))} | ${f(p50(r.xs.map((x) => x.toolsList)))} | ${
        f(p50(r.xs.map((x) => x.toolsCall)))
      } |`,
    );
  }
  if (PEER) {
    const call = p50(peer.map((x) => x.toolsCall));
    console.log(
      `| nickgnd/tmux-mcp | ${f(p50(peer.map((x) => x.initialize)))} | ${f(p50(peer.map((x) => x.toolsList)))} | ${
        f(call)
      } |`,
    );
    for (const r of runs) {
      console.log(`| ${r.label} ÷ nickgnd | | | ${(p50(r.xs.map((x) => x.toolsCall)) / call).toFixed(2)}× |`);
    }
  }
  console.log(`| raw \`tmux display-message\` spawn | ${f(p50(raw))} | | |`);
  console.log(`| empty Deno start (\`deno eval ""\`, spawn → exit) | ${f(p50(empty))} | | |`);
}
