/**
 * The format guard's parser: property tests over generated tmux formats
 * (never throws; refuses every format that holds a forbidden construct in
 * any evaluated position; accepts the safe ones), and real tmux for the
 * cases the issue found (display-message through the MCP client).
 */
import fc from "fast-check";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { withServer } from "./helpers.ts";
import { checkFormat, formatRefusal, MAX_PAD } from "../lib/policy/formats.ts";

const VARS = ["pane_id", "session_name", "window_index", "pane_title", "pane_current_command", "host"];
const variable = fc.constantFrom(...VARS);
const literal = fc.stringMatching(/^[a-z0-9 ]{0,6}$/);
const width = fc.integer({ min: -MAX_PAD, max: MAX_PAD });

/** A safe format (no loops): every piece tmux 3.3a would evaluate cheaply. */
const { safe } = fc.letrec<{ safe: string; piece: string }>((tie) => ({
  safe: fc.array(tie("piece"), { maxLength: 4 }).map((xs) => xs.join("")),
  piece: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    literal,
    variable.map((v) => `#{${v}}`),
    fc.constantFrom("#S", "#W", "#D", "##", "#,", "#[fg=red]"),
    fc.tuple(variable, tie("safe"), tie("safe")).map(([v, a, b]) => `#{?${v},${a},${b}}`),
    fc.tuple(fc.constantFrom("==", "!=", "||", "&&", "<", ">="), tie("safe"), tie("safe")).map(([op, a, b]) =>
      `#{${op}:${a},${b}}`
    ),
    fc.tuple(width, variable, fc.constantFrom("p%:", "p/%/:", "p+%+:", "p|%|:")).map(([n, v, form]) =>
      `#{${form.replace("%", String(n))}${v}}`
    ),
    fc.tuple(fc.integer({ min: -100000, max: 100000 }), variable).map(([n, v]) => `#{=${n}:${v}}`),
    variable.map((v) => `#{m:*sh*,#{${v}}}`),
    variable.map((v) => `#{s|a|b|:${v}}`),
    fc.tuple(fc.constantFrom("n", "w", "b", "d", "q", "l", "a", "t"), variable).map(([m, v]) => `#{${m}:${v}}`),
    fc.constantFrom("#{e|*:6,7}", "#{e|/|f|4:1,3}"),
  ),
}));

/** A construct that must always be refused, whatever surrounds it. */
const forbidden = fc.oneof(
  fc.constantFrom(
    "#(id)",
    "#{E:status-right}",
    "#{T:status-left}",
    "#{q;E:status-right}",
    "#{C:x}",
    "#{C/r:x}",
    "#{R:x,2}",
    "#{m/r:^a,b}",
    "#{mr:a,b}",
    "#{s/(a)+/x/:pane_id}",
    "#{s/a*/x/:pane_id}",
    "#{p-#{pane_width};=1:x}",
    "#{p/#{pane_width}/:x}",
    "#{m:#{pane_id},x}",
    "#{m:*a*a*a*a*,x}",
    "#{S:#{W:#{P:x}}}",
    "#{e|+|f|100000000:1,1}",
    "#{e|*|f|#{pane_width}:1,1}",
    "#{s/a/#{pane_title}/:pane_title}",
    "#{s/a/aaaaaaaaaa/:#{s/a/aaaaaaaaaa/:pane_title}}",
    "#{s//aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/:pane_title}",
  ),
  fc.tuple(fc.integer({ min: MAX_PAD + 1, max: 2 ** 31 }), fc.constantFrom("p%:", "p/%/:", "p+%+:", "p-%:", "p;p%:"))
    .map((
      [n, form],
    ) => `#{${form.replace("%", String(n))}x}`),
);

/** Puts `inner` into an evaluated position: top level, a branch, an argument, a loop body. */
const wrap = fc.constantFrom(
  (s: string) => s,
  (s: string) => `#{?pane_in_mode,${s},x}`,
  (s: string) => `#{?pane_in_mode,x,${s}}`,
  (s: string) => `#{==:${s},x}`,
  (s: string) => `#{S:${s}}`,
  (s: string) => `#{W:x,${s}}`,
  (s: string) => `#{l:${s}}`,
  (s: string) => `#{=/5/${s}:pane_title}`,
  (s: string) => `#[fg=red]${s}`,
);

