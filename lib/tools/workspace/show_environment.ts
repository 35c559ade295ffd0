import { z } from "zod";
import { defineTool } from "../declared.ts";
import { sessionOrGlobal } from "./shapes.ts";
import { showFor } from "./scoped.ts";

// Values of variables with these words in their name never reach the model: a key, a PAT, a PIN, a DSN or a PASS
// is a word of the name of its own (`RAILS_MASTER_KEY`, `GITHUB_PAT`, `SENTRY_DSN`, `SMTP_PASS`; `KEYBOARD`,
// `MONKEY` and `COMPASS_HOME` are none), PWD one after another word (`MYSQL_PWD`; `PWD` and `OLDPWD` are
// directories); a connection string holds the password (`AZURE_STORAGE_CONNECTION_STRING`). An author is a
// person (`GIT_AUTHOR_NAME`), an authorization or authority a credential.
const SECRET =
  /SECRET|TOKEN|PASSW|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE|CREDENTIAL|AUTH(?!ORS?(?:_|$))|COOKIE|SESSION_?KEY|CONN(?:ECTION)?_?STR|(?:^|_)(?:KEY|PAT|PIN|DSN|PASS)(?:_|$)|_PWD(?:_|$)/i;

export default defineTool({
  name: "show-environment",
  title: "Show tmux environment",
  description: "Environment tmux gives new panes: the global environment, or with a target the session's own " +
    "(which overrides the global one). removed: true means the variable is removed from new panes. Values of " +
    "variables whose names look secret (TOKEN, SECRET, PASSWORD, API_KEY, …) are withheld: value null, " +
    "redacted: true.",
  toolset: "workspace",
  tier: "readonly",
  input: z.object({ target: sessionOrGlobal }),
  output: z.object({
    session_id: z.string().nullable().describe("null for the global environment"),
    variables: z.array(z.object({
      name: z.string(),
      value: z.string().nullable(),
      removed: z.boolean(),
      redacted: z.boolean(),
    })),
  }),
  secrets: [],
  async handler({ target }, ctx) {
    const r = await showFor(ctx, target, (t) => ["show-environment", "-s", "-t", t], ["show-environment", "-g", "-s"]);
    const variables = parseShellEnvironment(r.lines.join("\n")).map(({ name, value }) => {
      if (value === null) return { name, value, removed: true, redacted: false };
      const redacted = SECRET.test(name);
      return { name, value: redacted ? null : value, removed: false, redacted };
    });
    return { structured: { session_id: r.session_id, variables } };
  },
});

/**
 * The variables of `show-environment -s`: `NAME="VALUE"; export NAME;` or `unset NAME;` (a removed variable), one
 * after another, each on a line of its own. Inside the quotes tmux puts a backslash before a dollar, a backquote, a
 * double quote and a backslash, and prints every other byte raw, newlines included, so a value ends at its first
 * unescaped quote: a value holding a line such as `OTHER=x` is one value, not a variable (the plain form cannot tell
 * them apart, and printed a secret value's lines as variables).
 */
function parseShellEnvironment(text: string): { name: string; value: string | null }[] {
  const out: { name: string; value: string | null }[] = [];
  let i = 0;
  const bad = (at: number) => new Error(`unexpected show-environment output at character ${at}`);
  while (i < text.length) {
    const lineEnd = text.indexOf("\n", i) < 0 ? text.length : text.indexOf("\n", i);
    const line = text.slice(i, lineEnd);
    if (line.startsWith("unset ") && line.endsWith(";") && !line.includes('="')) {
      out.push({ name: line.slice(6, -1), value: null });
      i = lineEnd + 1;
      continue;
    }
    const eq = text.indexOf('="', i);
    if (eq < 0) throw bad(i);
    const name = text.slice(i, eq);
    let value = "";
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) value += text[j] === "\\" ? text[++j] ?? "" : text[j];
    const tail = `"; export ${name};`;
    if (!text.startsWith(tail, j)) throw bad(j);
    out.push({ name, value });
    i = j + tail.length;
    if (i < text.length && text[i++] !== "\n") throw bad(i - 1);
  }
  return out;
}
