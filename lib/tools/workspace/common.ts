/**
 * Pieces shared by the workspace tools that create, change and kill tmux
 * objects: validated names, directories, commands and environment
 * variables, the resolved-ids output, pane creation and renaming. Target
 * resolution is the entry's (`resolve` in lib/tools/declared.ts).
 *
 * @example
 * ```ts
 * declare const ctx: Parameters<typeof spawnPane>[0];
 * const created = await spawnPane(ctx, ["new-window", "-d", "-t", "$1"], "/tmp", undefined);
 * ```
 */
import { z } from "zod";
import type { ToolContext, ToolOutput } from "../tool.ts";
import { absolutePath } from "../schemas.ts";
import { UserError } from "../../errors.ts";
import { requireDirectory } from "../../policy/files.ts";
import { formatLiteral } from "../../tmux/quote.ts";
import { COMMAND_SEPARATOR, type TmuxArg, TmuxError } from "../../tmux/executor.ts";
import type { ResolvedTarget } from "../../tmux/target.ts";
import { parseRow, rowFormat, type RowSpec } from "../../tmux/rows.ts";

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * A session or window name. tmux silently rewrites ':' and '.' (they
 * separate target parts) and doubles '\'; a leading '-', '$', '@', '%',
 * '=' or one of tmux's tokens ('{last}', '!', '+1', '^', '~') would make the
 * name unusable or ambiguous as a target (`main:+1` is the next window, not
 * the window named "+1"; lib/tmux/panes.ts reads none as a plain word). `#` is fine:
 * tools escape it. The messages say "name", not which kind: a family tool
 * (`new`, `rename`) checks one schema for the name of either kind.
 */
const objectName = z.string()
  .min(1, "name must not be empty")
  .max(128, "name is longer than 128 characters")
  .refine((s) => !CONTROL.test(s), "name must not contain control characters")
  .refine((s) => !/[:.]/.test(s), "name must not contain ':' or '.' (tmux uses them in targets)")
  .refine((s) => !s.includes("\\"), "name must not contain '\\' (tmux would store it doubled)")
  .refine(
    (s) => !/^[-$@%={}!~^+]/.test(s),
    "name must not start with '-', '$', '@', '%', '=', '{', '}', '!', '~', '^' or '+' (tmux reads them in targets)",
  );

export const sessionName = objectName;
export const windowName = objectName;

/** The least command to run with a target's resolution, when only the pane's facts are wanted (a `targetRead`). */
export const FACTS_ONLY = (t: string): TmuxArg[] => ["display-message", "-p", "-t", t, "."];

/**
 * Refuses a dead pane (remain-on-exit keeps it after its program ended), given a target resolved with its facts:
 * typed keys go nowhere, and tmux 3.3a's paste-buffer into such a pane crashes the tmux server. `then`: what was
 * not done and what to do instead.
 */
export function refuseDeadPane(
  t: ResolvedTarget,
  then = "nothing was typed; restart it with respawn-pane or remove it with kill",
): void {
  if (t.read?.pane.dead) {
    throw new UserError(`pane ${t.pane_id} is dead (its program exited; remain-on-exit keeps it): ${then}`);
  }
}

/** Start directory of a new pane. */
export const startDir = absolutePath.describe("absolute start directory");

/** A shell command line; tmux runs it with the default shell's `-c` as the pane's program. */
export const shellCommand = z.string()
  .min(1, "command must not be empty")
  .max(16_384, "command is longer than 16384 characters")
  .refine((s) => !s.includes("\0"), "command must not contain NUL")
  .describe("run instead of a shell");

/** An environment variable name. */
export const envName = z.string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,127}$/,
    "environment variable names are letters, digits and _, not starting with a digit",
  );

/** An environment variable value. */
export const envValue = z.string()
  .max(65_536, "environment value is longer than 65536 characters")
  .refine((s) => !s.includes("\0"), "environment value must not contain NUL");

/**
 * The ids of the object a tool acted on ($1, @2, %3). Undescribed: listings
 * drop the descriptions of fields that are always there, and a family merges
 * these with its other members' plain id fields.
 */
export const targetIds = {
  session_id: z.string(),
  window_id: z.string(),
  pane_id: z.string(),
};

/**
 * The ids a target resolved to, returned by every tool that acts on an
 * existing object, and whether the target was left out. Tools whose target
 * is required and exact (kill, respawn) return `targetIds` alone: for them
 * it would always be false.
 */
