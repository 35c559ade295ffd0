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

function paneVar(vars: Vars): string {
  const id = paneIdFromUri(one(vars, "pane_id"));
  if (!id) throw new UserError("pane_id must be a pane id such as %253 (that is %3) or 3");
  return id;
}

const paneUri = (paneId: string) => `tmux://panes/${encodeURIComponent(paneId)}`;

const RESOURCES: readonly ResourceDef[] = [
  {
    name: "sessions",
    title: "tmux sessions",
    description: "Every tmux session with ids, names, window counts and activity times (JSON).",
    mimeType: "application/json",
    uri: "tmux://sessions",
    listedBy: `list {"what":"sessions"}`,
    read: async (s, _v, signal) => json({ sessions: await noServerIsEmpty(listSessions(s.tmux, signal)) }),
  },
  {
    name: "session",
    title: "tmux session",
    description: "One session ($id or name) with its windows and panes (JSON).",
    mimeType: "application/json",
    uri: "tmux://sessions/{session}",
    listedBy: `list {"what":"panes","target":"<the session's id>"}`,
    list: async (s, signal) =>
      (await listSessions(s.tmux, signal)).map((x) => ({
        uri: `tmux://sessions/${x.session_id}`,
        name: `session ${x.session_name}`,
        mimeType: "application/json",
      })),
    read: async (s, vars, signal) => {
      const target = sessionTargetFromUri(one(vars, "session"));
      if (!target) throw new UserError("session must be a session id such as $1 or a session name");
      return json(await describeSession(s.tmux, target, signal));
    },
  },
  {
    name: "pane",
    title: "tmux pane",
    description: "One pane's facts: ids, size, cursor, current command and path, mode, alternate screen (JSON).",
    mimeType: "application/json",
    uri: "tmux://panes/{pane_id}",
    list: async (s, signal) =>
      onePerPane(await listPanes(s.tmux, { all: true }, signal)).map((p) => ({
        uri: paneUri(p.pane_id),
        name: `pane ${p.pane_id} (${p.session_name}:${p.window_index}.${p.pane_index} ${p.current_command})`,
        mimeType: "application/json",
      })),
    read: async (s, vars, signal) => json((await getPane(s.tmux, paneVar(vars), { signal })).pane),
  },
  {
    name: "pane-content",
    title: "tmux pane content",
    description: `The newest ${CONTENT_LINES} lines of a pane (screen plus scrollback, wrapped lines joined).`,
    mimeType: "text/plain",
    uri: "tmux://panes/{pane_id}/content",
    read: async (s, vars, signal) =>
      (await capturePane(s.tmux, paneVar(vars), {
        start: -CONTENT_LINES,
        join: true,
        maxLines: CONTENT_LINES,
        signal,
      })).text,
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
