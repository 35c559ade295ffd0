/**
 * MCP resources: read-only views of the tmux workspace an agent (or the
 * user, in a client's resource picker) can attach without a tool call.
 *
 * - `tmux://sessions`: every session;
 * - `tmux://sessions/{session}`: one session ($id or name) with its windows and panes;
 * - `tmux://panes/{pane_id}`: one pane's facts;
 * - `tmux://panes/{pane_id}/content`: its newest lines (screen plus scrollback), bounded.
 *
 * Pane ids contain `%`, so in a URI `%3` is written `%253` (listings use that
 * form); `3` works too. A URI naming no existing object, or matching no
 * resource, is a resource-not-found error (-32602).
 *
 * With several hosts (lib/server/hosts.ts) a session or pane is named on its host as a tool target is:
 * `tmux://panes/web::%253` (`::` may be written `%3A%3A`); without a host, the first host's. `tmux://sessions`
 * and the listings of sessions and panes cover every host, and name each one so.
 *
 * @example
 * ```ts
 * declare const [mcp, services]: Parameters<typeof registerResources>; // the SDK's McpServer, the server's services
 * registerResources(mcp, services);
 * // client: resources/read { uri: "tmux://panes/%253/content" }
 * ```
 */
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceTemplate,
} from "../sdk.ts";
import type { Services } from "../tools/tool.ts";
import { quotedForError, UserError } from "../errors.ts";
import { describeSession, getPane, listPanes, listSessions, onePerPane } from "../tmux/panes.ts";
import { capturePane } from "../tmux/capture.ts";
import { TmuxError } from "../tmux/executor.ts";
import { log } from "../log.ts";
import { HOST_NAME, ID_KEYS, qualify, withTarget } from "../tmux/hosts.ts";
import { answerWithin, HOST_ANSWER_MS } from "./hosts.ts";
import { loadRedactor } from "../text/redact.ts";
import { jsonStringTokens, tailStart } from "../budget/preview.ts";
import { getPath, mainArrayPath, setPath } from "../budget/shape.ts";

/**
 * JSON-RPC error code for a resource that does not exist: invalid params, as the 2026-07-28 specification says
 * (2025 clients also accept it; the SDK answers -32002 as this code in both eras).
 */
export const RESOURCE_NOT_FOUND: number = ProtocolErrorCode.InvalidParams;

/** Newest lines returned by a pane's content resource. */
export const CONTENT_LINES = 500;

type Vars = Record<string, string | string[]>;
type Row = Record<string, unknown>;

interface ResourceDef {
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** A fixed URI or an RFC 6570 template. */
  uri: string;
  /** Concrete resources of a template, for resources/list. */
  list?(services: Services, signal: AbortSignal): Promise<Resource[]>;
  read(services: Services, vars: Vars, signal: AbortSignal): Promise<string>;
  /** JSON: the tool call that shows every item of its list, named when the list is cut to the budget. */
  listedBy?: string;
}

const json = (v: unknown) => JSON.stringify(v);

function notFound(uri: string, why: string): ProtocolError {
  // The URI as the client sent it (line breaks and all): quoted, so the message stays one line.
  return new ProtocolError(RESOURCE_NOT_FOUND, `resource not found: ${quotedForError(uri)} (${why})`, { uri });
}

function one(vars: Vars, name: string): string {
  const v = vars[name];
  return Array.isArray(v) ? v.join(",") : v;
}

/** `%253`, `%3` or `3` → `%3`; anything else is no pane id. */
export function paneIdFromUri(raw: string): string | undefined {
  const m = /^(?:%25|%)?(\d{1,9})$/.exec(raw);
  return m ? `%${m[1]}` : undefined;
}

/** `$3` stays an id; a (percent-encoded) name becomes an exact-match target `=name`. */
export function sessionTargetFromUri(raw: string): string | undefined {
  if (/^\$\d{1,9}$/.test(raw)) return raw;
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  // deno-lint-ignore no-control-regex
  return name.length > 0 && name.length <= 256 && !/[\x00-\x1f:]/.test(name) ? `=${name}` : undefined;
}

