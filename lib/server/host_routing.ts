/**
 * The routing of a call to the server's hosts (lib/server/hosts.ts makes them): which host(s) a call runs on,
 * and one result from their answers. Loaded with the pipeline, not at start: it reads targets as tmux does.
 *
 * @example
 * ```ts
 * import type { AnyTool, HostRouter } from "../tools/tool.ts";
 * declare const [router, tool]: [HostRouter, AnyTool]; // services.hosts, a tool entry
 * const bindings = bindCall(router, tool, { target: "web::%3" }); // [{ host: "web", args: { target: "%3" }, … }]
 * ```
 */
import { HOST_NAME, HOST_SEPARATOR, ID_KEYS, qualify, splitHostTarget, withTarget } from "../tmux/hosts.ts";
import { targetSchema } from "../tmux/target.ts";
import { EnvironmentError, quotedForError, UserError } from "../errors.ts";
import { TmuxError } from "../tmux/executor.ts";
import type { AnyTool, HostRouter, PageBudget, Services, ToolOutput } from "../tools/tool.ts";
import { runsOn } from "../tools/pty/schemas.ts";
import type { SearchOutput } from "../tools/search_schemas.ts";
import { firstMatches, keepMatches, MAX_BUFFERS, similarityStats } from "../tools/search_page.ts";
import { largestFitting } from "../budget/page.ts";

/** One host's part of a call: its services and the arguments with the host prefix removed. */
export interface Binding {
  host: string;
  services: Services;
  args: Record<string, unknown>;
}

type Args = Record<string, unknown>;
type Structured = Record<string, unknown>;

/** A call that runs on every host when nothing in it names one, and how its answers become one. */
interface FanOut {
  when(args: Args): boolean;
  /** Each host's arguments (default: the call's). */
  args?(args: Args): Args;
  /**
   * The bindings of a call it takes whole, values that name hosts included (default: every host, each with
   * `args(args)`, and only when nothing in the call names a host).
   */
  bind?(router: HostRouter, tool: AnyTool, args: Args): Binding[];
  /**
   * One result from the hosts' answers, each already with its `host` (default: their rows together); `budget`:
   * the call's response budget, for a result that pages natively.
   */
  merge?(args: Args, parts: readonly Structured[], budget?: PageBudget): Structured;
}

/**
 * Each host's search starts at the first match and returns as many as the page ends at; the page of the
 * merged matches (hosts in order, panes in their order) is cut here, so offsets count across hosts.
 */
const SEARCH_PANES: FanOut = {
  when: (a) => a.target === undefined,
  args: (a) => ({ ...a, offset: 0, max_matches: (a.offset as number) + (a.max_matches as number) }),
  merge(a, parts) {
    const offset = a.offset as number;
    const end = offset + (a.max_matches as number);
    let total = 0, searched = 0, seen = 0;
    const panes: Structured[] = [];
    for (const p of parts) {
      total += p.total_matches as number;
      searched += p.panes_searched as number;
      for (const row of p.panes as Structured[]) {
        const matches = (row.matches as unknown[]).filter(() => seen++ >= offset && seen <= end);
        if (matches.length) panes.push({ ...row, matches });
      }
    }
    return { total_matches: total, offset, next_offset: end < total ? end : null, panes_searched: searched, panes };
  },
};

/**
 * Every host's buffers are searched at once, each up to the whole page; the merged matches (hosts in order,
 * buffers in their order) are cut to the page as one search's are, up to the first host with anything left, so
 * each buffer cut resumes at its first match left out and the pages follow the order of one search. Buffer names are `HOST::NAME`, and a `resume_from_offset` of the answer goes on with each
 * host where it stopped; a host with nothing left there searches nothing (its earlier matches are then not in
 * the total, which says so as one host's resumed search does).
 */
