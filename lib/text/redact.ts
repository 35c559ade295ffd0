/**
 * Secret redaction for text that reaches the model: pane screens, buffers,
 * command output. Each secret becomes a marker `[redacted:KIND:HASH]`; the
 * hash is salted per process, so equal values give equal markers (the model
 * can still say "the same token") and a short guessable password cannot be
 * looked up from its marker.
 *
 * The shapes come from secretlint's recommended rule preset (npm
 * `@secretlint/secretlint-rule-preset-recommend`: AWS, GCP, GitHub, GitLab,
 * Slack, OpenAI, Anthropic, npm, Stripe, private keys, basic auth, database
 * URLs and more), driven directly, one rule at a time, without its linter.
 * Its comment-filter rule is left out: a pane must not switch redaction off
 * by printing `secretlint-disable`. A few shapes it lacks are added here:
 * JWTs, `Authorization: Bearer|Basic` values, `password=`-style assignments,
 * URL passwords of any scheme, passwords on a command line, and private key
 * blocks cut off by the screen edge.
 *
 * A reported range is widened to whole token characters on both sides: a
 * rule that reports a part of a key (or reports a range a few characters
 * off) still hides all of it.
 *
 * @example
 * ```ts
 * const r = await loadRedactor();
 * r.redact("token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"); // "token=[redacted:github:1a2b3c4d]"
 * ```
 */
import { sha256Hex } from "./hash.ts";

/** A redactor of text: `redact` returns the same string (identical) when nothing was found. */
export interface Redactor {
  redact(text: string): string;
  /** Where `text` (no escape sequences) holds secrets, for what is not text (a screen drawn as an image). */
  find(text: string): SecretSpan[];
  /**
   * What `redact` replaces in `text`: sorted [start, end) ranges of it (escape sequences inside a secret
   * included) and each one's marker; for a page cut from a longer text (lib/text/redact_page.ts).
   */
  mark(text: string): MarkedSpan[];
}

/** A range of a text that {@linkcode Redactor.redact} replaces, and its replacement. */
export interface MarkedSpan {
  start: number;
  end: number;
  marker: string;
}

/** One place a secret was found: [start, end) in UTF-16 units, and its kind. */
export interface SecretSpan {
  start: number;
  end: number;
  kind: string;
}

interface RuleContext {
  createTranslator(messages: unknown): (id: string, props?: unknown) => unknown;
  report(descriptor: { range: readonly [number, number] }): void;
  ignore(descriptor: unknown): void;
}
interface Rule {
  meta: { id: string };
  create(context: RuleContext, options: unknown): { file?(source: unknown): void };
}

/**
 * The last word of a password-like name that makes it the name of something about the secret, not of the secret
 * itself: `secretName`, `passwordSecretRef`, `tokenURL`, `token_type`, `token_expiry`, `PASSWORD_FILE`.
 */
const ABOUT_A_SECRET = new Set(
  ("name names ref url uri endpoint type expiry expires expiration ttl length len file path dir env var count " +
    "timeout policy header format algorithm mode enabled required size limit min max scope scopes field label " +
    "command cmd helper").split(" "),
);

/**
 * Values after a password-like name that are not one (the result must stay as printed): a mask (`********`), a
 * placeholder (`<your-token>`, `{{ vault_password }}`), a word for none (`(none)`, `undefined`), a path under home
 * (`~/…`; `/` and `$` are left out by the pattern itself), code that fetches the value (`getpass()`,
 * `os.environ["…"]`, `os.getenv("…")`), and prose: a lower-case word after a colon with more words after it on the
 * line (`Fix token: handle expiry`), where a config's value ends its line. And any value of a name whose last word
 * says it is about the secret ({@linkcode ABOUT_A_SECRET}), or of a name in quotes that end after its separator.
 */
