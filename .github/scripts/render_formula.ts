/**
 * Renders the Homebrew formula (.github/homebrew/tmux-mcp.rb.template) for
 * one version from the release's real SHA256SUMS.
 *
 * Placeholders: `{{version}}`, `{{repo}}`, and per target `{{url TARGET}}`
 * and `{{sha256 TARGET}}`. A target not in {@linkcode TARGETS}, a target
 * without a checksum line, or a placeholder left over is a one-line error.
 *
 * @example
 * ```sh
 * deno run --allow-read .github/scripts/render_formula.ts \
 *   --version 0.2.0 --sums release/SHA256SUMS --repo owner/tmux-mcp > release/tmux-mcp.rb
 * ```
 */
import { archiveName, assertVersion, parseFlags, parseSums, ReleaseError, runScript, TARGETS } from "./release.ts";

export interface RenderOptions {
  template: string;
  version: string;
  /** SHA256SUMS text. */
  sums: string;
  /** GitHub owner/name the release is attached to. */
  repo: string;
}

/** The formula text; throws {@linkcode ReleaseError} on any unknown target, missing checksum or leftover placeholder. */
export function renderFormula(o: RenderOptions): string {
  const version = assertVersion(o.version);
  if (!/^[\w.-]+\/[\w.-]+$/.test(o.repo)) throw new ReleaseError(`--repo "${o.repo}" is not owner/name`);
  const sums = parseSums(o.sums);
  const used = new Set<string>();
  const out = o.template.replace(/\{\{\s*(\w+)(?:\s+([\w.-]+))?\s*\}\}/g, (whole, key: string, target?: string) => {
    if (key === "version" && !target) return version;
    if (key === "repo" && !target) return o.repo;
    if ((key === "url" || key === "sha256") && target) {
      if (!(target in TARGETS)) {
        throw new ReleaseError(
          `the template names unknown target "${target}" (known: ${Object.keys(TARGETS).join(", ")})`,
        );
      }
      used.add(target);
      const file = archiveName(version, target);
      if (key === "url") return `https://github.com/${o.repo}/releases/download/v${version}/${file}`;
      const sum = sums.get(file);
      if (!sum) throw new ReleaseError(`SHA256SUMS has no checksum for ${file}: did its compile or pack step fail?`);
      return sum;
    }
    throw new ReleaseError(`unknown placeholder ${whole} in the template`);
  });
  const missing = Object.keys(TARGETS).filter((t) => !used.has(t));
  if (missing.length) throw new ReleaseError(`the template has no url/sha256 for target(s) ${missing.join(", ")}`);
  const left = /\{\{[^}]*\}\}/.exec(out);
  if (left) throw new ReleaseError(`placeholder ${left[0]} left in the rendered formula`);
  return out;
}

if (import.meta.main) {
  await runScript("render_formula", () => {
    const f = parseFlags(Deno.args, ["version", "sums", "repo"], ["template"]);
    const templatePath = f.template ?? new URL("../homebrew/tmux-mcp.rb.template", import.meta.url).pathname;
    const read = (path: string, what: string) => {
      try {
        return Deno.readTextFileSync(path);
      } catch (e) {
        throw new ReleaseError(`cannot read ${what} ${path}: ${(e as Error).message}`);
      }
    };
    const text = renderFormula({
      template: read(templatePath, "template"),
      version: f.version,
      sums: read(f.sums, "checksums"),
      repo: f.repo,
    });
    Deno.stdout.writeSync(new TextEncoder().encode(text));
  });
}
