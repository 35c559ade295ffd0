/**
 * MCP prompts: short recipes that show an agent the intended flow —
 * discover → act → wait → read — written in terms of the tools this server
 * actually serves (a readonly server gets a recipe without typing steps).
 *
 * @example
 * ```ts
 * declare const mcp: Parameters<typeof registerPrompts>[0]; // the SDK's McpServer
 * registerPrompts(mcp, () => Promise.resolve(new Set(["capture-pane", "run-command"]))); // the served tools' names
 * // client: prompts/get { name: "drive-pane", arguments: { task: "run the tests" } }
 * ```
 */
import { z } from "zod";
import type { GetPromptResult, McpServer } from "../sdk.ts";

/** One step of a recipe: shown when its tool is served, else its fallback (if any). */
interface Step {
  tool: string;
  text: string;
  fallback?: Step;
}

const DRIVE_STEPS: readonly Step[] = [
  {
    tool: "snapshot-pane",
    text: "Discover: call snapshot-pane {target} (or list {what: panes} to choose a pane) and note its pane_id; use " +
      "that id as target from now on. Check current_command, mode and alternate_on: a pager, editor or copy " +
      "mode needs to be left first.",
  },
  {
    tool: "run-command",
    text: "Act: at a shell prompt, call run-command {target: pane_id, command}; it returns the exit code and " +
      "only this command's output.",
    fallback: {
      tool: "send-keys",
      text: "Act: call send-keys {target: pane_id, text: <command>, enter: true}; use keys such as C-c to " +
        "interrupt.",
    },
  },
  {
    tool: "wait",
    text: "Wait: for programs without an exit code call wait {what: text, target, patterns} for the line you " +
      "expect (or wait {what: quiet} until output stops) instead of sleeping or polling.",
    fallback: {
      tool: "snapshot-pane",
      text: "Wait: call snapshot-pane again until the screen shows the program is done (a prompt is back).",
    },
  },
  {
    tool: "capture-pane",
    text: "Read: capture-pane {target, start: -200} returns the newest lines (dropped_lines says what was " +
      "cut); search-panes {query} finds an error message across panes with its line number.",
  },
];

const INSPECT_STEPS: readonly Step[] = [
  { tool: "list", text: 'Call list {what: "sessions"} to see the sessions.' },
  {
    tool: "list",
    text: 'Call list {what: "panes"} (no target) to see every pane with its current_command, current_path and ' +
      "title.",
  },
  {
    tool: "snapshot-pane",
    text: "For panes that matter to the task, call snapshot-pane {target: pane_id} to see their screens.",
  },
  {
    tool: "search-panes",
    text: "To find something you expect on a screen (an error, a URL), call search-panes {query, ignore_case: true}.",
  },
];

function recipe(steps: readonly Step[], served: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  for (let step of steps) {
    while (!served.has(step.tool) && step.fallback) step = step.fallback;
    if (served.has(step.tool)) lines.push(`${lines.length + 1}. ${step.text}`);
  }
  return lines;
}

function message(text: string): GetPromptResult {
  return { messages: [{ role: "user", content: { type: "text", text } }] };
}

/** Registers the recipes, phrased for the tools `served()` names (awaited at prompts/get: the tools load lazily). */
export function registerPrompts(mcp: McpServer, served: () => Promise<ReadonlySet<string>>): void {
  mcp.registerPrompt("drive-pane", {
    title: "Do a task in a tmux pane",
    description: "Recipe for doing a task in a terminal: discover the pane, act, wait for the result, read it.",
    argsSchema: {
      task: z.string().min(1).max(2000).describe("what to do, e.g. run the test suite and report failures"),
      target: z.string().max(256).optional().describe("pane to use (%id, session:window.pane); default: ask tmux"),
    },
  }, async ({ task, target }) =>
    message([
      `Task: ${task}`,
      `Use the tmux tools${target ? ` on pane ${JSON.stringify(target)}` : ""}, in this order:`,
      ...recipe(DRIVE_STEPS, await served()),
      "Report what you did and what the output showed; do not guess output you did not read.",
    ].join("\n")));

  mcp.registerPrompt("inspect-workspace", {
    title: "Survey the tmux workspace",
    description: "Recipe for finding out what runs in tmux: sessions, panes, what each pane shows.",
  }, async () =>
    message([
      "Survey the tmux workspace and summarise what runs where (session, pane id, command, state):",
      ...recipe(INSPECT_STEPS, await served()),
    ].join("\n")));
}
