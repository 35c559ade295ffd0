/**
 * The release workflow's dry run, here: every `run:` step of its `build`
 * job, read from .github/workflows/release.yml and run as written in a
 * scratch folder — except `deno task compile` (it needs the internet), for
 * which each target's "binary" is the server itself run from this checkout.
 * What it leaves is then checked: archives and .mcpb bundles with a
 * SHA256SUMS that `sha256sum -c` accepts, the formula, the npm tarballs,
 * server.json valid against the MCP Registry's schema (vendored from
 * modelcontextprotocol/registry as tests/fixtures/registry_server.schema.json,
 * the 2025-12-11 release), each bundle's manifest valid against the MCPB
 * schema of the pinned @anthropic-ai/mcpb, and a bundle's server started as
 * Claude Desktop starts it, with its two settings applied. Last, the
 * publishing jobs: attestations for every asset, npm and the registry
 * published only with their token.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { connect, ROOT, runProcess, START_PERMISSIONS, startTmux } from "./helpers.ts";
import { startRegistry } from "./install_registry.ts";
import { parse as parseYaml } from "yaml";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { MANIFEST_SCHEMAS, unpackExtension } from "@anthropic-ai/mcpb";
import mcpbSchema from "@anthropic-ai/mcpb/mcpb-manifest-v0.3.schema.json" with { type: "json" };
import registrySchema from "./fixtures/registry_server.schema.json" with { type: "json" };
import { VERSION } from "../lib/version.ts";
import { checkManifest, manifest } from "../.github/scripts/mcpb.ts";
import { SERVER_SCHEMA } from "../.github/scripts/server_json.ts";
import { bundleName, launcherPackage, ReleaseError, TARGETS } from "../.github/scripts/release.ts";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  "working-directory"?: string;
}
interface Job {
  steps: Step[];
  if?: string;
  needs?: string[];
  permissions?: Record<string, string>;
}
const WORKFLOW = parseYaml(await Deno.readTextFile(`${ROOT}.github/workflows/release.yml`)) as {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
};
const DENO_DIR = Deno.env.get("DENO_DIR") || `${Deno.env.get("HOME")}/.cache/deno`;
const REPO = "example/tmux-mcp";

// ajv-formats' CommonJS default export is the plugin function.
const withFormats = (ajv: Ajv) => (addFormats as unknown as (a: Ajv) => Ajv)(ajv);

/** The build job, run once per module in a scratch folder; its outputs stay there until unload. */
let built: Promise<{ dir: string; logs: string[] }> | undefined;

function buildJob(): Promise<{ dir: string; logs: string[] }> {
  built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-release-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    // The checkout as the job sees it; the scripts find README.md, LICENSE and listing.json through their own path.
    for (const f of [".github", "lib", "tests", "main.ts", "deno.json", "deno.lock", "README.md", "LICENSE"]) {
      await Deno.symlink(`${ROOT}${f}`, `${dir}/${f}`);
    }
    await Deno.mkdir(`${dir}/home`);
    const registry = await startRegistry([]); // npm publish --dry-run asks a registry; a first publish finds nothing
    const env: Record<string, string> = {
      PATH: Deno.env.get("PATH")!,
      HOME: `${dir}/home`,
      DENO_DIR,
      GITHUB_REPOSITORY: REPO,
      GITHUB_REF_TYPE: "branch", // workflow_dispatch on a branch: the dry run
      GITHUB_OUTPUT: `${dir}/github_output`,
      npm_config_registry: registry.url,
      npm_config_cache: `${dir}/home/.npm`,
      npm_config_update_notifier: "false",
    };
    const logs: string[] = [];
    try {
      for (const step of WORKFLOW.jobs.build.steps) {
        if (!step.run) continue;
        if (step.run.trim() === "deno task compile") {
          await Deno.mkdir(`${dir}/dist`);
          const script = `#!/bin/sh\nexec '${Deno.execPath()}' run ${
            START_PERMISSIONS.map((w) => `'${w}'`).join(" ")
          } '${ROOT}main.ts' "$@"\n`;
          for (const t of Object.keys(TARGETS)) {
            await Deno.writeTextFile(`${dir}/dist/tmux-mcp-${t}`, script, { mode: 0o755 });
          }
          continue;
        }
        // `${{ steps.version.outputs.version }}` and the like: the values the workflow would give them.
        const stepEnv = Object.fromEntries(
          Object.entries(step.env ?? {}).map((
            [k, v],
          ) => [k, v.includes("steps.version.outputs.version") ? VERSION : v]),
        );
        assert(!/\$\{\{/.test(step.run), `step "${step.name}" uses an expression this test does not provide`);
        const out = await runProcess("bash", ["-e", "-o", "pipefail", "-c", step.run], {
          cwd: `${dir}/${step["working-directory"] ?? ""}`,
          env: { ...env, ...stepEnv },
          clearEnv: true,
        });
        const log = out.stdout + out.stderr;
        logs.push(`## ${step.name}\n${log}`);
        assertEquals(out.code, 0, `step "${step.name}" failed:\n${log}`);
      }
    } finally {
      await registry.close();
    }
    return { dir, logs };
  })();
  return built;
}