export const resolvedShape = {
  ...targetIds,
  defaulted: z.boolean().describe("true when no target was given and the active pane of the latest session was used"),
};

/**
 * `changed` of every tool a call can find done already (select, rename, set, resize): false when nothing
 * changed. Undescribed: {@linkcode changeAnswer} puts what already was so first in the answer's text.
 */
export const changedShape = { changed: z.boolean() };

/**
 * The answer of such a tool: its result, and when `changed` is false a first text block "nothing changed:
 * already …" (`already` says what was already so) before the result's JSON, so a model reading the text
 * cannot take a no-op for a change.
 */
export function changeAnswer<O extends { changed: boolean }>(structured: O, already: string): ToolOutput<O> {
  return noted(structured, structured.changed ? undefined : `nothing changed: already ${already}`);
}

/**
 * A result with `note`, when there is one, as a text line before its JSON: what a model must not miss about it
 * (nothing changed, a mode left) where the output schema has no field for it.
 *
 * @example
 * ```ts
 * noted({ pane_id: "%3" }, "pane %3 was in copy-mode: left it, then pasted").content?.length; // 2
 * ```
 */
export function noted<O>(structured: O, note: string | undefined): ToolOutput<O> {
  if (note === undefined) return { structured };
  return {
    structured,
    content: [{ type: "text", text: note }, { type: "text", text: JSON.stringify(structured) }],
  };
}

/**
 * What to do once the tmux server is gone, and why ids held from before must not be used: a new server numbers its
 * sessions, windows and panes from 0 again, so an old id names nothing, or another object.
 */
export const AFTER_SERVER =
  'new (what: "session") starts another, whose ids start again at $0, @0 and %0 (ids from before name other objects)';

/**
 * A note when tmux stored a session name other than the one given (it escapes a `$` before a letter, `_` or `{` as
 * `\$`): a target of the name as given then names nothing.
 */
export function storedNameNote(given: string, stored: string): string | undefined {
  if (given === stored) return undefined;
  return `tmux stored the session name as ${JSON.stringify(stored)}, not ${JSON.stringify(given)} (it escapes ` +
    "some characters): target the session by its id or by the stored name";
}

/** Output schema for tools that only report what they acted on. */
export const resolvedOutput = z.object(resolvedShape);

/** Output schema for tools that report what they acted on and whether it changed. */
export const resolvedChange = z.object({ ...resolvedShape, ...changedShape });

/** `-P -F` row of new-session/new-window/split-window: the created object's ids and names. */
const CREATED = {
  session_id: ["session_id", "id"],
  window_id: ["window_id", "id"],
  pane_id: ["pane_id", "id"],
  session_name: ["session_name", "str"],
  window_name: ["window_name", "str"],
  server_pid: ["pid", "int"],
} as const satisfies RowSpec;

/** The ids and names of a created pane (and its window and session). */
export const createdShape = {
  session_id: z.string().describe("session id, e.g. $1"),
  window_id: z.string().describe("window id, e.g. @2"),
  pane_id: z.string().describe("id of the new pane, e.g. %3: use it as target from now on"),
  session_name: z.string(),
  window_name: z.string(),
};

/** What tmux tells of a new pane's program right after the creation was answered. */
const FATE = {
  pane_id: ["pane_id", "str"],
  dead: ["pane_dead", "str"],
  status: ["pane_dead_status", "int?"],
  signal: ["pane_dead_signal", "int?"],
} as const satisfies RowSpec;

/**
 * Runs a pane-creating command (`new-session -d`, `new-window -d`,
 * `split-window -d` with their own flags) with the pane's directory and
 * command, and returns the created ids and names, the pid of the tmux
 * server that made them (read in the same call: ids start over on a new server)
 * and, when its program (the command or shell) had already ended by the time tmux answered a
 * second question about the pane, a `note` that says so (the pane is dead and
 * kept by remain-on-exit). A pane tmux already closed with its command is
 * refused with a {@linkcode UserError}: its ids name nothing. A command that
 * fails later is not seen (nothing here waits for it).
 */
