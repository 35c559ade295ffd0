/**
 * Option and hook names read the way tmux reads them, so a policy judges the
 * option tmux would really change. tmux (options.c, `options_match`) takes
 * `name[index]`, keeps a user option `@…` as it is, maps a few old spellings
 * (`…-color` → `…-colour`), and otherwise looks the name up in its option
 * table: an exact name wins, else the one entry that starts with it; two or
 * more entries make it "ambiguous", none "invalid". The scope flags
 * (`-s`, `-w`, `-g`) do not take part: tmux picks the table from the entry
 * found, so `set -s default-comm …` sets `default-command`.
 *
 * The table is the connected tmux's own — listed once per engine by
 * `show-options -H` at each level and `show-hooks` — so a newer or older tmux
 * is read with its own names and hooks. Tools then pass the canonical name on,
 * and tmux's own lookup is an exact one.
 *
 * @example
 * ```ts
 * import { resolveOptionName, tableFromListings } from "./option_names.ts";
 * const table = tableFromListings({
 *   server: "default-terminal screen\n",
 *   session: "default-command ''\ndefault-shell /bin/sh\nstatus-left x\nstatus-left-length 10\n",
 *   window: "", hooks: "",
 * });
 * resolveOptionName(table, "default-comm").name; // "default-command" (what tmux would set)
 * resolveOptionName(table, "default-"); // throws UserError: ambiguous … default-command, default-shell, …
 * ```
 */
import { UserError } from "../errors.ts";
import type { RunOptions, TmuxExecutor } from "./executor.ts";

/** Where tmux keeps an option: `-s`, the session table, or the window table (which pane options share). */
export type OptionScope = "server" | "session" | "window";

/** The option and hook names of one tmux server. */
export interface OptionTable {
  /** Every table name (options and hooks) → where tmux keeps it. */
  readonly scopes: ReadonlyMap<string, OptionScope>;
  /** The hook names among them (their values are command lists). */
  readonly hooks: ReadonlySet<string>;
  /** The names, sorted, for prefix search. */
  readonly names: readonly string[];
}

/** An option or hook name as tmux would read it. */
export interface ResolvedOption {
  /** The canonical name to pass to tmux, with its `[index]` if one was given. */
  name: string;
  /** The canonical name without the index. */
  base: string;
  /** The `[index]`, if given. */
  index?: number;
  /** A user option (`@…`): tmux takes any such name as it is. */
  user: boolean;
  /** A hook: tmux runs its value as commands. */
  hook: boolean;
  /** The table tmux keeps it in (undefined for a user option, which lives where the flags say). */
  scope?: OptionScope;
}

/** The old spellings tmux (3.2 to 3.6) maps to current names before it looks a name up (options.c). */
const OTHER_NAMES: Readonly<Record<string, string>> = {
  "display-panes-color": "display-panes-colour",
  "display-panes-active-color": "display-panes-active-colour",
  "clock-mode-color": "clock-mode-colour",
  "cursor-color": "cursor-colour",
  "prompt-cursor-color": "prompt-cursor-colour",
  "pane-colors": "pane-colours",
};

/** How many candidates an error lists before it says how many more there are. */
const SHOWN = 8;

/** Builds a table from tmux's listings (first word of each line, index stripped). */
export function tableFromListings(
  listings: { server: string; session: string; window: string; hooks: string },
): OptionTable {
  const scopes = new Map<string, OptionScope>();
  const words = (text: string) =>
    text.split("\n").map((l) => l.split(" ")[0].replace(/\[\d+\]$/, "")).filter((n) => n && !n.startsWith("@"));
  for (const scope of ["server", "session", "window"] as const) {
    for (const n of words(listings[scope])) if (!scopes.has(n)) scopes.set(n, scope);
  }
  const hooks = new Set(words(listings.hooks));
  return { scopes, hooks, names: [...scopes.keys()].sort() };
}

const tables = new WeakMap<TmuxExecutor, Promise<OptionTable>>();

/**
 * The option table of the tmux behind `tmux`, listed on first use and kept
 * for the engine's life (it is compiled into tmux: a restarted server of the
 * same binary has the same one). A failed listing is not kept.
 */
