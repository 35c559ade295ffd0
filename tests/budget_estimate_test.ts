/**
 * The token estimate's documented error bound (lib/budget/estimate.ts):
 * between 0.8× and 1.8× of real tokenizers (cl100k_base, o200k_base) on
 * English prose, source code, JSON and CJK text. The tokenizers are a
 * test-only dependency; the server never loads them.
 */
import assert from "node:assert/strict";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { estimateTokens } from "../lib/budget/estimate.ts";

const LOW = 0.8;
const HIGH = 1.8;
const FIXTURES = new URL("./fixtures/tokens/", import.meta.url);
const LIB = new URL("../lib/", import.meta.url);

function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(name, FIXTURES));
}

/** Every .ts file under lib/: real source code of this project. */
function sourceFiles(dir: URL, out: Record<string, string> = {}): Record<string, string> {
  for (const e of Deno.readDirSync(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) sourceFiles(url, out);
    else if (e.name.endsWith(".ts")) out[url.pathname.slice(LIB.pathname.length)] = Deno.readTextFileSync(url);
  }
  return out;
}

/** JSON as tools return it: lists, search results with snippets, escaped text, CJK inside strings. */
function jsonSamples(english: string, code: string, chinese: string): Record<string, string> {
  const buffers = Array.from({ length: 300 }, (_, i) => ({
    name: `build-log-${i}-${(i * 7919).toString(36)}`,
    size_bytes: i * 1031 + 17,
    order_index: i,
  }));
  const words = english.split(/\s+/);
  const matches = Array.from({ length: 120 }, (_, i) => ({
    buffer: `buf-${i % 7}`,
    offset_bytes: i * 4099,
    match_len: 5,
    line: i * 13 + 1,
    snippet: words.slice(i % 200, (i % 200) + 12).join(" "),
  }));
  return {
    "list compact": JSON.stringify({ buffers }),
    "list indented": JSON.stringify({ buffers }, null, 2),
    "search result": JSON.stringify({ query: "error", total_matches: matches.length, matches }),
    "escaped source text": JSON.stringify({ name: "src", offset_bytes: 0, text: code }),
    "CJK inside JSON": JSON.stringify({ name: "notes", text: chinese }),
  };
}

function check(category: string, samples: Record<string, string>) {
  const failures: string[] = [];
  for (const [name, text] of Object.entries(samples)) {
    const estimate = estimateTokens(text);
    for (const [encoding, count] of [["cl100k", cl100k], ["o200k", o200k]] as const) {
      const real = count(text);
      const ratio = estimate / real;
      if (ratio < LOW || ratio > HIGH) {
        failures.push(`${category} / ${name}: estimate ${estimate}, ${encoding} ${real} (×${ratio.toFixed(2)})`);
      }
    }
  }
  assert.deepEqual(failures, [], `outside [${LOW}, ${HIGH}]`);
}

const english = fixture("english.txt");
const chinese = fixture("chinese.txt");
const code = sourceFiles(LIB);

Deno.test("token estimate is within its documented bound on English prose", () => {
  check("English", { english, "English paragraph": english.split("\n\n")[2] });
});

Deno.test("token estimate is within its documented bound on source code", () => {
  assert.ok(Object.keys(code).length >= 10, "lib/ has source files to sample");
  check("code", code);
});

Deno.test("token estimate is within its documented bound on JSON", () => {
  check("JSON", {
    ...jsonSamples(english, code["server/pipeline.ts"], chinese),
    "deno.json": Deno.readTextFileSync(new URL("../deno.json", import.meta.url)),
  });
});

Deno.test("token estimate is within its documented bound on CJK text", () => {
  check("CJK", { chinese, japanese: fixture("japanese.txt"), korean: fixture("korean.txt") });
});

Deno.test("token estimate basics: empty, whitespace-only and astral characters", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("hello world"), 2);
  assert.equal(estimateTokens(" ".repeat(32)), 2, "a run of spaces costs 1 per 16");
  assert.equal(estimateTokens("🚀"), 3);
  assert.equal(estimateTokens("\ud83d"), 2, "a lone surrogate is counted, not skipped");
});
