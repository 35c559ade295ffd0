/**
 * The release scripts under .github/scripts (run as the workflow runs them)
 * and the Homebrew formula template: version agreement, tag check, packing
 * and checksums, formula rendering, `ruby -c`, and the formula's own
 * `test do` block run against this checkout through a stand-in of
 * Homebrew's DSL (tests/fixtures/brew_formula_stub.rb). CI installs ruby, so
 * nothing here is skipped.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { ROOT, runProcess as run, START_PERMISSIONS } from "./helpers.ts";
import { VERSION } from "../lib/version.ts";
import { checkTag, parseSums, projectVersion, ReleaseError, TARGETS } from "../.github/scripts/release.ts";
import { renderFormula } from "../.github/scripts/render_formula.ts";

const SCRIPTS = ROOT + ".github/scripts/";
const TEMPLATE = Deno.readTextFileSync(ROOT + ".github/homebrew/tmux-mcp.rb.template");

const script = (name: string, perms: string[], args: string[]) =>
  run(Deno.execPath(), ["run", ...perms, SCRIPTS + name, ...args]);

/** render_formula.ts for this version, as the release workflow runs it. */
const renderScript = (sumsPath: string, repo: string) =>
  script("render_formula.ts", ["--allow-read"], ["--version", VERSION, "--sums", sumsPath, "--repo", repo]);