const SEARCH_BUFFERS: FanOut = {
  when: (a) => a.buffers === undefined && a.near === undefined,
  bind(router, tool, a) {
    const resume = a.resume_from_offset as Record<string, number> | undefined;
    if (resume === undefined) return router.names.map((h) => bind(router, h, a));
    const per = new Map<string, [string, number][]>(router.names.map((h) => [h, []]));
    for (const [value, offset] of Object.entries(resume)) {
      const field = "resume_from_offset";
      const { host = router.names[0], rest } = splitAddress(router, tool, {
        field,
        kind: "buffer",
        value,
        set: (x) => x,
      });
      per.get(host)!.push([rest, offset]);
    }
    return router.names.map((h) => bind(router, h, { ...a, resume_from_offset: Object.fromEntries(per.get(h)!) }));
  },
  merge(a, parts, budget) {
    const each = parts as unknown as (SearchOutput & { host: string })[];
    const sum = (f: (p: SearchOutput) => number) => each.reduce((n, p) => n + f(p), 0);
    const { host: _, ...first } = each[0];
    const matches = each.flatMap((p) => p.matches);
    const joined: SearchOutput = {
      ...first,
      buffers: each.flatMap((p) => p.buffers),
      total_matches: sum((p) => p.total_matches),
      total_is_partial: each.some((p) => p.total_is_partial),
      buffers_scanned: sum((p) => p.buffers_scanned),
      bytes_scanned_total: sum((p) => p.bytes_scanned_total),
      matches,
      truncated_buffers: each.flatMap((p) => p.truncated_buffers),
      resume_from_offset: Object.fromEntries(each.flatMap((p) => Object.entries(p.resume_from_offset))),
      ...(first.include_similarity ? similarityStats(matches) : {}),
      ...(each.some((p) => p.truncated_by_budget) ? { truncated_by_budget: true as const } : {}),
      ...(each.some((p) => p.skipped_buffers) ? { skipped_buffers: each.flatMap((p) => p.skipped_buffers ?? []) } : {}),
    };
    // A host with matches or bytes left ends the page, as a buffer does in one search: pages follow scan order.
    const open = each.findIndex((p) => Object.keys(p.resume_from_offset).length > 0);
    const upTo = open < 0 ? matches.length : each.slice(0, open + 1).reduce((n, p) => n + p.matches.length, 0);
    let page = keepMatches(joined, Math.min(a.max_matches as number, upTo));
    if (budget && !budget.fits({ structured: page })) {
      const k = largestFitting(1, page.matches.length, (n) => budget.fits({ structured: firstMatches(page, n) }));
      page = firstMatches(page, k);
      // Each host fit its own page; together their buffer names (and queries echoed) can be over it alone.
      if (!budget.fits({ structured: page })) {
        throw new UserError(
          `one page naming the ${page.buffers.length} buffers searched on every host is over this tool's token ` +
            `budget: search one host's buffers a few at a time, as buffers: ["HOST::NAME", …]`,
        );
      }
    }
    const left = Object.keys(page.resume_from_offset).length;
    if (left > MAX_BUFFERS) {
      throw new UserError(
        `the hosts' buffers left to search (${left}) are more than one search resumes (${MAX_BUFFERS}): ` +
          `search each host's buffers with buffers: ["HOST::NAME", …]`,
      );
    }
    return page;
  },
};

/** Listings (and searches) that cover every host when nothing in the call names one. */
const FAN_OUT: Readonly<Record<string, FanOut>> = {
  "list": {
    when: (a) => a.target === undefined && ["panes", "windows", "sessions", "server"].includes(a.what as string),
    // The server facts are one object per host: a row each.
    merge: (a, parts) => a.what === "server" ? { servers: parts } : together(a, parts),
  },
  "list-panes": { when: (a) => a.target === undefined },
  "list-windows": { when: (a) => a.target === undefined },
  "list-sessions": { when: (a) => a.target === undefined },
  "list-buffers": { when: () => true },
  "pty-list-sessions": { when: () => true },
  "search-panes": SEARCH_PANES,
  "search-buffer": SEARCH_BUFFERS,
};

/**
 * A result's buffer names as a later call gives them (`HOST::NAME`) on a server with several hosts, where a
 * name without a host is the first host's: the pages of a search go on where they came from.
 */
