/**
 * Screens as pictures (lib/terminal/render.ts, snapshot-pane `format`): a
 * known screen — true colours, a CJK line, the cursor — is drawn to PNG,
 * decoded here, and its pixels checked at chosen cells; the SVG is
 * well-formed; a result fits the response budget; secrets are painted over.
 */
import { decode } from "fast-png";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { withServer } from "./helpers.ts";
import { waitForPane } from "./pane_helpers.ts";
import { createEmulator, loadEmulator } from "../lib/terminal/emulator.ts";
import {
  CELL_HEIGHT,
  CELL_WIDTH,
  CURSOR,
  DEFAULT_BG,
  REDACTED,
  screenPicture,
  svgPng,
} from "../lib/terminal/render.ts";
import type { CallToolResult } from "../lib/sdk.ts";
import { until, withPty } from "./pty_suite.ts";

type Image = ReturnType<typeof decode>;

/** The pixel at (x, y) as 0xRRGGBB. */
function pixel(img: Image, x: number, y: number): number {
  const ch = img.channels;
  const i = (y * img.width + x) * ch;
  return (img.data[i] << 16) | (img.data[i + 1] << 8) | img.data[i + 2];
}

/** Pixels of a cell box (w cells wide) that are not `bg`. */
function ink(img: Image, row: number, col: number, bg: number, w = 1, scale = 1): number {
  let n = 0;
  for (let y = row * CELL_HEIGHT * scale; y < (row + 1) * CELL_HEIGHT * scale; y++) {
    for (let x = col * CELL_WIDTH * scale; x < (col + w) * CELL_WIDTH * scale; x++) if (pixel(img, x, y) !== bg) n++;
  }
  return n;
}

const centre = (row: number, col: number) => [col * CELL_WIDTH + 4, row * CELL_HEIGHT + 8] as const;

const SCREEN = [
  "\x1b[48;2;255;0;0m   \x1b[0m \x1b[38;2;0;255;0mgreen\x1b[0m \x1b[1mbold\x1b[0m \x1b[3mital\x1b[0m \x1b[4munder\x1b[0m",
  "中文 漢字",
  "$ ",
];

Deno.test("render: colours, a CJK line and the cursor at chosen cells of the decoded PNG", async () => {
  const pic = await screenPicture({ lines: SCREEN, rows: 4, cols: 40, cursor: { row: 2, col: 2 } }, "png");
  assert("data" in pic);
  const img = decode(Uint8Array.from(atob(pic.data), (c) => c.charCodeAt(0)));
  assertEquals([img.width, img.height], [40 * CELL_WIDTH, 4 * CELL_HEIGHT]);
  // A true-colour background, all of the cell.
  assertEquals(pixel(img, ...centre(0, 1)), 0xff0000);
  assertEquals(ink(img, 0, 0, 0xff0000, 3), 0);
  // Green text: some pixels of the cells are the foreground colour.
  let green = 0;
  for (let x = 4 * CELL_WIDTH; x < 9 * CELL_WIDTH; x++) {
    for (let y = 0; y < CELL_HEIGHT; y++) if (pixel(img, x, y) === 0x00ff00) green++;
  }
  assert(green > 20, `green pixels: ${green}`);
  // Underline: a full line under "under" (cells 20..24) two pixels above the cell's bottom.
  for (let x = 20 * CELL_WIDTH; x < 25 * CELL_WIDTH; x++) assert(pixel(img, x, CELL_HEIGHT - 2) !== DEFAULT_BG);
  // The CJK line: each wide character is drawn across its two cells; the blank between them is empty.
  for (const col of [0, 2, 5, 7]) {
    assert(ink(img, 1, col, DEFAULT_BG, 2) > 30, `CJK at column ${col}`);
    assert(ink(img, 1, col + 1, DEFAULT_BG) > 5, `right half of the CJK character at ${col}`);
  }
  assertEquals(ink(img, 1, 4, DEFAULT_BG), 0);
  // The cursor: a block of its colour on an empty cell; nothing on the row below.
  assertEquals(ink(img, 2, 2, CURSOR), 0);
  assertEquals(pixel(img, ...centre(2, 2)), CURSOR);
  assertEquals(ink(img, 3, 0, DEFAULT_BG, 40), 0);
});

