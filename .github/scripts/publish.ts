/**
 * Publishes a release's npm packages and its MCP Registry entry, or — the
 * default, and what the release workflow does without a token — checks
 * them as far as can be done without publishing: every tarball goes
 * through `npm publish --dry-run`, the launcher's optionalDependencies are
 * exactly the platform packages at the same version, its `mcpName` is the
 * server.json name, and server.json's npm entry names the launcher at that
 * version. Platform packages are published before the launcher, so that a
 * user never installs a launcher whose binaries are missing.
 *
 * @example
 * ```sh
 * # dry run (no token): checks, publishes nothing
 * deno run --allow-read --allow-run=npm,tar --allow-env .github/scripts/publish.ts --npm npm --server-json release/server.json
 * # with NODE_AUTH_TOKEN set: npm packages, with provenance
 * deno run --allow-read --allow-run=npm,tar --allow-env .github/scripts/publish.ts --npm npm --server-json release/server.json --publish npm
 * ```
 */
import { parseFlags, ReleaseError, runScript } from "./release.ts";

interface Manifest {
  name: string;
  version: string;
  mcpName?: string;
  optionalDependencies?: Record<string, string>;
}

async function run(cmd: string, args: string[], cwd?: string): Promise<string> {
  const r = await new Deno.Command(cmd, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  if (!r.success) {
    const err = dec.decode(r.stderr).trim().split("\n").filter((l) => /err/i.test(l)).slice(0, 2).join(" ");
    throw new ReleaseError(`${cmd} ${args.slice(0, 2).join(" ")} failed: ${err || `exit ${r.code}`}`);
  }
  return dec.decode(r.stdout);
}

/** The package.json inside an `npm pack` tarball. */
async function manifestOf(tgz: string): Promise<Manifest> {
  return JSON.parse(await run("tar", ["-xzOf", tgz, "package/package.json"]));
}

/** Checks the tarballs against each other and server.json; returns them in publishing order (launcher last). */
export async function checkRelease(npmDir: string, serverJsonPath: string): Promise<{ tgz: string; m: Manifest }[]> {
  // Absolute: npm reads a relative "npm/x.tgz" as the GitHub repository npm/x.tgz.
  const dir = await Deno.realPath(npmDir);
  const files = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".tgz")) files.push(`${dir}/${e.name}`);
  }
  const packages = await Promise.all(files.sort().map(async (tgz) => ({ tgz, m: await manifestOf(tgz) })));
  const launchers = packages.filter((p) => p.m.optionalDependencies);
  if (launchers.length !== 1) throw new ReleaseError(`${npmDir} holds ${launchers.length} launchers, not 1`);
  const launcher = launchers[0];
  const platforms = packages.filter((p) => p !== launcher);
  const wanted = Object.entries(launcher.m.optionalDependencies!).sort();
  const have = platforms.map((p) => [p.m.name, p.m.version]).sort();
  if (JSON.stringify(wanted) !== JSON.stringify(have)) {
    throw new ReleaseError(
      `${launcher.m.name}'s optionalDependencies ${JSON.stringify(wanted)} are not the packed ` +
        `platform packages ${JSON.stringify(have)}`,
    );
  }
  if (platforms.some((p) => p.m.version !== launcher.m.version)) throw new ReleaseError("package versions differ");
  const server = JSON.parse(await Deno.readTextFile(serverJsonPath));
  if (launcher.m.mcpName !== server.name) {
    throw new ReleaseError(`${launcher.m.name}'s mcpName ${launcher.m.mcpName} is not server.json's ${server.name}`);
  }
  const npmEntry = server.packages?.find((p: { registryType: string }) => p.registryType === "npm");
  if (npmEntry?.identifier !== launcher.m.name || npmEntry?.version !== launcher.m.version) {
    throw new ReleaseError(`server.json's npm package is not ${launcher.m.name}@${launcher.m.version}`);
  }
  if (server.version !== launcher.m.version) throw new ReleaseError("server.json's version is not the packages'");
  return [...platforms, launcher];
}

if (import.meta.main) {
  await runScript("publish", async () => {
    const f = parseFlags(Deno.args, ["npm", "server-json"], ["publish"]);
    if (f.publish !== undefined && f.publish !== "npm") throw new ReleaseError(`--publish takes npm, not ${f.publish}`);
    const ordered = await checkRelease(f.npm, f["server-json"]);
    for (const { tgz, m } of ordered) {
      const args = ["publish", "--access", "public", tgz];
      if (f.publish === "npm") {
        // Provenance: npm links each package to this workflow run (needs the job's id-token permission).
        await run("npm", [...args, "--provenance"]);
        console.log(`published ${m.name}@${m.version}`);
      } else {
        await run("npm", [...args, "--dry-run"]);
        console.log(`npm publish --dry-run: ${m.name}@${m.version} ok`);
      }
    }
    console.log(f.publish === "npm" ? "npm: published" : "dry run: nothing published");
  });
}