/** `HOST::` (or `HOST%3A%3A`) in front of a URI's variable: a session name never holds `:`, so it is always a host. */
const HOST_PREFIX = /^([^:%/]*)(?:::|%3A%3A)(.*)$/is;

/**
 * The services of the host a URI's variable names and the rest of it: `web::%253` → web's and `%253`; the first
 * host's without a prefix. A UserError (the resource is not there) for a name that is no host.
 */
function onHost(services: Services, raw: string): { svc: Services; rest: string } {
  const m = HOST_PREFIX.exec(raw);
  if (!m) return { svc: services, rest: raw };
  const names = services.hosts?.names ?? [services.host ?? "local"];
  if (!HOST_NAME.test(m[1]) || !names.includes(m[1])) {
    throw new UserError(`no host is named ${JSON.stringify(m[1])}: the hosts are ${names.join(", ")}`);
  }
  return { svc: services.hosts?.services(m[1]) ?? services, rest: m[2] };
}

function paneVar(vars: Vars): string {
  const id = paneIdFromUri(one(vars, "pane_id"));
  if (!id) throw new UserError("pane_id must be a pane id such as %253 (that is %3) or 3");
  return id;
}

/** A pane's URI; `host` on a server with several, as every resource listed there. */
const paneUri = (paneId: string, host?: string) =>
  `tmux://panes/${host === undefined ? "" : qualify(host, "")}${encodeURIComponent(paneId)}`;

/** Hosts that did not answer, each with its cause: a listing names them, as tool listings do. */
type Unreachable = { host: string; error: string }[];

/**
 * `fn` on every host: the first host alone on a server with one, else each host's answer (`host` names it) with a
 * bounded wait; a host that fails is left out and named in `unreachable` (and the log).
 */
async function everyHost<T>(
  services: Services,
  signal: AbortSignal,
  fn: (svc: Services, host: string | undefined, signal: AbortSignal) => Promise<T[]>,
  label: string,
): Promise<{ items: T[]; unreachable: Unreachable }> {
  const router = services.hosts;
  if (!router?.several) return { items: await fn(services, undefined, signal), unreachable: [] };
  const settled = await Promise.allSettled(router.names.map((h) => {
    const svc = router.services(h);
    return answerWithin<T[]>(
      h,
      HOST_ANSWER_MS,
      signal,
      (s) => noServerIsEmpty(fn(svc, h, s)),
      () => svc.tmux.loggingIn === true,
    );
  }));
  const items: T[] = [];
  const unreachable: Unreachable = [];
  settled.forEach((r, i) => {
    if (r.status === "fulfilled") return items.push(...r.value);
    const error = r.reason instanceof Error ? r.reason.message : String(r.reason);
    unreachable.push({ host: router.names[i], error });
    log("warn", `${label}: host "${router.names[i]}" left out: ${error}`);
  });
  // No host answered: the first one's error, as one host's would be.
  if (settled.every((r) => r.status === "rejected")) throw (settled[0] as PromiseRejectedResult).reason;
  return { items, unreachable };
}

/**
 * A resource's JSON as a server with several hosts gives it: each object in it (and in its lists) with its `host`
 * and the `target` that names it there, as tool results carry them; as it is on a server with one host.
 */
function onItsHost(services: Services, svc: Services, value: Record<string, unknown>): Record<string, unknown> {
  const host = svc.host;
  if (!services.hosts?.several || host === undefined) return value;
  const row = (v: unknown) => v && typeof v === "object" && !Array.isArray(v) ? withTarget(v as Row, host) : v;
  const out: Row = {};
  for (const [k, v] of Object.entries(value)) out[k] = Array.isArray(v) ? v.map(row) : row(v);
  return ID_KEYS.some((k) => k in value) ? withTarget(out, host) : out;
}