Deno.test("render: a character the font has no glyph for (an emoji) is drawn as a box, not left blank", async () => {
  const pic = await screenPicture({ lines: ["a😀b 𝄞"], rows: 1, cols: 10, cursor: { row: 0, col: 9 } }, "png");
  assert("data" in pic);
  const img = decode(Uint8Array.from(atob(pic.data), (c) => c.charCodeAt(0)));
  // The emoji takes cells 1-2, the clef (one column) cell 5: each shows ink across its cells, left and right half.
  for (const [col, w] of [[1, 2], [5, 1]]) {
    assert(ink(img, 0, col, DEFAULT_BG) > 5, `left of the character at column ${col}`);
    assert(ink(img, 0, col + w - 1, DEFAULT_BG) > 5, `right of the character at column ${col}`);
  }
  assertEquals(ink(img, 0, 4, DEFAULT_BG), 0);
});

Deno.test("render: the SVG is well-formed and holds the text, colours and cursor", async () => {
  const pic = await screenPicture(
    { lines: [...SCREEN, "<&>\"'"], rows: 4, cols: 40, cursor: { row: 2, col: 2 } },
    "svg",
  );
  assert("svg" in pic);
  assertMatch(pic.svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="320" height="64"/);
  assertMatch(pic.svg, />中文漢字</); // spaces are not drawn: each character has its own x
  assertMatch(pic.svg, /fill="#ff0000"/);
  assertMatch(pic.svg, /&lt;&amp;&gt;&quot;&apos;/);
  // resvg parses it (it refuses malformed XML).
  const { width } = await svgPng(pic.svg, 1);
  assertEquals(width, 320);
  await svgPng("<svg", 1).then(() => assert(false, "malformed SVG accepted"), () => {});
});

Deno.test("render: a pty session's screen (the emulator's colours) draws the same way", async () => {
  await loadEmulator();
  const em = createEmulator(3, 20);
  em.write(new TextEncoder().encode("\x1b[48;5;21m  \x1b[0m x\r\n中"));
  await em.flushed();
  const pic = await screenPicture({ lines: em.screenColors(), rows: 3, cols: 20, cursor: em.cursor() }, "png");
  em.dispose();
  assert("data" in pic);
  const img = decode(Uint8Array.from(atob(pic.data), (c) => c.charCodeAt(0)));
  assertEquals(pixel(img, ...centre(0, 0)), 0x0000ff); // palette colour 21
  assert(ink(img, 1, 0, DEFAULT_BG, 2) > 30);
  assertEquals(pixel(img, ...centre(1, 2)), CURSOR);
});

function imageOf(r: CallToolResult): Image {
  const block = r.content.find((b: CallToolResult["content"][number]) => b.type === "image");
  assert(block && block.type === "image", JSON.stringify(r).slice(0, 300));
  assertEquals(block.mimeType, "image/png");
  return decode(Uint8Array.from(atob(block.data), (c) => c.charCodeAt(0)));
}