const sha256 = async (path: string) =>
  Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(path))),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");

/** The manifest fields these tests read. */
interface BundleManifest {
  version: string;
  server: { type: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  compatibility: { platforms: string[] };
  user_config: Record<string, unknown>;
}

/** Unpacks a bundle with the MCPB reference unpacker (file modes kept, as a host unpacks it); returns its manifest. */
async function unpackBundle(bundle: string, into: string): Promise<BundleManifest> {
  assert(await unpackExtension({ mcpbPath: bundle, outputDir: into, silent: true }), `unpack ${bundle}`);
  return JSON.parse(await Deno.readTextFile(`${into}/manifest.json`));
}

Deno.test("release dry run: the build job's steps leave archives, bundles, SHA256SUMS, formula, npm tarballs, server.json", async () => {
  const { dir, logs } = await buildJob();
  const release = (await Array.fromAsync(Deno.readDir(`${dir}/release`))).map((e) => e.name).sort();
  const targets = Object.keys(TARGETS);
  assertEquals(
    release,
    [
      "SHA256SUMS",
      "server.json",
      ...targets.map((t) => bundleName(VERSION, t)),
      ...targets.map((t) => `tmux-mcp-${VERSION}-${t}.tar.gz`),
      "tmux-mcp.rb",
    ].sort(),
  );
  const check = await new Deno.Command("sha256sum", { args: ["-c", "SHA256SUMS"], cwd: `${dir}/release` }).output();
  const said = new TextDecoder().decode(check.stdout);
  assert(check.success, said);
  assertEquals(said.split("\n").filter((l) => /: OK$/.test(l)).length, 2 * targets.length, said);
  const npm = (await Array.fromAsync(Deno.readDir(`${dir}/npm`))).map((e) => e.name).filter((n) => n.endsWith(".tgz"));
  assertEquals(npm.length, targets.length + 1, String(npm));
  assertMatch(logs.at(-1)!, /npm publish --dry-run: @tmux-mcp\/server@\S+ ok\ndry run: nothing published\n/);
});

Deno.test("release dry run: server.json is valid against the MCP Registry schema and names what was built", async () => {
  const { dir } = await buildJob();
  const server: {
    $schema: string;
    name: string;
    packages: { registryType: string; identifier: string; version: string; fileSha256?: string; transport: unknown }[];
  } = JSON.parse(await Deno.readTextFile(`${dir}/release/server.json`));
  const compiled = withFormats(new Ajv({ strict: false, allErrors: true })).compile(registrySchema);
  const validate = (v: unknown) => compiled(v) === true;
  assert(validate(server), JSON.stringify(compiled.errors));
  assertEquals(server.$schema, SERVER_SCHEMA);
  assertEquals(server.name, `io.github.${REPO}`);
  const [npm, ...bundles] = server.packages;
  assertEquals([npm.registryType, npm.identifier, npm.version], ["npm", launcherPackage(), VERSION]);
  assertEquals(bundles.length, Object.keys(TARGETS).length);
  for (const b of bundles) {
    const file = b.identifier.split("/").pop()!;
    assertEquals(b.identifier, `https://github.com/${REPO}/releases/download/v${VERSION}/${file}`);
    assertEquals(b.fileSha256, await sha256(`${dir}/release/${file}`));
    assertEquals(b.transport, { type: "stdio" });
  }
  // The validator is not vacuous: what the registry rejects, it rejects.
  assert(!validate({ ...server, description: "x".repeat(101) }));
  assert(!validate({ ...server, name: "no-slash" }));
  assert(!validate({ ...server, packages: [{ ...npm, version: "latest" }] }));
});

Deno.test("release dry run: every bundle's manifest passes the MCPB schema; its binary is the target's", async () => {
  const { dir } = await buildJob();
  const compiled = withFormats(new Ajv({ strict: false, allErrors: true })).compile(mcpbSchema);
  const validate = (v: unknown) => compiled(v) === true;
  for (const [target, t] of Object.entries(TARGETS)) {
    const into = `${dir}/unpacked-${target}`;
    const m = await unpackBundle(`${dir}/release/${bundleName(VERSION, target)}`, into);
    assert(validate(m), `${target}: ${JSON.stringify(compiled.errors)}`);
    assert(MANIFEST_SCHEMAS["0.3"].safeParse(m).success);
    assertEquals([m.version, m.server.type, m.compatibility.platforms], [VERSION, "binary", [t.nodePlatform]]);
    assertEquals(Object.keys(m.user_config).sort(), ["safety", "socket_name"]);
    assertEquals(await Deno.readFile(`${into}/server/tmux-mcp`), await Deno.readFile(`${dir}/dist/tmux-mcp-${target}`));
    assert(((await Deno.stat(`${into}/server/tmux-mcp`)).mode! & 0o111) !== 0, "the binary is executable");
    assertEquals((await Deno.readFile(`${into}/icon.png`)).subarray(1, 4), new TextEncoder().encode("PNG"));
  }
  // A manifest the specification rejects is one line from the build, not a bundle.
  const bad = { ...manifest(VERSION, REPO, TARGETS["linux-x86_64"], []), server: { type: "exe" } };
  let message = "";
  try {
    checkManifest(bad);
  } catch (e) {
    assert(e instanceof ReleaseError);
    message = e.message;
  }
  assertMatch(message, /^manifest\.json does not follow the MCPB schema: server\.type: /);
});

Deno.test("release dry run: a bundle's server, started as Claude Desktop starts it, applies its two settings", async () => {
  const { dir } = await buildJob();
  const tmux = await startTmux("mcpb");
  const target = Object.keys(TARGETS).find((t) => TARGETS[t].nodePlatform === Deno.build.os)!;
  const into = `${dir}/claude-${target}`;
  const m = await unpackBundle(`${dir}/release/${bundleName(VERSION, target)}`, into);
  // The host's substitution: ${__dirname} is the unpacked bundle, ${user_config.KEY} the user's value.
  const values: Record<string, string> = { socket_name: tmux.socketName, safety: "readonly" };
  const fill = (s: string) =>
    s.replaceAll("${__dirname}", into).replace(/\$\{user_config\.(\w+)\}/g, (_, k) => values[k] ?? "");
  const env = Object.fromEntries(
    Object.entries(m.server.mcp_config.env as Record<string, string>).map(([k, v]) => [k, fill(v)]),
  );
  const mcp = await connect({ spawn: [fill(m.server.mcp_config.command), ...m.server.mcp_config.args.map(fill)], env });
  try {
    const listed = await mcp.ok<{ sessions: unknown[] }>("list", { what: "sessions" });
    assertEquals(listed.sessions.length, 1, "the socket name reached the server: it sees the fixture's one session");
    const tools = (await mcp.client.listTools()).tools.map((t) => t.name);
    assert(!tools.includes("send-keys") && tools.includes("list"), `readonly tier: ${tools}`);
  } finally {
    await mcp.close();
    await tmux.kill();
  }
});

Deno.test("release workflow: attestations for every asset; npm and the registry published only with their token", () => {
  const { publish, npm, registry, smoke } = WORKFLOW.jobs;
  assert("workflow_dispatch" in WORKFLOW.on && "push" in WORKFLOW.on);
  for (const job of [publish, npm, registry]) assertEquals(job.if, "github.ref_type == 'tag'");
  const attest = publish.steps.find((s) => s.uses?.startsWith("actions/attest-build-provenance@"));
  assert(attest, "publish attests");
  assertEquals(attest.with!["subject-path"].trim().split("\n"), ["release/*", "npm/*.tgz"]);
  assertEquals([publish.permissions!["id-token"], publish.permissions!.attestations], ["write", "write"]);
  const upload = publish.steps.findIndex((s) => s.run?.includes("gh release"));
  assert(publish.steps.indexOf(attest) < upload, "attested before upload");
  const npmRun = npm.steps.find((s) => s.run?.includes("publish.ts"))!;
  assertEquals(npmRun.env?.NODE_AUTH_TOKEN, "${{ secrets.NPM_TOKEN }}");
  assertMatch(npmRun.run!, /if \[ -n "\$NODE_AUTH_TOKEN" \]; then publish="--publish npm"/);
  assertEquals(npm.permissions!["id-token"], "write");
  const reg = registry.steps.find((s) => s.run?.includes("mcp-publisher"))!;
  assertMatch(
    reg.run!,
    /validate server\.json\n[^]*if \[ -z "\$MCP_REGISTRY_TOKEN" \]; then[^]*exit 0\n\s*fi\n[^]*publish server\.json/,
  );
  assert(npm.needs!.includes("publish") && registry.needs!.includes("npm"), "registry after npm after the release");
  const smokeRuns = smoke.steps.map((s) => s.run ?? "").join("\n");
  assertMatch(smokeRuns, /npm install --offline .*\n.*tmux-mcp-server-"\$VERSION"\.tgz/);
  assertMatch(smokeRuns, /unzip -q "release\/tmux-mcp-\$VERSION-\$\{\{ matrix\.target \}\}\.mcpb"/);
});
