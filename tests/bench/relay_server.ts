/**
 * The reference the round-trip bench compares against (tests/bench/roundtrip.ts
 * "relay" column): the least an MCP server in Deno can do per call with the
 * same tmux work. It answers `initialize` and `tools/list` (our listing), and
 * a `tools/call` by writing that tool's tmux command line to its own `tmux -C`
 * client, waiting for the reply blocks and answering with a result recorded
 * from the real server: one JSON parse, one pipe write, one JSON write. No
 * SDK, no validation, no pipeline, no audit — not a server to use, a floor to
 * measure ours against.
 *
 * Run: `deno run -A tests/bench/relay_server.ts SOCKET_NAME CALLS_JSON_FILE`, where
 * the file maps a tool name to `{ line, commands, result }` (a tool missing
 * there is answered with an error result at once, as our refused calls are).
 */
import { byteReader } from "../../lib/byte_reader.ts";
import { stdinReader, stdoutWriter, useEventLoop } from "../../lib/server/stdio.ts";

interface Canned {
  /** The control-mode command line, as our server sends it. */
  line: string;
  /** How many commands the line holds (reply blocks to wait for). */
  commands: number;
  result: unknown;
}

const [socketName, callsFile] = Deno.args;
const calls: Record<string, Canned> = JSON.parse(await Deno.readTextFile(callsFile));
const listing = JSON.parse(await Deno.readTextFile(new URL("../../lib/tools/listing.json", import.meta.url)));
const tools = listing.map((e: { tool: unknown }) => e.tool);
const enc = new TextEncoder();
const dec = new TextDecoder();

const tmux = new Deno.Command("tmux", {
  args: ["-L", socketName, "-C", "attach-session", "-f", "read-only,ignore-size,no-output"],
  stdin: "piped",
  stdout: "piped",
  stderr: "null",
}).spawn();
const toTmux = tmux.stdin.getWriter();
/** Replies awaited, in the order their lines were written: blocks still to come, and who waits. */
const awaited: { blocks: number; done: () => void }[] = [];
const OWN_END = /^%(end|error) \d+ \d+ 1$/;

async function readReplies() {
  let rest = "";
  const reader = byteReader(tmux.stdout);
  for (let chunk = await reader.read(); chunk; chunk = await reader.read()) {
    const lines = (rest + dec.decode(chunk)).split("\n");
    rest = lines.pop()!;
    for (const l of lines) {
      if (OWN_END.test(l) && awaited.length > 0 && --awaited[0].blocks === 0) awaited.shift()!.done();
    }
  }
}
void readReplies();

// Our server's own stdin and stdout routes: what reading and writing them costs is part of the floor.
await useEventLoop();
const out = stdoutWriter();
const reply = (id: unknown, result: unknown) => out(enc.encode(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n"));

async function answer(m: { id?: unknown; method: string; params?: Record<string, unknown> }) {
  if (m.id === undefined) return;
  if (m.method === "initialize") {
    return await reply(m.id, {
      protocolVersion: m.params?.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "relay", version: "0" },
    });
  }
  if (m.method === "tools/list") return await reply(m.id, { tools });
  const canned = m.method === "tools/call" ? calls[m.params?.name as string] : undefined;
  if (!canned) return await reply(m.id, { content: [{ type: "text", text: "unknown tool" }], isError: true });
  const replied = new Promise<void>((done) => awaited.push({ blocks: canned.commands, done }));
  await toTmux.write(enc.encode(canned.line + "\n"));
  await replied;
  await reply(m.id, canned.result);
}

let pending = "";
const input = stdinReader();
for (let chunk = await input.read(); chunk; chunk = await input.read()) {
  const lines = (pending + dec.decode(chunk)).split("\n");
  pending = lines.pop()!;
  for (const l of lines) if (l.trim()) void answer(JSON.parse(l));
}
await toTmux.close().catch(() => {});
await tmux.status;
