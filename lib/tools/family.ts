/**
 * A family of tools served as one: `kill {what: "pane", target}` instead of
 * kill-pane, kill-window, kill-session and kill-server. Each member stays a
 * declarative entry of its own (its input, output, handler, `exactTarget`);
 * the family tool takes `what` plus the union of the members' parameters,
 * checks the call against the chosen member's own input (so a parameter the
 * member does not take is still an error), and runs that member's handler.
 * One tool with a clear parameter costs a model one listing instead of four.
 *
 * @example
 * ```ts
 * declare const [killPane, killWindow, killSession, killServer]: FamilyDef["members"][string][]; // the entries
 * export default defineFamily({
 *   name: "kill", title: "Kill a tmux object", description: "Kills …",
 *   members: { pane: killPane, window: killWindow, session: killSession, server: killServer },
 * });
 * ```
 */
import { z } from "zod";
import { UserError } from "../errors.ts";
import type { AnyTool } from "./tool.ts";
import { describeIssues, omittable, parameterNames } from "./closest.ts";
import { enter } from "./declared.ts";

export interface FamilyDef {
  name: string;
  title: string;
  description: string;
  /** what → the member tool (its own name is the old tool name, kept for the closest-name error). */
  members: Record<string, AnyTool>;
  /**
   * Descriptions for merged parameters whose wording differs between members (e.g. `target`); used as
   * given, so they say which members take the parameter where not all do.
   */
  describe?: Record<string, string>;
}

const optional = (s: z.ZodType) => s.safeParse(undefined).success;

/** Looks through a default to the schema inside (a member-only parameter must not get a value nobody sent). */
function withoutDefault(s: z.ZodType): z.ZodType {
  const def = (s as unknown as { def: { type: string; innerType?: z.ZodType } }).def;
  return def.type === "default" && def.innerType ? def.innerType : s;
}

/** Whether two schemas accept the same values (their JSON Schemas, descriptions aside, are equal). */
function sameType(a: z.ZodType, b: z.ZodType, io: "input" | "output" = "output"): boolean {
  const plain = (s: z.ZodType) =>
    JSON.stringify(z.toJSONSchema(s, { io, unrepresentable: "any" }), (k, v) => k === "description" ? undefined : v);
  return a === b || plain(a) === plain(b);
}

/** Several members' schemas of one field: string literals and enums (`killed`, `outcome`) become one enum. */
function unionOf(schemas: z.ZodType[]): z.ZodType {
  const values = schemas.map((s) => {
    const j = z.toJSONSchema(s, { io: "output", unrepresentable: "any" }) as { const?: unknown; enum?: unknown[] };
    return j.const !== undefined ? [j.const] : j.enum;
  });
  const strings = values.every((v) => v?.every((x) => typeof x === "string"));
  if (strings) return z.enum([...new Set(values.flat() as string[])] as [string, ...string[]]);
  return z.union(schemas as [z.ZodType, z.ZodType, ...z.ZodType[]]);
}

/** A schema of the same JSON type with no checks of its own (the chosen member checks the value). */
function plainOf(s: z.ZodType): z.ZodType {
  const type = (z.toJSONSchema(s, { io: "input", unrepresentable: "any" }) as { type?: string }).type;
  if (type === "string") return z.string();
  if (type === "boolean") return z.boolean();
  if (type === "number" || type === "integer") return z.number();
  return z.unknown();
}

/**
 * One line saying which parameters each member takes, required ones marked `*` (parameters every member
 * takes alike are left out): the model sees what a `what` needs before its first call, for fewer bytes than a
 * schema per member.
 */
function takes(entries: [string, AnyTool][], input: Record<string, z.ZodType>): string {
  const params = (t: AnyTool) =>
    Object.entries(t.input.shape as Record<string, z.ZodType>).map(([k, s]) => optional(s) ? k : `${k}*`);
  // Left out: taken alike by every member, and as required or optional in the family's own schema.
  const common = params(entries[0][1]).filter((p) =>
    entries.every(([, t]) => params(t).includes(p)) && p.endsWith("*") !== optional(input[p.replace("*", "")])
  );
  const rows = entries.flatMap(([k, t]) => {
    const own = params(t).filter((p) => !common.includes(p));
    return own.length ? [`${k}: ${own.join(" ")}`] : [];
  });
  if (rows.length === 0) return "";
  return `Takes${rows.some((r) => r.includes("*")) ? " (*: required)" : ""}: ${rows.join("; ")}.`;
}