export async function spawnPane(
  ctx: ToolContext,
  argv: readonly string[],
  cwd: string | undefined,
  command: string | undefined,
): Promise<{ created: z.infer<z.ZodObject<typeof createdShape>>; serverPid: number; note?: string }> {
  const args = [...argv, "-P", "-F", rowFormat(CREATED), ...await paneSpawnArgs(cwd, command, ctx.tmux.remote)];
  const { server_pid, ...created } = parseRow(CREATED, await ctx.tmux.run(args, { signal: ctx.signal }));
  const pane = created.pane_id;
  const what = command === undefined ? "its shell" : "the command";
  // tmux 3.3a's display-message answers for a pane that is gone, with every field empty: hence the id.
  const asked = ["display-message", "-p", "-t", pane, rowFormat(FATE)];
  const fate = await ctx.tmux.run(asked, { signal: ctx.signal }).then(
    (out) => {
      const row = parseRow(FATE, out);
      return row.pane_id === pane ? row : undefined;
    },
    (e) => {
      if (e instanceof TmuxError && (e.kind === "no-server" || /^can't find /.test(e.message))) return undefined;
      throw e;
    },
  );
  if (fate === undefined) {
    const closed = argv[0] === "new-session"
      ? `session ${created.session_id} (pane ${pane})`
      : argv[0] === "new-window"
      ? `window ${created.window_id} (pane ${pane})`
      : `pane ${pane}`;
    throw new UserError(
      `${what} exited at once and tmux closed ${closed} with it, so there is nothing to target: to see its ` +
        `output and exit status, run it with run-command in a shell pane (new without command)`,
    );
  }
  if (fate.dead !== "1") return { created, serverPid: server_pid };
  const how = fate.signal ? `killed by signal ${fate.signal}` : `status ${fate.status ?? "unknown"}`;
  return {
    created,
    serverPid: server_pid,
    note: `${what} of pane ${pane} exited at once (${how}); remain-on-exit keeps the dead pane: read what it ` +
      `printed with capture-pane, restart it with respawn-pane or remove it with kill (what: pane)`,
  };
}

/**
 * The trailing argv that gives a new pane its directory and command:
 * `-c DIR` (checked, `#` escaped: tmux expands formats there) and
 * `-- COMMAND` (one element, so tmux runs it with the shell's `-c`; after `--` it is
 * never read as an option). Put it last. With `remote` (--ssh) the directory is on that host and
 * not checked here.
 */
export async function paneSpawnArgs(
  cwd: string | undefined,
  command: string | undefined,
  remote?: string,
): Promise<string[]> {
  const args: string[] = [];
  if (cwd !== undefined) {
    if (remote === undefined) await requireDirectory(cwd);
    args.push("-c", formatLiteral(cwd));
  }
  if (command !== undefined) args.push("--", command);
  return args;
}

/** The `unset` parameter of set-option and set-environment. */
export const unsetFlag = z.boolean().default(false).describe("remove it instead");

/** For set-option/set-environment: exactly one of `value` and `unset: true`. Returns the argv tail. */
export function valueOrUnset(name: string, value: string | undefined, unset: boolean): string[] {
  if (unset && value !== undefined) throw new UserError("give either value or unset: true, not both");
  if (!unset && value === undefined) throw new UserError(`give a value for ${name} (or unset: true to remove it)`);
  // "--" ends the options: a name or value starting with "-" stays a name or value.
  return unset ? ["-u", "--", name] : ["--", name, value!];
}

/**
 * Renames a session or window by id and returns the name tmux stored, which
 * differs from `name` when tmux escapes characters it will not show as-is
 * (some `$`, characters it cannot display), and whether anything changed: the
 * name, or for a window also tmux's automatic renaming, which a rename stops.
 */
export async function renameObject(
  ctx: ToolContext,
  kind: "session" | "window",
  id: string,
  name: string,
): Promise<{ name: string; changed: boolean }> {
  // A window's first character says whether tmux renamed it automatically; names hold no newline.
  const read: string[] = [
    "display-message",
    "-p",
    "-t",
    id,
    `${kind === "window" ? "#{automatic-rename}" : ""}#{${kind}_name}`,
  ];
  try {
    const out = await ctx.tmux.text([
      ...read,
      COMMAND_SEPARATOR,
      `rename-${kind}`,
      "-t",
      id,
      "--",
      formatLiteral(name),
      COMMAND_SEPARATOR,
      ...read,
    ], { signal: ctx.signal });
    const [before, after] = out.replace(/\n$/, "").split("\n");
    return { name: kind === "window" ? after.slice(1) : after, changed: before !== after };
  } catch (e) {
    if (e instanceof TmuxError && /^duplicate session/.test(e.message)) {
      throw new UserError(`a session named ${JSON.stringify(name)} already exists: choose another name`);
    }
    throw e;
  }
}