const RESOURCES: readonly ResourceDef[] = [
  {
    name: "sessions",
    title: "tmux sessions",
    description: "Every tmux session with ids, names, window counts and activity times (JSON).",
    mimeType: "application/json",
    uri: "tmux://sessions",
    listedBy: `list {"what":"sessions"}`,
    read: async (s, _v, signal) => {
      const { items, unreachable } = await everyHost(
        s,
        signal,
        async (svc, host, own) =>
          (await noServerIsEmpty(listSessions(svc.tmux, own))).map((x) => host === undefined ? x : withTarget(x, host)),
        "tmux://sessions",
      );
      return json(unreachable.length ? { sessions: items, unreachable } : { sessions: items });
    },
  },
  {
    name: "session",
    title: "tmux session",
    description: "One session ($id or name) with its windows and panes (JSON).",
    mimeType: "application/json",
    uri: "tmux://sessions/{session}",
    listedBy: `list {"what":"panes","target":"<the session's id>"}`,
    list: async (s, signal) =>
      (await everyHost(s, signal, async (svc, host, own) =>
        (await listSessions(svc.tmux, own)).map((x) => ({
          uri: `tmux://sessions/${host === undefined ? "" : qualify(host, "")}${x.session_id}`,
          name: `session ${host === undefined ? "" : qualify(host, "")}${x.session_name}`,
          mimeType: "application/json",
        })), "resources/list")).items,
    read: async (s, vars, signal) => {
      const { svc, rest } = onHost(s, one(vars, "session"));
      const target = sessionTargetFromUri(rest);
      if (!target) throw new UserError("session must be a session id such as $1 or a session name");
      return json(onItsHost(s, svc, { ...await describeSession(svc.tmux, target, signal) }));
    },
  },
  {
    name: "pane",
    title: "tmux pane",
    description: "One pane's facts: ids, size, cursor, current command and path, mode, alternate screen (JSON).",
    mimeType: "application/json",
    uri: "tmux://panes/{pane_id}",
    list: async (s, signal) =>
      (await everyHost(
        s,
        signal,
        async (svc, host, own) =>
          onePerPane(await listPanes(svc.tmux, { all: true }, own)).map((p) => ({
            uri: paneUri(p.pane_id, host),
            name: `pane ${host === undefined ? "" : qualify(host, "")}${p.pane_id} ` +
              `(${p.session_name}:${p.window_index}.${p.pane_index} ${p.current_command})`,
            mimeType: "application/json",
          })),
        "resources/list",
      )).items,
    read: async (s, vars, signal) => {
      const { svc, rest } = onHost(s, one(vars, "pane_id"));
      return json(onItsHost(s, svc, { ...(await getPane(svc.tmux, paneVar({ pane_id: rest }), { signal })).pane }));
    },
  },
  {
    name: "pane-content",
    title: "tmux pane content",
    description: `The newest ${CONTENT_LINES} lines of a pane (screen plus scrollback, wrapped lines joined).`,
    mimeType: "text/plain",
    uri: "tmux://panes/{pane_id}/content",
    read: async (s, vars, signal) => {
      const { svc, rest } = onHost(s, one(vars, "pane_id"));
      return (await capturePane(svc.tmux, paneVar({ pane_id: rest }), {
        start: -CONTENT_LINES,
        join: true,
        maxLines: CONTENT_LINES,
        signal,
      })).text;
    },
  },
];

/**
 * Registers the workspace resources and routes resources/read through
 * {@linkcode readResource}, so every miss is a resource-not-found error with
 * our message.
 */
