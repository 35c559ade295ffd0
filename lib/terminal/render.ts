/**
 * Screens as pictures: the emulator's cells (lib/terminal/emulator.ts,
 * {@linkcode ansiScreenGrid}) drawn as SVG, and the SVG rasterised to PNG.
 *
 * Every cell is 8 × 16 px in GNU Unifont (npm `@fontsource/unifontex`, SIL
 * OFL): one font with the whole Basic Multilingual Plane, CJK included, drawn
 * on the terminal's own grid (a wide character takes two cells). True
 * colours and the 256-colour palette are kept; bold is drawn with a stroke,
 * italic with a slant (the font has one face), underline and strikethrough
 * as lines, the cursor as a block with its character in reverse, a
 * character beyond the font's plane (an emoji) as a box. PNG comes
 * from resvg (npm `@resvg/resvg-wasm`, WebAssembly: no native build); the
 * wasm and the font are read from their npm packages on first use, never
 * fetched. The font ships as WOFF, which resvg does not read: it is unpacked
 * to a plain sfnt here.
 *
 * @example
 * ```ts
 * import { ansiScreenGrid } from "./emulator.ts";
 * const grid = await ansiScreenGrid(["\x1b[31mred\x1b[0m 中文"], 1, 20);
 * const svg = gridSvg(grid, { row: 0, col: 3 });
 * const png = await svgPng(svg, 1); // Uint8Array, 160 × 16 px
 * ```
 */
import { inflateSync } from "node:zlib";
import { Buffer } from "node:buffer";
import { ansiScreenGrid, type CellColour, type GridCell, RGB_FLAG } from "./emulator.ts";
import { UserError } from "../errors.ts";

/** Cell size in pixels at scale 1. */
export const CELL_WIDTH = 8;
export const CELL_HEIGHT = 16;
/** Baseline of a glyph from the top of its cell (Unifont's ascent at 16 px). */
const BASELINE = 14;
/** The terminal's default colours and the cursor's. */
export const DEFAULT_FG = 0xd0d0d0;
export const DEFAULT_BG = 0x101010;
export const CURSOR = 0x40c040;
/** What a redacted cell is painted with: a solid box, no text. */
export const REDACTED = 0x808080;
const FONT_FAMILY = "UnifontEX";

/** xterm's 256-colour palette as 0xRRGGBB. */
export const PALETTE: readonly number[] = (() => {
  const base = [
    0x000000,
    0xcd0000,
    0x00cd00,
    0xcdcd00,
    0x0000ee,
    0xcd00cd,
    0x00cdcd,
    0xe5e5e5,
    0x7f7f7f,
    0xff0000,
    0x00ff00,
    0xffff00,
    0x5c5cff,
    0xff00ff,
    0x00ffff,
    0xffffff,
  ];
  const steps = [0, 95, 135, 175, 215, 255];
  for (let i = 0; i < 216; i++) {
    base.push((steps[Math.floor(i / 36)] << 16) | (steps[Math.floor(i / 6) % 6] << 8) | steps[i % 6]);
  }
  for (let i = 0; i < 24; i++) {
    const v = 8 + i * 10;
    base.push((v << 16) | (v << 8) | v);
  }
  return base;
})();

/** A cell colour as 0xRRGGBB (`fallback` for the default colour). */
export function rgbOf(colour: CellColour, fallback: number): number {
  if (colour < 0) return fallback;
  if (colour & RGB_FLAG) return colour & 0xffffff;
  return PALETTE[colour] ?? fallback;
}