const HANDED_OUT: Readonly<Partial<Record<string, (s: Structured, host: string) => Structured>>> = {
  // A bare name would be the first host's: show-buffer of another host's row would read a namesake there.
  "list-buffers": (s, host) => ({
    ...s,
    buffers: (s.buffers as Structured[]).map((b) => ({ ...b, name: qualify(host, b.name as string) })),
  }),
  "search-buffer": (s, host) => {
    const o = s as unknown as SearchOutput;
    const q = (name: string) => qualify(host, name);
    const out: SearchOutput = {
      ...o,
      buffers: o.buffers.map(q),
      matches: o.matches.map((m) => ({ ...m, buffer: q(m.buffer) })),
      truncated_buffers: o.truncated_buffers.map(q),
      ...(o.skipped_buffers ? { skipped_buffers: o.skipped_buffers.map(q) } : {}),
      resume_from_offset: Object.fromEntries(Object.entries(o.resume_from_offset).map(([k, v]) => [q(k), v])),
      ...(o.window ? { window: { ...o.window, buffer: q(o.window.buffer) } } : {}),
    };
    return out as unknown as Structured;
  },
};

/**
 * Lists that name a listing's columns (`fields`, or the compact form of many panes): every host's are the same (the
 * `host`/`target` columns included), so a merge keeps one, not each host's in a row.
 */
const COLUMN_LISTS = new Set(["columns", "omitted_fields"]);

/** The default merge: each list the rows of every host in order; other fields (and the columns) the first host's. */
function together(_args: Args, parts: readonly Structured[]): Structured {
  return Object.assign({}, ...parts.toReversed().map(scalars), rows(parts));
}

/** `part` with `fields` added to every row of its lists. */
function onRows(part: Structured, fields: Structured): Structured {
  const row = (r: unknown) => r && typeof r === "object" ? { ...r, ...fields } : r;
  return Object.fromEntries(Object.entries(part).map(([k, v]) => [k, Array.isArray(v) ? v.map(row) : v]));
}

/** A part's fields that are not lists of rows (the first host's win when merged), `host` left out. */
function scalars(part: Structured): Structured {
  return Object.fromEntries(
    Object.entries(part).filter(([k, v]) => k !== "host" && (!Array.isArray(v) || COLUMN_LISTS.has(k))),
  );
}

/** The parts' lists of rows, each one list of every part's rows in host order. */
function rows(parts: readonly Structured[]): Structured {
  const out: Record<string, unknown[]> = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      if (Array.isArray(v) && !COLUMN_LISTS.has(k)) out[k] = [...(out[k] ?? []), ...v];
    }
  }
  return out;
}

/** How a field names its host: a tmux target, a pty session id, continue token or cursor, or a paste-buffer name. */
type Kind = "target" | "id" | "buffer";

/** One value of a call that may carry `HOST::`, and how to put it back without the prefix. */
interface Address {
  field: string;
  kind: Kind;
  value: string;
  set(args: Args, value: string): Args;
}

/**
 * The values of `args` that may name a host: `target`, `pty_id`, `continue`, capture-since's `cursor` and a buffer
 * tool's buffer names.
 */
function addresses(tool: AnyTool, args: Args): Address[] {
  const out: Address[] = [];
  const top = (field: string, kind: Kind) => {
    const value = args[field];
    if (typeof value === "string") out.push({ field, kind, value, set: (a, v) => ({ ...a, [field]: v }) });
  };
  top("target", "target");
  top("pty_id", "id");
  top("continue", "id");
  top("cursor", "id");
  if (tool.toolset !== "buffers") return out;
  for (const f of ["name", "from", "to"]) top(f, "buffer");
  const list = args.buffers;
  if (Array.isArray(list)) {
    list.forEach((value, i) => {
      if (typeof value !== "string") return;
      out.push({
        field: `buffers[${i}]`,
        kind: "buffer",
        value,
        set: (a, v) => ({ ...a, buffers: (a.buffers as string[]).map((x, j) => j === i ? v : x) }),
      });
    });
  }
  const near = args.near as Args | undefined;
  if (near && typeof near.buffer === "string") {
    out.push({
      field: "near.buffer",
      kind: "buffer",
      value: near.buffer,
      set: (a, v) => ({ ...a, near: { ...(a.near as Args), buffer: v } }),
    });
  }
  const resume = args.resume_from_offset;
  if (resume && typeof resume === "object") {
    for (const key of Object.keys(resume)) {
      out.push({
        field: "resume_from_offset",
        kind: "buffer",
        value: key,
        set: (a, v) => {
          const { [key]: offset, ...others } = a.resume_from_offset as Record<string, number>;
          return { ...a, resume_from_offset: { ...others, [v]: offset } };
        },
      });
    }
  }
  return out;
}