function assertOneLineFailure(r: { code: number; stderr: string }, pattern: RegExp) {
  assertEquals(r.code, 1, r.stderr);
  assertEquals(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  assertMatch(r.stderr, pattern);
}

/** Fake SHA256SUMS for every target except `skip`. */
function fakeSums(version: string, skip?: string): string {
  return Object.keys(TARGETS).filter((t) => t !== skip)
    .map((t, i) => `${String(i + 1).repeat(64)}  tmux-mcp-${version}-${t}.tar.gz`).join("\n") + "\n";
}

Deno.test("version: deno.json and lib/version.ts agree", () => {
  const json = JSON.parse(Deno.readTextFileSync(ROOT + "deno.json"));
  assertEquals(json.version, VERSION);
  assertEquals(projectVersion(new URL(`file://${ROOT}`)), VERSION);
});

Deno.test("version: a disagreement between deno.json and lib/version.ts is one clear error", () => {
  let message = "";
  try {
    projectVersion(new URL(`file://${ROOT}`), "9.9.9");
  } catch (e) {
    assert(e instanceof ReleaseError);
    message = e.message;
  }
  assertMatch(message, /deno\.json says version \S+ but lib\/version\.ts says 9\.9\.9: set both/);
  checkTag(`v${VERSION}`, VERSION);
});

Deno.test("check_version.ts: matching tag prints version=, another tag fails with one line", async () => {
  const ok = await script("check_version.ts", ["--allow-read"], [`v${VERSION}`]);
  assertEquals(ok.code, 0, ok.stderr);
  assertEquals(ok.stdout, `version=${VERSION}\n`);
  const noTag = await script("check_version.ts", ["--allow-read"], []);
  assertEquals(noTag.stdout, `version=${VERSION}\n`);
  const bad = await script("check_version.ts", ["--allow-read"], ["v99.0.0"]);
  assertOneLineFailure(
    bad,
    /^check_version: tag v99\.0\.0 does not match version .* tag v\S+, or set both files to 99\.0\.0/,
  );
  const noV = await script("check_version.ts", ["--allow-read"], [VERSION]);
  assertOneLineFailure(noV, /does not match/);
});

Deno.test("render: fake checksums → a formula that ruby parses, with url+sha256 per OS/arch and depends_on tmux", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-formula-" });
  try {
    const sums = fakeSums(VERSION);
    await Deno.writeTextFile(`${dir}/SHA256SUMS`, sums);
    const r = await renderScript(`${dir}/SHA256SUMS`, "example/tmux-mcp");
    assertEquals(r.code, 0, r.stderr);
    await Deno.writeTextFile(`${dir}/tmux-mcp.rb`, r.stdout);
    const syntax = await run("ruby", ["-c", `${dir}/tmux-mcp.rb`]);
    assertEquals(syntax.code, 0, syntax.stderr);
    assertMatch(syntax.stdout, /Syntax OK/);

    const loaded = await run("ruby", [ROOT + "tests/fixtures/brew_formula_stub.rb", `${dir}/tmux-mcp.rb`]);
    assertEquals(loaded.code, 0, loaded.stderr);
    const rec = JSON.parse(loaded.stdout.split("\n")[0]);
    assertEquals(rec.class, "TmuxMcp");
    assertEquals(rec.deps, ["tmux"]);
    assertEquals(rec.meta.version, VERSION);
    const byFile = parseSums(sums);
    for (const [target, t] of Object.entries(TARGETS)) {
      const file = `tmux-mcp-${VERSION}-${target}.tar.gz`;
      assertEquals(rec.urls[`${t.os}-${t.arch}`], {
        url: `https://github.com/example/tmux-mcp/releases/download/v${VERSION}/${file}`,
        sha256: byFile.get(file),
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("formula test block: --version and an MCP handshake pass against this checkout", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-formula-" });
  try {
    await Deno.writeTextFile(
      `${dir}/tmux-mcp.rb`,
      renderFormula({ template: TEMPLATE, version: VERSION, sums: fakeSums(VERSION), repo: "example/tmux-mcp" }),
    );
    // bin/tmux-mcp: the checkout started with the start task's permissions, standing in for the binary.
    await Deno.mkdir(`${dir}/bin`);
    const quoted = [Deno.execPath(), "run", ...START_PERMISSIONS, ROOT + "main.ts"].map((a) => `'${a}'`).join(" ");
    await Deno.writeTextFile(`${dir}/bin/tmux-mcp`, `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
    const r = await run("ruby", [ROOT + "tests/fixtures/brew_formula_stub.rb", `${dir}/tmux-mcp.rb`, `${dir}/bin`]);
    assertEquals(r.code, 0, r.stderr);
    assertMatch(r.stdout, /^test: passed$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render: missing checksum, unknown target, leftover placeholder, bad input → one-line errors", async () => {
  const render = (over: Partial<Parameters<typeof renderFormula>[0]>) => {
    try {
      renderFormula({ template: TEMPLATE, version: VERSION, sums: fakeSums(VERSION), repo: "o/r", ...over });
      return "";
    } catch (e) {
      assert(e instanceof ReleaseError, String(e));
      assert(!e.message.includes("\n"));
      return e.message;
    }
  };
  assertMatch(
    render({ sums: fakeSums(VERSION, "macos-aarch64") }),
    new RegExp(`SHA256SUMS has no checksum for tmux-mcp-${VERSION}-macos-aarch64\\.tar\\.gz`),
  );
  assertMatch(
    render({ template: TEMPLATE + '\n# url "{{url linux-riscv64}}"\n' }),
    /unknown target "linux-riscv64" \(known: linux-x86_64, linux-aarch64, macos-x86_64, macos-aarch64\)/,
  );
  assertMatch(
    render({ template: TEMPLATE.replace(/\n\s*on_linux do[\s\S]*?\n {2}end\n/, "\n") }),
    /no url\/sha256 for target\(s\) linux-x86_64, linux-aarch64/,
  );
  assertMatch(render({ template: TEMPLATE + "{{nope}}" }), /unknown placeholder \{\{nope\}\}/);
  assertMatch(render({ sums: "not a checksum line\n" }), /SHA256SUMS line 1 is not/);
  assertMatch(render({ version: "v1.0" }), /"v1\.0" is not a version like 1\.2\.3/);
  assertEquals(render({}), "");

  // The script: same errors as one line on stderr, exit 1.
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-formula-" });
  try {
    await Deno.writeTextFile(`${dir}/SHA256SUMS`, fakeSums(VERSION, "linux-x86_64"));
    const r = await renderScript(`${dir}/SHA256SUMS`, "o/r");
    assertOneLineFailure(r, /^render_formula: SHA256SUMS has no checksum for .*linux-x86_64\.tar\.gz/);
    assertEquals(r.stdout, "");
    const missingFile = await renderScript(`${dir}/nope`, "o/r");
    assertOneLineFailure(missingFile, /^render_formula: cannot read checksums /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pack.ts: one archive per target (tmux-mcp, README.md, LICENSE) and a SHA256SUMS that sha256sum -c accepts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-pack-test-" });
  try {
    await Deno.mkdir(`${dir}/dist`);
    for (const t of Object.keys(TARGETS)) await Deno.writeTextFile(`${dir}/dist/tmux-mcp-${t}`, `binary for ${t}\n`);
    const perms = ["--allow-read", "--allow-write", "--allow-run=tar"];
    const r = await script("pack.ts", perms, ["--version", VERSION, "--dist", `${dir}/dist`, "--out", `${dir}/out`]);
    assertEquals(r.code, 0, r.stderr);
    const sums = parseSums(await Deno.readTextFile(`${dir}/out/SHA256SUMS`));
    assertEquals([...sums.keys()], Object.keys(TARGETS).map((t) => `tmux-mcp-${VERSION}-${t}.tar.gz`));
    // The README's commands: sha256sum (Linux, coreutils) or shasum (macOS, and Linux with perl).
    const hasSha256sum = (await run("sh", ["-c", "command -v sha256sum"])).code === 0;
    const [tool, ...toolArgs] = hasSha256sum ? ["sha256sum", "-c"] : ["shasum", "-a", "256", "-c"];
    const check = await run(tool, [...toolArgs, "SHA256SUMS"], { cwd: `${dir}/out` });
    assertEquals(check.code, 0, check.stdout + check.stderr);

    const top = `tmux-mcp-${VERSION}-macos-aarch64`;
    const list = await run("tar", ["-tvzf", `${dir}/out/${top}.tar.gz`]);
    assertEquals(list.code, 0, list.stderr);
    const names = list.stdout.trim().split("\n").map((l) => l.split(/\s+/).pop()).filter((n) => !n!.endsWith("/"));
    assertEquals(names.sort(), [`${top}/LICENSE`, `${top}/README.md`, `${top}/tmux-mcp`]);
    assertMatch(list.stdout, new RegExp(`^-rwxr-xr-x .* ${top}/tmux-mcp$`, "m"));
    await run("tar", ["-xzf", `${dir}/out/${top}.tar.gz`, "-C", dir]);
    assertEquals(await Deno.readTextFile(`${dir}/${top}/tmux-mcp`), "binary for macos-aarch64\n");

    await Deno.remove(`${dir}/dist/tmux-mcp-linux-aarch64`);
    const missing = await script("pack.ts", perms, [
      "--version",
      VERSION,
      "--dist",
      `${dir}/dist`,
      "--out",
      `${dir}/o2`,
    ]);
    assertOneLineFailure(
      missing,
      /^pack: no binary .*tmux-mcp-linux-aarch64: did `deno task compile` build linux-aarch64\?/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
