import { z } from "zod";
import { optionName, targetParam } from "../schemas.ts";
import { defineTool } from "../declared.ts";
import { UserError } from "../../errors.ts";
import { TmuxError } from "../../tmux/executor.ts";
import { showFor } from "./scoped.ts";
import { readOptionName, scopeMismatch } from "../../tmux/option_names.ts";

const SCOPE_FLAGS = { server: ["-s"], session: [], window: ["-w"], pane: ["-p"] } as const;

export default defineTool({
  name: "show-options",
  title: "Show tmux options",
  description: "Options of one scope: server, session, window or pane. For session/window/pane scope the " +
    "values are those in effect for the target (default: the active pane of the most recently used session); " +
    "inherited: true marks a value inherited from the global or parent table rather than set there. " +
    "Values are printed as in tmux.conf (strings quoted). Pass name to read one option.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({
    target: targetParam("pane").optional(),
    scope: z.enum(["server", "session", "window", "pane"]),
    name: optionName.optional().describe("omit: all"),
  }),
  output: z.object({
    scope: z.string(),
    session_id: z.string().nullable(),
    window_id: z.string().nullable(),
    pane_id: z.string().nullable(),
    options: z.array(z.object({ name: z.string(), value: z.string().nullable(), inherited: z.boolean() })),
  }),
  secrets: [],
  async handler({ target, scope, name }, ctx) {
    let tail: string[] = [];
    if (name !== undefined) {
      // Read as tmux reads it (a unique prefix, [index]); tmux is then given the exact name.
      const option = await readOptionName(ctx.tmux, name, { signal: ctx.signal });
      const mismatch = scopeMismatch(option, scope);
      if (mismatch) throw new UserError(`show-options: ${mismatch}`);
      tail = ["--", option.name];
    }
    const forTarget = (t: string) => ["show-options", ...SCOPE_FLAGS[scope], "-A", "-t", t, ...tail];
    let r;
    try {
      r = await showFor(ctx, target, forTarget, scope === "server" ? ["show-options", "-s", ...tail] : undefined);
    } catch (e) {
      if (e instanceof TmuxError && /invalid option|unknown option|ambiguous option/.test(e.message)) {
        const list = `call show (what: "options", scope: "${scope}") without name to list the options of this scope`;
        // tmux calls a user option that is not set "invalid".
        throw new UserError(
          name?.startsWith("@")
            ? `user option ${name} is not set at scope ${scope} for this target: ${list}`
            : `${e.message} (scope ${scope}): ${list}`,
        );
      }
      throw e;
    }
    const options = r.lines.map((line) => {
      const space = line.indexOf(" ");
      let key = space < 0 ? line : line.slice(0, space);
      const inherited = key.endsWith("*");
      if (inherited) key = key.slice(0, -1);
      return { name: key, value: space < 0 ? null : unescapeValue(line.slice(space + 1)), inherited };
    });
    return {
      structured: { scope, session_id: r.session_id, window_id: r.window_id, pane_id: r.pane_id, options },
    };
  },
});

const C_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, a: 7, v: 11, f: 12, s: 32, "0": 0 };

/**
 * A value as show-options prints it (tmux's `args_escape`: quoted with `"` or `'` when it holds spaces or
 * `#';${}%"`, `''` when empty, a lone special character or a leading `~` after a backslash, C-style and octal
 * escapes inside) back to the value itself.
 */
export function unescapeValue(printed: string): string {
  let s = printed;
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s.at(-1) === s[0]) s = s.slice(1, -1);
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== "\\" || i + 1 === s.length) {
      const cp = s.codePointAt(i)!;
      if (cp > 0xffff) i++;
      bytes.push(...enc.encode(String.fromCodePoint(cp)));
      continue;
    }
    const next = s[++i];
    if (/[0-7]/.test(next) && /^[0-7]{3}$/.test(s.slice(i, i + 3))) {
      bytes.push(parseInt(s.slice(i, i + 3), 8));
      i += 2;
    } else if (Object.hasOwn(C_ESCAPES, next)) bytes.push(C_ESCAPES[next]);
    else bytes.push(...enc.encode(next));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
