/** lib/text/hash.ts (SHA-256 in plain JavaScript) against `node:crypto`, on lengths around its block edges. */
import { createHash } from "node:crypto";
import { assertEquals } from "./assert.ts";
import { sha256Hex } from "../lib/text/hash.ts";

Deno.test("sha256Hex is SHA-256: every length to 300, multi-byte text, lone surrogates, a large text", () => {
  const texts = ["", "abc", "é€𝄞", "\ud800x\udc80", "x".repeat(1 << 20)];
  for (let n = 0; n <= 300; n++) {
    texts.push(Array.from({ length: n }, (_, i) => String.fromCharCode(32 + (i * 7 + n) % 95)).join(""));
  }
  for (const t of texts) assertEquals(sha256Hex(t), createHash("sha256").update(t).digest("hex"), `length ${t.length}`);
});