/** Whether a call must be routed although the server has one host: a value in it names a host. */
export function namesHost(tool: AnyTool, args: Args): boolean {
  return addresses(tool, args).some((a) => a.value.includes(HOST_SEPARATOR));
}

/**
 * `value` split at its host prefix, checked as its kind is. A buffer name may hold `::` itself: there the
 * text before the first `::` must be a host of the server, so a name is never half read as a host.
 */
function splitAddress(router: HostRouter, tool: AnyTool, a: Address): { host?: string; rest: string } {
  const at = a.value.indexOf(HOST_SEPARATOR);
  if (at < 0) return { rest: a.value };
  const host = a.value.slice(0, at);
  const rest = a.value.slice(at + HOST_SEPARATOR.length);
  const shown = `${a.field} ${JSON.stringify(a.value)}`;
  if (a.kind === "buffer") {
    if (!HOST_NAME.test(host) || !router.names.includes(host)) {
      const first = router.names[0];
      throw new UserError(
        `${shown}: ${quotedForError(host)} before "::" is not a host (hosts: ${router.names.join(", ")}); a ` +
          `buffer name that holds "::" is written with its host first: ${JSON.stringify(qualify(first, a.value))}`,
      );
    }
    if (rest === "") throw new UserError(`${shown} names no buffer: write ${host}::NAME`);
    return { host, rest };
  }
  let split;
  try {
    split = splitHostTarget(a.value);
  } catch (e) {
    throw new UserError((e as Error).message.replace(/^target/, a.field));
  }
  if (a.kind === "target" && rest !== "") {
    const ok = targetSchema.safeParse(rest);
    if (!ok.success) throw new UserError(`${shown}: ${ok.error.issues[0].message}`);
  }
  // "HOST::" alone: the host's default pane, or a new pty session there; no existing session is unnamed.
  if (a.kind === "id" && rest === "" && !(a.field === "pty_id" && tool.name === "pty-launch")) {
    throw new UserError(`${shown} names nothing on ${split.host}: give it as the answer that handed it out did`);
  }
  return { host: split.host, rest };
}

/**
 * The hosts a call runs on: the one a value in it names (`HOST::` removed; values without a prefix go to the
 * same host), every host for a listing that names none, else the first host. Throws a UserError for an unknown
 * host, for values naming two hosts, or for a value left invalid by the split.
 */
export function bindCall(router: HostRouter, tool: AnyTool, args: Args): Binding[] {
  const fan = FAN_OUT[tool.name];
  if (router.several && fan?.bind && fan.when(args)) return fan.bind(router, tool, args);
  let host: string | undefined;
  let named: string | undefined;
  let out = args;
  for (const a of addresses(tool, args)) {
    const split = splitAddress(router, tool, a);
    if (split.host === undefined) continue;
    if (host !== undefined && split.host !== host) {
      throw new UserError(
        `${named} names host "${host}" and ${a.field} names "${split.host}": a call acts on one host ` +
          `(to move something between hosts, read it from one and write it to the other)`,
      );
    }
    host = split.host;
    named = a.field;
    // An empty target is no target: the host's default pane. An empty pty_id asks for a new session there.
    out = split.rest === "" ? (({ [a.field]: _, ...others }) => others)(out) : a.set(out, split.rest);
  }
  if (host !== undefined) return [bind(router, host, out)];
  if (router.several && killsServer(tool, args)) {
    throw new UserError(
      `kill {what: "server"} names no host and this server has several: give target "HOST::" ` +
        `(hosts: ${router.names.join(", ")}) for the one whose tmux server to kill`,
    );
  }
  if (router.several && fan?.when(args)) {
    const each = fan.args?.(args) ?? args;
    return router.names.map((h) => bind(router, h, each));
  }
  return [bind(router, router.names[0], args)];
}

