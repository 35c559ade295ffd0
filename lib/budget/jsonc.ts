/**
 * JSONC (JSON with `//` and `/* *\/` comments and trailing commas) → JSON.
 * Comments and trailing commas are replaced by spaces (newlines kept), so
 * the result has the same length and line structure as the input and
 * `JSON.parse` error positions point into the original file.
 *
 * @example
 * ```ts
 * parseJsonc('{ "a": 1, // one\n }'); // { a: 1 }
 * ```
 */

const QUOTE = 34, SLASH = 47, STAR = 42, BACKSLASH = 92, LF = 10, COMMA = 44;

/** Blanks out comments and trailing commas; strings are left exactly as they are. */
export function stripJsonc(text: string): string {
  const out = text.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n" && out[k] !== "\r") out[k] = " ";
  };
  let lastComma = -1; // a comma not yet followed by a value
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      lastComma = -1;
      i++;
      while (i < n && text.charCodeAt(i) !== QUOTE) i += text.charCodeAt(i) === BACKSLASH ? 2 : 1;
      i++;
    } else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const end = text.indexOf("*/", i + 2);
      // An unterminated comment is left for JSON.parse to report.
      if (end < 0) break;
      blank(i, end + 2);
      i = end + 2;
    } else if (c === COMMA) {
      lastComma = i++;
    } else if (c === 0x7d || c === 0x5d) { // } or ]
      if (lastComma >= 0) out[lastComma] = " ";
      lastComma = -1;
      i++;
    } else {
      if (c !== 0x20 && c !== LF && c !== 9 && c !== 13) lastComma = -1;
      i++;
    }
  }
  return out.join("");
}

/** Parses JSONC; throws `SyntaxError` with JSON.parse's message (positions match the original text). */
export function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonc(text));
}
