/**
 * tmux key names (`C-c`, `Enter`, `Up`, `F5`, `M-x`, `C-S-Right`, …) and the
 * bytes an xterm-compatible terminal sends for them.
 *
 * One table serves two purposes: `send-keys` refuses a name tmux would
 * otherwise type as literal text, and the `pty-*` tools deliver exactly the
 * same bytes on both backends (the tmux backend sends them with
 * `send-keys -H`, the internal PTY writes them).
 *
 * @example
 * ```ts
 * keyBytes("C-c");   // Uint8Array [0x03]
 * keyBytes("Up");    // ESC [ A
 * keyBytes("Hello"); // undefined: not a key name
 * ```
 */

const ESC = "\x1b";

/** A named key: its plain sequence and how modifiers are encoded (xterm style). */
interface NamedKey {
  plain: string;
  /** CSI form taking a modifier parameter: `ESC [ 1 ; m X` or `ESC [ n ; m ~`. */
  modified?: (m: number) => string;
}

const csiLetter = (letter: string): NamedKey => ({
  plain: `${ESC}[${letter}`,
  modified: (m) => `${ESC}[1;${m}${letter}`,
});
const csiTilde = (n: number): NamedKey => ({ plain: `${ESC}[${n}~`, modified: (m) => `${ESC}[${n};${m}~` });
const ss3 = (letter: string): NamedKey => ({ plain: `${ESC}O${letter}`, modified: (m) => `${ESC}[1;${m}${letter}` });

/** Named keys by lower-case name (tmux matches names case-insensitively). */
const NAMED: ReadonlyMap<string, NamedKey> = new Map<string, NamedKey>([
  ["enter", { plain: "\r" }],
  ["escape", { plain: ESC }],
  ["tab", { plain: "\t" }],
  ["btab", { plain: `${ESC}[Z` }],
  ["space", { plain: " " }],
  ["bspace", { plain: "\x7f" }],
  ["up", csiLetter("A")],
  ["down", csiLetter("B")],
  ["right", csiLetter("C")],
  ["left", csiLetter("D")],
  // As tmux sends them, for its TERM (tmux-256color, screen); modified, as xterm and tmux both send them.
  ["home", { plain: `${ESC}[1~`, modified: (m) => `${ESC}[1;${m}H` }],
  ["end", { plain: `${ESC}[4~`, modified: (m) => `${ESC}[1;${m}F` }],
  ["ic", csiTilde(2)],
  ["insert", csiTilde(2)],
  ["dc", csiTilde(3)],
  ["delete", csiTilde(3)],
  ["ppage", csiTilde(5)],
  ["pageup", csiTilde(5)],
  ["pgup", csiTilde(5)],
  ["npage", csiTilde(6)],
  ["pagedown", csiTilde(6)],
  ["pgdn", csiTilde(6)],
  ["f1", ss3("P")],
  ["f2", ss3("Q")],
  ["f3", ss3("R")],
  ["f4", ss3("S")],
  ["f5", csiTilde(15)],
  ["f6", csiTilde(17)],
  ["f7", csiTilde(18)],
  ["f8", csiTilde(19)],
  ["f9", csiTilde(20)],
  ["f10", csiTilde(21)],
  ["f11", csiTilde(23)],
  ["f12", csiTilde(24)],
]);

/** The key names a model may use, for error messages and descriptions. */
export const KEY_NAME_HELP = "a single character, or Enter, Escape, Tab, BTab, Space, BSpace, Up, Down, Left, Right, " +
  "Home, End, PageUp, PageDown, Insert, Delete, F1-F12, with optional C- (Ctrl), M- (Alt/Meta) and S- (Shift) " +
  "prefixes such as C-c, M-x, C-S-Right";

interface Parsed {
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
  base: string;
}

function parseModifiers(name: string): Parsed | undefined {
  let ctrl = false, meta = false, shift = false;
  let rest = name;
  // A modifier prefix is a letter and "-" followed by at least one more character ("C--" is Ctrl+minus).
  while (rest.length > 2 && rest[1] === "-") {
    const m = rest[0].toUpperCase();
    if (m === "C" && !ctrl) ctrl = true;
    else if (m === "M" && !meta) meta = true;
    else if (m === "S" && !shift) shift = true;
    else break;
    rest = rest.slice(2);
  }
  if (rest.length === 0) return undefined;
  // "^C" is tmux's other spelling of C-c.
  if (!ctrl && rest.length === 2 && rest[0] === "^") {
    ctrl = true;
    rest = rest[1];
  }
  return { ctrl, meta, shift, base: rest };
}