/** Whether a call's answer is no one host's, so it is not labelled with the host it was bound to. */
function onNoHost(tool: AnyTool, args: Args): boolean {
  return tool.name === "batch" || tool.name === "list-hosts" || (tool.name === "list" && args.what === "hosts");
}

/** Whether a call kills a whole tmux server: with several hosts it must say which. */
function killsServer(tool: AnyTool, args: Args): boolean {
  return tool.name === "kill-server" || (tool.name === "kill" && args.what === "server");
}

function bind(router: HostRouter, host: string, args: Args): Binding {
  return { host, services: router.services(host), args };
}

/** A pty tool's result says where its session runs (`runs_on`), whatever the number of hosts. */
export function placed(tool: AnyTool, services: Services, out: ToolOutput<unknown>): ToolOutput<unknown> {
  const s = out.structured;
  if (tool.toolset !== "pty" || !s || typeof s !== "object" || Array.isArray(s) || "runs_on" in s) return out;
  return { ...out, structured: { ...s, runs_on: runsOn(services) } };
}

/**
 * Rows given as `columns` + `rows` (a listing's `fields`, or its compact form) with a `host` column and, when an
 * id is among the columns, a `target` column in front: `row` objects get the same from {@linkcode withTarget}.
 */
function columnsWithHost(s: Structured, host: string): Structured {
  const columns = s.columns, rows = s.rows;
  if (!Array.isArray(columns) || !Array.isArray(rows) || columns.includes("host")) return s;
  const at = ID_KEYS.map((k) => columns.indexOf(k)).find((i) => i >= 0);
  const id = (r: unknown[]) => typeof r[at!] === "string" ? qualify(host, r[at!] as string) : null;
  return {
    ...s,
    columns: at === undefined ? ["host", ...columns] : ["host", "target", ...columns],
    rows: rows.map((r) => Array.isArray(r) ? (at === undefined ? [host, ...r] : [host, id(r), ...r]) : r),
  };
}

/** The `columns` (and `omitted_fields`) one host answered with, when another answered with row objects instead. */
interface ColumnsForm {
  columns: string[];
  omitted?: unknown[];
}

/**
 * The columns form of a listing when its hosts answered in both forms (one host's panes many enough to be compact,
 * another's few enough for every fact): the merged answer then gives every host's rows in those columns, not some
 * as objects and some as rows beside them. Undefined when the hosts agree.
 */
function columnsForm(parts: readonly unknown[]): ColumnsForm | undefined {
  const given = parts.filter((p): p is Structured => !!p && typeof p === "object" && !Array.isArray(p));
  const withColumns = given.find((p) => Array.isArray(p.columns) && Array.isArray(p.rows));
  if (!withColumns || given.every((p) => Array.isArray(p.columns))) return undefined;
  const omitted = withColumns.omitted_fields;
  return { columns: withColumns.columns as string[], omitted: Array.isArray(omitted) ? omitted : undefined };
}

/** `part`'s lists of row objects as `form`'s rows (a part already in columns stays as it is). */
function inColumns(part: Structured, form: ColumnsForm): Structured {
  if (Array.isArray(part.columns)) return part;
  const out: Structured = {};
  const rows: unknown[][] = [];
  for (const [k, v] of Object.entries(part)) {
    const objects = Array.isArray(v) && v.length > 0 && v.every((r) => r && typeof r === "object" && !Array.isArray(r));
    if (objects) rows.push(...(v as Structured[]).map((r) => form.columns.map((c) => r[c] ?? null)));
    else if (!(Array.isArray(v) && v.length === 0)) out[k] = v;
  }
  return { ...out, columns: form.columns, rows, ...(form.omitted ? { omitted_fields: form.omitted } : {}) };
}

