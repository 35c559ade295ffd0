/**
 * Which tmux formats a model may have expanded (`display-message`). tmux
 * formats can do more than read facts:
 *
 * - `#(command)` runs a shell command in the tmux server.
 * - the `E:` and `T:` modifiers expand a value a second time as a format, so
 *   `#{E:status-right}` runs any `#(…)` in the user's status line;
 * - `#{pN:…}` pads to N columns and `#{R:…,N}` (tmux ≥ 3.4) repeats N times:
 *   a huge N makes the tmux server allocate gigabytes; nested loops
 *   (`#{S:#{S:#{S:…}}}`) multiply the same way.
 *
 * All of these are refused (loops beyond {@linkcode MAX_LOOPS}); every other format (variables, conditionals,
 * comparisons, loops over sessions/windows/panes, substitutions) is allowed.
 *
 * @example
 * ```ts
 * formatRefusal("#{pane_id} #{pane_current_command}"); // undefined: allowed
 * formatRefusal("#(id)"); // "…runs a shell command…"
 * ```
 */

/** Largest padding width accepted in `#{pN:…}`. */
export const MAX_PAD = 500;

// A modifier starts right after "#{" or after the ";" that separates
// modifiers ("#{T;=/#{status-left-length}:status-left}"); its argument may
// itself hold "#{…}", so the modifier list is matched by its start, not
// parsed to its ":".
const REEXPAND = /(?:#\{|;)([ET])[:;]/;
const REPEAT = /(?:#\{|;)R[:;]/;
const PAD = /(?:#\{|;)p(-?\d+)[:;]/g;
const PAD_NESTED = /(?:#\{|;)p-?#\{/;
const LOOP = /(?:#\{|;)[SWPL][:;]/g;

/** Most loop modifiers (`#{S:…}`, `#{W:…}`, `#{P:…}`) in one format: nested loops multiply. */
export const MAX_LOOPS = 2;

/** Why `format` is refused, or undefined when it may be expanded. */
export function formatRefusal(format: string): string | undefined {
  if (format.includes("#(")) {
    return "the format contains #( which makes tmux run a shell command; remove it (use #{…} variables only)";
  }
  const re = REEXPAND.exec(format);
  if (re) {
    return `the ${re[1]}: modifier expands a value again as a format (which can run #(…) commands from ` +
      `options such as status-right) and is refused; read the option with show-options instead`;
  }
  if (REPEAT.test(format)) return "the R: (repeat) modifier is refused; repeat the text yourself";
  if (PAD_NESTED.test(format)) return "a padding width computed by a format is refused; give a number";
  if ((format.match(LOOP)?.length ?? 0) > MAX_LOOPS) {
    return `more than ${MAX_LOOPS} loop modifiers (#{S:…}, #{W:…}, #{P:…}) are refused (nested loops multiply); ` +
      "use list-sessions, list-windows or list-panes instead";
  }
  for (const m of format.matchAll(PAD)) {
    if (Math.abs(Number(m[1])) > MAX_PAD) {
      return `padding #{p${m[1]}:…} is wider than ${MAX_PAD} columns and is refused; use a smaller width`;
    }
  }
  return undefined;
}
