/**
 * Which tmux formats a model may have expanded (`display-message`, and the
 * format options `set-option` writes: status-left, pane-border-format, …).
 *
 * The check is a small parser of tmux 3.3a's format syntax (format.c:
 * `format_expand1`, `format_skip`, `format_build_modifiers`), not a list of
 * patterns: `#{…}` with modifiers separated by `;`, modifier arguments in any
 * wrapper character (`p5`, `p/5/`, `p+5+` are one modifier), nested formats,
 * `#(…)`, `##`, `#,`, `#}` escapes and `#[…]` styles. What tmux would
 * evaluate is bounded, everywhere it can appear (also inside `#{l:…}`, which
 * is parsed although tmux would not expand it — refusing more is safe):
 *
 * - `#(command)` runs a shell command in the tmux server: refused (formats in
 *   options may allow it, see {@linkcode FormatPolicy.allowShell}).
 * - `E:` and `T:` expand a value again as a format (`#{E:status-right}` runs
 *   the user's `#(…)`): refused unless {@linkcode FormatPolicy.allowReexpand}.
 * - `p` (padding) allocates its width: the width must be a literal integer of
 *   at most {@linkcode MAX_PAD}; `=` (trim) must be a literal integer too (a
 *   width computed by a nested format cannot be checked before tmux runs it).
 *   `R:` (repeat, tmux ≥ 3.4) is refused. The decimals of `e|op|f|N` are
 *   allocated as well: N must be a literal integer of at most
 *   {@linkcode MAX_PRECISION}.
 * - regular expressions run inside the tmux server, which serves nobody else
 *   while one backtracks: `m/r` is refused, `m` (fnmatch) needs a literal
 *   pattern with at most {@linkcode MAX_STARS} `*`, `s/…/…/` needs a literal
 *   pattern without regex operators (plain text replacement) and a literal
 *   replacement, lengthening the text at most {@linkcode MAX_GROWTH} times
 *   over the whole format (nested replacements multiply), and `C`
 *   (search the pane's whole history) is refused.
 * - loops `S:`, `W:`, `P:`, `L:` multiply when nested: at most
 *   {@linkcode MAX_LOOPS} in one format.
 * - an unterminated `#{` or `#(` is refused, as is nesting deeper than
 *   {@linkcode MAX_DEPTH}.
 *
 * The parser never throws: every input gives a refusal reason or undefined.
 *
 * @example
 * ```ts
 * formatRefusal("#{pane_id} #{pane_current_command}"); // undefined: allowed
 * formatRefusal("#(id)"); // "the format contains #( which makes tmux run a shell command; …"
 * formatRefusal("#{p+50000000+:x}"); // "padding … wider than 500 …"
 * ```
 */
import { scopedFormatRefusal } from "./scope.ts";

/** Largest padding width accepted in `#{pN:…}` (any argument syntax). */
export const MAX_PAD = 500;
/** Most loop modifiers (`#{S:…}`, `#{W:…}`, `#{P:…}`, `#{L:…}`) in one format: nested loops multiply. */
export const MAX_LOOPS = 2;
/** Most `*` in an `m` (fnmatch) pattern: fnmatch backtracks over each. */
export const MAX_STARS = 3;
/** Most decimals of an `e|op|f|N` result. */
export const MAX_PRECISION = 100;
/** Most `s/…/…/` replacements may lengthen a format's text, all together (nested ones multiply). */
export const MAX_GROWTH = 64;
/** Deepest `#{…}` nesting accepted. */
export const MAX_DEPTH = 16;

/** What a caller allows beyond the always-safe subset. */
export interface FormatPolicy {
  /** `#(…)` shell commands (option values at the destructive tier). */
  allowShell?: boolean;
  /** `E:`/`T:` re-expansion (option values at the destructive tier). */
  allowReexpand?: boolean;
  /**
   * The server runs with a session scope (lib/policy/scope.ts): loops over
   * sessions and clients (`S:`, `L:`), `N/s:` (whether a session of a name exists) and variables naming other
   * sessions are refused.
   */
  scoped?: boolean;
}