const hex = (rgb: number) => "#" + rgb.toString(16).padStart(6, "0");
const XML: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
const xmlText = (s: string) => s.replace(/[&<>"']/g, (c) => XML[c]);
// Characters XML 1.0 cannot hold at all (a lone surrogate among them; a pair is a character): never drawn.
// deno-lint-ignore no-control-regex
const UNPRINTABLE = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|\p{Cs}/gu;

/** The colours a cell is drawn in, after inverse and the cursor. */
function coloursOf(cell: GridCell, cursor: boolean): { fg: number; bg: number } {
  let fg = rgbOf(cell.fg, DEFAULT_FG);
  let bg = rgbOf(cell.bg, DEFAULT_BG);
  if (cell.inverse) [fg, bg] = [bg, fg];
  if (cursor) [fg, bg] = [bg, CURSOR];
  if (cell.dim) fg = ((fg >> 1) & 0x7f7f7f) + ((bg >> 1) & 0x7f7f7f);
  return { fg, bg };
}

/**
 * The screen as an SVG document, `cols × 8` by `rows × 16` px. `cursor`
 * undefined: no cursor drawn (hidden, or off the screen).
 */
export function gridSvg(grid: readonly (readonly GridCell[])[], cursor?: { row: number; col: number }): string {
  const rows = grid.length;
  const cols = grid[0]?.length ?? 0;
  const w = cols * CELL_WIDTH, h = rows * CELL_HEIGHT;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" ` +
    `font-family="${FONT_FAMILY}, monospace" font-size="16">`,
    `<rect width="${w}" height="${h}" fill="${hex(DEFAULT_BG)}"/>`,
  ];
  const texts: string[] = [];
  for (let y = 0; y < rows; y++) {
    const top = y * CELL_HEIGHT;
    // Backgrounds: one rect per run of equal colour.
    let runStart = 0, runColour = -1;
    const flush = (end: number) => {
      if (runColour !== DEFAULT_BG && end > runStart) {
        out.push(
          `<rect x="${runStart * CELL_WIDTH}" y="${top}" width="${(end - runStart) * CELL_WIDTH}" ` +
            `height="${CELL_HEIGHT}" fill="${hex(runColour)}"/>`,
        );
      }
    };
    // Glyphs: one text element per run of equal style, each character placed at its own cell.
    let style = "", xs: number[] = [], chars = "";
    const flushText = () => {
      if (chars.length > 0) {
        texts.push(`<text x="${xs.join(" ")}" y="${top + BASELINE}"${style}>${xmlText(chars)}</text>`);
      }
      xs = [];
      chars = "";
    };
    for (let x = 0; x < cols; x++) {
      const cell = grid[y][x];
      if (cell.width === 0) continue; // the right half of a wide character
      const here = cursor !== undefined && cursor.row === y && cursor.col === x;
      const { fg, bg } = coloursOf(cell, here);
      const span = Math.max(1, cell.width);
      if (bg !== runColour) {
        flush(x);
        runStart = x;
        runColour = bg;
      }
      const left = x * CELL_WIDTH;
      if (cell.underline) {
        out.push(
          `<rect x="${left}" y="${top + CELL_HEIGHT - 2}" width="${span * CELL_WIDTH}" height="1" fill="${hex(fg)}"/>`,
        );
      }
      if (cell.strikethrough) {
        out.push(`<rect x="${left}" y="${top + 8}" width="${span * CELL_WIDTH}" height="1" fill="${hex(fg)}"/>`);
      }
      const ch = cell.invisible ? "" : cell.ch.replace(UNPRINTABLE, "");
      if (ch === "" || ch === " ") continue;
      if (ch.codePointAt(0)! > 0xffff) {
        // Beyond the font (Unifont covers the Basic Multilingual Plane): a box says a character is there.
        out.push(
          `<rect x="${left + 1.5}" y="${top + 2.5}" width="${span * CELL_WIDTH - 3}" height="${CELL_HEIGHT - 5}" ` +
            `fill="none" stroke="${hex(fg)}"/>`,
        );
        continue;
      }
      const s = ` fill="${hex(fg)}"` + (cell.bold ? ` stroke="${hex(fg)}" stroke-width="0.5"` : "") +
        (cell.italic ? ` transform="skewX(-12)" transform-origin="0 ${top + BASELINE}"` : "");
      if (s !== style) {
        flushText();
        style = s;
      }
      // A character of several code points (a base and its combining marks) gets one position for all.
      xs.push(left, ...Array.from({ length: [...ch].length - 1 }, () => left));
      chars += ch;
    }
    flush(cols);
    flushText();
  }
  out.push(...texts, "</svg>");
  return out.join("\n");
}

/**
 * A copy of the grid with every cell of a secret painted over: `find` gets
 * each row's text (one character per cell, wide characters once) joined by
 * newlines, and returns [start, end) ranges in that text.
 */
export function maskCells(
  grid: readonly (readonly GridCell[])[],
  find: (text: string) => readonly { start: number; end: number }[],
): GridCell[][] {
  const copy = grid.map((row) => row.map((c) => ({ ...c })));
  const where: [number, number][] = []; // text index → [row, col]
  let text = "";
  copy.forEach((row, y) => {
    if (y > 0) {
      where.push([y - 1, row.length]);
      text += "\n";
    }
    row.forEach((cell, x) => {
      if (cell.width === 0) return;
      const ch = cell.ch === "" ? " " : cell.ch;
      for (let i = 0; i < ch.length; i++) where.push([y, x]);
      text += ch;
    });
  });
  for (const { start, end } of find(text)) {
    for (let i = start; i < end; i++) {
      const [y, x] = where[i] ?? [-1, -1];
      const cell = copy[y]?.[x];
      if (!cell) continue;
      Object.assign(cell, { ch: "", fg: RGB_FLAG | REDACTED, bg: RGB_FLAG | REDACTED, inverse: false });
      if (cell.width === 2 && copy[y][x + 1]) Object.assign(copy[y][x + 1], { bg: RGB_FLAG | REDACTED });
    }
  }
  return copy;
}

/** WOFF 1.0 → the sfnt (TrueType/OpenType) it wraps: resvg reads only the latter. */
export function woffToSfnt(woff: Uint8Array): Uint8Array {
  const dv = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  if (dv.getUint32(0) !== 0x774f4646) throw new Error("not a WOFF font");
  const flavor = dv.getUint32(4);
  const n = dv.getUint16(12);
  const tables: { tag: number; sum: number; data: Uint8Array }[] = [];
  for (let i = 0; i < n; i++) {
    const e = 44 + i * 20;
    const [tag, off, comp, orig, sum] = [0, 4, 8, 12, 16].map((k) => dv.getUint32(e + k));
    const raw = woff.subarray(off, off + comp);
    tables.push({ tag, sum, data: comp < orig ? new Uint8Array(inflateSync(raw)) : raw });
  }
  const size = tables.reduce((s, t) => s + ((t.data.length + 3) & ~3), 12 + 16 * n);
  const out = new Uint8Array(size);
  const o = new DataView(out.buffer);
  let pow = 1, log = 0;
  while (pow * 2 <= n) [pow, log] = [pow * 2, log + 1];
  o.setUint32(0, flavor);
  o.setUint16(4, n);
  o.setUint16(6, pow * 16);
  o.setUint16(8, log);
  o.setUint16(10, n * 16 - pow * 16);
  let at = 12 + 16 * n;
  tables.forEach((t, i) => {
    const e = 12 + i * 16;
    o.setUint32(e, t.tag);
    o.setUint32(e + 4, t.sum);
    o.setUint32(e + 8, at);
    o.setUint32(e + 12, t.data.length);
    out.set(t.data, at);
    at += (t.data.length + 3) & ~3;
  });
  return out;
}

type Resvg = typeof import("@resvg/resvg-wasm");
let rasteriser: Promise<{ resvg: Resvg; font: Uint8Array }> | undefined;

/** resvg with its wasm and the font, loaded once, from their npm packages (no network). */
function loadRasteriser(): Promise<{ resvg: Resvg; font: Uint8Array }> {
  rasteriser ??= (async () => {
    const resvg = await import("@resvg/resvg-wasm");
    const wasm = await Deno.readFile(new URL("index_bg.wasm", import.meta.resolve("@resvg/resvg-wasm")));
    await resvg.initWasm(wasm);
    // Importing the font package's manifest puts the package in the module graph: then it resolves to files
    // (in a compiled binary too), and the font is read from beside it.
    await import("@fontsource/unifontex/package.json", { with: { type: "json" } });
    const woff = await Deno.readFile(
      new URL("files/unifontex-latin-400-normal.woff", import.meta.resolve("@fontsource/unifontex/package.json")),
    );
    return { resvg, font: woffToSfnt(woff) };
  })();
  rasteriser.catch(() => rasteriser = undefined);
  return rasteriser;
}

/** An SVG rasterised to PNG at `scale` (1: one SVG unit per pixel). */
export async function svgPng(svg: string, scale: number): Promise<{ png: Uint8Array; width: number; height: number }> {
  const { resvg, font } = await loadRasteriser();
  const r = new resvg.Resvg(svg, {
    font: { fontBuffers: [font], loadSystemFonts: false, defaultFontFamily: FONT_FAMILY, monospaceFamily: FONT_FAMILY },
    fitTo: { mode: "zoom", value: scale },
    shapeRendering: 1,
  });
  try {
    const img = r.render();
    try {
      return { png: img.asPng(), width: img.width, height: img.height };
    } finally {
      img.free();
    }
  } finally {
    r.free();
  }
}

/** What {@linkcode screenPicture} draws: a screen's rows with SGR sequences, its size and cursor. */
export interface ScreenSource {
  lines: string[];
  rows: number;
  cols: number;
  cursor?: { row: number; col: number };
  /** Finds secrets to paint over (see {@linkcode maskCells}); undefined: draw everything. */
  find?: (text: string) => readonly { start: number; end: number }[];
}

/**
 * Most cells a PNG is drawn of: rasterising takes time in proportion to the characters, with the server waiting
 * meanwhile (a screen of 500×1000 held every call for minutes), and a larger screen would fit a response only
 * shrunk past reading.
 */
export const MAX_PNG_CELLS = 50_000;

/** Scales tried, largest first, until the picture fits. */
const SCALES = [1, 0.75, 0.5, 0.35, 0.25];

/**
 * A screen as an SVG document, or as a PNG (base64) at the largest scale
 * whose result `fits` (the smallest scale when none does).
 */
export async function screenPicture(
  src: ScreenSource,
  format: "svg" | "png",
  fits: (png: { data: string; width: number; height: number }) => boolean = () => true,
): Promise<{ svg: string } | { data: string; width: number; height: number }> {
  if (format === "png" && src.rows * src.cols > MAX_PNG_CELLS) {
    throw new UserError(
      `a screen of ${src.rows}×${src.cols} cells is too large to draw as an image (at most ${MAX_PNG_CELLS} ` +
        "cells): read it as text, or make its terminal smaller",
    );
  }
  let grid = await ansiScreenGrid(src.lines, src.rows, src.cols);
  if (src.find) grid = maskCells(grid, src.find);
  const svg = gridSvg(grid, src.cursor);
  if (format === "svg") return { svg };
  let last: { data: string; width: number; height: number } | undefined;
  for (const scale of SCALES) {
    const { png, width, height } = await svgPng(svg, scale);
    last = { data: Buffer.from(png).toString("base64"), width, height };
    if (fits(last)) break;
  }
  return last!;
}