/** A structured result with `host`, and `target` on itself and on each row of its lists that has an id. */
function qualified(structured: unknown, host: string): unknown {
  if (!structured || typeof structured !== "object" || Array.isArray(structured)) return structured;
  const out: Structured = {};
  for (const [k, v] of Object.entries(columnsWithHost(structured as Structured, host))) {
    out[k] = Array.isArray(v)
      ? v.map((r) => r && typeof r === "object" && !Array.isArray(r) ? withTarget(r, host) : r)
      : v;
  }
  return withTarget(out, host);
}

/**
 * The call a secret prompt's warning tells the model to make (`request-input {target: "%3"}`,
 * lib/exec/warnings.ts): its pane or pty session is named by its bare id, which on a server with several hosts is
 * the FIRST host's — the user would type the secret into another machine's pane of that id.
 */
const ADVICE = /request-input \{(target|pty_id): "([^"\\]*)"\}/g;

/** `text` with every {@linkcode ADVICE} naming its pane or session on `host`. */
function adviceOnHost(text: string, host: string): string {
  return text.replace(
    ADVICE,
    (all, field: string, id: string) =>
      id.includes(HOST_SEPARATOR) ? all : `request-input {${field}: "${qualify(host, id)}"}`,
  );
}

/** `value` with the messages of its `warnings` lists (at any depth) naming `host` in their advice. */
function warningsOnHost(value: unknown, host: string): unknown {
  if (Array.isArray(value)) return value.map((v) => warningsOnHost(v, host));
  if (!value || typeof value !== "object") return value;
  const warning = (w: unknown) =>
    w && typeof w === "object" && typeof (w as Structured).message === "string"
      ? { ...w, message: adviceOnHost((w as Structured).message as string, host) }
      : w;
  return Object.fromEntries(
    Object.entries(value).map((
      [k, v],
    ) => [k, k === "warnings" && Array.isArray(v) ? v.map(warning) : warningsOnHost(v, host)]),
  );
}

/** Tools whose text blocks besides their JSON are warnings of ours (never a screen or a buffer's bytes). */
const PLAIN_WARNINGS = new Set(["pty-send-keys"]);

/**
 * A result's content blocks with their advice naming `host`: a block that is a result's JSON has its warnings
 * rewritten (and is left byte for byte otherwise); text that came from a pane or a buffer is never touched.
 */
function contentOnHost(tool: AnyTool, content: NonNullable<ToolOutput<unknown>["content"]>, host: string) {
  return content.map((block) => {
    if (block.type !== "text") return block;
    if (PLAIN_WARNINGS.has(tool.name)) return { ...block, text: adviceOnHost(block.text, host) };
    if (!block.text.startsWith("{")) return block;
    let parsed: unknown;
    try {
      parsed = JSON.parse(block.text);
    } catch {
      return block;
    }
    if (JSON.stringify(parsed) !== block.text) return block;
    return { ...block, text: JSON.stringify(warningsOnHost(parsed, host)) };
  });
}

/**
 * An error about what a call named on one host (an unknown or ambiguous target, no such buffer, pty session or
 * session) quotes the name bare, and the ids it tells the model to use are bare too: on a server with several
 * hosts a bare name is the FIRST host's, so the advice followed would act on another machine's pane of that id.
 */
const QUOTED_NAME =
  /^((?:unknown |ambiguous )?target |no buffer named |no pty session |no session is named )"((?:[^"\\]|\\.)*)"/;
