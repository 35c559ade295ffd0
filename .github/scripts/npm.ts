/**
 * Builds the npm packages from the compiled binaries, the esbuild way: one
 * package per target (`<scope>/linux-x64`, …) holding `bin/tmux-mcp`, with
 * `os`/`cpu` so npm installs it only on that platform, and the launcher
 * `<scope>/server` (bin `tmux-mcp`, .github/npm/tmux-mcp.js) that lists them
 * as optionalDependencies and runs the one npm installed. Each is staged in
 * `<out>/<package>/` and packed with `npm pack` into `<out>/*.tgz`; the
 * names of the tarballs, platform packages first (the order to publish
 * in), are printed one per line.
 *
 * @example
 * ```sh
 * deno run --allow-read --allow-write --allow-run=npm .github/scripts/npm.ts \
 *   --version 0.2.0 --dist dist --out release/npm --repo owner/tmux-mcp
 * ```
 */
import {
  assertRepo,
  assertVersion,
  launcherPackage,
  NPM_SCOPE,
  parseFlags,
  platformPackage,
  registryName,
  ReleaseError,
  runScript,
  TARGETS,
} from "./release.ts";

/** What to build. */
export interface NpmOptions {
  version: string;
  /** Folder with `tmux-mcp-<target>` for every target. */
  dist: string;
  out: string;
  /** GitHub owner/name: the packages' repository (npm provenance checks it) and the registry name. */
  repo: string;
  scope?: string;
  /** The checkout (README.md, LICENSE, .github/npm/). */
  root: string;
}

const DESCRIPTION = "MCP server that lets AI agents drive tmux: sessions, panes, commands, waits, buffers";

/** Fields every package.json shares. */
function common(o: NpmOptions) {
  return {
    version: o.version,
    license: "MIT",
    repository: { type: "git", url: `git+https://github.com/${o.repo}.git` },
    homepage: `https://github.com/${o.repo}#readme`,
  };
}

async function writeJson(path: string, value: unknown) {
  await Deno.writeTextFile(path, JSON.stringify(value, null, 2) + "\n");
}

/** `npm pack` of one staged folder into `out`; returns the tarball's file name. */
async function npmPack(dir: string, out: string): Promise<string> {
  const r = await new Deno.Command("npm", {
    args: ["pack", "--json", "--pack-destination", out],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
    env: { npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
  }).output();
  if (!r.success) {
    const err = new TextDecoder().decode(r.stderr).trim().split("\n").find((l) => /err/i.test(l)) ?? "";
    throw new ReleaseError(`npm pack failed in ${dir}: ${err}`);
  }
  return (JSON.parse(new TextDecoder().decode(r.stdout)) as { filename: string }[])[0].filename;
}

/** Stages and packs every package; returns the tarball names, platform packages first. */
export async function buildNpm(o: NpmOptions): Promise<string[]> {
  assertVersion(o.version);
  assertRepo(o.repo);
  const scope = o.scope ?? NPM_SCOPE;
  if (!/^@[a-z0-9][a-z0-9._-]*$/.test(scope)) {
    throw new ReleaseError(`--scope "${scope}" is not an npm scope like @name`);
  }
  await Deno.mkdir(o.out, { recursive: true });
  const out = await Deno.realPath(o.out);
  const tarballs: string[] = [];
  const platforms: Record<string, string> = {};
  for (const [target, t] of Object.entries(TARGETS)) {
    const binary = `${o.dist}/tmux-mcp-${target}`;
    try {
      if (!Deno.statSync(binary).isFile) throw new Error();
    } catch {
      throw new ReleaseError(`no binary ${binary}: did \`deno task compile\` build ${target}?`);
    }
    const name = platformPackage(target, scope);
    const dir = `${out}/${name.replace("/", "+")}`;
    await Deno.mkdir(`${dir}/bin`, { recursive: true });
    await Deno.copyFile(binary, `${dir}/bin/tmux-mcp`);
    await Deno.chmod(`${dir}/bin/tmux-mcp`, 0o755);
    await Deno.copyFile(`${o.root}/LICENSE`, `${dir}/LICENSE`);
    await Deno.writeTextFile(
      `${dir}/README.md`,
      `# ${name}\n\nThe tmux-mcp binary for ${t.nodePlatform} ${t.nodeArch}. Install \`${launcherPackage(scope)}\`, ` +
        `which picks this package on this platform: \`npx -y ${launcherPackage(scope)}\`.\n`,
    );
    await writeJson(`${dir}/package.json`, {
      name,
      ...common(o),
      description: `The tmux-mcp binary for ${t.nodePlatform} ${t.nodeArch} (used by ${launcherPackage(scope)})`,
      os: [t.nodePlatform],
      cpu: [t.nodeArch],
      files: ["bin/tmux-mcp"],
      preferUnplugged: true,
    });
    platforms[`${t.nodePlatform} ${t.nodeArch}`] = name;
    tarballs.push(await npmPack(dir, out));
  }
  const launcher = launcherPackage(scope);
  const dir = `${out}/${launcher.replace("/", "+")}`;
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.copyFile(`${o.root}/.github/npm/tmux-mcp.js`, `${dir}/bin/tmux-mcp.js`);
  await Deno.chmod(`${dir}/bin/tmux-mcp.js`, 0o755);
  for (const doc of ["README.md", "LICENSE"]) await Deno.copyFile(`${o.root}/${doc}`, `${dir}/${doc}`);
  await writeJson(`${dir}/package.json`, {
    name: launcher,
    ...common(o),
    description: DESCRIPTION,
    keywords: ["mcp", "model-context-protocol", "tmux", "terminal", "agent"],
    // The MCP Registry checks that this package belongs to the server it lists.
    mcpName: registryName(o.repo),
    bin: { "tmux-mcp": "bin/tmux-mcp.js" },
    files: ["bin/tmux-mcp.js"],
    engines: { node: ">=18" },
    optionalDependencies: Object.fromEntries(Object.values(platforms).map((p) => [p, o.version])),
    tmuxMcpPlatforms: platforms,
  });
  tarballs.push(await npmPack(dir, out));
  return tarballs;
}

if (import.meta.main) {
  await runScript("npm", async () => {
    const f = parseFlags(Deno.args, ["version", "dist", "out", "repo"], ["scope"]);
    const root = new URL("../..", import.meta.url).pathname;
    const tarballs = await buildNpm({ ...f, version: f.version, root } as NpmOptions);
    console.log(tarballs.join("\n"));
  });
}