/** What the parser found in an accepted format (for policies that look further). */
export interface FormatFacts {
  /** The bodies of `#(…)` commands, when allowed. */
  shell: string[];
  /** True when `E:` or `T:` is used, when allowed. */
  reexpand: boolean;
}

class Refusal {
  constructor(readonly reason: string) {}
}

// Single-character modifiers without arguments, and those that take arguments (tmux 3.3a plus R and L of 3.4).
const NO_ARGS = "labcdnwETSWPLR<>";
const WITH_ARGS = "mCNst=peqR";
const TWO_CHAR = ["||", "&&", "!=", "==", "<=", ">="];
const SHORT_ALIASES = "HhDPSTWIF";
const ERE_OPERATORS = /[.[\]()*+?{}|^$\\]/;

const isEnd = (c: string | undefined) => c === ";" || c === ":";
const isPunct = (c: string) => /^[!-/:-@[-`{-~]$/.test(c);

/**
 * Index of the first character of `ends` at bracket depth 0 from `from`, the
 * way tmux's `format_skip` finds it (`#{` opens, `}` closes, `#` escapes one
 * of `,#{}:`), or -1.
 */
function skip(s: string, from: number, ends: string): number {
  let depth = 0;
  for (let i = from; i < s.length; i++) {
    if (s[i] === "#" && s[i + 1] === "{") depth++;
    if (s[i] === "#" && i + 1 < s.length && ",#{}:".includes(s[i + 1])) {
      i++;
      continue;
    }
    if (s[i] === "}") depth--;
    if (depth === 0 && ends.includes(s[i])) return i;
  }
  return -1;
}

/** Splits at top-level commas (tmux's `format_choose` and conditional lists). */
function splitCommas(s: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (;;) {
    const i = skip(s, start, ",");
    if (i < 0) break;
    parts.push(s.slice(start, i));
    start = i + 1;
  }
  parts.push(s.slice(start));
  return parts;
}

interface Modifier {
  name: string;
  args: string[];
}

class Parser {
  loops = 0;
  growth = 1;
  readonly facts: FormatFacts = { shell: [], reexpand: false };
  constructor(readonly policy: FormatPolicy) {}

  /** A format: text with `#…` sequences (tmux's format_expand1). */
  format(s: string, depth: number): void {
    if (depth > MAX_DEPTH) throw new Refusal(`formats nested deeper than ${MAX_DEPTH} levels are refused`);
    for (let i = 0; i < s.length; i++) {
      if (s[i] !== "#") continue;
      const c = s[i + 1];
      if (c === undefined) return;
      if (c === "(") {
        if (!this.policy.allowShell) {
          throw new Refusal("the format contains #( which makes tmux run a shell command; use #{…} variables only");
        }
        const end = this.closeParen(s, i + 2);
        if (end < 0) throw new Refusal("unterminated #( in the format");
        this.facts.shell.push(s.slice(i + 2, end));
        i = end;
      } else if (c === "{") {
        const end = skip(s, i, "}");
        if (end < 0) throw new Refusal("unterminated #{ in the format: close it with }");
        this.replace(s.slice(i + 2, end), depth + 1);
        i = end;
      } else {
        // ##, #, and #} are escapes, #[ starts a style (its text is still scanned), #S and co. are variables.
        if ("#,}".includes(c) || SHORT_ALIASES.includes(c)) i++;
      }
    }
  }

  /** The matching `)` of a `#(`, counting nested parentheses as tmux does. */
  private closeParen(s: string, from: number): number {
    let depth = 1;
    for (let i = from; i < s.length; i++) {
      if (s[i] === "(") depth++;
      else if (s[i] === ")" && --depth === 0) return i;
    }
    return -1;
  }

  /** Modifiers up to the `:`, or undefined when the text has none (tmux's format_build_modifiers). */
  private modifiers(s: string): { mods: Modifier[]; rest: string } | undefined {
    const mods: Modifier[] = [];
    let i = 0;
    while (i < s.length && s[i] !== ":") {
      if (s[i] === ";") i++;
      const c = s[i];
      if (c === undefined) return undefined;
      if (NO_ARGS.includes(c) && isEnd(s[i + 1])) {
        mods.push({ name: c, args: [] });
        i++;
        continue;
      }
      const two = s.slice(i, i + 2);
      if (TWO_CHAR.includes(two) && isEnd(s[i + 2])) {
        mods.push({ name: two, args: [] });
        i += 2;
        continue;
      }
      if (!WITH_ARGS.includes(c)) return undefined;
      if (isEnd(s[i + 1])) {
        mods.push({ name: c, args: [] });
        i++;
        continue;
      }
      if (s[i + 1] === undefined) return undefined;
      if (!isPunct(s[i + 1]) || s[i + 1] === "-") {
        const end = skip(s, i + 1, ":;");
        if (end < 0) return undefined;
        mods.push({ name: c, args: [s.slice(i + 1, end)] });
        i = end;
        continue;
      }
      const wrap = s[i + 1];
      const args: string[] = [];
      i++;
      for (;;) {
        if (s[i] === wrap && isEnd(s[i + 1])) {
          i++;
          break;
        }
        // An argument ends at the wrapper, or at the ';' or ':' that ends the modifier.
        const end = skip(s, i + 1, wrap + ";:");
        if (end < 0) return undefined;
        args.push(s.slice(i + 1, end));
        i = end;
        if (i >= s.length || isEnd(s[i])) break;
      }
      mods.push({ name: c, args });
    }
    if (s[i] !== ":") return undefined;
    return { mods, rest: s.slice(i + 1) };
  }

  /** The inside of one `#{…}` (tmux's format_replace). */
  private replace(inner: string, depth: number): void {
    const parsed = this.modifiers(inner);
    if (!parsed) {
      // A variable name, or a conditional: every part may be a nested format.
      const body = inner.startsWith("?") ? inner.slice(1) : inner;
      for (const part of splitCommas(body)) this.format(part, depth);
      return;
    }
    const { mods, rest } = parsed;
    let restIsPattern = false;
    for (const m of mods) {
      for (const a of m.args) this.format(a, depth);
      this.modifier(m);
      if (m.name === "m") restIsPattern = true;
    }
    if (restIsPattern) this.pattern(splitCommas(rest)[0]);
    this.format(rest, depth);
  }

  private modifier({ name, args }: Modifier): void {
    switch (name) {
      case "E":
      case "T":
        if (!this.policy.allowReexpand) {
          throw new Refusal(
            `the ${name}: modifier expands a value again as a format (which can run #(…) commands from options ` +
              "such as status-right) and is refused; read the option with show (what: options) instead",
          );
        }
        this.facts.reexpand = true;
        return;
      case "R":
        throw new Refusal("the R: (repeat) modifier is refused; repeat the text yourself");
      case "C":
        throw new Refusal(
          "the C: modifier (search the pane's history inside the tmux server) is refused; use search-panes",
        );
      case "p":
        return this.width("padding", "p", args[0], MAX_PAD);
      case "e":
        // e|op|f|N prints the result with N decimals: tmux allocates them all.
        if (args[2] !== undefined && !(/^\d{1,3}$/.test(args[2]) && Number(args[2]) <= MAX_PRECISION)) {
          throw new Refusal(
            `#{e|…|f|N:…} prints N decimals, and N must be a literal number up to ${MAX_PRECISION}, not ` +
              JSON.stringify(args[2].slice(0, 40)),
          );
        }
        return;
      case "=":
        return this.width("trimming", "=", args[0], Number.MAX_SAFE_INTEGER);
      case "m":
        if (args.some((a) => a.includes("r"))) {
          throw new Refusal(
            "regular-expression matching (m/r) is refused: a backtracking regex blocks the whole tmux server; " +
              "use m: with an fnmatch pattern such as *vim*",
          );
        }
        return;
      case "s": {
        const pattern = args[0] ?? "";
        if (ERE_OPERATORS.test(pattern) || pattern.includes("#")) {
          throw new Refusal(
            "s/…/…/ with a regular expression (or a computed pattern) is refused: a backtracking regex blocks " +
              "the whole tmux server; give plain text to replace (no . [ ] ( ) * + ? { } | ^ $ \\)",
          );
        }
        return this.lengthens(pattern, args[1] ?? "");
      }
      case "N":
        // tmux reads N/s (an argument with an s and no w) as "a session of this name exists", among all sessions.
        if (this.policy.scoped && args.some((a) => a.includes("s"))) {
          throw new Refusal(
            "the N/s: modifier tells whether a session of any name exists, which this server's --sessions/--scope " +
              "keep out of view; use list (what: sessions) instead",
          );
        }
        return;
      case "S":
      case "W":
      case "P":
      case "L":
        if (this.policy.scoped && (name === "S" || name === "L")) {
          throw new Refusal(
            `the ${name}: loop reads every ${name === "S" ? "session" : "client"}, which this server's ` +
              "--sessions/--scope keep out of view; use list (what: sessions) instead",
          );
        }
        if (++this.loops > MAX_LOOPS) {
          throw new Refusal(
            `more than ${MAX_LOOPS} loop modifiers (#{S:…}, #{W:…}, #{P:…}) are refused (nested loops ` +
              "multiply); use list (what: sessions, windows or panes) instead",
          );
        }
        return;
    }
  }

  /**
   * A replacement of `s/pattern/with/` may lengthen the text up to |with|/|pattern| times, and tmux expands a nested
   * `s` in the value or in the replacement first, so nested ones multiply (ten of `s/a/aaaaaaaaaa/` make a
   * 10^10-byte value inside the tmux server): the replacement must be literal, and the product of every
   * replacement's factor in one format at most {@linkcode MAX_GROWTH}.
   */
  private lengthens(pattern: string, replacement: string): void {
    if (replacement.includes("#")) {
      throw new Refusal("s/…/…/ with a computed replacement (#{…} in it) is refused; give the replacement as text");
    }
    this.growth *= Math.max(1, Math.ceil(replacement.length / Math.max(1, pattern.length)));
    if (this.growth > MAX_GROWTH) {
      throw new Refusal(
        `s/…/…/ replacements that lengthen the text more than ${MAX_GROWTH} times in all are refused (nested ` +
          "ones multiply); use fewer or shorter replacements",
      );
    }
  }

  /** A width argument of `p` or `=`: a literal integer within `max`. */
  private width(what: string, name: string, arg: string | undefined, max: number): void {
    if (arg === undefined) return;
    if (!/^-?\d{1,12}$/.test(arg)) {
      throw new Refusal(`a ${what} width (${name}) must be a literal number, not ${JSON.stringify(arg.slice(0, 40))}`);
    }
    if (Math.abs(Number(arg)) > max) {
      throw new Refusal(`${what} #{${name}${arg}:…} is wider than ${max} columns and is refused; use a smaller width`);
    }
  }

  /** The pattern of `m`: literal text with few wildcards. */
  private pattern(p: string): void {
    if (p.includes("#")) {
      throw new Refusal("an m: pattern computed by a format is refused; give the pattern as literal text");
    }
    if ((p.match(/\*/g)?.length ?? 0) > MAX_STARS) {
      throw new Refusal(`an m: pattern with more than ${MAX_STARS} '*' is refused (fnmatch backtracks over each)`);
    }
  }
}

/**
 * Parses `format` and returns why it is refused, or the facts of an accepted
 * one. Never throws.
 */
export function checkFormat(
  format: string,
  policy: FormatPolicy = {},
): { refused: string; facts?: undefined } | { refused: undefined; facts: FormatFacts } {
  const p = new Parser(policy);
  if (!format.includes("#")) return { refused: undefined, facts: p.facts }; // plain text: nothing to expand
  try {
    p.format(format, 0);
  } catch (e) {
    if (e instanceof Refusal) return { refused: e.reason };
    // A parser bug must not let a format through: refuse, with a reason a maintainer can trace.
    return { refused: `the format could not be checked (${e instanceof Error ? e.message : String(e)})` };
  }
  const outOfScope = policy.scoped ? scopedFormatRefusal(format) : undefined;
  if (outOfScope) return { refused: outOfScope };
  return { refused: undefined, facts: p.facts };
}

/** Why `format` is refused, or undefined when it may be expanded. Never throws. */
export function formatRefusal(format: string, policy: FormatPolicy = {}): string | undefined {
  return checkFormat(format, policy).refused;
}