function ctrlChar(ch: string): string | undefined {
  const c = ch.toLowerCase();
  if (c >= "a" && c <= "z") return String.fromCharCode(c.charCodeAt(0) - 96);
  const table: Record<string, string> = {
    " ": "\x00",
    "@": "\x00",
    "2": "\x00",
    "[": ESC,
    "3": ESC,
    "\\": "\x1c",
    "4": "\x1c",
    "]": "\x1d",
    "5": "\x1d",
    "^": "\x1e",
    "6": "\x1e",
    "_": "\x1f",
    "7": "\x1f",
    "/": "\x1f",
    "?": "\x7f",
    "8": "\x7f",
  };
  return table[c];
}

/**
 * The byte string (as a JS string of code points; encode as UTF-8) for a tmux
 * key name, or undefined when the name is not a key.
 */
export function keySequence(name: string): string | undefined {
  if (name.length === 0 || name.length > 32) return undefined;
  const p = parseModifiers(name);
  if (!p) return undefined;
  const named = NAMED.get(p.base.toLowerCase());
  let seq: string | undefined;
  if (named) {
    const m = 1 + (p.shift ? 1 : 0) + (p.meta ? 2 : 0) + (p.ctrl ? 4 : 0);
    if (m === 1) return named.plain;
    if (named.modified) return named.modified(m);
    // Keys without a CSI form (Enter, Tab, …): Meta prefixes ESC; Shift-Tab is BTab.
    if (p.base.toLowerCase() === "tab" && p.shift && !p.ctrl) seq = `${ESC}[Z`;
    else if (p.ctrl && p.base.toLowerCase() === "space") seq = "\x00";
    else if (!p.ctrl && !p.shift) seq = named.plain;
    else return undefined;
    return p.meta ? ESC + seq : seq;
  }
  if ([...p.base].length !== 1) return undefined;
  let ch = p.base;
  if (p.shift) ch = ch.toUpperCase();
  if (p.ctrl) {
    const c = ctrlChar(ch);
    if (c === undefined) return undefined;
    ch = c;
  }
  return p.meta ? ESC + ch : ch;
}

/** Bytes for a key name, or undefined when it is not a key name. */
export function keyBytes(name: string): Uint8Array | undefined {
  const seq = keySequence(name);
  return seq === undefined ? undefined : new TextEncoder().encode(seq);
}

/** The Ctrl+digit keys tmux 3.3a drops (it converts only C-2 and C-6), as the names of the bytes they mean. */
const CTRL_DIGIT: Readonly<Record<string, string>> = { "3": "[", "4": "\\", "5": "]", "7": "_", "8": "?" };

/**
 * A key name spelled so that tmux's `send-keys` (3.3a) sends {@linkcode keySequence}'s bytes. tmux types a name it
 * cannot encode as literal text, character by character (`S-a` arrives as the three characters "S-a", `S-Tab` as
 * "S-Tab"), and sends nothing for C-3, C-4, C-5, C-7 and C-8: a shifted character becomes that character shifted,
 * Shift-Tab becomes BTab and those Ctrl+digits the C-[, C-\\, C-], C-_ or C-? they mean. Other names pass unchanged.
 *
 * @example
 * ```ts
 * tmuxKeyName("S-a");     // "A"
 * tmuxKeyName("M-S-Tab"); // "M-BTab"
 * tmuxKeyName("C-3");     // "C-["
 * tmuxKeyName("C-S-Up");  // "C-S-Up"
 * ```
 */
export function tmuxKeyName(name: string): string {
  const p = keySequence(name) === undefined ? undefined : parseModifiers(name);
  if (!p) return name;
  let { base, shift } = p;
  if (shift && [...base].length === 1) [base, shift] = [base.toUpperCase(), false];
  else if (shift && !p.ctrl && base.toLowerCase() === "tab") [base, shift] = ["BTab", false];
  if (p.ctrl && base in CTRL_DIGIT) base = CTRL_DIGIT[base];
  if (base === p.base && shift === p.shift) return name;
  return (p.meta ? "M-" : "") + (p.ctrl ? "C-" : "") + (shift ? "S-" : "") + base;
}

/** True when `name` is a key name this server accepts. */
export function isKeyName(name: string): boolean {
  return keySequence(name) !== undefined;
}
