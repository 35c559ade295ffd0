/**
 * The hostile-input corpus: table-driven cases (tests/hostile/types.ts) from
 * every module in {@linkcode MODULES}, run through the MCP client against one
 * private tmux server, with one MCP server per safety tier. For each case:
 * substitute the placeholders, call, check the outcome and message, check
 * that its canary file was not created, and check that the server still
 * answers. At the end: no canary anywhere, the scratch session alive.
 */
import { assert, assertEquals } from "./assert.ts";
import { connect, type McpFixture, startTmux, textOf, type TmuxFixture } from "./helpers.ts";
import { tempDir } from "./pane_helpers.ts";
import { decodeCursor } from "../lib/exec/cursor.ts";
import type { HostileCase } from "./hostile/types.ts";

/**
 * Case modules; each exports `CASES` (or a default array) of {@linkcode HostileCase}.
 * A module that also exports `setup` builds a world of its own (sessions its
 * cases name, an environment for the MCP servers): its cases run on a tmux
 * server of their own, in the order listed (a case may depend on an earlier
 * one), and `afterEach` runs after each of them (to fire hooks and aliases).
 */
const MODULES = [
  "./hostile/buffers_cases.ts",
  "./hostile/files_cases.ts",
  "./hostile/workspace_cases.ts",
  "./hostile/exec_cases.ts",
  "./hostile/pty_cases.ts",
  "./hostile/tmux_cases.ts",
];

type Tier = NonNullable<HostileCase["safety"]>;

interface World {
  setup(tmux: TmuxFixture): Promise<{ env?: Record<string, string> }>;
  afterEach?(tmux: TmuxFixture): Promise<void>;
}

interface CaseModule {
  path: string;
  cases: readonly HostileCase[];
  world?: World;
}

async function loadModules(): Promise<CaseModule[]> {
  const all: CaseModule[] = [];
  for (const path of MODULES) {
    const m = await import(path);
    const cases = (m.CASES ?? m.default) as HostileCase[] | undefined;
    assert(Array.isArray(cases), `${path} exports CASES`);
    all.push({ path, cases, world: m.setup ? { setup: m.setup, afterEach: m.afterEach } : undefined });
  }
  return all;
}

const B64_CURSOR = "tmc1.B64:";

/** Replaces placeholders in every string (and object key) of a value; encodes `tmc1.B64:` cursors. */
function substitute(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === "string") {
    const s = value.replace(/\{\{([A-Z_]+)\}\}/g, (m, k) => vars[k] ?? m);
    if (!s.startsWith(B64_CURSOR)) return s;
    const b64 = btoa(String.fromCharCode(...new TextEncoder().encode(s.slice(B64_CURSOR.length))));
    return "tmc1." + b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [substitute(k, vars) as string, substitute(v, vars)]),
    );
  }
  return value;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function makeFixtures(dir: string): Promise<void> {
  const r = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
  assert(r.success, "mkfifo");
  await Deno.mkdir(`${dir}/dir`);
  await Deno.mkdir(`${dir}/out`);
  await Deno.writeTextFile(`${dir}/file.txt`, "hello\n");
  const links: Record<string, string> = {
    "link-environ": "/proc/self/environ",
    "link-zero": "/dev/zero",
    "link-urandom": "/dev/urandom",
    "link-stdout": "/proc/self/fd/1",
    "link-stdin": "/proc/self/fd/0",
    "link-fifo": `${dir}/fifo`,
    "link-dir": `${dir}/dir`,
    "link-file": `${dir}/file.txt`,
    "link-dangling": `${dir}/nothing-here`,
    "proc": "/proc/self",
  };
  for (const [name, target] of Object.entries(links)) await Deno.symlink(target, `${dir}/${name}`);
}

/**
 * Runs one case on its server: outcome, one-line message, canary, and that
 * both the MCP server and the tmux server still answer. Returns false when
 * the MCP server stopped answering (its remaining cases cannot run).
 */
async function runCase(
  mcp: McpFixture,
  tmux: TmuxFixture,
  c: HostileCase,
  vars: Record<string, string>,
  failures: string[],
  afterEach?: (tmux: TmuxFixture) => Promise<void>,
): Promise<boolean> {
  const label = `[${c.safety ?? "mutating"}] ${c.name}`;
  const args = substitute(c.args, vars) as Record<string, unknown>;
  let text = "";
  let isError = false;
  try {
    const r = await mcp.client.callTool({ name: c.tool, arguments: args }, undefined, { timeout: 30_000 });
    isError = Boolean(r.isError);
    text = textOf(r as Parameters<typeof textOf>[0]);
  } catch (e) {
    failures.push(`${label}: the call itself failed (${(e as Error).message})`);
    return true;
  }
  const wantError = c.expect !== "ok";
  if (isError !== wantError) {
    failures.push(`${label}: expected ${c.expect}, got ${isError ? "error" : "ok"}: ${text.slice(0, 300)}`);
  } else if (c.match && !c.match.test(text)) {
    failures.push(`${label}: message does not match ${c.match}: ${text.slice(0, 300)}`);
  }
  if (wantError && (text.includes("\n") || /^\s+at /m.test(text) || /internal error/.test(text))) {
    failures.push(`${label}: not a one-line error: ${text.slice(0, 300)}`);
  }
  await afterEach?.(tmux);
  if (await exists(vars.CANARY)) failures.push(`${label}: the canary ${vars.CANARY} was created`);
  if (!await tmux.tmux("list-sessions").then(() => true, () => false)) {
    failures.push(`${label}: the tmux server stopped answering`);
  }
  try {
    await mcp.client.ping({ timeout: 10_000 });
  } catch (e) {
    failures.push(`${label}: the server stopped answering (${(e as Error).message})`);
    return false;
  }
  return true;
}