Deno.test("format guard: never throws, on any text and on format-like noise", () => {
  const noise = fc.string({
    unit: fc.constantFrom(..."#{}()[]:;,=/|+-?!<>pmrsSWPCERTl0159ax ".split("")),
    maxLength: 80,
  });
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: "binary", maxLength: 200 }), noise), (s) => {
      const r = checkFormat(s);
      assert(r.refused === undefined ? r.facts !== undefined : typeof r.refused === "string" && r.refused !== "");
      assert(!(r.refused ?? "").startsWith("the format could not be checked"), r.refused);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("format guard: safe generated formats are accepted", () => {
  fc.assert(
    fc.property(safe, fc.boolean(), (f, loop) => {
      const format = loop ? `#{S:${f}}` : f;
      assertEquals(formatRefusal(format), undefined, format);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("format guard: a forbidden construct anywhere it is evaluated is refused", () => {
  fc.assert(
    fc.property(safe, forbidden, safe, wrap, wrap, (a, bad, b, w1, w2) => {
      const format = a + w1(w2(bad)) + b;
      assert(formatRefusal(format) !== undefined, `accepted: ${format}`);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("format guard: option values may allow #( and E: at the destructive tier, never the DoS forms", () => {
  const r = checkFormat("#[fg=red]#(uptime) #{E:@theme}", { allowShell: true, allowReexpand: true });
  assert(r.refused === undefined && r.facts.shell[0] === "uptime" && r.facts.reexpand, r.refused);
  assertMatch(formatRefusal("#{p+50000000+:x}", { allowShell: true, allowReexpand: true })!, /padding/);
});

/** `depth` replacements of one `a` by ten, nested in the value (`#{s/a/…/:#{s…}}`) or in the replacement. */
function nestedReplacements(depth: number, where: "value" | "replacement"): string {
  const ten = "a".repeat(10);
  let format = `#{l:${ten}}`;
  for (let i = 0; i < depth; i++) {
    format = where === "value" ? `#{s/a/${ten}/:${format}}` : `#{l;s/a/${format}/:${ten}}`;
  }
  return format;
}

Deno.test("display-message: the issue's DoS formats are refused, common formats still work (real tmux)", async () => {
  await withServer(async (mcp) => {
    for (
      const [format, why] of [
        ["#{p+50000000+:x}", /padding #\{p50000000:…\} is wider than 500/],
        ["#{p50000000:x}", /wider than 500/],
        [
          "#{m/r:(a+)+$,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!}",
          /regular-expression matching \(m\/r\) is refused/,
        ],
        ["#{s/(a+)+$/x/:pane_title}", /s\/…\/…\/ with a regular expression/],
        ["#{p-#{e|*:99999,99999}:x}", /must be a literal number/],
        ["#{e|+|f|100000000:1,1}", /prints N decimals, and N must be a literal number up to 100/],
        // Each level multiplies the text by ten inside the tmux server (sixteen levels: 10^17 bytes).
        [nestedReplacements(5, "value"), /lengthen the text more than 64 times/],
        [nestedReplacements(5, "replacement"), /computed replacement/],
      ] as const
    ) {
      assertMatch(await mcp.err("show", { what: "format", format }), why, format);
    }
    const ok = async (format: string) => (await mcp.ok<{ text: string }>("show", { what: "format", format })).text;
    assertEquals(await ok("#{p5:window_index}|#{p-3:window_index}|"), "0    |  0|");
    assertEquals(await ok("#{p+4+:window_index}|"), "0   |");
    assertEquals(await ok("#{?pane_in_mode,copy,normal} #{==:#{session_name},main}"), "normal 1");
    assertEquals(await ok("#{S:#{session_name};}"), "main;");
    assertEquals(await ok("#{m:*ai*,#{session_name}} #{s|ai|AI|:session_name} #{=2:session_name}"), "1 mAIn ma");
    assertEquals(await ok("##(not run)"), "#(not run)");
    assertEquals(await ok("#{s/a/AAAA/:#{s/i/II/:session_name}}"), "mAAAAIIn");
    assertEquals(await ok("#{e|/|f|3:1,8}"), "0.125");
  });
});