export function registerResources(
  mcp: McpServer,
  services: Services,
  answerTokens: () => Promise<number | undefined> = () => Promise.resolve(undefined),
): void {
  const routes: { def: ResourceDef; template?: ResourceTemplate }[] = [];
  for (const def of RESOURCES) {
    const meta = { title: def.title, description: def.description, mimeType: def.mimeType };
    const read = () => {
      throw new Error("unreachable: resources/read is routed by registerResources");
    };
    if (!def.uri.includes("{")) {
      mcp.registerResource(def.name, def.uri, meta, read);
      routes.push({ def });
      continue;
    }
    const list = def.list;
    const template = new ResourceTemplate(def.uri, {
      list: list && (async (extra) => ({ resources: await listed(def.name, list(services, extra.mcpReq.signal)) })),
    });
    mcp.registerResource(def.name, template, meta, read);
    routes.push({ def, template });
  }
  mcp.server.setRequestHandler("resources/read", async (request, extra) => {
    const uri = request.params.uri;
    for (const { def, template } of routes) {
      const vars = template ? template.uriTemplate.match(uri) : uri === def.uri ? {} : null;
      if (vars) return await readResource(def, services, uri, vars, extra.mcpReq.signal, await answerTokens());
    }
    throw notFound(uri, "no such resource: use resources/list and resources/templates/list");
  });
}

/**
 * A resource over the budget: a pane's content, its newest lines that fit after a first line that says how many older
 * ones were left out and how to read them; JSON, the first items of its list that fit and a note that says how many
 * there are and which call lists them all (an object without a list is not cut).
 */
function fitted(def: ResourceDef, text: string, budget: number): string {
  if (jsonStringTokens(text) <= budget) return text;
  if (def.mimeType === "application/json") return fittedList(text, budget, def.listedBy ?? "the list tool");
  if (def.mimeType !== "text/plain") return text;
  const omitted = (n: number) =>
    `[${n} older lines left out, over this server's ${budget}-token budget: capture-pane pages through them]\n`;
  const start = tailStart(text, budget - jsonStringTokens(omitted(CONTENT_LINES)), jsonStringTokens);
  const left = text.slice(0, start).split("\n").length - 1;
  return omitted(left) + text.slice(start);
}

function fittedList(text: string, budget: number, listedBy: string): string {
  const value = JSON.parse(text) as unknown;
  const path = mainArrayPath(value);
  if (path === undefined) return text;
  const list = getPath(value, path) as unknown[];
  const cut = (keep: number) =>
    JSON.stringify({
      ...setPath(value, path, list.slice(0, keep)) as Record<string, unknown>,
      note: `over this server's ${budget}-token budget: the first ${keep} of ${list.length} ${path.join(".")}; ` +
        `${listedBy} shows them all`,
    });
  // The most items that fit: a cut list only shrinks as items are left out.
  let lo = 0;
  let hi = list.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (jsonStringTokens(cut(mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}

/** No tmux server running means no sessions: an empty list, as the tools answer. */
async function noServerIsEmpty<T>(p: Promise<T[]>): Promise<T[]> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof TmuxError && e.kind === "no-server") return [];
    throw e;
  }
}

/**
 * A template's concrete resources for resources/list. Listing is discovery:
 * without a tmux server there are none, and when tmux fails otherwise (a
 * missing binary, a timeout) the list still shows the rest, the failure goes
 * to the log, and reading a resource reports it.
 */
async function listed(name: string, p: Promise<Resource[]>): Promise<Resource[]> {
  try {
    return await noServerIsEmpty(p);
  } catch (e) {
    if (!(e instanceof TmuxError || e instanceof UserError)) throw e;
    log("warn", `resources/list: no ${name} resources listed: ${e.message}`);
    return [];
  }
}

async function readResource(
  def: ResourceDef,
  services: Services,
  uri: string,
  vars: Vars,
  signal: AbortSignal,
  budget: number | undefined,
): Promise<ReadResourceResult> {
  try {
    const text = await def.read(services, vars, signal);
    // Resources reach the model as tool results do: secrets redacted (--redact), within the response budget.
    const shown = services.config.redact === false ? text : (await loadRedactor()).redact(text);
    return {
      contents: [{ uri, mimeType: def.mimeType, text: budget === undefined ? shown : fitted(def, shown, budget) }],
    };
  } catch (e) {
    // Target errors (unknown/ambiguous) and malformed ids are UserErrors: the object is not there.
    if (e instanceof UserError) throw notFound(uri, e.message);
    // No tmux server: the object is not there either (the message says how to start one).
    if (e instanceof TmuxError && e.kind === "no-server") throw notFound(uri, e.message);
    throw e;
  }
}
