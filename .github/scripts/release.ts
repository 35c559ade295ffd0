/**
 * What the release scripts share: the four release targets, archive names,
 * the version (deno.json and lib/version.ts must agree), SHA256SUMS parsing,
 * and the one-line failure every script ends with.
 *
 * @example
 * ```ts
 * archiveName("0.2.0", "linux-x86_64"); // "tmux-mcp-0.2.0-linux-x86_64.tar.gz"
 * ```
 */
import { VERSION } from "../../lib/version.ts";

/** A release target: its `deno compile --target`, where Homebrew installs it, and Node's names for it (npm, .mcpb). */
export interface Target {
  denoTarget: string;
  os: "linux" | "macos";
  arch: "intel" | "arm";
  /** `process.platform`, the `os` field of its npm package. */
  nodePlatform: "linux" | "darwin";
  /** `process.arch`, the `cpu` field of its npm package. */
  nodeArch: "x64" | "arm64";
}

/**
 * The targets, keyed by the suffix of the binaries `deno task compile`
 * writes (`dist/tmux-mcp-<key>`) and of the archives.
 */
export const TARGETS: Readonly<Record<string, Target>> = {
  "linux-x86_64": {
    denoTarget: "x86_64-unknown-linux-gnu",
    os: "linux",
    arch: "intel",
    nodePlatform: "linux",
    nodeArch: "x64",
  },
  "linux-aarch64": {
    denoTarget: "aarch64-unknown-linux-gnu",
    os: "linux",
    arch: "arm",
    nodePlatform: "linux",
    nodeArch: "arm64",
  },
  "macos-x86_64": {
    denoTarget: "x86_64-apple-darwin",
    os: "macos",
    arch: "intel",
    nodePlatform: "darwin",
    nodeArch: "x64",
  },
  "macos-aarch64": {
    denoTarget: "aarch64-apple-darwin",
    os: "macos",
    arch: "arm",
    nodePlatform: "darwin",
    nodeArch: "arm64",
  },
};

/** The npm scope of the packages (`<scope>/server` launches, `<scope>/<platform>-<arch>` hold the binaries). */
export const NPM_SCOPE = "@tmux-mcp";

/** The npm package of the launcher (what `npx -y` runs). */
export function launcherPackage(scope: string = NPM_SCOPE): string {
  return `${scope}/server`;
}

/** The npm package holding the binary of `target`, e.g. `@tmux-mcp/linux-x64`. */
export function platformPackage(target: string, scope: string = NPM_SCOPE): string {
  const t = TARGETS[target];
  if (!t) throw new ReleaseError(`unknown target ${target}`);
  return `${scope}/${t.nodePlatform}-${t.nodeArch}`;
}

/** The MCP Registry name of the server of GitHub repository `owner/name`: `io.github.owner/name`. */
export function registryName(repo: string): string {
  return `io.github.${assertRepo(repo)}`;
}

/** Throws unless `repo` is a GitHub `owner/name`. */
export function assertRepo(repo: string): string {
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new ReleaseError(`--repo "${repo}" is not owner/name`);
  return repo;
}

/** The `.mcpb` bundle of one target. */
export function bundleName(version: string, target: string): string {
  return `tmux-mcp-${version}-${target}.mcpb`;
}

/** A release problem; scripts print its message as their one line. */
export class ReleaseError extends Error {}

/** The archive file of one target. */
export function archiveName(version: string, target: string): string {
  return `tmux-mcp-${version}-${target}.tar.gz`;
}

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** Throws unless `version` looks like 1.2.3 or 1.2.3-rc.1. */
export function assertVersion(version: string): string {
  if (!SEMVER.test(version)) throw new ReleaseError(`"${version}" is not a version like 1.2.3`);
  return version;
}

/** The version of the checkout at `root`: deno.json's, which must equal lib/version.ts's. */
export function projectVersion(root: URL, codeVersion: string = VERSION): string {
  const json = JSON.parse(Deno.readTextFileSync(new URL("deno.json", root))) as { version?: unknown };
  if (typeof json.version !== "string") throw new ReleaseError('deno.json has no "version" string');
  if (json.version !== codeVersion) {
    throw new ReleaseError(
      `deno.json says version ${json.version} but lib/version.ts says ${codeVersion}: set both to the same version`,
    );
  }
  return assertVersion(json.version);
}

/** Checks a release tag against the project version: "v0.2.0" matches "0.2.0". */
export function checkTag(tag: string, version: string): void {
  if (tag !== `v${version}`) {
    throw new ReleaseError(
      `tag ${tag} does not match version ${version} (deno.json, lib/version.ts): ` +
        `tag v${version}, or set both files to ${tag.replace(/^v/, "")} and tag again`,
    );
  }
}

/** `sha256sum` output → file name → hex digest. Throws on a malformed line or a duplicate file. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const m = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line);
    if (!m) throw new ReleaseError(`SHA256SUMS line ${i + 1} is not "<64 hex digits>  <file>": ${line.slice(0, 80)}`);
    if (sums.has(m[2])) throw new ReleaseError(`SHA256SUMS lists ${m[2]} twice`);
    sums.set(m[2], m[1]);
  });
  return sums;
}

/** Hex SHA-256 of a file. */
export async function sha256File(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Runs a script body: a {@linkcode ReleaseError} (or any error) becomes one line on stderr and exit code 1. */
export async function runScript(name: string, body: () => Promise<void> | void): Promise<never> {
  try {
    await body();
    Deno.exit(0);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    console.error(`${name}: ${message.replace(/\s*\n\s*/g, " ")}`);
    Deno.exit(1);
  }
}

/** `--name value` pairs → a record; throws on anything else or a missing required name. */
export function parseFlags(args: string[], required: readonly string[], optional: readonly string[] = []) {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i].replace(/^--/, "");
    if (!args[i].startsWith("--") || ![...required, ...optional].includes(name) || i + 1 >= args.length) {
      throw new ReleaseError(`bad argument "${args[i]}": expected ${required.map((r) => `--${r} VALUE`).join(" ")}`);
    }
    out[name] = args[i + 1];
  }
  for (const r of required) if (out[r] === undefined) throw new ReleaseError(`missing --${r}`);
  return out;
}