const ID_ADVICE = /\b(use|pass) an id( such as | \()([%@$]\d+(?:(?:, | or )[%@$]\d+)*)/g;

/** A host's error with its names and advice naming `host` (a run refused at a password prompt says which call). */
function errorOnHost(e: unknown, host: string): unknown {
  if (!(e instanceof Error)) return e;
  const onHost = (ids: string) => ids.replace(/[%@$]\d+/g, (id) => qualify(host, id));
  e.message = adviceOnHost(e.message, host)
    .replace(
      QUOTED_NAME,
      (_all, lead: string, quoted: string) =>
        `${lead}${JSON.stringify(qualify(host, JSON.parse(`"${quoted}"`) as string))}`,
    )
    .replace(ID_ADVICE, (_all, verb: string, how: string, ids: string) => `${verb} a row's target${how}${onHost(ids)}`);
  return e;
}

/**
 * The error of a call to every host that none answered: each host's cause, named, where they differ (the first
 * host's alone would hide why the others failed). One cause shared by all (a refused argument) is given as it is,
 * and so is an error that is no one-line message of ours (an internal error is reported as such).
 */
function noHostAnswered(bindings: readonly Binding[], failed: readonly PromiseRejectedResult[]): unknown {
  const reasons = failed.map((r) => r.reason);
  const told = (e: unknown): e is Error =>
    e instanceof UserError || e instanceof TmuxError || e instanceof EnvironmentError;
  if (!reasons.every(told) || reasons.every((e) => e.message === reasons[0].message)) return reasons[0];
  const each = reasons.map((e, i) => `${bindings[i].host}: ${e.message}`);
  return new EnvironmentError(`no host answered (list {what: "hosts"} shows their state): ${each.join(" | ")}`);
}

/**
 * The result of a call made on `bindings`: one host's as it is (with `host` and `target`s when the server has
 * several), or the answers of every host that answered as one (a listing's
 * rows together, each with its `host` and `target`), plus `unreachable` for those that did not. Throws the
 * first error when no host answered.
 */
export function mergeOutputs(
  router: HostRouter,
  tool: AnyTool,
  args: Args,
  bindings: readonly Binding[],
  settled: readonly PromiseSettledResult<ToolOutput<unknown>>[],
  budget?: PageBudget,
): ToolOutput<unknown> {
  const own = HANDED_OUT[tool.name];
  if (bindings.length === 1) {
    const r = settled[0];
    const host = bindings[0].host;
    // A batch's calls were each routed, and each result says its own host; the host list is every host's: neither
    // runs on one host.
    if (onNoHost(tool, args)) {
      if (r.status === "rejected") throw r.reason;
      return r.value;
    }
    if (r.status === "rejected") throw router.several ? errorOnHost(r.reason, host) : r.reason;
    const out = placed(tool, bindings[0].services, r.value);
    if (!router.several) return out;
    // A result whose content is its JSON is rewritten with it; text content (a screen) stays as it is.
    const plain = out.content === undefined;
    const q = warningsOnHost(qualified(out.structured, host), host);
    const structured = own && q && typeof q === "object" ? own(q as Structured, host) : q;
    return plain ? { structured } : { structured, content: contentOnHost(tool, out.content!, host) };
  }
  const ok = settled.findIndex((r) => r.status === "fulfilled");
  if (ok < 0) throw noHostAnswered(bindings, settled as PromiseRejectedResult[]);
  const parts: Structured[] = [];
  const unreachable: { host: string; error: string }[] = [];
  const form = columnsForm(settled.map((r) => r.status === "fulfilled" ? r.value.structured : undefined));
  settled.forEach((r, i) => {
    const host = bindings[i].host;
    if (r.status === "rejected") {
      unreachable.push({ host, error: r.reason instanceof Error ? r.reason.message : String(r.reason) });
      return;
    }
    const q = qualified(
      form ? inColumns(r.value.structured as Structured, form) : r.value.structured,
      host,
    ) as Structured;
    const part = own ? own(q, host) : q;
    // Rows of several hosts' pty sessions each say where they run; one value on top would be the first host's.
    parts.push(tool.toolset === "pty" ? onRows(part, { runs_on: runsOn(bindings[i].services) }) : part);
  });
  const merged = (FAN_OUT[tool.name]?.merge ?? together)(args, parts, budget);
  return { structured: unreachable.length ? { ...merged, unreachable } : merged };
}