function notAPassword(text: string, m: RegExpMatchArray, at: number, value: string): boolean {
  if (/^(?:\*+|<[^<>]+>|\{\{.*\}\}|~\/.*|[A-Za-z_][\w.]*(?:\(\)?|\[))$/.test(value)) return true;
  if (/^\(?(?:none|null|nil|undefined|unset|empty|n\/a)\)?$/i.test(value)) return true;
  // A quoted name whose quote closes right after its colon (`("Password:" — call …")`): the next quote opens no value.
  if (m[2] && text[m.index! - 1] === m[2]) return true;
  const name = /^[A-Za-z0-9_.-]+/.exec(text.slice(m.index!))?.[0] ?? "";
  const last = name.split(/[_.-]+|(?<=[a-z0-9])(?=[A-Z])/).filter((w) => w !== "").at(-1)?.toLowerCase();
  if (last !== undefined && ABOUT_A_SECRET.has(last)) return true;
  // Prose after a name such as `token:` (`Fix token: handle expiry`); after a password's own name, words are a
  // passphrase (`password: correct horse battery staple`), hidden as one.
  return !/pass(?:word|wd|phrase)?|pwd/i.test(name) && /^[a-z]+(?:-[a-z]+)*$/.test(value) &&
    /:[ \t]*$/.test(text.slice(m.index!, at)) && /^[ \t]+[A-Za-z]/.test(text.slice(at + value.length));
}

/**
 * Keys with a known prefix, by kind (the preset's rule's name) and shape: the prefix and the body's fixed or
 * least length, with no boundary after it (see the "glued" shape in {@linkcode EXTRA}).
 */
const GLUED: readonly (readonly [string, string])[] = [
  ["github", "gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82}"],
  ["anthropic", "sk-ant-[a-z]{3,5}0\\d-[A-Za-z0-9_-]{90}"],
  ["openai", "sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{58,74}T3BlbkFJ"],
  ["aws", "(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}"],
  ["npm", "npm_[A-Za-z0-9]{36}"],
  ["huggingface", "hf_[A-Za-z]{34}"],
  ["groq", "gsk_[A-Za-z0-9]{52}"],
  ["notion", "ntn_[0-9]{11}[A-Za-z0-9]{35}"],
  ["docker", "dckr_pat_[A-Za-z0-9_-]{27}"],
];

/**
 * A match of a known prefix whose body is not random, as placeholders and names are: without a digit and a
 * letter (`ghp_xxxxxxxx…`, `ASIAPACIFICSOUTHREGION`, `ghp_someLongCamelCaseName…`), or for a body of letters
 * alone (huggingface), without both cases. Names in snake_case (`npm_package_…`) the bodies' classes leave out.
 * And AWS's documentation example key, which the preset's rule leaves as printed too.
 */
function notRandom(_text: string, _m: RegExpMatchArray, _at: number, value: string): boolean {
  if (value === "AKIA" + "IOSFODNN7EXAMPLE") return true;
  const body = value.slice(/^[a-z]+(?:_pat)?_|^sk-[a-z]+-|^[A-Z0-9]{4}/.exec(value)?.[0].length ?? 0);
  const upper = /[A-Z]/.test(body), lower = /[a-z]/.test(body);
  return !(/[0-9]/.test(body) ? upper || lower : value.startsWith("hf_") && upper && lower);
}

/**
 * Shapes the preset lacks, each with the group that holds the secret (0: the whole match) and, for some, what
 * looks like one and is not.
 */
const EXTRA: readonly {
  kind: string;
  pattern: RegExp;
  group: number;
  hint: RegExp;
  /** The kind of a match by its first capture group that took part, for a pattern of several. */
  kinds?: readonly string[];
  not?: (text: string, m: RegExpMatchArray, at: number, value: string) => boolean;
}[] = [
  {
    // A key of a known prefix glued to what follows it (`printf 'x TOKEN'` and the prompt on the same row:
    // `TOKENroot@vm:~#`): the preset's patterns need a boundary after the key. Its prefix and its body's fixed
    // or least length are enough; the range is widened over the rest of the run, the glued text with it.
    kind: "glued",
    // Factored by first character: a regex engine scans for those faster than for the prefixes' alternatives.
    hint:
      /(?=[gsAnhd])(?:g(?:h[pousr]_|ithub_pat_|sk_)|sk-(?:ant|proj|svcacct|admin)-|A(?:3T|KIA|GPA|IDA|ROA|IPA|NPA|NVA|SIA)|n(?:pm|tn)_|hf_|dckr_pat_)/,
    pattern: new RegExp(
      "(?<![A-Za-z0-9])(?:" + GLUED.map(([, p]) => `(${p})`).join("|") + ")",
      "g",
    ),
    group: 0,
    kinds: GLUED.map(([kind]) => kind),
    not: notRandom,
  },
  { kind: "jwt", hint: /eyJ/, pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, group: 0 },
  {
    kind: "auth-header",
    hint: /Bearer|Basic|Token/,
    // Outside an Authorization header, not a word of lower-case letters (`Basic authentication enabled`): a
    // credential is encoded or random. On the same line: a line ending in `Bearer` is followed by another thing.
    pattern:
      /(?:\b[Aa]uthorization:[ \t]*(?:Bearer|Basic|Token)[ \t]+|\b(?:Bearer|Basic|Token)[ \t]+(?![a-z]+(?:-[a-z]+)*(?![A-Za-z0-9._~+/=-])))([A-Za-z0-9._~+/-]{12,}=*)/g,
    group: 1,
  },
  {
    kind: "private-key",
    hint: /-----BEGIN/,
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    group: 0,
  },
  {
    // A URL's password in any scheme: the preset knows http(s), ftp and some databases, not redis:// or amqp://
    // (`redis://:PASSWORD@host`, an empty user name included). A scheme starts a run and is short: one that could
    // start at every `.` of a long line cost its length squared.
    kind: "url-password",
    hint: /:\/\//,
    pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s:\/@]*:([^\s\/@]+)@/g,
    group: 1,
  },
  {
    // Not a word that only begins with one of them (`tokenizer:`, `passwordless:`, `secretary:`). A quoted name
    // takes a quoted value (`"password": "…"`): `"(token": Unterminated group`, an error quoting a pattern, is none.
    // A quoted value is taken whole, blanks, separators, the other quote and escaped quotes inside it too
    // (`PASSWORD='two words; more'`, `password: "it's"`, `"password": "ab\"cd"`).
    // A name starts where a run of name characters does and is at most 128 of them on each side of its word: a
    // name that could start at every `-` and end at every `token` of a long line cost the line's length cubed.
    kind: "password",
    hint: /passw|secret|token|api.?key|access.?key|account.?key/i,
    pattern:
      /(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,128}(?:passw(?:or)?d|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|account[_-]?key|private[_-]?key)(?!i[sz](?:e|ing|ation)|less|ar[iy]|ions?\b)[A-Za-z0-9_.-]{0,128}(?:["'][ \t]*(?:=|:|=>)[ \t]*(["'])|[ \t]*(?:=|:|=>)[ \t]*(["']?))((?![/$]|\d+\b|(?:true|false|null|none)\b)(?:(?<=")(?:[^"`\n\\]|\\.){5,}(?=")|(?<=')(?:[^'`\n\\]|\\.){5,}(?=')|[^\s"'`,;&]{5,}))\1\2/gi,
    group: 3,
    not: notAPassword,
  },
  // Passwords given to a program on its command line, as a shell's screen or history shows them: a long option
  // named for one and its value after a blank (`docker login --password PW`; not `--password-stdin`, `--no-…`), and
  // the short options of programs that take one (`curl -u user:PW`, `mysql -pPW`, `sshpass -p PW`, `redis-cli -a PW`).
  // The option is looked for within 256 characters of the program's name: a line of many such names would cost
  // its length squared.
  {
    kind: "cli-password",
    hint: /--/,
    pattern:
      /(?<![^\s])--(?!no-)(?:[a-z0-9-]*-)?(?:password|passwd|pass|token|secret|api-?key|access-?key)[ \t]+(["']?)((?![-$])(?:[^\s"'`]{5,}|(?<=["'])[^"'`\n]{5,}(?=["'])))\1(?![^\s;&|])/gi,
    group: 2,
  },
  {
    kind: "cli-password",
    hint: /curl|mysql|sshpass|redis-cli/,
    pattern:
      /\b(?:curl\b[^\n]{0,256}?[ \t](?:-u|--user)[ \t]*(["']?)[^\s:"']*:|(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,256}?[ \t](?:-p|--password=)(["']?)|sshpass\b[^\n]{0,256}?[ \t]-p[ \t]*(["']?)|redis-cli\b[^\n]{0,256}?[ \t]-a[ \t]+(["']?))((?!\$)[^\s"'`]+)\1\2\3\4(?![^\s;&|])/g,
    group: 5,
  },
];

/**
 * Characters a token is made of: a range starting or ending inside a run of these is widened to the run's ends
 * (`=` only at the end, where base64 pads: on the left it would take in `NAME=`).
 */
const TOKEN_START = /[A-Za-z0-9+/_.~-]/;
const TOKEN_CHAR = /[A-Za-z0-9+/=_.~-]/;

function widen(text: string, start: number, end: number): [number, number] {
  while (start > 0 && TOKEN_START.test(text[start - 1]) && TOKEN_START.test(text[start])) start--;
  while (end < text.length && end > start && TOKEN_CHAR.test(text[end]) && TOKEN_CHAR.test(text[end - 1])) end++;
  return [start, end];
}

/** What {@linkcode Redactor.redact} puts in place of a secret. */
const MARKER = /\[redacted:[a-z0-9-]+:[0-9a-f]{8}\]/g;

/**
 * Characters of the runs {@linkcode candidateLines} looks for, by what they add to a run: LOWER (a-z, _, /,
 * hex letters apart), HEX_LETTER (a-f, -) and DIGIT (a hash), MARK (upper case, +, =: what a random token has).
 */
const RUN_CHAR = new Uint8Array(128);
const LOWER = 1, HEX_LETTER = 2, DIGIT = 3, MARK = 4;
for (const c of "ghijklmnopqrstuvwxyz_/") RUN_CHAR[c.charCodeAt(0)] = LOWER;
for (const c of "abcdef-") RUN_CHAR[c.charCodeAt(0)] = HEX_LETTER;
for (const c of "0123456789") RUN_CHAR[c.charCodeAt(0)] = DIGIT;
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZ+=") RUN_CHAR[c.charCodeAt(0)] = MARK;

/**
 * The lines of `text` that may hold a secret of the preset's shapes: each has a run of 16 token characters, a
 * URL (credentials) or a key block's first line. A run counts only with an upper-case letter, a digit, + or =
 * in it, and not when it is lower-case hex digits and dashes alone (a hash, a commit, a UUID, a rule of
 * dashes): every shape of the preset has an upper-case prefix, digits or a random mixed-case part, so
 * snake_case names, JSON keys and paths of words make no line run the whole preset. A loop, not a regex: a
 * quantified class costs a regex engine a retry per position.
 */
function candidateLines(text: string): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let run = 0;
    let hex = true; // lower-case hex digits and dashes so far
    let mixed = false; // an upper-case letter, a digit, + or = so far
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      const k = c < 128 ? RUN_CHAR[c] : 0;
      if (k !== 0) {
        if (k === LOWER || k === MARK) hex = false;
        if (k >= DIGIT) mixed = true;
        if (++run >= 16 && mixed && !hex) {
          out.push([start, end]);
          break;
        }
      } else {
        run = 0;
        hex = true;
        mixed = false;
        // ":" of "://": look closer only there.
        if (c === 58 && text.startsWith("//", i + 1)) {
          out.push([start, end]);
          break;
        }
      }
    }
    start = end + 1;
  }
  // Lines with a key block's first line, found apart: a check for it inside the loop above made V8's optimised
  // code of the loop many times slower on text without one.
  let begin = text.indexOf("-----BEGIN");
  if (begin < 0) return out;
  const have = new Set(out.map(([s]) => s));
  while (begin >= 0) {
    const s = text.lastIndexOf("\n", begin) + 1;
    let e = text.indexOf("\n", begin);
    if (e < 0) e = text.length;
    if (!have.has(s)) out.push([s, e]);
    begin = text.indexOf("-----BEGIN", e);
  }
  return out.sort((x, y) => x[0] - y[0]);
}

const WHITESPACE = /\s/;

/** The longest line a redactor remembers as clean. */
const CLEAN_LINE_MAX = 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * `text.slice(a, b)` as a string of its own: V8 makes a longer slice a view that keeps all of `text` alive, and
 * a remembered line must not keep the screen it came from.
 */
function copyOf(text: string, a: number, b: number): string {
  return decoder.decode(encoder.encode(text.slice(a, b)));
}

/** Characters of a token at the start or the end of a line (see `findSecrets`). */
const EDGE_TOKEN = new Uint8Array(65536);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-") EDGE_TOKEN[c.charCodeAt(0)] = 1;

/**
 * A whole Subresource Integrity hash (`sha512-` and its digest in base64, of exactly the digest's length): a
 * yarn.lock's `integrity` lines end with one. A digest of public content, whole, so no cut secret.
 */
const INTEGRITY =
  /^(?:sha1-[A-Za-z0-9+/]{27}=|sha256-[A-Za-z0-9+/]{43}=|sha384-[A-Za-z0-9+/]{64}|sha512-[A-Za-z0-9+/]{86}==)$/;

/**
 * Adds [start, end) as a cut secret when it mixes upper case, lower case and digits (not a word, number or hash,
 * nor an integrity hash).
 */
function cutToken(text: string, start: number, end: number, add: (s: number, e: number, kind: string) => void) {
  const token = text.slice(start, end);
  if (/[A-Z]/.test(token) && /[a-z]/.test(token) && /[0-9]/.test(token) && !INTEGRITY.test(token)) {
    add(start, end, "cut");
  }
}

/** A line of a text: [start, end), the run of token characters it starts with ends at `head`, the one it ends with starts at `tail`. */
interface LineEdges {
  start: number;
  head: number;
  tail: number;
  end: number;
}

/** The kind of a match of a shape of {@linkcode EXTRA}: by its first capture group that took part, for some. */
function kindOf(shape: (typeof EXTRA)[number], m: RegExpMatchArray): string {
  return shape.kinds?.[m.findIndex((g, i) => i > 0 && g) - 1] ?? shape.kind;
}

/** The shapes of {@linkcode EXTRA} told by their prefix alone, looked for across a line break. */
const WRAPPED = EXTRA.filter((e) => e.kind === "glued" || e.kind === "jwt");
const WRAP_HINT = new RegExp(WRAPPED.map((e) => e.hint.source).join("|"));
/** How much of a run and the next lines' runs is joined: more than the longest key of a known prefix. */
const WRAP_MAX = 256;
/** The shortest line taken for a wrapped row. */
const WRAP_MIN_ROW = 20;

/**
 * A key of a known prefix wrapped onto the next rows (capture-pane rows not joined, a snippet of a narrow pane's
 * screen): each piece can be shorter than the cut-token rule takes. The run a line ends with and the runs the next
 * lines start with (through lines that are one run) are joined, and a key of a known prefix across a break hides
 * every piece it reaches.
 */
function wrappedKeys(text: string, edges: readonly LineEdges[], add: (s: number, e: number, kind: string) => void) {
  for (let i = 0; i + 1 < edges.length; i++) {
    const { start: row, tail, end } = edges[i];
    // A wrapped row is a full row of its pane, and panes are wider than this: a short line ends its own text.
    if (tail === end || end - row < WRAP_MIN_ROW) continue;
    const pieces: [number, number][] = [[tail, end]];
    let joined = text.slice(tail, end);
    for (let j = i + 1; j < edges.length && joined.length < WRAP_MAX && pieces.length < 16; j++) {
      const { start, head, end } = edges[j];
      if (head === start) break;
      pieces.push([start, head]);
      joined += text.slice(start, head);
      if (head < end) break;
    }
    // The prefix may be cut by a break too (`AK` and `IA…`).
    if (pieces.length < 2 || !WRAP_HINT.test(joined)) continue;
    for (const shape of WRAPPED) {
      for (const m of joined.matchAll(shape.pattern)) {
        const from = m.index, to = m.index + m[0].length;
        if (from >= end - tail) break;
        if (to <= end - tail || shape.not?.(joined, m, from, m[0])) continue;
        const k = kindOf(shape, m);
        let at = 0;
        for (const [a, b] of pieces) {
          if (at < to && from < at + b - a) add(a + Math.max(0, from - at), a + Math.min(b - a, to - at), k);
          at += b - a;
        }
      }
    }
  }
}

const PRESET_ID = "@secretlint/secretlint-rule-";
/** Rule options: the AWS rule finds access key ids and account ids only when asked to. */
const OPTIONS = { enableIDScanRule: true };
/** Rules of the preset that would let text turn redaction off. */
const SKIPPED = new Set(["filter-comments"]);

/**
 * Lines the preset's rules found nothing in, remembered by a redactor: a screen read again and again (a build,
 * a log) holds mostly the lines of the last read, and the rules cost most of a redaction.
 */
export interface CleanLines {
  has(line: string): boolean;
  add(line: string): void;
}

/**
 * Where `text` holds secrets, by the preset's rules and the extra shapes:
 * sorted, overlapping spans merged (the first kind found wins). `cleanLines`:
 * candidate lines in it are not given to the rules again, and lines the rules
 * report nothing in are added to it (the extra shapes and the cut tokens are
 * looked for in all of `text` every time). `rules` undefined: the preset has
 * not loaded, and a line that may hold one of its shapes throws
 * {@linkcode RulesNeeded} (elsewhere the rules would find nothing).
 */
export function findSecrets(rules: readonly Rule[] | undefined, text: string, cleanLines?: CleanLines): SecretSpan[] {
  const spans: SecretSpan[] = [];
  /** Adds [start, end) widened; returns where the span added ends (`end` when none is). */
  const add = (start: number, end: number, kind: string) => {
    if (end <= start) return end;
    const [s, e] = widen(text, start, end);
    spans.push({ start: s, end: e, kind });
    return e;
  };
  // The preset's rules run over the lines that may hold one of its shapes (most lines of most screens do not),
  // joined; a range found there is mapped back line by line. Key blocks spanning lines are EXTRA's.
  let lines = rules === undefined || rules.length > 0 ? candidateLines(text) : [];
  if (cleanLines && lines.length > 0) lines = lines.filter(([a, b]) => !cleanLines.has(text.slice(a, b)));
  if (lines.length > 0) {
    if (rules === undefined) throw new RulesNeeded();
    const whole = lines.length === 1 && lines[0][0] === 0 && lines[0][1] === text.length;
    const chunk = whole ? text : lines.map(([a, b]) => text.slice(a, b)).join("\n");
    const chunkStarts: number[] = [];
    let at = 0;
    for (const [a, b] of lines) {
      chunkStarts.push(at);
      at += b - a + 1;
    }
    const toText = (i: number) => {
      let lo = 0, hi = chunkStarts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (chunkStarts[mid] <= i) lo = mid;
        else hi = mid - 1;
      }
      return lines[lo][0] + i - chunkStarts[lo];
    };
    const translate = () => (id: string) => id;
    for (const rule of rules) {
      const kind = rule.meta.id.startsWith(PRESET_ID) ? rule.meta.id.slice(PRESET_ID.length) : rule.meta.id;
      const handlers = rule.create({
        createTranslator: translate,
        report: (d) => add(toText(d.range[0]), toText(Math.max(d.range[0], d.range[1] - 1)) + 1, kind),
        ignore: () => {},
      }, OPTIONS);
      // No file path: rules that read a file by its name (pfx) or judge by it (.npmrc) stay with the text.
      handlers.file?.({ content: chunk, filePath: undefined, ext: "", sourceContentType: "text" });
    }
    if (cleanLines) {
      for (const [a, b] of lines) {
        if (b - a <= CLEAN_LINE_MAX && !spans.some((s) => s.start < b && a < s.end)) cleanLines.add(copyOf(text, a, b));
      }
    }
  }
  // A prefix of a key, whole on a line or cut by a break: the glued shape and wrapped keys are looked for only then.
  const prefixed = WRAP_HINT.test(text.includes("\n") ? text.replaceAll("\n", "") : text);
  for (const shape of EXTRA) {
    const { pattern, group, hint, not } = shape;
    // A cheap test first: most text holds none of these words, and the full patterns cost more.
    if (shape.kind === "glued" ? !prefixed : !hint.test(text)) continue;
    pattern.lastIndex = 0;
    // A match within a span already widened adds nothing: widening each of them again (a run of glued keys) would
    // cost the run's length squared.
    let reach = 0;
    for (const m of text.matchAll(pattern)) {
      const value = m[group];
      if (!value) continue;
      const at = m.index! + (group === 0 ? 0 : m[0].lastIndexOf(value));
      if (at + value.length <= reach || not?.(text, m, at, value)) continue;
      reach = add(at, at + value.length, kindOf(shape, m));
    }
  }
  // Text cut from a longer source (a search snippet, a page of a buffer) can end or start inside a secret, and
  // a screen row can wrap one onto the next: no rule sees its whole shape. A long mixed-case token with digits
  // at either edge of a line is taken for one. Only in text with blanks or lines, as cut text has: a value that
  // is one token (a capture-since cursor, an id) is whole, and the rules above judge it.
  const edges: LineEdges[] = [];
  for (let start = WHITESPACE.test(text) ? 0 : text.length + 1; start <= text.length;) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let head = start, tail = end;
    while (head < end && EDGE_TOKEN[text.charCodeAt(head)] === 1) head++;
    while (tail > head && EDGE_TOKEN[text.charCodeAt(tail - 1)] === 1) tail--;
    if (head - start >= 24) cutToken(text, start, head, add);
    if (end - tail >= 24) cutToken(text, tail, end, add);
    if (prefixed) edges.push({ start, head, tail: head === end ? start : tail, end });
    start = end + 1;
  }
  if (edges.length > 1) wrappedKeys(text, edges, add);
  // A marker of an earlier pass (`[redacted:password:1a2b3c4d]` reads as an assignment) stays as it is.
  const kept: [number, number][] = [];
  if (text.includes("[redacted:")) {
    for (const m of text.matchAll(MARKER)) {
      kept.push([m.index, m.index + m[0].length]);
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const s of spans) {
    if (kept.some(([a, b]) => s.start < b && a < s.end)) continue;
    const last = merged[merged.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/** CSI and OSC sequences. */
// deno-lint-ignore no-control-regex
const ESCAPE = /\x1b(?:\[[0-9;:?<=>]*[ -\/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])/g;

/** `text` without escape sequences, and for each of its units the index in `text`. */
function withoutEscapes(text: string): { plain: string; at: number[] } {
  let plain = "";
  const at: number[] = [];
  let from = 0;
  const keep = (end: number) => {
    for (let i = from; i < end; i++) at.push(i);
    plain += text.slice(from, end);
  };
  for (const m of text.matchAll(ESCAPE)) {
    keep(m.index);
    from = m.index + m[0].length;
  }
  keep(text.length);
  return { plain, at };
}

/** The longest string a redactor remembers as clean, and how many it remembers (about 2 MiB at most). */
const CLEAN_MAX_LENGTH = 256;
const CLEAN_MAX_COUNT = 4096;
/** How many clean lines a redactor remembers (about 4 MiB at most for lines of 256 characters). */
const CLEAN_LINES_MAX_COUNT = 8192;

/**
 * Thrown by a redactor made before the rule preset loaded ({@linkcode earlyRedactor}) for text in which a line may
 * hold one of the preset's shapes: that text waits for the preset ({@linkcode loadRedactor}).
 */
export class RulesNeeded extends Error {
  constructor() {
    super("the secret rules have not loaded yet");
  }
}

/**
 * Builds a redactor over the preset's rules with its own salt; `rules` undefined: without the preset, for text
 * none of whose lines may hold one of its shapes (see {@linkcode findSecrets}).
 */
export function createRedactor(rules: readonly Rule[] | undefined, salt: string = crypto.randomUUID()): Redactor {
  const active = rules?.filter((r) => !SKIPPED.has(r.meta.id.slice(PRESET_ID.length)));
  const markers = new Map<string, string>();
  const marker = (kind: string, value: string) => {
    const key = `${kind}\0${value}`;
    let m = markers.get(key);
    if (m === undefined) {
      m = `[redacted:${kind}:${sha256Hex(salt + value).slice(0, 8)}]`;
      if (markers.size > 4096) markers.clear();
      markers.set(key, m);
    }
    return m;
  };
  // Redaction is a function of the text alone: a short string found clean (a path, a title, a name that a
  // listing repeats on every call) is not scanned again, nor is a line of a longer text given to the rules again
  // once they found nothing in it. Only clean strings are kept, never a secret.
  const clean = new Set<string>();
  const lines = new Set<string>();
  const cleanLines: CleanLines = {
    has: (line) => lines.has(line),
    add(line) {
      if (lines.size >= CLEAN_LINES_MAX_COUNT) lines.clear();
      lines.add(line);
    },
  };
  const mark = (text: string): MarkedSpan[] => {
    if (text.length < 8 || clean.has(text)) return [];
    // Colour sequences inside a line (capture-pane colors) would hide a token's word boundary: look at the
    // text without them, and replace the original range, sequences included.
    const styled = text.includes("\x1b");
    const { plain, at: origin } = styled ? withoutEscapes(text) : { plain: text, at: undefined };
    const spans = findSecrets(active, plain, cleanLines);
    if (spans.length === 0 && text.length <= CLEAN_MAX_LENGTH) {
      if (clean.size >= CLEAN_MAX_COUNT) clean.clear();
      clean.add(text);
    }
    return spans.map((s) => ({
      start: origin ? origin[s.start] : s.start,
      end: origin ? origin[s.end - 1] + 1 : s.end,
      marker: marker(s.kind, plain.slice(s.start, s.end)),
    }));
  };
  return {
    find: (text) => findSecrets(active, text, cleanLines),
    mark,
    redact(text) {
      const spans = mark(text);
      if (spans.length === 0) return text;
      let out = "";
      let at = 0;
      for (const s of spans) {
        out += text.slice(at, s.start) + s.marker;
        at = s.end;
      }
      return out + text.slice(at);
    },
  };
}

/**
 * A JSON value with every string in it redacted (object keys stay: they are
 * names, not screen text). Returns the same value (identical) when nothing changed.
 */
export function redactJson<T>(value: T, redactor: Redactor): T {
  if (typeof value === "string") return redactor.redact(value) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v, i) => {
      const r = redactJson(v, redactor);
      if (r !== v) (out ??= [...value])[i] = r;
    });
    return (out ?? value) as T;
  }
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const r = redactJson(v, redactor);
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return (out ?? value) as T;
}

/** The process's salt: its redactor and its early redactor mark a value alike. */
const SALT = crypto.randomUUID();
let shared: Promise<Redactor> | undefined;
let loaded: Redactor | undefined;
let early: Redactor | undefined;

/**
 * The process's redactor. The rule preset is loaded on first use, not at
 * start-up: a server that never returns text never pays for it.
 */
export function loadRedactor(): Promise<Redactor> {
  shared ??= import("@secretlint/secretlint-rule-preset-recommend").then((m) =>
    loaded = createRedactor((m as unknown as { rules: Rule[] }).rules, SALT)
  );
  return shared;
}

/**
 * `redact` with `redactor`, or with the process's redactor once its rule preset has loaded when `redactor` (the
 * early one) meets text the preset must see. A handler that cannot be run again (a wait: what it saw is gone) uses
 * this for what it redacts itself, as the pipeline runs a call again with the preset on {@linkcode RulesNeeded}.
 *
 * @example
 * ```ts
 * const line = await redactFully(earlyRedactor(), (r) => r.redact("token=ghp_abc"));
 * ```
 */
export async function redactFully<T>(redactor: Redactor, redact: (r: Redactor) => T): Promise<T> {
  try {
    return redact(redactor);
  } catch (e) {
    if (!(e instanceof RulesNeeded)) throw e;
    return redact(await loadRedactor());
  }
}

/**
 * The process's redactor once the preset has loaded; until then one without it (same salt), which redacts text
 * none of whose lines may hold one of the preset's shapes as the process's redactor does and throws
 * {@linkcode RulesNeeded} for any other text: a starting server's first result (a listing, a quiet screen) need
 * not wait for the preset, which takes longer to load than most calls take.
 */
export function earlyRedactor(): Redactor {
  return loaded ?? (early ??= createRedactor(undefined, SALT));
}
