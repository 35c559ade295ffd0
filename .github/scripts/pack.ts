/**
 * Packs the compiled binaries: for each target, `dist/tmux-mcp-<target>`
 * becomes `<out>/tmux-mcp-<version>-<target>.tar.gz` holding the directory
 * `tmux-mcp-<version>-<target>/` with `tmux-mcp`, README.md and LICENSE;
 * then `<out>/SHA256SUMS` over the archives (sha256sum format).
 *
 * @example
 * ```sh
 * deno run --allow-read --allow-write --allow-run=tar .github/scripts/pack.ts --version 0.2.0 --dist dist --out release
 * ```
 */
import { archiveName, assertVersion, parseFlags, ReleaseError, runScript, sha256File, TARGETS } from "./release.ts";

/** The files every archive carries next to the binary. */
const DOCS = ["README.md", "LICENSE"] as const;

/** Packs every target; returns the SHA256SUMS text. Throws when a binary is missing or tar fails. */
export async function pack(opts: { version: string; dist: string; out: string; root: string }): Promise<string> {
  const version = assertVersion(opts.version);
  for (const doc of DOCS) {
    try {
      Deno.statSync(`${opts.root}/${doc}`);
    } catch {
      throw new ReleaseError(`no ${doc} in ${opts.root}: every archive ships it`);
    }
  }
  await Deno.mkdir(opts.out, { recursive: true });
  const lines: string[] = [];
  for (const target of Object.keys(TARGETS)) {
    const binary = `${opts.dist}/tmux-mcp-${target}`;
    try {
      if (!Deno.statSync(binary).isFile) throw new Error();
    } catch {
      throw new ReleaseError(`no binary ${binary}: did \`deno task compile\` build ${target}?`);
    }
    const dirName = `tmux-mcp-${version}-${target}`;
    const stage = await Deno.makeTempDir({ prefix: "tmux-mcp-pack-" });
    try {
      await Deno.mkdir(`${stage}/${dirName}`);
      await Deno.copyFile(binary, `${stage}/${dirName}/tmux-mcp`);
      await Deno.chmod(`${stage}/${dirName}/tmux-mcp`, 0o755);
      for (const doc of ["README.md", "LICENSE"]) {
        await Deno.copyFile(`${opts.root}/${doc}`, `${stage}/${dirName}/${doc}`);
      }
      const archive = `${await Deno.realPath(opts.out)}/${archiveName(version, target)}`;
      const tar = await new Deno.Command("tar", {
        args: ["-czf", archive, "-C", stage, dirName],
        stdout: "null",
        stderr: "piped",
      }).output();
      if (!tar.success) {
        throw new ReleaseError(
          `tar failed for ${target}: ${new TextDecoder().decode(tar.stderr).trim().split("\n")[0]}`,
        );
      }
      lines.push(`${await sha256File(archive)}  ${archiveName(version, target)}`);
    } finally {
      await Deno.remove(stage, { recursive: true });
    }
  }
  const sums = lines.join("\n") + "\n";
  await Deno.writeTextFile(`${opts.out}/SHA256SUMS`, sums);
  return sums;
}

if (import.meta.main) {
  await runScript("pack", async () => {
    const f = parseFlags(Deno.args, ["version", "dist", "out"]);
    const root = new URL("../..", import.meta.url).pathname;
    console.log((await pack({ version: f.version, dist: f.dist, out: f.out, root })).trimEnd());
  });
}
