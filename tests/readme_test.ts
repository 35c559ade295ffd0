/**
 * README.md and docs/ stay true to the code: the README's generated regions
 * (the tool overview and the flags) are what lib/tools/write_readme.ts makes
 * of the tool table and the option table, the README stays a user's
 * document, and every relative link between the pages reaches a file and
 * heading that exist, and design.md's Layout names every part of lib/.
 */
import nodeAssert from "node:assert/strict";
import { assert, assertEquals } from "./assert.ts";
import { fillRegions, REGENERATE, renderReadme, ROOT, toolsSection } from "../lib/tools/write_readme.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import type { AnyTool } from "../lib/tools/tool.ts";

const README = new URL("README.md", ROOT);
/** The README stays short enough to read; the rest belongs in docs/. */
const MAX_README_LINES = 400;

Deno.test("README.md's tool and flag sections are what the tool and option tables generate", async () => {
  const current = await Deno.readTextFile(README);
  const fresh = await renderReadme(current);
  if (fresh !== current) {
    const a = current.split("\n");
    const b = fresh.split("\n");
    const at = a.findIndex((line, i) => line !== b[i]);
    throw new Error(
      `README.md is stale: run \`${REGENERATE}\` (deno run --allow-read --allow-write --allow-run lib/tools/write_readme.ts) and commit the result.\n` +
        `first difference at line ${at + 1}:\n  README.md: ${a[at] ?? "(end of file)"}\n  generated: ${
          b[at] ?? "(end of file)"
        }`,
    );
  }
});

Deno.test("the tool section changes with a tool's description, so a stale README fails", () => {
  const changed: AnyTool[] = TOOLS.map((t) => t.name === "list-buffers" ? { ...t, description: "Something else." } : t);
  const before = toolsSection(TOOLS);
  const after = toolsSection(changed);
  assert(before !== after);
  assert(after.includes("Something else."));
  for (const t of TOOLS) assert(before.includes(`\`${t.name}\``), `${t.name} is missing from the tool section`);
});

Deno.test("fillRegions replaces only between the markers and refuses missing or doubled markers", () => {
  const text = "a\n<!-- x:start -->\nold\n<!-- x:end -->\nb\n";
  const out = fillRegions(text, { x: "new" });
  assert(out.startsWith("a\n<!-- x:start -->\n"));
  assert(out.endsWith("\nnew\n\n<!-- x:end -->\nb\n"));
  assert(!out.includes("old"));
  nodeAssert.throws(() => fillRegions("no markers", { x: "new" }), /<!-- x:start -->/);
  nodeAssert.throws(() => fillRegions(text + text, { x: "new" }), /exactly one/);
});

Deno.test(`README.md is at most ${MAX_README_LINES} lines (details go to docs/)`, async () => {
  const lines = (await Deno.readTextFile(README)).split("\n").length - 1;
  assert(lines <= MAX_README_LINES, `README.md has ${lines} lines; move details into docs/`);
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings (outside code blocks), with GitHub's -1, -2 for repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative links `[text](target)` outside code blocks and code spans. */
function links(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(m[1])) out.push(m[1]);
    }
  }
  return out;
}

Deno.test("relative links in README.md and docs/ reach files and headings that exist", async () => {
  const pages = [README];
  for await (const e of Deno.readDir(new URL("docs/", ROOT))) {
    if (e.isFile && e.name.endsWith(".md")) pages.push(new URL(`docs/${e.name}`, ROOT));
  }
  assert(pages.length > 1, "docs/ holds no pages");
  const broken: string[] = [];
  for (const page of pages) {
    const text = await Deno.readTextFile(page);
    const name = page.pathname.slice(new URL(ROOT).pathname.length);
    for (const link of links(text)) {
      const [path, anchor] = link.split("#");
      // A link above the repository (the release page, `../../releases`) points at the hosting site.
      const target = path === "" ? page : new URL(path, page);
      if (!target.pathname.startsWith(new URL(ROOT).pathname)) continue;
      let body: string;
      try {
        const info = await Deno.stat(target);
        if (info.isDirectory) continue;
        body = path === "" ? text : await Deno.readTextFile(target);
      } catch {
        broken.push(`${name}: ${link} (no such file)`);
        continue;
      }
      if (anchor && target.pathname.endsWith(".md") && !anchors(body).has(anchor)) {
        broken.push(`${name}: ${link} (no such heading)`);
      }
    }
  }
  assertEquals(broken, []);
});