/** Builds the family tool; its tier, toolset and annotations are the members' (which must agree). */
export function defineFamily(fam: FamilyDef): AnyTool {
  const entries = Object.entries(fam.members);
  const [first] = entries.map(([, t]) => t);
  for (const [, t] of entries) {
    if (t.tier !== first.tier || t.toolset !== first.toolset) {
      throw new Error(`family ${fam.name}: members differ in tier or toolset (${t.name})`);
    }
  }
  const keys = entries.map(([k]) => k) as [string, ...string[]];
  const whoHas = (field: string, shape: "input" | "output") =>
    entries.filter(([, t]) => field in t[shape].shape).map(([k]) => k);

  const input: Record<string, z.ZodType> = {
    // The enum says the choices; a description would only repeat them.
    what: z.enum(keys),
  };
  for (const [, t] of entries) {
    for (const [k, s] of Object.entries(t.input.shape as Record<string, z.ZodType>)) {
      if (k in input) continue;
      const owners = whoHas(k, "input");
      const all = owners.map((o) => fam.members[o].input.shape[k] as z.ZodType);
      const kinds = all.filter((x, i) => all.findIndex((y) => sameType(x, y, "input")) === i);
      // Members that check the same name differently (an option name, a variable name): the family admits
      // either, and the chosen member's own input gives the precise error.
      const same = kinds.length === 1;
      const everywhere = owners.length === entries.length && same;
      // Required by every member: required here too, whatever each member checks.
      const needed = owners.length === entries.length && all.every((x) => !optional(x));
      const own = everywhere
        ? s
        : same
        ? withoutDefault(s).optional()
        : needed
        ? plainOf(kinds[0])
        : plainOf(kinds[0]).optional();
      const doc = s.description ?? withoutDefault(s).description;
      // Which members take it is said once, in the description's map (`takes` below).
      const scoped = fam.describe?.[k] ?? doc;
      input[k] = scoped ? own.describe(scoped) : own;
    }
  }

  const output: Record<string, z.ZodType> = {};
  for (const [, t] of entries) {
    for (const k of Object.keys(t.output.shape)) {
      if (k in output) continue;
      const owners = whoHas(k, "output");
      const all = owners.map((o) => fam.members[o].output.shape[k] as z.ZodType);
      const schemas = all.filter((s, i) => all.findIndex((t) => sameType(s, t)) === i);
      const always = owners.length === entries.length && all.every((s) => !optional(s));
      const one = schemas.length === 1 ? schemas[0] : unionOf(schemas);
      const base = withoutDefault(one);
      // A field of every member that some leave out says when in the words of the member that does.
      const own = owners.length === entries.length ? all.find(optional)?.description : undefined;
      output[k] = always
        ? one
        : base.optional().describe(own ?? `${owners.join("/")} only${all.some(optional) ? ", when known" : ""}`);
    }
  }

  const secrets = [...new Set(entries.flatMap(([, t]) => t.secrets ?? []))];
  // Budget previews keep the end of the members' terminal text; members that name different fields have none.
  const textFields = [...new Set(entries.flatMap(([, t]) => t.textField ? [t.textField] : []))];
  // Strict once per member (on its first call, not at start-up), not per call: building a zod schema
  // costs more than checking a call with it.
  const strictInput = new Map<string, z.ZodObject>();
  /** The chosen member's own check of a call: its parsed input, or the one-line error. */
  const check = (what: string, rest: Record<string, unknown>) => {
    const member = fam.members[what];
    const given = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    let strict = strictInput.get(what);
    if (!strict) strictInput.set(what, strict = member.input.strict());
    const parsed = strict.safeParse(given);
    if (parsed.success) return { member, data: parsed.data };
    // A parameter this member does not take, though another does: say what this one takes.
    const takes = parsed.error.issues.some((i) => i.code === "unrecognized_keys" && !i.path.length)
      ? ` (what: ${what} takes ${["what", ...Object.keys(member.input.shape)].join(", ")})`
      : "";
    return {
      member,
      error: `invalid arguments for ${fam.name} (what: ${what}): ${
        describeIssues(
          parsed.error,
          (p) => ["what", ...parameterNames(member.input, p)],
          given,
          (p) => omittable(member.input, p),
        )
      }${takes}`,
    };
  };
  const family: AnyTool = {
    name: fam.name,
    title: fam.title,
    description: [fam.description, takes(entries, input)].filter(Boolean).join(" "),
    toolset: first.toolset,
    tier: first.tier,
    annotations: first.annotations,
    ...(textFields.length === 1 ? { textField: textFields[0] } : {}),
    ...(entries.every(([, t]) => t.smallResult) ? { smallResult: true as const } : {}),
    input: z.object(input),
    output: z.object(output),
    secrets,
    secretsOf: (args) => {
      const what = (args as { what?: unknown } | null)?.what;
      return typeof what === "string" && Object.hasOwn(fam.members, what) ? fam.members[what].secrets : undefined;
    },
    replaces: Object.fromEntries(entries.map(([k, t]) => [t.name, `${fam.name} with what: "${k}"`])),
    // The family's schema checks a parameter as the member that owns it does: given to a member that does not
    // take it (show environment with an option's name), the member's "unknown parameter" is the true error.
    inputError(args) {
      if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
      const { what, ...rest } = args as Record<string, unknown>;
      return typeof what === "string" && Object.hasOwn(fam.members, what) ? check(what, rest).error : undefined;
    },
    async handler(args, ctx) {
      const { what, ...rest } = args as { what: string } & Record<string, unknown>;
      const { member, data, error } = check(what, rest);
      if (error !== undefined) throw new UserError(error);
      return await member.handler(data, await enter(member, data, ctx));
    },
  };
  return family;
}
