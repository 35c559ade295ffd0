/**
 * A secret that a page edge cuts (show-buffer's offset_bytes/max_bytes, a search-panes
 * excerpt) is redacted whole on each side (lib/text/redact_page.ts), and paging still returns every
 * other byte exactly once.
 *
 * The secrets are built at run time from pieces, so that this file itself holds none of the shapes a scanner
 * looks for.
 */
import fc from "fast-check";
import { assert, assertEquals } from "./assert.ts";
import { withServer } from "./helpers.ts";
import { waitForPane } from "./pane_helpers.ts";
import { loadRedactor } from "../lib/text/redact.ts";
import { redactedBytePages } from "../lib/text/redact_page.ts";

const rep = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);
const b64 = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFla";
const body = rep(b64.slice(7), 64);
const pem = `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n${rep(b64, 64)}\n${rep(b64, 40)}\n` +
  `-----END OPENSSH PRIVATE KEY-----`;

/** Each secret as printed, and the value that must not show, not even in part. */
const SECRETS: readonly { kind: string; line: string; value: string }[] = [
  { kind: "aws key id", line: "AKIA" + "Q7XWERTYU2PASDF3", value: "AKIA" + "Q7XWERTYU2PASDF3" },
  { kind: "github", line: "ghp" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", value: "" },
  { kind: "bearer", line: "Authorization: Bearer " + "Zk3LmQ9pW2xR7tY5vB8nC4", value: "Zk3LmQ9pW2xR7tY5vB8nC4" },
  { kind: "private key", line: pem, value: body },
].map((s) => ({ ...s, value: s.value || s.line }));

const filler = (n: number) => rep("lorem ipsum dolor sit amet, ", n);
const enc = new TextEncoder();

/** The longest piece of `value` that `text` holds (pieces of at least `min` units are looked for). */
function longestPiece(text: string, value: string, min = 6): number {
  let longest = 0;
  for (let len = min; len <= value.length; len++) {
    let found = false;
    for (let i = 0; i + len <= value.length && !found; i++) found = text.includes(value.slice(i, i + len));
    if (!found) break;
    longest = len;
  }
  return longest;
}

interface Page {
  next_offset_bytes: number | null;
  returned_bytes: number;
  text: string;
}

Deno.test("show-buffer: a secret across a page edge shows no piece on either page", async () => {
  await withServer(async (mcp) => {
    for (const s of SECRETS) {
      const before = filler(300) + "\n";
      const content = before + s.line + "\n" + filler(300);
      await mcp.ok("set-buffer", { name: "cut", content });
      const at = enc.encode(before + s.line.slice(0, s.line.indexOf(s.value))).length;
      // Edges a few bytes into the value, in its middle, and a few bytes before its end.
      for (const into of [5, s.value.length >> 1, s.value.length - 5]) {
        const first = await mcp.ok<Page>("show-buffer", { name: "cut", max_bytes: at + into });
        assertEquals(first.next_offset_bytes, at + into);
        const second = await mcp.ok<Page>("show-buffer", { name: "cut", offset_bytes: at + into });
        assertEquals(second.next_offset_bytes, null);
        for (const [i, p] of [first, second].entries()) {
          const piece = longestPiece(p.text, s.value);
          assertEquals(piece, 0, `${s.kind} cut ${into} bytes in: page ${i + 1} shows ${piece} units of it`);
          assert(p.text.includes("[redacted:"), `${s.kind} cut ${into} in: page ${i + 1} has a marker`);
        }
        // The bytes around the secret are all there, once.
        assert(first.text.startsWith(before.slice(0, -1)), s.kind);
        assert(second.text.endsWith("\n" + filler(300)), s.kind);
      }
    }
  });
});

Deno.test("search-panes: a secret cut by an excerpt's edge shows no piece", async () => {
  await withServer(async (mcp, tmux) => {
    const key = SECRETS[0].value;
    // search-panes cuts a long line 100 characters before the match: there, 7 characters before the key ends.
    const paneLine = filler(200) + " " + key + " " + rep("x", 91) + " needle " + filler(300);
    const file = await Deno.makeTempFile({ suffix: ".txt" });
    try {
      await Deno.writeTextFile(file, paneLine + "\n");
      const pane = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", `cat ${file}; exec sleep 600`))
        .trim();
      await waitForPane(tmux, pane, /needle/);
      const hits = await mcp.ok<{ panes: { matches: { text: string }[] }[] }>("search-panes", {
        query: "needle",
        target: pane,
      });
      const text = hits.panes[0].matches[0].text;
      assert(text.startsWith("…[redacted:"), text);
      assertEquals(longestPiece(text, key), 0, text);
    } finally {
      await Deno.remove(file);
    }
  });
});

Deno.test("search-buffer: a secret cut by a snippet's edge shows no piece, whichever edge and mode", async () => {
  await withServer(async (mcp) => {
    for (const s of SECRETS.slice(0, 3)) {
      // The match sits right after the secret (before edge) or right before it (after edge), 8 bytes of context.
      for (
        const [content, query] of [
          [filler(40) + " " + s.line + ";NEEDLE " + filler(40), "NEEDLE"],
          [filler(40) + " NEEDLE=" + s.line + " " + filler(40), "NEEDLE"],
        ]
      ) {
        await mcp.ok("set-buffer", { name: "snip", content });
        for (const mode of ["literal", "regex"]) {
          const r = await mcp.ok<{ matches: { snippet: string }[] }>("search-buffer", {
            query,
            mode,
            buffers: ["snip"],
            context_bytes: 8,
          });
          const snippet = r.matches[0].snippet;
          assert(snippet.includes("NEEDLE"), `${s.kind} ${mode}: ${snippet}`);
          assertEquals(longestPiece(snippet, s.value), 0, `${s.kind} ${mode}: ${snippet}`);
          assert(!("cut" in r.matches[0]), "the cut tokens stay inside the server");
        }
      }
    }
  });
});

Deno.test("pages of a text: no piece of a secret at any edge, and every other byte exactly once", async () => {
  const redactor = await loadRedactor();
  const markers = /(\[redacted:[a-z0-9-]+:[0-9a-f]{8}\])\1*/g;
  fc.assert(
    fc.property(
      fc.constantFrom(...SECRETS),
      fc.nat(600),
      fc.nat(600),
      fc.integer({ min: 1, max: 900 }),
      (s, head, tail, size) => {
        const text = filler(head) + "\n" + s.line + "\n" + filler(tail);
        const bytes = enc.encode(text);
        let joined = "";
        for (let offset = 0; offset < bytes.length;) {
          const end = Math.min(bytes.length, offset + size);
          const page = redactedBytePages(redactor, bytes, offset, end)(end);
          // A page edge may leave a piece shorter than 6 only where the value meets text that is not secret.
          assertEquals(longestPiece(page, s.value), 0, `page at ${offset}: ${page}`);
          joined += page;
          offset = end;
        }
        // A secret across an edge shows its marker on each page: once, it is the whole text's redaction.
        assertEquals(joined.replace(markers, "$1"), redactor.redact(text));
      },
    ),
    { numRuns: 300 },
  );
});
