/**
 * The server instructions sent with `initialize`: the intended flow, said
 * once for many tools, naming only tools the server serves (its toolsets and
 * --safety tier). Every agent pays for these bytes in every conversation, so
 * the tool-list size test counts them with the tool list
 * (tests/tool_list_sizes.ts): say a thing once, and only what a model needs
 * before its first call; the rest is in the tools' errors and docs/.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config.ts";
 * const text = instructions(parseConfig(["--safety", "readonly"], {}));
 * text.includes("run-command"); // false: not served at readonly
 * ```
 */
import { allowsTier, type Config } from "../config.ts";
import { BUFFER_SEARCH_DOC, exactMatching, NAME_MATCHING, OMITTED_TARGET, SEARCH_DOC } from "../tools/docs.ts";

/** The instructions for a server with this configuration. */
export function instructions(
  config: Pick<Config, "toolsets" | "safety" | "maxWaitMs" | "callBudgetMs" | "hosts">,
): string {
  const has = (t: string) => (config.toolsets as readonly string[]).includes(t);
  const writes = allowsTier(config, "mutating");
  const parts: string[] = [];
  if (has("workspace")) {
    parts.push(
      'Find panes with list {what: "panes"}; use the ids it gives. Targets: %pane, @window, $session, a ' +
        "session name, session:window or session:window.pane (a session or window: its active pane). " +
        `${OMITTED_TARGET} ${NAME_MATCHING}`,
    );
    if (writes) parts.push(exactMatching(allowsTier(config, "destructive")));
  }
  if (config.hosts.length > 1) parts.push(hostsDoc(config.hosts.map((h) => h.name), has, writes));
  if (has("exec")) {
    parts.push(
      (writes ? "At a shell prompt use run-command (cd and export persist). " : "") +
        `Follow output with capture-since; wait instead of polling. A ${writes ? "run-command or " : ""}wait still ` +
        `going after ${config.callBudgetMs / 1000} s answers running with a continue token: call it again with ` +
        "{continue}.",
    );
  }
  if (has("pty") && writes) {
    parts.push("pty-* tools take pty-launch's pty_id.");
  }
  if (has("buffers") || has("workspace")) parts.push(SEARCH_DOC);
  if (has("buffers")) parts.push(BUFFER_SEARCH_DOC);
  // Without show-buffer (the buffers toolset) the full result is not kept: no buffer_id to page.
  parts.push(
    `A result over the token budget becomes a buffered_response (${
      has("buffers") ? "a preview, and a buffer_id to page with show-buffer" : "a preview only"
    }); paging tools cut a page to fit instead and say where to continue.`,
  );
  return parts.join(" ");
}

/**
 * How several hosts are addressed, said for what is served: targets (workspace, exec), listings (workspace), buffer
 * names and pty_ids, and pty-launch (served from mutating up).
 */
function hostsDoc(hosts: string[], has: (t: string) => boolean, writes: boolean): string {
  const first = hosts[0];
  const targets = [
    ...(has("workspace") || has("exec"))
      ? [`HOST::TARGET (${first}::%3) acts on that host, a target without HOST:: on ${first}`]
      : [],
    ...has("workspace") ? ["a listing without a target covers every host, each row's target names its host"] : [],
  ];
  const names = [...has("buffers") ? ["Buffers"] : [], ...has("pty") ? ["pty_ids"] : []];
  const launch = has("pty") && writes ? '; pty-launch {pty_id: "HOST::"} starts on HOST' : "";
  return `Hosts ${hosts.join(", ")}: ${targets.join("; ")}${targets.length && names.length ? ". " : ""}` +
    (names.length ? `${names.join(" and ")}${targets.length ? " too" : ""}: HOST::NAME${launch}` : "") + ".";
}
