/**
 * Smoke test of a tmux-mcp server command, the way an MCP client starts it.
 *
 * Starts a PRIVATE tmux server on a unique `-L` socket, starts the server
 * command given after `--` with `--socket-name <that socket>` appended,
 * connects the SDK client over stdio and checks `initialize`, `tools/list`
 * and real calls: set-buffer / show-buffer, a secret redacted (the rule
 * preset, loaded on first use), search-buffer with a regex (runs in the
 * search worker, which `deno compile` must have embedded), capture-pane,
 * pty-launch on the internal backend (loads libc through FFI), its screen as
 * PNG (resvg's wasm and the font, read from their npm packages) then
 * pty-kill-session. Afterwards it kills its tmux server and
 * removes the socket file. Any failure: exit 1 with one line on stderr.
 *
 * The release workflow runs it against every compiled binary; `.ci/run`
 * (through tests/smoke_test.ts) runs it against `deno run` with the start
 * task's permissions.
 *
 * @example
 * ```sh
 * deno run -A tests/smoke/smoke_client.ts -- ./tmux-mcp
 * deno run -A tests/smoke/smoke_client.ts -- deno task --quiet start
 * ```
 */
import { Client as ClientJs } from "@modelcontextprotocol/sdk/client/index.js";
import type { Client as ClientTyped } from "@modelcontextprotocol/sdk/client/index";
import { StdioClientTransport as StdioClientTransportJs } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StdioClientTransport as StdioClientTransportTyped } from "@modelcontextprotocol/sdk/client/stdio";
import { waitUntil } from "../pane_helpers.ts";

const Client: typeof ClientTyped = ClientJs;
const StdioClientTransport: typeof StdioClientTransportTyped = StdioClientTransportJs;

/** A failed check: its message is the one line printed. */
class SmokeFailure extends Error {}

function check(ok: unknown, what: string): asserts ok {
  if (!ok) throw new SmokeFailure(what);
}

const decoder = new TextDecoder();

async function tmux(socket: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", { args: ["-L", socket, ...args], stdin: "null", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new SmokeFailure(`tmux ${args[0]} failed: ${decoder.decode(out.stderr).trim().split("\n")[0]}`);
  }
  return decoder.decode(out.stdout);
}

/** The socket file of a `-L` name, as tmux computes it (TMUX_TMPDIR or /tmp, then tmux-<uid>). */
function socketFile(socket: string): string {
  const dir = Deno.env.get("TMUX_TMPDIR") || "/tmp";
  return `${dir}/tmux-${Deno.uid()}/${socket}`;
}