Deno.test("snapshot-pane format png/svg on a tmux pane: pixels, budget, secrets painted over", async () => {
  const token = "ghp" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
  await withServer(async (mcp, tmux) => {
    const script = `printf '\\033[48;2;0;0;255m    \\033[0m 中文\\n${token}\\n'; exec sleep 600`;
    const pane = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", script)).trim();
    await tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await waitForPane(tmux, pane, /ghp_/);
    const r = await mcp.call("snapshot-pane", { target: pane, format: "png" });
    const img = imageOf(r);
    assertEquals([img.width, img.height], [80 * CELL_WIDTH, 24 * CELL_HEIGHT]);
    assertEquals(pixel(img, ...centre(0, 1)), 0x0000ff);
    assert(ink(img, 0, 5, DEFAULT_BG, 2) > 30, "the CJK character");
    // The token's cells are one box of the redaction colour: no glyph drawn in them.
    assertEquals(ink(img, 1, 0, REDACTED, token.length), 0);
    assert(!JSON.stringify(r).includes(token));
    const svg = await mcp.call("snapshot-pane", { target: pane, format: "svg" });
    assertMatch(JSON.stringify(svg), /<svg /);
    assert(!JSON.stringify(svg).includes(token.slice(0, 10)), "the SVG draws no part of the token");
  });
  // A small budget: the picture is scaled down to fit rather than buffered.
  await withServer(async (mcp, tmux) => {
    const pane = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", "echo hi; exec sleep 600"))
      .trim();
    await tmux.tmux("resize-window", "-t", pane, "-x", "200", "-y", "50");
    await waitForPane(tmux, pane, /hi/);
    const r = await mcp.call("snapshot-pane", { target: pane, format: "png" });
    const img = imageOf(r);
    assert(img.width < 200 * CELL_WIDTH, `width ${img.width}`);
    assert(Math.ceil(img.width * img.height / 750) <= 1000, `${img.width}×${img.height}`);
  }, { args: ["--max-tokens", "1000"] });
});

Deno.test("snapshot-pane png under a budget below its smallest image refuses in one line, not a buffer of nothing", async () => {
  await withServer(async (mcp, tmux) => {
    const pane = (await tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "--", "echo hi; exec sleep 600"))
      .trim();
    await tmux.tmux("resize-window", "-t", pane, "-x", "200", "-y", "50");
    await waitForPane(tmux, pane, /hi/);
    // It was a buffered_response with no image, buffer_id null and "narrow the call".
    assertEquals(
      await mcp.err("snapshot-pane", { target: pane, format: "png" }),
      "the screen's image at its smallest scale is over this server's 250-token budget for snapshot-pane: pass " +
        'format "text", or ask the user to raise toolConfigs.snapshot-pane.maxTokens (or --max-tokens)',
    );
  }, { args: ["--max-tokens", "250"] });
});

for (const backend of ["pty", "tmux"] as const) {
  Deno.test(`pty-get-screen format png (${backend} backend): colours, CJK, the cursor, a secret painted over`, async () => {
    const token = "ghp" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    await withPty(backend, async (mcp) => {
      const script = `printf '\\033[48;2;255;0;0m  \\033[0m 中\\n${token}\\nab'; exec sleep 600`;
      const { pty_id } = await mcp.ok<{ pty_id: string }>("pty-launch", { command: script, rows: 5, cols: 50 });
      await until(
        "the output",
        () => mcp.ok<{ screen: string }>("pty-get-screen", { pty_id }),
        (s) => s.screen.includes("ab"),
      );
      const r = await mcp.call("pty-get-screen", { pty_id, format: "png" });
      const img = imageOf(r);
      assertEquals([img.width, img.height], [50 * CELL_WIDTH, 5 * CELL_HEIGHT]);
      assertEquals(pixel(img, ...centre(0, 1)), 0xff0000);
      assert(ink(img, 0, 3, DEFAULT_BG, 2) > 30, "the CJK character");
      assertEquals(ink(img, 1, 0, REDACTED, token.length), 0);
      assert(!JSON.stringify(r).includes(token));
      assert(ink(img, 2, 0, DEFAULT_BG, 2) > 20, "ab");
      assertEquals(pixel(img, ...centre(2, 2)), CURSOR);
      assertEquals(ink(img, 3, 0, DEFAULT_BG, 50), 0);
      assertEquals(r.structuredContent, {
        pty_id,
        rows: 5,
        cols: 50,
        cursor: { row: 2, col: 2 },
        screen: "",
        runs_on: "local",
      });
    });
  });
}