export function optionTable(tmux: TmuxExecutor, opts: RunOptions = {}): Promise<OptionTable> {
  let table = tables.get(tmux);
  if (!table) {
    const run = (args: string[]) => tmux.text(args, { signal: opts.signal });
    // "-g" as its own word keeps each listing on the control connection (engine.ts CONTROL_SAFE).
    table = Promise.all([
      run(["show-options", "-s", "-H"]),
      run(["show-options", "-g", "-H"]),
      run(["show-options", "-g", "-w", "-H"]),
      run(["show-hooks", "-g"]),
      run(["show-hooks", "-g", "-w"]),
    ]).then(([server, session, window, hooks, windowHooks]) =>
      tableFromListings({ server, session, window, hooks: hooks + "\n" + windowHooks })
    );
    tables.set(tmux, table);
    table.catch(() => {
      if (tables.get(tmux) === table) tables.delete(tmux);
    });
  }
  return table;
}

/**
 * {@linkcode resolveOptionName} against the table of the tmux behind `tmux`,
 * which a user option (`@…`) does not need.
 */
export async function readOptionName(
  tmux: TmuxExecutor,
  input: string,
  opts: RunOptions = {},
): Promise<ResolvedOption> {
  return resolveOptionName(input.startsWith("@") ? NO_TABLE : await optionTable(tmux, opts), input);
}

const NO_TABLE: OptionTable = { scopes: new Map(), hooks: new Set(), names: [] };

function listed(names: readonly string[]): string {
  const shown = names.slice(0, SHOWN).join(", ");
  return names.length > SHOWN ? `${shown} and ${names.length - SHOWN} more` : shown;
}

/**
 * `input` (`name` or `name[index]`, as the tool schemas admit it) read as
 * tmux would: the canonical option, or a UserError naming tmux's candidates
 * when tmux would find it ambiguous or unknown. `what` names the parameter.
 */
export function resolveOptionName(table: OptionTable, input: string, what = "option"): ResolvedOption {
  const m = /^(.*?)(?:\[(\d+)\])?$/.exec(input)!;
  const given = m[1];
  const index = m[2] === undefined ? undefined : Number(m[2]);
  const suffix = index === undefined ? "" : `[${index}]`;
  if (given.startsWith("@")) return { name: given + suffix, base: given, index, user: true, hook: false };
  const wanted = OTHER_NAMES[given] ?? given;
  let base: string | undefined = table.scopes.has(wanted) ? wanted : undefined;
  if (base === undefined) {
    const fits = table.names.filter((n) => n.startsWith(wanted));
    if (fits.length > 1) {
      throw new UserError(
        `ambiguous ${what} ${JSON.stringify(input)}: tmux would not know which of ${listed(fits)} you mean; ` +
          "give the full name",
      );
    }
    if (fits.length === 0) {
      // The entries sharing the longest start with the name: what the user probably meant.
      let near: string[] = [];
      for (let n = wanted.length - 1; n > 0 && near.length === 0; n--) {
        near = table.names.filter((c) => c.startsWith(wanted.slice(0, n)));
      }
      throw new UserError(
        `unknown ${what} ${JSON.stringify(input)}: this tmux has no option or hook of that name` +
          (near.length ? ` (closest: ${listed(near)})` : "") + "; user options start with @",
      );
    }
    base = fits[0];
  }
  return {
    name: base + suffix,
    base,
    index,
    user: false,
    hook: table.hooks.has(base),
    scope: table.scopes.get(base),
  };
}

/**
 * Why `option` does not belong to a tool's `scope` (server, session, window
 * or pane), or undefined when it does. tmux itself would take the option's
 * own table and quietly act on another scope than the one asked for.
 */
export function scopeMismatch(option: ResolvedOption, scope: OptionScope | "pane"): string | undefined {
  if (option.scope === undefined || option.scope === (scope === "pane" ? "window" : scope)) return undefined;
  const kind = option.hook ? "hook" : "option";
  const pass = option.scope === "window" ? `scope "window" (or "pane")` : `scope "${option.scope}"`;
  return `${option.name} is a ${option.scope} ${kind}, not a ${scope} one: pass ${pass}`;
}