interface ToolResult {
  isError?: boolean;
  content?: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** Runs every check against `command`; throws {@linkcode SmokeFailure} on the first failure. */
export async function smoke(command: string[], socket: string): Promise<string[]> {
  const done: string[] = [];
  const [bin, ...args] = command;
  const env: Record<string, string> = {};
  for (const k of ["PATH", "HOME", "TMPDIR", "TMUX_TMPDIR", "DENO_DIR", "LANG"]) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  const transport = new StdioClientTransport({
    command: bin,
    args: [...args, "--socket-name", socket, "--terminal-backend", "pty"],
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Uint8Array) => stderr += decoder.decode(d));
  const client = new Client({ name: "tmux-mcp-smoke", version: "0.0.0" });
  try {
    try {
      await client.connect(transport);
    } catch (e) {
      const last = stderr.trim().split("\n").pop() ?? "";
      throw new SmokeFailure(`initialize failed: ${(e as Error).message}${last ? ` (server stderr: ${last})` : ""}`);
    }
    const info = client.getServerVersion();
    check(info?.name && info.version, "initialize: the server sent no serverInfo name/version");
    done.push(`initialize: ${info.name} ${info.version}`);

    const { tools } = await client.listTools();
    const names = new Set(tools.map((t) => t.name));
    for (const t of ["set-buffer", "show-buffer", "search-buffer", "capture-pane", "pty-launch", "pty-kill-session"]) {
      check(names.has(t), `tools/list: "${t}" is missing (${tools.length} tools listed)`);
    }
    done.push(`tools/list: ${tools.length} tools`);

    const callResult = async (name: string, a: Record<string, unknown>): Promise<ToolResult> => {
      const r = await client.callTool({ name, arguments: a }, undefined, { timeout: 60_000 }) as ToolResult;
      const text = r.content?.find((c) => c.type === "text")?.text ?? "";
      check(!r.isError, `${name} failed: ${text.split("\n")[0]}`);
      return r;
    };
    const call = async (name: string, a: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const r = await callResult(name, a);
      check(r.structuredContent, `${name}: no structured content`);
      return r.structuredContent;
    };

    const content = "alpha 1\nsmoke-marker-42 beta\ngamma 3\n";
    await call("set-buffer", { name: "smoke", content });
    const shown = await call("show-buffer", { name: "smoke" });
    check(shown.text === content, `show-buffer returned ${JSON.stringify(shown.text)}, not what set-buffer stored`);
    done.push("set-buffer / show-buffer: round trip");

    const token = "ghp" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    await call("set-buffer", { name: "smoke-secret", content: `token ${token} (smoke)\n` });
    const hidden = String((await call("show-buffer", { name: "smoke-secret" })).text);
    check(!hidden.includes(token) && hidden.includes("[redacted:github:"), `show-buffer did not redact: ${hidden}`);
    done.push("show-buffer: a token redacted by the rule preset");

    const found = await call("search-buffer", { query: "smoke-marker-\\d+", mode: "regex", buffers: ["smoke"] });
    const matches = found.matches as { line?: number }[] | undefined;
    check(
      Array.isArray(matches) && matches.length === 1,
      `search-buffer (regex) found ${matches?.length} matches, not 1`,
    );
    done.push("search-buffer: regex in the search worker");

    await tmux(socket, "send-keys", "-t", "smoke", "-l", "echo smoke-pane-$((6*7))");
    await tmux(socket, "send-keys", "-t", "smoke", "Enter");
    // Poll (generously bounded) until the shell has printed the result.
    const echoed = await waitUntil("the echoed text", async () => {
      return String((await call("capture-pane", { target: "smoke" })).text ?? "").includes("smoke-pane-42");
    }, 30_000).catch(() => false);
    check(echoed, "capture-pane: the pane never showed the echoed text");
    done.push("capture-pane: pane output");

    const launched = await call("pty-launch", { command: "cat" });
    const id = launched.pty_id;
    check(typeof id === "string" && id, "pty-launch: no pty_id");
    const image = (await callResult("pty-get-screen", { pty_id: id, format: "png" })).content
      ?.find((c) => c.type === "image");
    const png = image?.data ? Uint8Array.from(atob(image.data.slice(0, 12)), (c) => c.charCodeAt(0)) : undefined;
    check(
      image?.mimeType === "image/png" && png?.[1] === 0x50 && png[2] === 0x4e && png[3] === 0x47,
      "pty-get-screen format png: no PNG image block",
    );
    await call("pty-kill-session", { pty_id: id });
    done.push("pty-launch / pty-get-screen png / pty-kill-session: internal backend (FFI), resvg wasm and font");
  } finally {
    await client.close().catch(() => {});
  }
  return done;
}

async function main(argv: string[]): Promise<number> {
  const sep = argv.indexOf("--");
  const command = sep >= 0 ? argv.slice(sep + 1) : argv;
  if (command.length === 0) {
    console.error("usage: smoke_client.ts -- <server command and args>");
    return 2;
  }
  const socket = `tmcp-smoke-${Deno.pid}-${Date.now().toString(36)}`;
  let code = 0;
  try {
    // -f /dev/null: the user's ~/.tmux.conf stays out of it; a clean sh keeps the pane fast and predictable.
    await tmux(socket, "-f", "/dev/null", "new-session", "-d", "-s", "smoke", "-x", "120", "-y", "40", "sh");
    for (const line of await smoke(command, socket)) console.log(`ok  ${line}`);
    console.log(`smoke test passed: ${command.join(" ")}`);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    console.error(`smoke test FAILED: ${message.split("\n")[0]}`);
    code = 1;
  } finally {
    await tmux(socket, "kill-server").catch(() => {});
    await Deno.remove(socketFile(socket)).catch(() => {});
  }
  return code;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
