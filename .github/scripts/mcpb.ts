/**
 * Builds one MCP Bundle (`.mcpb`, for Claude Desktop's one-click install)
 * per target: `manifest.json` (manifest_version 0.3 of the
 * modelcontextprotocol/mcpb specification, checked against its schema from
 * the pinned @anthropic-ai/mcpb before packing), the binary as
 * `server/tmux-mcp`, icon.png and LICENSE, packed by that package's own
 * packer into `<out>/tmux-mcp-<version>-<target>.mcpb`. The settings users
 * see — the tmux socket name and the safety tier — reach the server as its
 * environment variables (empty: the server's default). With `--sums FILE`
 * the bundles' checksum lines are appended to that SHA256SUMS.
 *
 * @example
 * ```sh
 * deno run --allow-read --allow-write --allow-env --allow-sys .github/scripts/mcpb.ts \
 *   --version 0.2.0 --dist dist --out release --repo owner/tmux-mcp --sums release/SHA256SUMS
 * ```
 */
import { MANIFEST_SCHEMAS, packExtension } from "@anthropic-ai/mcpb";
import {
  assertRepo,
  assertVersion,
  bundleName,
  parseFlags,
  ReleaseError,
  runScript,
  sha256File,
  type Target,
  TARGETS,
} from "./release.ts";

/** The manifest of one target's bundle. */
export function manifest(
  version: string,
  repo: string,
  target: Target,
  tools: { name: string; description: string }[],
) {
  const url = `https://github.com/${assertRepo(repo)}`;
  return {
    manifest_version: "0.3",
    name: "tmux-mcp",
    display_name: "tmux",
    version: assertVersion(version),
    description:
      "Lets Claude drive terminals through tmux: sessions, panes, commands and their output, waits, buffers.",
    long_description:
      "tmux-mcp gives an agent a small, safe, fast tool surface over tmux: find and arrange sessions, " +
      "type into panes, run a command and get back exactly its output and exit code, wait for output without " +
      "polling, and keep large text in tmux buffers instead of the context window. Needs tmux 3.2 or newer " +
      "(`brew install tmux`). Give it a socket name of its own to keep it off your own tmux sessions.",
    author: { name: "tmux-mcp contributors", url },
    repository: { type: "git", url: `${url}.git` },
    homepage: url,
    documentation: `${url}#readme`,
    support: `${url}/issues`,
    icon: "icon.png",
    server: {
      type: "binary",
      entry_point: "server/tmux-mcp",
      mcp_config: {
        command: "${__dirname}/server/tmux-mcp",
        args: [],
        // The server reads these like its flags; an empty value is as if unset (the default).
        env: { TMUX_MCP_SOCKET_NAME: "${user_config.socket_name}", TMUX_MCP_SAFETY: "${user_config.safety}" },
      },
    },
    tools,
    keywords: ["tmux", "terminal", "shell", "panes", "automation"],
    license: "MIT",
    compatibility: { platforms: [target.nodePlatform] },
    user_config: {
      socket_name: {
        type: "string",
        title: "tmux socket name",
        description: "The tmux server to drive, as tmux -L NAME. Empty: your default tmux server. " +
          "A name of its own, such as agent, keeps Claude off your sessions (attach with tmux -L agent attach).",
        default: "",
        required: false,
      },
      safety: {
        type: "string",
        title: "Safety tier",
        description: "The highest tier of tools served: readonly (only look), mutating (the default: type, run, " +
          "create) or destructive (also kill sessions, windows and panes).",
        default: "mutating",
        required: false,
      },
    },
  };
}

/** Every tool with the first sentence of its description (lib/tools/listing.json). */
export function toolsOf(listing: { tool: { name: string; description: string } }[]) {
  return listing.map(({ tool }) => ({ name: tool.name, description: tool.description.split(/(?<=\.)\s/)[0] }));
}

/** Throws a one-line error unless `m` passes the specification's schema for its manifest_version. */
export function checkManifest(m: { manifest_version: string }): void {
  const schema = MANIFEST_SCHEMAS[m.manifest_version as keyof typeof MANIFEST_SCHEMAS];
  if (!schema) throw new ReleaseError(`manifest_version ${m.manifest_version} is not one @anthropic-ai/mcpb knows`);
  const r = schema.safeParse(m);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new ReleaseError(`manifest.json does not follow the MCPB schema: ${i.path.join(".")}: ${i.message}`);
  }
}

/** Builds every target's bundle; returns the SHA256SUMS lines of the bundles. */
export async function buildBundles(
  o: { version: string; dist: string; out: string; repo: string; root: string },
): Promise<string[]> {
  const listing = JSON.parse(await Deno.readTextFile(`${o.root}/lib/tools/listing.json`));
  await Deno.mkdir(o.out, { recursive: true });
  const lines: string[] = [];
  for (const [key, target] of Object.entries(TARGETS)) {
    const binary = `${o.dist}/tmux-mcp-${key}`;
    try {
      if (!Deno.statSync(binary).isFile) throw new Error();
    } catch {
      throw new ReleaseError(`no binary ${binary}: did \`deno task compile\` build ${key}?`);
    }
    const m = manifest(o.version, o.repo, target, toolsOf(listing));
    checkManifest(m);
    const stage = await Deno.makeTempDir({ prefix: "tmux-mcp-mcpb-" });
    try {
      await Deno.mkdir(`${stage}/server`);
      await Deno.copyFile(binary, `${stage}/server/tmux-mcp`);
      await Deno.chmod(`${stage}/server/tmux-mcp`, 0o755);
      await Deno.copyFile(`${o.root}/.github/mcpb/icon.png`, `${stage}/icon.png`);
      await Deno.copyFile(`${o.root}/LICENSE`, `${stage}/LICENSE`);
      await Deno.writeTextFile(`${stage}/manifest.json`, JSON.stringify(m, null, 2) + "\n");
      const file = `${await Deno.realPath(o.out)}/${bundleName(o.version, key)}`;
      // The packer's validator logs on stdout even when silent: to stderr with it, stdout is the checksum lines.
      const log = console.log;
      console.log = console.error;
      const packed = await packExtension({ extensionPath: stage, outputPath: file, silent: true })
        .finally(() => console.log = log);
      if (!packed) {
        throw new ReleaseError(`packing ${bundleName(o.version, key)} failed (run \`mcpb pack\` on it to see why)`);
      }
      lines.push(`${await sha256File(file)}  ${bundleName(o.version, key)}`);
    } finally {
      await Deno.remove(stage, { recursive: true });
    }
  }
  return lines;
}

if (import.meta.main) {
  await runScript("mcpb", async () => {
    const f = parseFlags(Deno.args, ["version", "dist", "out", "repo"], ["sums"]);
    const root = new URL("../..", import.meta.url).pathname;
    const lines = await buildBundles({ version: f.version, dist: f.dist, out: f.out, repo: f.repo, root });
    if (f.sums) await Deno.writeTextFile(f.sums, lines.join("\n") + "\n", { append: true });
    console.log(lines.join("\n"));
  });
}
