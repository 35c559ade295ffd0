/**
 * Writes the MCP Registry's `server.json` for one release: the npm launcher
 * package and one `.mcpb` bundle per target (its release download URL and
 * its SHA-256 from the release's SHA256SUMS), all over stdio, with the two
 * settings a registry client may ask for (socket name, safety tier) as
 * environment variables. The registry name is `io.github.<owner>/<repo>`,
 * which the npm launcher's `mcpName` repeats (the registry checks that).
 *
 * @example
 * ```sh
 * deno run --allow-read .github/scripts/server_json.ts \
 *   --version 0.2.0 --repo owner/tmux-mcp --sums release/SHA256SUMS > release/server.json
 * ```
 */
import {
  assertRepo,
  assertVersion,
  bundleName,
  launcherPackage,
  parseFlags,
  parseSums,
  registryName,
  ReleaseError,
  runScript,
  TARGETS,
} from "./release.ts";

/** The schema version this file follows (the registry's published server.json schema). */
export const SERVER_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/** The server.json object; throws {@linkcode ReleaseError} when SHA256SUMS lacks a bundle. */
export function serverJson(o: { version: string; repo: string; sums: string; scope?: string }) {
  const version = assertVersion(o.version);
  const repo = assertRepo(o.repo);
  const sums = parseSums(o.sums);
  const transport = { type: "stdio" };
  const environmentVariables = [
    {
      name: "TMUX_MCP_SOCKET_NAME",
      description: "tmux socket name (tmux -L NAME) of the server to drive; unset: the default tmux server",
      isRequired: false,
    },
    {
      name: "TMUX_MCP_SAFETY",
      description: "highest tier of tools served",
      isRequired: false,
      choices: ["readonly", "mutating", "destructive"],
      default: "mutating",
    },
  ];
  const bundles = Object.keys(TARGETS).map((target) => {
    const file = bundleName(version, target);
    const sha = sums.get(file);
    if (!sha) throw new ReleaseError(`SHA256SUMS has no line for ${file}: run mcpb.ts with --sums first`);
    return {
      registryType: "mcpb",
      identifier: `https://github.com/${repo}/releases/download/v${version}/${file}`,
      version,
      fileSha256: sha,
      transport,
      environmentVariables,
    };
  });
  return {
    $schema: SERVER_SCHEMA,
    name: registryName(repo),
    title: "tmux",
    description: "Lets AI agents drive terminals through tmux: panes, commands and their output, waits, buffers",
    repository: { url: `https://github.com/${repo}`, source: "github" },
    websiteUrl: `https://github.com/${repo}#readme`,
    version,
    packages: [
      {
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
        identifier: launcherPackage(o.scope),
        version,
        runtimeHint: "npx",
        transport,
        environmentVariables,
      },
      ...bundles,
    ],
  };
}

if (import.meta.main) {
  await runScript("server_json", async () => {
    const f = parseFlags(Deno.args, ["version", "repo", "sums"], ["scope"]);
    const sums = await Deno.readTextFile(f.sums);
    console.log(JSON.stringify(serverJson({ version: f.version, repo: f.repo, sums, scope: f.scope }), null, 2));
  });
}