/** One MCP server per tier the cases use, on the fixture's socket. */
async function serversFor(
  tmux: TmuxFixture,
  cases: readonly HostileCase[],
  env?: Record<string, string>,
): Promise<Map<Tier, McpFixture>> {
  const servers = new Map<Tier, McpFixture>();
  for (const tier of new Set(cases.map((c) => c.safety ?? "mutating"))) {
    servers.set(tier, await connect({ socketName: tmux.socketName, args: ["--safety", tier], env }));
  }
  return servers;
}

function assertUniqueNames(cases: readonly HostileCase[]): void {
  const names = new Set<string>();
  for (const c of cases) {
    assert(!names.has(c.name), `case names are unique: ${c.name}`);
    names.add(c.name);
  }
}

const modules = await loadModules();
const shared = modules.filter((m) => !m.world).flatMap((m) => m.cases);
const total = modules.reduce((n, m) => n + m.cases.length, 0);

Deno.test(`hostile corpus (${shared.length} cases): every case refused, failed or harmless; no canary; the server keeps answering`, async () => {
  const cases = shared;
  assertUniqueNames(cases);
  const tmux = await startTmux("hostile");
  const fixtures = await tempDir("tmcp-hostile-fx-");
  const canaries = await tempDir("tmcp-hostile-canary-");
  await makeFixtures(fixtures);
  const [session, window, pane] = (await tmux.tmux(
    ...["new-session", "-d", "-s", "scratch", "-P", "-F", "#{session_id} #{window_id} #{pane_id}"],
    "cat > /dev/null",
  )).trim().split(" ");
  let servers = new Map<Tier, McpFixture>();
  const failures: string[] = [];
  let canaryCount = 0;
  try {
    servers = await serversFor(tmux, cases);
    const base = { FIXTURES: fixtures, PANE: pane, WINDOW: window, SESSION: session };
    const probe = servers.get("mutating") ?? servers.values().next().value!;
    const first = await probe.ok<{ cursor: string }>("capture-since", { target: pane });
    const cursorPid = String(decodeCursor(first.cursor).pid);
    // Each tier's cases run in order on its own server; the tiers run side by side.
    await Promise.all([...servers].map(async ([tier, mcp]) => {
      let pty = "no-such-pty";
      if (tier !== "readonly") {
        pty = (await mcp.ok<{ pty_id: string }>("pty-launch", { command: "cat > /dev/null" })).pty_id;
      }
      for (const c of cases.filter((x) => (x.safety ?? "mutating") === tier)) {
        const vars = { ...base, PTY: pty, CANARY: `${canaries}/canary-${++canaryCount}`, CURSOR_PID: cursorPid };
        if (!await runCase(mcp, tmux, c, vars, failures)) return;
      }
    }));
    // #(…) runs in the background in tmux: look at every canary again once everything has run.
    for (const entry of Deno.readDirSync(canaries)) failures.push(`canary ${entry.name} exists after the run`);
    assertEquals((await tmux.tmux("display-message", "-p", "-t", pane, "#{pane_id}")).trim(), pane, "scratch alive");
  } finally {
    for (const s of servers.values()) await s.close();
    await tmux.kill();
    await Deno.remove(fixtures, { recursive: true }).catch(() => {});
    await Deno.remove(canaries, { recursive: true }).catch(() => {});
  }
  assert(failures.length === 0, `${failures.length} of ${cases.length} cases failed:\n${failures.join("\n")}`);
});

for (const m of modules.filter((x) => x.world)) {
  Deno.test(`hostile corpus ${m.path} (${m.cases.length} cases, own world, in order)`, async () => {
    assertUniqueNames(m.cases);
    const tmux = await startTmux("hostile");
    const canaries = await tempDir("tmcp-hostile-canary-");
    let servers = new Map<Tier, McpFixture>();
    const failures: string[] = [];
    try {
      const { env } = await m.world!.setup(tmux);
      servers = await serversFor(tmux, m.cases, env);
      for (const [i, c] of m.cases.entries()) {
        const mcp = servers.get(c.safety ?? "mutating")!;
        if (!await runCase(mcp, tmux, c, { CANARY: `${canaries}/canary-${i}` }, failures, m.world!.afterEach)) break;
      }
      for (const entry of Deno.readDirSync(canaries)) failures.push(`canary ${entry.name} exists after the run`);
    } finally {
      for (const s of servers.values()) await s.close();
      await tmux.kill();
      await Deno.remove(canaries, { recursive: true }).catch(() => {});
    }
    assert(failures.length === 0, `${failures.length} of ${m.cases.length} cases failed:\n${failures.join("\n")}`);
  });
}

Deno.test("the hostile corpus holds at least 250 cases across the toolsets", () => {
  assert(total >= 250, `the corpus has ${total} cases`);
});
