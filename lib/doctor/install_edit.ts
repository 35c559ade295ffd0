/**
 * Merging one server entry into a client's config text without disturbing
 * anything else: JSON and JSONC through jsonc-parser's edits (comments,
 * order, other servers and formatting stay as they are), TOML by replacing
 * or appending one `[section.name]` table, checked by parsing the result.
 * A file that is not what it should be is refused with a one-line reason,
 * never rewritten.
 *
 * @example
 * ```ts
 * const r = mergeEntry("{}", "json", "mcpServers", "tmux", { command: "/bin/tmux-mcp", args: [] });
 * // r.kind === "changed", r.text holds the new file
 * ```
 */
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  type Node,
  parse,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import type { ConfigFormat } from "./install_clients.ts";

/**
 * What a merge found: the new text, the entry already there as wanted, or why the file is refused; `entry` is the
 * server's entry as the file then holds it (the user's other keys with ours).
 */
export type MergeResult =
  | { kind: "changed"; text: string; replaced: boolean; entry: Record<string, unknown> }
  | { kind: "unchanged"; entry: Record<string, unknown> }
  | { kind: "refused"; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep equality of JSON values (key order ignored). */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return a === b;
}

/** 1-based line and column of `offset` in `text`. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** The indentation unit a JSON file already uses (2 spaces when it shows none). */
function indentUnit(text: string): string {
  const m = /\n([ \t]+)["}\]]/.exec(text);
  if (m?.[1].startsWith("\t")) return "\t";
  return " ".repeat(m ? Math.min(m[1].length, 8) : 2);
}

/** `value` as indented JSON whose lines after the first start at `indent`, lines ending in `eol`. */
function jsonAt(value: unknown, unit: string, indent: string, eol: string): string {
  return JSON.stringify(value, null, unit).replaceAll("\n", eol + indent);
}

/** The whitespace from the start of `offset`'s line up to it, when only whitespace precedes it there. */
function lineIndent(text: string, offset: number): string | undefined {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const before = text.slice(start, offset);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

/** The offset of the first character at or after `at` that is neither whitespace nor inside a comment. */
function skipTrivia(text: string, at: number): number {
  const trivia = /\s+|\/\/[^\r\n]*|\/\*[\s\S]*?\*\//y;
  for (;;) {
    trivia.lastIndex = at;
    const m = trivia.exec(text);
    if (!m) return at;
    at += m[0].length;
  }
}

/**
 * Text that sets `key` = `value` in the object `obj` touching nothing else. When its last property ends a line (a
 * comment may follow it there): after it, on lines of its own at its indentation, with a comma after that property
 * unless it has one. Otherwise (several properties on a line, a comment running on to the next line): the property
 * as one line of compact JSON right after the last one (and its comma, if it has one), so that no byte of the other
 * properties, comments or line breaks changes. Undefined when the object is empty.
 */
function insertProperty(text: string, obj: Node, key: string, value: unknown, unit: string, eol: string) {
  const last = obj.children?.at(-1);
  if (!last) return undefined;
  const at = last.offset + last.length;
  const indent = lineIndent(text, last.offset);
  // What follows the last property on its line: a trailing comma, then nothing but a comment.
  const rest = /^([ \t]*)(,?)([ \t]*(?:\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/[ \t]*)?)(?=\r?\n)/.exec(text.slice(at));
  if (indent !== undefined && rest) {
    const trailingComma = rest[2] === ",";
    const property = `${eol}${indent}${JSON.stringify(key)}: ${jsonAt(value, unit, indent, eol)}${
      trailingComma ? "," : ""
    }`;
    const lineEnd = at + rest[0].length;
    const comma = trailingComma ? "" : ",";
    return text.slice(0, at) + comma + text.slice(at, lineEnd) + property + text.slice(lineEnd);
  }
  const property = `${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  const next = skipTrivia(text, at);
  if (text[next] === ",") return text.slice(0, next + 1) + ` ${property},` + text.slice(next + 1);
  return text.slice(0, at) + `, ${property}` + text.slice(at);
}

/** The config text with `path` = `value`, as local an edit as the file's shape allows. */
function setJson(text: string, path: [string, string], value: unknown): string {
  const unit = indentUnit(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const root = parseTree(text, [], { allowTrailingComma: true })!;
  const existing = findNodeAtLocation(root, path);
  if (existing) {
    // Only the entry's value is replaced, at the indentation of its key's line (on one line when the key shares its
    // line with something else).
    const indent = lineIndent(text, existing.parent!.offset);
    const json = indent === undefined ? JSON.stringify(value) : jsonAt(value, unit, indent, eol);
    return text.slice(0, existing.offset) + json + text.slice(existing.offset + existing.length);
  }
  const section = findNodeAtLocation(root, [path[0]]);
  const local = section
    ? insertProperty(text, section, path[1], value, unit, eol)
    : insertProperty(text, root, path[0], { [path[1]]: value }, unit, eol);
  if (local !== undefined) return local;
  // An empty object: jsonc-parser's edit, which formats only what it inserts between the braces.
  const formattingOptions = { insertSpaces: unit !== "\t", tabSize: unit === "\t" ? 1 : unit.length, eol };
  return applyEdits(text, modify(text, path, value, { formattingOptions }));
}

function mergeJson(
  text: string,
  format: "json" | "jsonc",
  section: string,
  name: string,
  entry: Record<string, unknown>,
): MergeResult {
  const blank = text.trim() === "";
  const source = blank ? "{}\n" : text;
  const errors: ParseError[] = [];
  const value: unknown = parse(source, errors, { allowTrailingComma: format === "jsonc", disallowComments: false });
  const what = format === "json" ? "JSON" : "JSON (with comments)";
  if (errors.length > 0) {
    const e = errors[0];
    return {
      kind: "refused",
      reason: `not valid ${what}: ${printParseErrorCode(e.error)} at ${lineCol(source, e.offset)}`,
    };
  }
  if (format === "json") {
    // The client parses strictly: comments or trailing commas mean the file is not the JSON it reads.
    try {
      JSON.parse(source);
    } catch (e) {
      return { kind: "refused", reason: `not plain JSON (${(e as Error).message.split("\n")[0]})` };
    }
  }
  if (!isObject(value)) return { kind: "refused", reason: "its top level is not a JSON object" };
  // A key given twice: the client reads the last one, an edit would land in the first.
  const tree = parseTree(source, [], { allowTrailingComma: true });
  const twice = (obj: Node | undefined, key: string) =>
    (obj?.children ?? []).filter((p) => p.children?.[0]?.value === key).length > 1;
  if (twice(tree, section)) return { kind: "refused", reason: `a file with "${section}" twice: keep one` };
  if (twice(tree && findNodeAtLocation(tree, [section]), name)) {
    return { kind: "refused", reason: `a file with "${section}"."${name}" twice: keep one` };
  }
  const servers = value[section];
  if (servers !== undefined && !isObject(servers)) {
    return { kind: "refused", reason: `its "${section}" is not an object of servers` };
  }
  const current = isObject(servers) ? servers[name] : undefined;
  if (current !== undefined && !isObject(current)) {
    return { kind: "refused", reason: `its "${section}"."${name}" is not a server entry (an object)` };
  }
  // Keys of ours are set; any other key of an existing entry stays, and so does its value for a key we only give a
  // default for (an empty object: Claude Code's and Zed's "env": {} must not wipe the user's variables).
  const merged = isObject(current) ? { ...current, ...entry } : entry;
  if (isObject(current)) {
    for (const [k, v] of Object.entries(entry)) {
      if (isObject(v) && Object.keys(v).length === 0 && Object.hasOwn(current, k)) merged[k] = current[k];
    }
  }
  if (current !== undefined && sameJson(current, merged)) return { kind: "unchanged", entry: merged };
  let out = setJson(source, [section, name], merged);
  if (!out.endsWith("\n")) out += source.includes("\r\n") ? "\r\n" : "\n";
  return { kind: "changed", text: out, replaced: current !== undefined, entry: merged };
}

/** A bare TOML key when it is one, else a quoted one. */
function tomlKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k);
}

/** The header line `[section.name]` (spaces and quoting as TOML allows), anchored at a line start. */
function tableHeader(section: string, name: string): RegExp {
  const part = (k: string) => `(?:${k.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")}|"${k}"|'${k}')`;
  return new RegExp(`^[ \\t]*\\[[ \\t]*${part(section)}[ \\t]*\\.[ \\t]*${part(name)}[ \\t]*\\][ \\t]*(#.*)?$`, "m");
}

function mergeToml(text: string, section: string, name: string, entry: Record<string, unknown>): MergeResult {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    return { kind: "refused", reason: `not valid TOML: ${(e as Error).message.split("\n")[0]}` };
  }
  const servers = doc[section];
  if (servers !== undefined && !isObject(servers)) {
    return { kind: "refused", reason: `its "${section}" is not a table of servers` };
  }
  const current = isObject(servers) ? servers[name] : undefined;
  if (current !== undefined && !isObject(current)) {
    return { kind: "refused", reason: `its ${section}.${name} is not a table` };
  }
  const keep = isObject(current) ? Object.fromEntries(Object.entries(current).filter(([k]) => !(k in entry))) : {};
  const merged = { ...keep, ...entry };
  if (current !== undefined && sameJson(current, merged)) return { kind: "unchanged", entry: merged };

  // New lines end as the file's do (a CRLF file stays CRLF).
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const header = `[${tomlKey(section)}.${tomlKey(name)}]`;
  const lines = stringifyToml(entry).trimEnd().split("\n");
  let out: string;
  const m = tableHeader(section, name).exec(text);
  if (m) {
    // Replace the table's command and args lines, keeping its other keys, comments and sub-tables: the comments on
    // the header and on the replaced lines stay on the header and on the new lines of the same keys.
    const start = m.index + m[0].length;
    const next = /^[ \t]*\[/m.exec(text.slice(start));
    const end = next ? start + next.index : text.length;
    const { kept, comments } = stripKeys(text.slice(start, end), Object.keys(entry));
    const body = lines.map((line) => {
      const said = comments.get(/^[A-Za-z0-9_-]+/.exec(line)?.[0] ?? "");
      return said ? `${line} ${said}` : line;
    });
    out = text.slice(0, m.index) + `${header}${m[1] ? ` ${m[1]}` : ""}${eol}${body.join(eol)}${eol}` +
      kept.replace(/^\r?\n/, "") + text.slice(end);
  } else if (current !== undefined) {
    return {
      kind: "refused",
      reason: `it defines ${section}.${name} inline or with dotted keys, which this does not rewrite: edit it by hand`,
    };
  } else {
    const sep = text === "" ? "" : /\r?\n\r?\n$/.test(text) ? "" : text.endsWith("\n") ? eol : eol + eol;
    out = `${text}${sep}${header}${eol}${lines.join(eol)}${eol}`;
  }
  // The edit is textual: read it back, and refuse rather than write a file that says something else.
  try {
    const check = (parseToml(out) as Record<string, Record<string, unknown>>)[section]?.[name];
    if (!sameJson(check, merged)) throw new Error("the merged table differs");
  } catch (e) {
    return {
      kind: "refused",
      reason: `a file whose ${section}.${name} this cannot rewrite safely (${
        (e as Error).message.split("\n")[0]
      }): edit it by hand`,
    };
  }
  return { kind: "changed", text: out, replaced: current !== undefined, entry: merged };
}

/**
 * `body` (the lines of one TOML table) without the key/value lines of `keys`, multi-line arrays included, and the
 * comments those lines held, by key (several joined on one line).
 */
function stripKeys(body: string, keys: string[]): { kept: string; comments: Map<string, string> } {
  const lines = body.split("\n");
  const out: string[] = [];
  const comments = new Map<string, string>();
  const note = (key: string, line: string) => {
    const at = scanLine(line).comment;
    if (at === -1) return;
    const said = line.slice(at).replace(/\r$/, "").trimEnd();
    comments.set(key, comments.has(key) ? `${comments.get(key)} ${said}` : said);
  };
  for (let i = 0; i < lines.length; i++) {
    const m = /^[ \t]*("?)([A-Za-z0-9_-]+)\1[ \t]*=([^\r]*)\r?$/.exec(lines[i]);
    if (!m || !keys.includes(m[2])) {
      out.push(lines[i]);
      continue;
    }
    note(m[2], lines[i]);
    // Skip continuation lines of a multi-line array: until its brackets balance (strings hold no brackets we write).
    let depth = scanLine(m[3]).depth;
    while (depth > 0 && i + 1 < lines.length) {
      depth += scanLine(lines[++i]).depth;
      note(m[2], lines[i]);
    }
  }
  return { kept: out.join("\n"), comments };
}

/** One TOML line outside its strings: net `[` minus `]` before its comment, and where that comment starts (or -1). */
function scanLine(line: string): { depth: number; comment: number } {
  let depth = 0;
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") return { depth, comment: i };
    else if (c === "[") depth++;
    else if (c === "]") depth--;
  }
  return { depth, comment: -1 };
}

/**
 * Merges server `name` = `entry` into the config `text` (empty for a file that does not exist yet) under `section`.
 * Never throws for bad input: a file that is not what the client reads is `refused` with the reason.
 */
export function mergeEntry(
  text: string,
  format: ConfigFormat,
  section: string,
  name: string,
  entry: Record<string, unknown>,
): MergeResult {
  if (text.startsWith("\uFEFF")) {
    // Parsers disagree on it (jsonc-parser and JSON.parse reject it, VS Code strips it): ask for the plain file.
    return {
      kind: "refused",
      reason: "a file starting with a byte-order mark (U+FEFF), which this does not edit: save it as UTF-8 without " +
        "a BOM and run again",
    };
  }
  return format === "toml" ? mergeToml(text, section, name, entry) : mergeJson(text, format, section, name, entry);
}

/** A unified diff (3 lines of context) from `before` to `after`, labelled with `path`; "" when they are equal. */
export function unifiedDiff(before: string, after: string, path: string): string {
  if (before === after) return "";
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === "" ? [] : after.replace(/\n$/, "").split("\n");
  // Common head and tail first: a merge changes one region, so the LCS below runs on a few lines only.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ma = a.slice(head, a.length - tail), mb = b.slice(head, b.length - tail);
  const lcs = Array.from({ length: ma.length + 1 }, () => new Array<number>(mb.length + 1).fill(0));
  for (let i = ma.length - 1; i >= 0; i--) {
    for (let j = mb.length - 1; j >= 0; j--) {
      lcs[i][j] = ma[i] === mb[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops: { op: " " | "-" | "+"; line: string }[] = a.slice(0, head).map((line) => ({ op: " ", line }));
  let i = 0, j = 0;
  while (i < ma.length || j < mb.length) {
    if (i < ma.length && j < mb.length && ma[i] === mb[j]) ops.push({ op: " ", line: ma[i++] }), j++;
    else if (i < ma.length && (j >= mb.length || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ op: "-", line: ma[i++] });
    else ops.push({ op: "+", line: mb[j++] });
  }
  ops.push(...a.slice(a.length - tail).map((line) => ({ op: " " as const, line })));
  // Hunks: runs of changes with up to 3 lines of context on each side, merged when they touch.
  const out = [`--- ${before === "" ? "/dev/null" : path}`, `+++ ${path}`];
  const changed = ops.map((o, k) => o.op !== " " ? k : -1).filter((k) => k >= 0);
  let k = 0;
  while (k < changed.length) {
    let from = Math.max(0, changed[k] - 3);
    let to = Math.min(ops.length, changed[k] + 4);
    while (k + 1 < changed.length && changed[k + 1] - 3 <= to) to = Math.min(ops.length, changed[++k] + 4);
    k++;
    const before1 = ops.slice(0, from).filter((o) => o.op !== "+").length;
    const after1 = ops.slice(0, from).filter((o) => o.op !== "-").length;
    const hunk = ops.slice(from, to);
    const na = hunk.filter((o) => o.op !== "+").length, nb = hunk.filter((o) => o.op !== "-").length;
    out.push(`@@ -${na ? before1 + 1 : before1},${na} +${nb ? after1 + 1 : after1},${nb} @@`);
    out.push(...hunk.map((o) => o.op + o.line));
    from = to;
  }
  return out.join("\n") + "\n";
}