/**
 * The files and folders the Layout block of docs/design.md names, as paths from the repository root: a line that
 * starts at column 0 names a folder (`lib/tmux/`; `lib/tools/<toolset>/`: lib/tools/) or a file (`lib/errors.ts`), and
 * the bare `name.ts` words after it
 * are in that folder (the file's folder, for a file); a word with a `/` is a path from the root.
 */
function layoutPaths(block: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  let folder = "";
  for (const line of block.split("\n")) {
    const head = /^(\S+)/.exec(line)?.[1];
    if (head) {
      folder = head.endsWith("/") ? head : head.slice(0, head.lastIndexOf("/") + 1);
      // `lib/tools/<toolset>/` names lib/tools/ and its sub-folders.
      if (head.endsWith("/")) folders.push(head.replace(/<[^>]*>\/$/, ""));
    }
    for (const m of line.matchAll(/(?<![\w./<>-])((?:[\w.-]+\/)*[\w-]+\.ts)\b/g)) {
      files.push(m[1].includes("/") ? m[1] : folder + m[1]);
    }
  }
  return { files, folders };
}

Deno.test("docs/design.md's Layout names every folder and file of lib/ and only files that exist", async () => {
  const design = await Deno.readTextFile(new URL("docs/design.md", ROOT));
  const block = /## Layout\n\n```\n([^]*?)```/.exec(design)?.[1];
  assert(block !== undefined, "docs/design.md has no ``` block under ## Layout");
  const { files, folders } = layoutPaths(block);
  const exists = async (path: string) => await Deno.stat(new URL(path, ROOT)).then(() => true, () => false);
  const stale = [];
  for (const path of [...files, ...folders]) if (!(await exists(path))) stale.push(path);
  assertEquals(stale, [], "docs/design.md's Layout names paths that do not exist");
  const missing = [];
  for await (const e of Deno.readDir(new URL("lib/", ROOT))) {
    const path = e.isDirectory ? `lib/${e.name}/` : `lib/${e.name}`;
    if (e.isDirectory ? !folders.includes(path) : e.name.endsWith(".ts") && !files.includes(path)) missing.push(path);
  }
  assertEquals(missing.sort(), [], "docs/design.md's Layout leaves out these parts of lib/");
});

Deno.test("layoutPaths reads folders, files after them and paths from the root", () => {
  const { files, folders } = layoutPaths(
    "main.ts                  x\nlib/a.ts, b.ts           y\nlib/tmux/                c.ts (d), lib/e/f.ts\n" +
      "                         g.ts\nlib/tools/<toolset>/     h (`x`, lib/tools/i.ts)\n",
  );
  assertEquals(files, [
    "main.ts",
    "lib/a.ts",
    "lib/b.ts",
    "lib/tmux/c.ts",
    "lib/e/f.ts",
    "lib/tmux/g.ts",
    "lib/tools/i.ts",
  ]);
  assertEquals(folders, ["lib/tmux/", "lib/tools/"]);
});

Deno.test("docs/development.md names every permission of deno.json's server permission set", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const dev = (await Deno.readTextFile(new URL("docs/development.md", ROOT))).replace(/\s+/g, " ");
  const said = /under `permissions\.server` \(([^)]*)\)/i.exec(dev)?.[1];
  assert(said !== undefined, "docs/development.md no longer says what permissions.server holds");
  const unnamed = Object.keys(config.permissions.server).filter((p) => !new RegExp(`\\b${p}\\b`, "i").test(said));
  assertEquals(unnamed, [], `docs/development.md's list of the server's permissions (${said}) leaves out`);
});
