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
import { qualify, splitHostTarget } from "../tmux/hosts.ts";
import { targetSchema } from "../tmux/target.ts";
import { UserError } from "../errors.ts";
import type { AnyTool, HostRouter, Services, ToolOutput } from "../tools/tool.ts";

/** One host's part of a call: its services and the arguments with the host prefix removed. */
export interface Binding {
  host: string;
  services: Services;
  args: Record<string, unknown>;
}

/** `list` members (and their own entries) that list every host when no target narrows them. */
const FAN_OUT: Readonly<Record<string, (args: Record<string, unknown>) => boolean>> = {
  "list": (a) => a.what === "panes" || a.what === "windows" || a.what === "sessions",
  "list-panes": () => true,
  "list-windows": () => true,
  "list-sessions": () => true,
};

/**
 * The hosts a call runs on: the one its `target` names (prefix removed), every host for a listing without a
 * target, else the first host. Throws a UserError for an unknown host or a target left invalid by the split.
 */
export function bindCall(router: HostRouter, tool: AnyTool, args: Record<string, unknown>): Binding[] {
  const target = args.target;
  if (typeof target === "string") {
    let split;
    try {
      split = splitHostTarget(target);
    } catch (e) {
      throw new UserError((e as Error).message);
    }
    if (split.host === undefined) return [bind(router, router.names[0], args)];
    const rest = split.target === "" ? undefined : split.target;
    if (rest !== undefined) {
      const ok = targetSchema.safeParse(rest);
      if (!ok.success) throw new UserError(`target ${JSON.stringify(target)}: ${ok.error.issues[0].message}`);
    }
    const { target: _, ...others } = args;
    return [bind(router, split.host, rest === undefined ? others : { ...others, target: rest })];
  }
  if (router.several && target === undefined && FAN_OUT[tool.name]?.(args)) {
    return router.names.map((h) => bind(router, h, args));
  }
  return [bind(router, router.names[0], args)];
}

function bind(router: HostRouter, host: string, args: Record<string, unknown>): Binding {
  return { host, services: router.services(host), args };
}

const ID_KEYS = ["pane_id", "window_id", "session_id"] as const;

/** `row` with `host` and, when it has an id, `target` (its most specific id on `host`). */
function withTarget(row: Record<string, unknown>, host: string): Record<string, unknown> {
  const id = ID_KEYS.map((k) => row[k]).find((v): v is string => typeof v === "string");
  return id === undefined ? { host, ...row } : { host, target: qualify(host, id), ...row };
}

/** A structured result with `host`, and `target` on itself and on each row of its lists that has an id. */
function qualified(structured: unknown, host: string): unknown {
  if (!structured || typeof structured !== "object" || Array.isArray(structured)) return structured;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(structured as Record<string, unknown>)) {
    out[k] = Array.isArray(v)
      ? v.map((r) => r && typeof r === "object" && !Array.isArray(r) ? withTarget(r, host) : r)
      : v;
  }
  return withTarget(out, host);
}

/**
 * The result of a call made on `bindings`: one host's as it is (with `host` and `target`s when the server has
 * several), or a listing's rows from every host that answered, each with its `host` and `target`, plus
 * `unreachable` for those that did not. Throws the first error when no host answered.
 */
export function mergeOutputs(
  router: HostRouter,
  bindings: readonly Binding[],
  settled: readonly PromiseSettledResult<ToolOutput<unknown>>[],
): ToolOutput<unknown> {
  if (bindings.length === 1) {
    const r = settled[0];
    if (r.status === "rejected") throw r.reason;
    if (!router.several) return r.value;
    // A result whose content is its JSON is rewritten with it; text content (a screen) stays as it is.
    const plain = r.value.content === undefined;
    const structured = qualified(r.value.structured, bindings[0].host);
    return plain ? { structured } : { structured, content: r.value.content };
  }
  const ok = settled.findIndex((r) => r.status === "fulfilled");
  if (ok < 0) throw (settled[0] as PromiseRejectedResult).reason;
  const merged: Record<string, unknown> = {};
  const unreachable: { host: string; error: string }[] = [];
  settled.forEach((r, i) => {
    const host = bindings[i].host;
    if (r.status === "rejected") {
      unreachable.push({ host, error: r.reason instanceof Error ? r.reason.message : String(r.reason) });
      return;
    }
    const one = qualified(r.value.structured, host) as Record<string, unknown>;
    for (const [k, v] of Object.entries(one)) {
      if (k === "host") continue;
      if (Array.isArray(v)) merged[k] = [...(merged[k] as unknown[] ?? []), ...v];
      else if (!(k in merged)) merged[k] = v;
    }
  });
  return { structured: unreachable.length ? { ...merged, unreachable } : merged };
}
